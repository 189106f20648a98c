// The request as JSON (schema v1, documented in README.md). Strict: unknown fields, wrong
// types and out-of-range values are errors that name the field; nothing is clamped.
#pragma once
#include <optional>
#include <string>

#include "io/json.hpp"

#include "core/request.hpp"
#include "core/result.hpp"

namespace vramfit {

Result<Request> request_from_json(const json& json);
Result<Request> request_from_text(const std::string& text);
json request_to_json(const Request& request);

}  // namespace vramfit
