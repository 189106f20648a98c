// How weights and the KV cache are stored: element layouts (storage types) and the formats
// a user picks (which layout each tensor gets). The tables themselves are data
// (data/weight_formats.json); this file only knows how to apply them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.hpp"

namespace vramfit {

// One element layout. A tensor with rows of row_length elements takes, per copy:
//   ceil(blocks x block_bits / 8) + super blocks + per-row and per-tensor extras.
struct StorageType {
  std::string id;                  // "q4_k", "f16", "nf4_dq", "gptq_int4"
  std::string label;               // "Q4_K"
  int64_t block_elements = 1;      // elements sharing one block (1 for plain dtypes)
  int64_t block_bits = 0;          // bits per block, scales included (Q4_K: 144 x 8)
  bool blocks_span_rows = false;   // bitsandbytes blocks run over the flattened tensor
  int64_t super_block_blocks = 0;  // bnb double quant: one fp32 absmax per 256 blocks
  int64_t super_block_bytes = 0;
  int64_t per_tensor_bytes = 0;    // fp8 scale, bnb code tables
  int64_t per_input_row_bytes = 0; // GPTQ g_idx (int32 per input feature)
  int64_t per_output_row_bytes = 0;// per-channel scales
  int ggml_type = -1;              // GGUF type id, -1 if none
  // Grouped formats (GPTQ/AWQ): block_elements is the group size, chosen per request.
  bool grouped = false;
  int64_t bits = 0;                // weight bits in a grouped format
  int64_t group_overhead_bits = 0; // scale + zero per group and output column
  std::string note;

  // Bytes per element as a fraction (block_bits / 8 / block_elements), for display.
  double bytes_per_element() const {
    return static_cast<double>(block_bits) / 8.0 / static_cast<double>(block_elements);
  }
};

// The same layout with the group size of a grouped format fixed.
StorageType with_group_size(const StorageType& type, int64_t group_size);

// Bytes of one tensor (all its copies) in this layout.
int64_t storage_bytes(const StorageType& type, int64_t row_length, int64_t rows, int64_t copies);
// Bytes of one row of `row_length` elements (KV cache rows): whole blocks, no extras.
int64_t row_bytes(const StorageType& type, int64_t row_length) noexcept;

// A llama.cpp file type as per-tensor rules (llama-quant.cpp, llama_tensor_get_type).
struct GgufMixRule {
  std::string tensor;  // prefix of the GGUF tensor name: "attn_v", "ffn_down" (also _exps/_shexp)
  std::string layers;  // "", "more_bits", "first_eighth", "first_sixteenth", "first:K"
  std::string cond;    // "", "gqa4", "experts8", "llama70b"
  int type = -1;       // index into the storage types
};
struct GgufMix {
  std::string id;       // "Q4_K_M"
  int base = -1;        // storage type index of every other matrix
  int output = -1;      // output head (and the token embedding when tied)
  int experts = -1;     // MXFP4_MOE: stacked expert tensors; -1 = as the rules say
  std::vector<GgufMixRule> rules;
};

// What a user picks for the weights.
struct WeightFormat {
  std::string id;       // "fp16", "gptq-int4", "gguf-q4_k_m"
  std::string label;
  int default_type = -1;       // storage type of every matrix
  // Types for the tensors a format leaves alone (-1: use default_type).
  int token_embd_type = -1, output_type = -1, vector_type = -1, router_type = -1, experts_type = -1;
  int64_t group_size = 0;      // grouped formats: default group size
  int mix = -1;                // index into the GGUF mixes, or -1
};

struct FormatTables {
  std::vector<StorageType> storage_types;
  std::vector<WeightFormat> formats;
  std::vector<GgufMix> mixes;
  std::vector<int> gguf_fallback;  // storage index -> fallback storage index (-1: none)

  int find_storage(const std::string& id) const;
  int find_storage_by_ggml(int ggml_type) const;
  const WeightFormat* find_format(const std::string& id) const;
};

// The storage type index llama.cpp's quantizer (or a checkpoint format) gives one tensor.
int storage_type_for_tensor(const FormatTables& tables, const WeightFormat& format,
                            const ModelSpec& model, const TensorShape& tensor);

// Weights of one model in one format, summed per storage type.
struct WeightsByType {
  int storage_type = -1;
  int64_t elements = 0;
  int64_t tensors = 0;
  int64_t bytes = 0;
  int64_t replicated_bytes = 0;  // of these, 1-D tensors (every tensor-parallel rank holds a copy)
};
struct WeightsSummary {
  int64_t parameters = 0;
  int64_t active_parameters = 0;
  int64_t bytes = 0;
  int64_t replicated_bytes = 0;  // 1-D tensors: every tensor-parallel rank holds a copy
  std::vector<WeightsByType> by_type;
  bool from_parameter_count = false;  // parameters-only spec: count x bytes per element
  std::string stored_in;              // read from this model file (its exact bytes), if any
};

// group_size: for grouped formats (0 = the format's default).
WeightsSummary summarize_weights(const FormatTables& tables, const WeightFormat& format,
                                 const ModelSpec& model, int64_t group_size);

}  // namespace vramfit
