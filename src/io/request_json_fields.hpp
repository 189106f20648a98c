// Reading a request object field by field, each error naming its field ("overhead.margin_fraction:
// must be between 0 and 0.3"); shared by io/request_json.cpp and io/engine_json.cpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit::request_fields {

struct Fields {
  const json& object;
  std::string path;  // "" at the top, "overhead." inside an object
  std::optional<Error> error;

  std::string name(const char* key) const { return path + key; }
  bool has(const char* key) const { return object.contains(key); }

  void fail(const std::string& id, const std::string& field, const std::string& what) {
    if (!error) error = make_error(id, field, field + ": " + what);
  }

  // Every key of the object is one of [first, last) (a list, or names gathered from a table).
  void only(const char* const* first, const char* const* last) {
    for (auto it = object.begin(); it != object.end(); ++it) {
      // Keys starting with "_" are annotations ("_about", "_expect"), ignored.
      if (!it.key().empty() && it.key()[0] == '_') continue;
      // An empty key is named as JSON writes it, "", so that the error still names a field.
      if (std::find(first, last, it.key()) == last) fail("request.unknown_field", path + (it.key().empty() ? "\"\"" : it.key()), "unknown field");
    }
  }
  void only(std::initializer_list<const char*> keys) { only(keys.begin(), keys.end()); }

  int64_t integer(const char* key, int64_t fallback, int64_t min, int64_t max) {
    if (!has(key)) return fallback;
    const json& v = object.at(key);
    int64_t x = 0;
    if (v.is_number_unsigned()) {
      x = v.get<uint64_t>() > uint64_t(max) ? max + 1 : static_cast<int64_t>(v.get<uint64_t>());
    } else if (v.is_number_integer()) {
      x = v.get<int64_t>();
    } else if (v.is_number_float() && std::isfinite(v.get<double>()) && v.get<double>() == std::floor(v.get<double>()) &&
               std::fabs(v.get<double>()) < 9.0e15) {
      x = static_cast<int64_t>(v.get<double>());
    } else {
      fail("request.wrong_type", name(key), std::string("must be an integer (got ") + v.dump() + ")");
      return fallback;
    }
    if (x < min || x > max) {
      fail("request.out_of_range", name(key),
           "must be between " + std::to_string(min) + " and " + std::to_string(max) + " (got " + v.dump() + ")");
      return fallback;
    }
    return x;
  }

  double number(const char* key, double fallback, double min, double max) {
    if (!has(key)) return fallback;
    const json& v = object.at(key);
    if (!v.is_number() || !std::isfinite(v.get<double>())) {
      fail("request.wrong_type", name(key), std::string("must be a number (got ") + v.dump() + ")");
      return fallback;
    }
    const double x = v.get<double>();
    if (x < min || x > max) {
      fail("request.out_of_range", name(key), "must be between " + json(min).dump() + " and " + json(max).dump() +
                                                  " (got " + v.dump() + ")");
      return fallback;
    }
    return x;
  }

  bool boolean(const char* key, bool fallback) {
    if (!has(key)) return fallback;
    const json& v = object.at(key);
    if (!v.is_boolean()) { fail("request.wrong_type", name(key), "must be true or false (got " + v.dump() + ")"); return fallback; }
    return v.get<bool>();
  }

  std::string text(const char* key, const std::string& fallback) {
    if (!has(key)) return fallback;
    const json& v = object.at(key);
    if (!v.is_string()) { fail("request.wrong_type", name(key), "must be a string (got " + v.dump() + ")"); return fallback; }
    return v.get<std::string>();
  }

  // A nested object; null when absent. Reports a type error when present but not an object.
  const json* sub(const char* key) {
    if (!has(key)) return nullptr;
    if (!object.at(key).is_object()) {
      fail("request.wrong_type", name(key), "must be an object (got " + object.at(key).dump() + ")");
      return nullptr;
    }
    return &object.at(key);
  }
};

}  // namespace vramfit::request_fields
