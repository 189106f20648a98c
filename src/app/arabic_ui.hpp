// The interface in Arabic: links Arabic's message catalog and the text transform that draws
// it (see ui_language.hpp). Called by the programs that have room for it.
#pragma once

namespace vramfit {

void enable_arabic_ui();

}  // namespace vramfit
