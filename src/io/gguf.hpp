// GGUF header reader (versions 2 and 3): metadata key-values and tensor infos, without
// reading tensor data. Spec: ggml/docs/gguf.md. Works on a prefix of the file: if the
// header runs past the bytes given, the error is gguf.truncated with the size to try next.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace vramfit {

// Limits on what a header may claim before anything is allocated for it.
struct GgufLimits {
  static constexpr int64_t max_header_bytes = int64_t(256) << 20;  // tokenizer arrays of 262k tokens fit
  static constexpr uint64_t max_kv_count = 1 << 16;
  static constexpr uint64_t max_tensor_count = 1 << 20;
  static constexpr uint64_t max_key_length = 1 << 16;
  static constexpr uint64_t max_string_length = 1 << 24;
  static constexpr uint64_t max_array_length = uint64_t(1) << 28;
  static constexpr uint32_t max_dims = 4;        // GGML_MAX_DIMS
  static constexpr int64_t max_elements = int64_t(1) << 50;
  static constexpr int max_array_nesting = 2;
};

struct GgufValue {
  enum class Kind { integer, real, boolean, string, array } kind = Kind::integer;
  int64_t integer = 0;
  double real = 0;
  bool boolean = false;
  std::string string;
  uint64_t array_length = 0;           // arrays: length; small numeric arrays keep values
  std::vector<int64_t> array_integers;
};

struct GgufTensorInfo {
  std::string name;
  std::vector<int64_t> dims;  // ne[0] (row length), ne[1], ...
  int ggml_type = 0;
  uint64_t offset = 0;
  int64_t elements() const;
};

struct GgufFile {
  uint32_t version = 0;
  std::map<std::string, GgufValue> metadata;
  std::vector<GgufTensorInfo> tensors;
  int64_t header_bytes = 0;  // where tensor data starts (after alignment)
  int64_t file_size = 0;     // the whole file's size when the reader was told it (0: unknown)

  const GgufValue* find(const std::string& key) const;
  int64_t integer_or(const std::string& key, int64_t fallback) const;
  std::string string_or(const std::string& key, const std::string& fallback) const;
};

// `file_size`: the whole file's size when known (0 if not), for the truncated message.
Result<GgufFile> read_gguf(const uint8_t* data, int64_t size, const std::string& origin, int64_t file_size = 0);

}  // namespace vramfit
