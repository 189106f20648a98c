#pragma once
// vramfit::json, the JSON value every reader, writer and front end uses: nlohmann::json in
// native builds; in the web build (VRAMFIT_SMALL_JSON, set by CMakeLists.txt for Emscripten)
// SmallJson, which reads and writes the same text at a fraction of the page's size (see
// io/small_json.hpp). The wasm test suite and scripts/compare_native_wasm.sh hold the two
// builds to the same results.
#ifdef VRAMFIT_SMALL_JSON
#include "io/small_json.hpp"
namespace vramfit {
using json = SmallJson;
}
#else
#include <nlohmann/json.hpp>
namespace vramfit {
using json = nlohmann::json;
}
#endif
