// The JavaScript API of the core-only WebAssembly module:
//   const vramfit = await createVramfit();
//   const report = JSON.parse(estimate(vramfit, JSON.stringify(request)));   // web/vramfit-api.js
// Strings cross the boundary as UTF-8 in wasm memory; the caller frees the result.
#include <cstdlib>
#include <cstring>
#include <string>

#include "api/estimate.hpp"
#include "catalog/catalog.hpp"

namespace {
char* copy_out(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}
}  // namespace

extern "C" {

char* vramfit_estimate(const char* request_json) {
  return copy_out(vramfit::estimate_json(request_json ? request_json : ""));
}

char* vramfit_catalog() {
  return copy_out(vramfit::catalog_to_json(vramfit::builtin_catalog()).dump());
}

// Header bytes of a dropped file (the page reads only File.slice(0, n)); sizes as doubles
// because JavaScript numbers are doubles and files can pass 4 GiB.
char* vramfit_read_model_file(const char* kind, const uint8_t* data, double size, double file_size, const char* name) {
  return copy_out(vramfit::read_model_file_json(kind ? kind : "", data, static_cast<int64_t>(size),
                                                static_cast<int64_t>(file_size), name ? name : "")
                      .dump());
}

void vramfit_free(char* pointer) { std::free(pointer); }

}  // extern "C"
