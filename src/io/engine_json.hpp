// The engines' parts of the request JSON ("llama.cpp" settings, a GGUF file's weights by layer),
// linked into a program only when it enables them (report/engines.hpp enable_engines() does, for
// the CLI, the JavaScript API and the desktop app); without them request_from_json answers an
// engine request with an error that says so.
#pragma once

namespace vramfit {

void enable_engine_json();

}  // namespace vramfit
