#pragma once
// vramfit::json, the JSON value every reader, writer and front end uses, in every build:
// nlohmann/json (Debian's nlohmann-json3-dev). Parse untrusted text with parse_json(text) and
// check is_discarded(); check a value's type before get<T>(): the page's module is built
// without exceptions, where a throw aborts.
#include <string>

#include <nlohmann/json.hpp>

namespace vramfit {
using json = nlohmann::json;

// json::parse(text, nullptr, false) through nlohmann's SAX interface with its own DOM builder
// (json_sax_dom_parser), as json::parse does when no callback is given: the same values and the
// same rejections (a discarded value), but json::parse also compiles its callback parser, which
// no caller uses - 8 KB of the page's module.
inline json parse_json(const std::string& text) {
  json result;
  nlohmann::detail::json_sax_dom_parser<json> builder(result, /*allow_exceptions=*/false);
  if (!json::sax_parse(text, &builder) || builder.is_errored()) return json(json::value_t::discarded);
  return result;
}
// The same over a range of bytes (a safetensors header inside a buffer).
template <typename Iterator>
json parse_json(Iterator first, Iterator last) {
  json result;
  nlohmann::detail::json_sax_dom_parser<json> builder(result, /*allow_exceptions=*/false);
  if (!json::sax_parse(first, last, &builder) || builder.is_errored()) return json(json::value_t::discarded);
  return result;
}
}  // namespace vramfit
