#include "config_reader.hpp"

#include <cmath>

namespace vramfit {

bool ConfigReader::has(const char* key) {
  asked.push_back(key);
  return config.contains(key) && !config.at(key).is_null();
}

void ConfigReader::fail(const std::string& field, const std::string& what) {
  if (!error) error = make_error("config.invalid_field", field, origin + ": " + field + " " + what);
}

int64_t ConfigReader::integer(const char* key, int64_t fallback) {
  if (!has(key)) return fallback;
  const json& v = config.at(key);
  if (v.is_number_integer()) {
    const int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(kMaxConfigDimension)
                          ? kMaxConfigDimension + 1
                          : v.get<int64_t>();
    if (x < 0) { fail(key, "must not be negative (got " + std::to_string(x) + ")"); return fallback; }
    if (x > kMaxConfigDimension) { fail(key, "is too large (" + v.dump() + ")"); return fallback; }
    return x;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) { fail(key, "must be a finite number"); return fallback; }
    if (d < 0 || d != std::floor(d) || d > static_cast<double>(kMaxConfigDimension)) {
      fail(key, "must be a non-negative integer (got " + v.dump() + ")");
      return fallback;
    }
    return static_cast<int64_t>(d);
  }
  fail(key, std::string("must be a number (got ") + v.type_name() + ")");
  return fallback;
}

bool ConfigReader::boolean(const char* key, bool fallback) {
  if (!has(key)) return fallback;
  const json& v = config.at(key);
  if (!v.is_boolean()) { fail(key, std::string("must be true or false (got ") + v.type_name() + ")"); return fallback; }
  return v.get<bool>();
}

std::string ConfigReader::text(const char* key, const std::string& fallback) {
  if (!has(key)) return fallback;
  const json& v = config.at(key);
  if (!v.is_string()) { fail(key, std::string("must be a string (got ") + v.type_name() + ")"); return fallback; }
  return v.get<std::string>();
}

void ConfigReader::take_error(const ConfigReader& other) {
  if (other.error && !error) error = other.error;
}

}  // namespace vramfit
