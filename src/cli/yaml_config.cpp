#include "yaml_config.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cstdlib>
#include <regex>

namespace vramfit {

namespace {

// PyYAML's implicit resolvers (resolver.py: bool, null, int, float), decimal forms.
json plain_scalar(const std::string& s) {
  static const std::regex kTrue("yes|Yes|YES|true|True|TRUE|on|On|ON"), kFalse("no|No|NO|false|False|FALSE|off|Off|OFF");
  static const std::regex kNull("~|null|Null|NULL|"), kInt("[-+]?(0|[1-9][0-9_]*)");
  static const std::regex kFloat("[-+]?([0-9][0-9_]*)?\\.[0-9_]*([eE][-+][0-9]+)?");
  if (std::regex_match(s, kTrue)) return true;
  if (std::regex_match(s, kFalse)) return false;
  if (std::regex_match(s, kNull)) return nullptr;
  std::string digits;
  for (char c : s) if (c != '_' && c != '+') digits += c;
  if (std::regex_match(s, kInt)) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && end == digits.data() + digits.size()) return v;
    return s;  // beyond int64: kept as the text
  }
  if (std::regex_match(s, kFloat) && s.find_first_of("0123456789") != std::string::npos) {
    char* end = nullptr;  // strtod: correctly rounded in glibc and in the WebAssembly CLI's musl alike
    const double v = std::strtod(digits.c_str(), &end);
    if (end == digits.c_str() + digits.size()) return v;
  }
  return s;
}

json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json j = json::object();
      for (const auto& item : node) j[item.first.as<std::string>()] = to_json(item.second);
      return j;
    }
    case YAML::NodeType::Sequence: {
      json j = json::array();
      for (const auto& item : node) j.push_back(to_json(item));
      return j;
    }
    case YAML::NodeType::Scalar:
      return node.Tag() == "!" ? json(node.Scalar()) : plain_scalar(node.Scalar());
    default:
      return nullptr;
  }
}

}  // namespace

Result<json> yaml_to_json(const std::string& text) {
  try {
    const YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) return make_error("yaml.bad_value", "config", "config: expected key: value lines (a YAML mapping)");
    return to_json(root);
  } catch (const YAML::Exception& e) {
    return make_error("yaml.bad_value", "config", "config: line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

}  // namespace vramfit
