#pragma once
// vramfit::json, the JSON value every reader, writer and front end uses, in every build:
// nlohmann/json (Debian's nlohmann-json3-dev). Parse untrusted text with
// json::parse(text, nullptr, false) and check is_discarded(); check a value's type before
// get<T>(): the page's module is built without exceptions, where a throw aborts.
#include <nlohmann/json.hpp>

namespace vramfit {
using json = nlohmann::json;
}
