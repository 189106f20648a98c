// libFuzzer: a request JSON for what the page's module does not answer (SGLang, Ollama, and the
// training frameworks Megatron-LM, DeepSpeed, torchtune and LLaMA-Factory) -> estimate_any_engine_json, as the
// CLI's --request and the estimator module's estimate() run it. The answer is JSON; an error names
// its field; an answer's own "request", run again, gives the same answer.
#include "fuzz_common.hpp"
#include "report/engine_requests.hpp"
#include "report/framework_requests.hpp"

namespace {

// Inputs kept fast: presets only (the config reader has its own fuzzer), a bounded GPU count.
bool small_enough(const vramfit::json& request) {
  if (request.contains("model") && request["model"].is_object() && request["model"].contains("config")) return false;
  for (const char* key : {"gpu_count"}) {
    if (request.contains(key) && (!request[key].is_number_integer() || request[key].get<int64_t>() > 64)) return false;
  }
  if (request.contains("gpus") && (!request["gpus"].is_array() || request["gpus"].size() > 16)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const json request = json::parse(text, nullptr, false);
  if (request.is_discarded() || !request.is_object()) return 0;
  if (!is_separate_engine_request(request) && !is_separate_framework_request(request)) return 0;  // fuzz_request_json's
  if (!small_enough(request)) return 0;
  const json answer = json::parse(estimate_any_engine_json(text), nullptr, false);
  fuzz::require(answer.is_object(), "the answer is not a JSON object");
  if (answer.contains("error")) {
    const json& e = answer["error"];
    fuzz::require(e.contains("field") && e["field"].is_string() && !e["field"].get<std::string>().empty(), "an error names no field");
    return 0;
  }
  fuzz::require(answer.contains("request"), "an answer without its request");
  const json again = json::parse(estimate_any_engine_json(answer["request"].dump()), nullptr, false);
  fuzz::require(again == answer, "the answer's request, run again, gives another answer");
  return 0;
}
