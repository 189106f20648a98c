// A request JSON for any engine, answered as JSON: the engines of estimate_json, and those the
// page's module does not link (SGLang, Ollama: the CLI's --request and the JavaScript API's
// estimate() answer them through here; the app calls estimate_json alone, so its module stays
// as it is).
#pragma once
#include <string>

#include "io/json.hpp"

namespace vramfit {

// engine "sglang" or "ollama".
bool is_separate_engine_request(const json& request);
std::string estimate_any_engine_json(const std::string& request_text);

}  // namespace vramfit
