// The web build's CLI (Node.js): no YAML library is built for it, so a config file is read as
// JSON only (the same keys); the native CLI reads YAML with yaml-cpp (yaml_config.cpp).
#include "yaml_config.hpp"

namespace vramfit {

Result<json> yaml_to_json(const std::string& text) {
  json j = parse_json(text);
  if (j.is_discarded() || !j.is_object()) {
    return make_error("yaml.bad_value", "config", "config: this build reads the config as a JSON object only (the native CLI reads YAML)");
  }
  return j;
}

}  // namespace vramfit
