// The page's module: estimate_json's engines (generic, llama.cpp, vLLM, Transformers).
#include "api_estimate.hpp"

#include "report/estimate.hpp"

namespace vramfit {

std::string api_estimate(const std::string& request_json) { return estimate_json(request_json); }

}  // namespace vramfit
