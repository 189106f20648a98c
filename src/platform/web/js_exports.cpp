// The JavaScript API of the core-only WebAssembly module:
//   const vramfit = await createVramfit();
//   const report = JSON.parse(estimate(vramfit, JSON.stringify(request)));   // site/vramfit-api.js
// Strings cross the boundary as UTF-8 in wasm memory; the caller frees the result.
#include <cstdlib>
#include <cstring>
#include <string>

#include "report/command_request.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"
#include "catalog/catalog.hpp"
#include "io/header_reads.hpp"

namespace {
char* copy_out(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}
}  // namespace

extern "C" {

char* vramfit_estimate(const char* request_json) {
  vramfit::enable_engines();  // the JavaScript API answers for the engines too
  return copy_out(vramfit::estimate_json(request_json ? request_json : ""));
}

char* vramfit_catalog() {
  return copy_out(vramfit::catalog_to_json(vramfit::builtin_catalog()).dump());
}

// Header bytes of a dropped file (the page reads only File.slice(0, n)); the kind comes from
// the name. Sizes as doubles because JavaScript numbers are doubles and files can pass 4 GiB.
char* vramfit_read_model_file(const char* name, const uint8_t* data, double size, double file_size) {
  vramfit::enable_engines();  // a LoRA adapter file is read into llama.cpp's settings
  return copy_out(vramfit::read_model_file_json(name ? name : "", data, static_cast<int64_t>(size),
                                                static_cast<int64_t>(file_size))
                      .dump());
}

// The next slice to read (io/header_reads.hpp, the policy of the CLI and the desktop too):
// previous 0 gives the first length; after that a longer length, or 0 to stop.
double vramfit_next_header_read(const char* name, double file_size, double previous, const uint8_t* prefix,
                                int header_runs_on) {
  return static_cast<double>(vramfit::next_header_read(vramfit::model_file_kind(name ? name : ""),
                                                       static_cast<int64_t>(file_size), static_cast<int64_t>(previous),
                                                       prefix, header_runs_on != 0));
}

// A pasted engine command line as request fields (report/command_request.hpp).
char* vramfit_read_command(const char* line) {
  return copy_out(vramfit::command_request_json(line ? line : "", vramfit::builtin_catalog()).dump());
}

void vramfit_free(char* pointer) { std::free(pointer); }

}  // extern "C"
