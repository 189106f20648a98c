// The JavaScript API of the core-only WebAssembly module:
//   const vramfit = await createVramfit();
//   const report = JSON.parse(estimate(vramfit, JSON.stringify(request)));   // web/vramfit-api.js
// Strings cross the boundary as UTF-8 in wasm memory; the caller frees the result.
// A model by its Hub id: vramfit_hub_begin, then vramfit_hub_answer per fetch (readHubModel).
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "report/command_request.hpp"
#include "api_estimate.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"
#include "catalog/catalog.hpp"
#include "io/header_reads.hpp"
#include "io/hub_ref.hpp"
#include "report/hub_reading.hpp"

namespace {
char* copy_out(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out) std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}
// The Hub readings in progress (report/hub_reading.hpp), by handle: the JavaScript side makes
// each GET with fetch() and hands the answer back.
std::map<int, std::unique_ptr<vramfit::HubReading>>& hub_readings() {
  static std::map<int, std::unique_ptr<vramfit::HubReading>> readings;
  return readings;
}

// The reading's next step: {"fetch": {url, file, first, last}} or {"model": fragment} or {"error"},
// with its progress.
std::string hub_step(int handle, const vramfit::HubReading& reading) {
  vramfit::json step = {{"handle", handle},
                        {"progress", {{"files_done", reading.files_done()},
                                      {"files_planned", reading.files_planned()},
                                      {"bytes_fetched", reading.bytes_fetched()}}}};
  if (const vramfit::HubFetch* f = reading.next()) {
    step["fetch"] = {{"url", f->url}, {"file", f->file}, {"first", f->first}, {"last", f->last}};
  } else if (reading.result()) {
    step["model"] = vramfit::hub_model_fragment_json(*reading.result());
  } else {
    step["error"] = vramfit::error_to_json(reading.result().error())["error"];
  }
  return step.dump();
}
}  // namespace

extern "C" {

char* vramfit_estimate(const char* request_json) {
  return copy_out(vramfit::api_estimate(request_json ? request_json : ""));
}

char* vramfit_catalog() {
  return copy_out(vramfit::catalog_to_json(vramfit::builtin_catalog()).dump());
}

// Header bytes of a dropped file (the page reads only File.slice(0, n)); the kind comes from
// the name. Sizes as doubles because JavaScript numbers are doubles and files can pass 4 GiB.
char* vramfit_read_model_file(const char* name, const uint8_t* data, double size, double file_size) {
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

// A model by its Hub id (io/hub_ref.hpp: an id, @revision, :quant, a Hub URL) from `endpoint`:
// the first step (hub_step above), or {"error"} naming the field (hf, endpoint).
char* vramfit_hub_begin(const char* id, const char* endpoint, int token_given) {
  auto ref = vramfit::parse_hub_ref(id ? id : "");
  if (!ref) return copy_out(vramfit::error_to_json(ref.error()).dump());
  auto where = vramfit::normalize_hub_endpoint(endpoint && *endpoint ? endpoint : vramfit::kDefaultHubEndpoint);
  if (!where) return copy_out(vramfit::error_to_json(where.error()).dump());
  static int next_handle = 0;
  const int handle = ++next_handle;
  auto& reading = hub_readings()[handle];
  reading = std::make_unique<vramfit::HubReading>(*ref, *where, vramfit::builtin_catalog().formats, token_given != 0);
  return copy_out(hub_step(handle, *reading));
}

// The answer to the step's fetch: the status (0: none came), the body, and the headers and the
// client's words as JSON {content_type, error_code, error_message, retry_after, transport_error}.
char* vramfit_hub_answer(int handle, int status, const uint8_t* body, double body_size, const char* headers_json) {
  auto it = hub_readings().find(handle);
  if (it == hub_readings().end()) {
    return copy_out(vramfit::error_to_json(vramfit::make_error("hub.no_reading", "hf", "hf: no reading in progress")).dump());
  }
  vramfit::HubAnswer a;
  a.status = status;
  a.body.assign(reinterpret_cast<const char*>(body), static_cast<size_t>(body_size));
  const vramfit::json h = vramfit::parse_json(headers_json ? headers_json : "{}");
  auto text = [&](const char* key) {
    return h.is_object() && h.contains(key) && h[key].is_string() ? h[key].get<std::string>() : std::string();
  };
  a.content_type = text("content_type");
  a.error_code = text("error_code");
  a.error_message = text("error_message");
  a.retry_after = text("retry_after");
  a.transport_error = text("transport_error");
  it->second->answer(a);
  return copy_out(hub_step(handle, *it->second));
}

void vramfit_hub_end(int handle) { hub_readings().erase(handle); }

void vramfit_free(char* pointer) { std::free(pointer); }

}  // extern "C"
