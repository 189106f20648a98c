// The estimator module: every engine, SGLang and Ollama included (report/engine_requests).
#include "api_estimate.hpp"

#include "report/engine_requests.hpp"

namespace vramfit {

std::string api_estimate(const std::string& request_json) { return estimate_any_engine_json(request_json); }

}  // namespace vramfit
