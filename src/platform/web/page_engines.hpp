// Which of the page's two app modules this is (CMakeLists.txt vramfit_page_app): vramfit_app
// links engines_off.cpp (no engines: the page's size budget), vramfit_app_engines links
// engines_on.cpp (the engines, their inputs and results: src/app/engine_view; and the interface in
// Arabic: src/app/arabic_ui).
#pragma once

namespace vramfit {

// Enables the engines where this module has them; false where it has not.
bool enable_page_engines();

}  // namespace vramfit
