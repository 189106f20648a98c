// safetensors header reader: 8-byte little-endian header length, then a JSON object of
// tensors {dtype, shape, data_offsets}. Also model.safetensors.index.json (sharded models).
// Spec: huggingface/safetensors README ("Format").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace vramfit {

struct SafetensorsLimits {
  static constexpr int64_t max_header_bytes = int64_t(100) << 20;  // the format's own limit (100 MB)
  static constexpr size_t max_tensors = 1 << 20;
  static constexpr size_t max_dims = 8;
  static constexpr int64_t max_elements = int64_t(1) << 50;
};

struct SafetensorsTensor {
  std::string name;
  std::string dtype;          // "BF16", "F8_E4M3", "I32", ...
  std::vector<int64_t> shape;
  int64_t bytes = 0;          // data_offsets end - begin (checked against shape x dtype)
  int64_t elements() const;
};

struct SafetensorsFile {
  std::vector<SafetensorsTensor> tensors;
  int64_t header_bytes = 0;   // 8 + JSON length
  int64_t data_bytes = 0;     // sum of tensor bytes
};

// Bytes per element of a safetensors dtype, or 0 if unknown. Sub-byte types (F4) return 0.
int64_t safetensors_dtype_bytes(const std::string& dtype);

// `data`/`size`: at least the first 8 + header-length bytes; `file_size` (0 = unknown)
// bounds the data offsets.
Result<SafetensorsFile> read_safetensors(const uint8_t* data, int64_t size, const std::string& origin,
                                         int64_t file_size = 0);
// How many leading bytes read_safetensors needs (8 + header length), or an error.
Result<int64_t> safetensors_header_size(const uint8_t* data, int64_t size, const std::string& origin);

struct SafetensorsIndex {
  int64_t total_size = 0;                  // metadata.total_size: bytes of all tensors
  std::vector<std::string> tensor_names;   // weight_map keys
  std::vector<std::string> shards;         // distinct weight_map values
};
Result<SafetensorsIndex> read_safetensors_index(const std::string& text, const std::string& origin);

}  // namespace vramfit
