// libFuzzer: request JSON text -> estimate -> report; an accepted request must round-trip.
// The engines (llama.cpp, vLLM, Transformers) are linked in, as in the CLI and the JavaScript API.
#include "fuzz_common.hpp"
#include "io/request_json.hpp"
#include "report/engines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  auto request = request_from_text(std::string(reinterpret_cast<const char*>(data), size));
  if (!request) return 0;
  auto again = request_from_json(request_to_json(*request));
  fuzz::require(again.ok(), "an accepted request failed to re-read");
  fuzz::require(request_to_json(*again) == request_to_json(*request), "request JSON does not round-trip");
  if (request->has_custom_model && count_parameters(request->custom_model) > (int64_t(1) << 44)) return 0;
  if (request->has_custom_model && request->custom_model.layers > 512) return 0;
  auto report = estimate(*request, builtin_catalog());
  if (report) {
    fuzz::require(report->memory.total >= 0, "negative total");
    (void)report_to_json(*report).dump();
  }
  return 0;
}
