// The JavaScript API of the core-only WebAssembly module:
//   const vramfit = await createVramfit();
//   const report = JSON.parse(estimate(vramfit, JSON.stringify(request)));   // web/vramfit-api.js
// Strings cross the boundary as UTF-8 in wasm memory; the caller frees the result.
#include <cstdlib>
#include <cstring>
#include <string>

#include "api/estimate.hpp"
#include "catalog/catalog.hpp"

extern "C" {

char* vramfit_estimate(const char* request_json) {
  const std::string report = vramfit::estimate_json(request_json ? request_json : "");
  char* out = static_cast<char*>(std::malloc(report.size() + 1));
  if (out) std::memcpy(out, report.c_str(), report.size() + 1);
  return out;
}

char* vramfit_catalog() {
  static const std::string catalog = vramfit::catalog_to_json(vramfit::builtin_catalog()).dump();
  char* out = static_cast<char*>(std::malloc(catalog.size() + 1));
  if (out) std::memcpy(out, catalog.c_str(), catalog.size() + 1);
  return out;
}

void vramfit_free(char* pointer) { std::free(pointer); }

}  // extern "C"
