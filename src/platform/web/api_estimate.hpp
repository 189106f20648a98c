// estimate() of the JavaScript API: which engines a module answers is chosen by what it links.
// The page's module (api_estimate_page.cpp) answers estimate_json's engines; the estimator
// module for other pages (api_estimate_all.cpp) SGLang's and Ollama's as well.
#pragma once
#include <string>

namespace vramfit {

std::string api_estimate(const std::string& request_json);

}  // namespace vramfit
