// One JSON object of a config.json (the whole file, its text_config, rope_scaling, vision_config,
// quantization_config) read key by key: each read names its key in the error it gives, and every
// key asked for is remembered, so an unknown architecture's error can list the keys not placed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/json.hpp"

#include "core/result.hpp"

namespace vramfit {

inline constexpr int64_t kMaxConfigDimension = int64_t(1) << 40;  // no real model comes near this

// Its lookups are out of line (config_reader.cpp): read_hf_config makes some 150 of them, and
// inlined copies would cost the page's module kilobytes for no measurable speed.
struct ConfigReader {
  const json& config;
  std::string origin;
  std::optional<Error> error;
  std::vector<const char*> asked = {};  // every key looked up (the others were not placed)

  bool has(const char* key);
  // The first failure is kept: "<origin>: <field> <what>".
  void fail(const std::string& field, const std::string& what);
  // A non-negative integer; JSON floats with an integral value (4096.0) are accepted.
  int64_t integer(const char* key, int64_t fallback);
  bool boolean(const char* key, bool fallback);
  std::string text(const char* key, const std::string& fallback);
  // Keeps `other`'s first error if this reader has none.
  void take_error(const ConfigReader& other);
};

}  // namespace vramfit
