// Requests for every engine and framework: SGLang's, Ollama's and the training frameworks'
// (Megatron-LM, DeepSpeed, torchtune) to their own estimates, the rest to estimate_json.
#include "report/engine_requests.hpp"

#include "report/engine_ollama.hpp"
#include "report/engine_sglang.hpp"
#include "report/framework_requests.hpp"

namespace vramfit {

bool is_separate_engine_request(const json& request) {
  if (!request.is_object() || !request.contains("engine") || !request.at("engine").is_string()) return false;
  const std::string engine = request.at("engine").get<std::string>();
  return engine == "sglang" || engine == "ollama";
}

std::string estimate_any_engine_json(const std::string& text) {
  const json request = json::parse(text, nullptr, false);
  const bool framework = is_separate_framework_request(request);
  if (!framework && !is_separate_engine_request(request)) return estimate_json(text);
  return guard_exceptions(
      [&]() -> std::string {
        const Catalog& catalog = builtin_catalog();
        if (framework) return framework_request_to_json(request, catalog).dump();
        if (request.at("engine") == "ollama") {
          auto answer = estimate_ollama_request(request, catalog);
          return answer ? ollama_report_to_json(*answer).dump() : error_to_json(answer.error()).dump();
        }
        auto answer = estimate_sglang_request(request, catalog);
        return answer ? sglang_report_to_json(*answer).dump() : error_to_json(answer.error()).dump();
      },
      [](const char* what) { return error_to_json(make_error("internal", "", std::string("internal error: ") + what)).dump(); });
}

}  // namespace vramfit
