// A YAML config file (LLaMA-Factory's training YAML) as a JSON object, read by yaml-cpp with
// PyYAML's rules for plain scalars (yaml.safe_load, YAML 1.1, as llamafactory-cli reads it):
// true/false/yes/no/on/off are booleans, null/~/nothing is null, digits are integers, a number
// with a dot is a float (1e-4 without one stays a string, as PyYAML leaves it); quoted scalars
// are strings.
#pragma once
#include <string>

#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

Result<json> yaml_to_json(const std::string& text);

}  // namespace vramfit
