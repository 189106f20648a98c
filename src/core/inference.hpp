// Inference memory: weights + KV cache + runtime and compute buffers + safety margin,
// per GPU. Split in two steps so the fit map can sweep thousands of workloads cheaply:
// prepare_inference() does the per-tensor work once; inference_memory() is arithmetic.
#pragma once
#include <algorithm>
#include <cstdint>

#include "breakdown.hpp"
#include "formats.hpp"
#include "model_spec.hpp"
#include "units.hpp"

namespace vramfit {

enum class OverheadModel {
  engine,    // runtime context + compute buffer + margin, as a serving engine needs
  articles,  // the articles' rule: only the margin on top of weights and KV cache
};

struct InferenceSettings {
  int64_t context_tokens = 8192;       // tokens per sequence held in the KV cache
  int64_t concurrent_sequences = 1;    // sequences served at once (batch)
  OverheadModel overhead = OverheadModel::engine;
  int64_t runtime_bytes = 512 * kMiB;  // CUDA context, library workspaces, allocator slack
  int64_t prefill_chunk_tokens = 512;  // tokens processed in one forward pass (llama.cpp n_ubatch)
  bool flash_attention = true;         // false: the attention score matrix is materialised
  double margin_fraction = 0.10;       // safety margin on top of everything (articles: 10-30%)
  int64_t gpu_count = 1;               // tensor-parallel degree
};

// Everything that does not depend on context, sequences or GPU count.
struct PreparedInference {
  ModelSpec model;
  WeightsSummary weights;
  StorageType kv_type;
  int64_t activation_bytes = 2;         // bytes per activation element (fp16/bf16; fp32 models: 4)
  int64_t full_attention_layers = 0;   // layers whose keys and values are cached (decoder layers)
  int64_t sliding_layers = 0;
  int64_t state_bytes_per_sequence = 0; // recurrent models (Mamba, RWKV): all layers' state, fp32
  // Mllama: layers that cache one image's keys and values (every tile's patches) per sequence.
  int64_t cross_attention_layers = 0, cross_attention_tokens = 0;
  int64_t attention_heads = 0;
  int64_t q_dim = 0, kv_dim = 0, ffn_dim = 0;  // widths live during one layer's forward
};

PreparedInference prepare_inference(const FormatTables& tables, const ModelSpec& model,
                                    const WeightFormat& format, int64_t group_size,
                                    const StorageType& kv_type);
// The same with the weights already summed (read from a model file).
PreparedInference prepare_inference(const ModelSpec& model, const WeightsSummary& weights,
                                    int64_t activation_bytes, const StorageType& kv_type);

struct InferenceMemory {                // all per GPU
  int64_t weights = 0;
  int64_t kv_heads_per_gpu = 0;         // 0 for MLA (one latent, not split)
  int64_t kv_bytes_per_token_per_layer = 0;
  int64_t kv_cache = 0;                 // recurrent models: their fixed state per sequence instead
  int64_t runtime = 0;
  int64_t prefill_tokens = 0;
  int64_t logits = 0;
  int64_t activations = 0;
  int64_t attention_scores = 0;
  // Multimodal: the vision encoder's pass over one image (one layer's tensors; the fp32 scores
  // without flash attention). It runs before the text's prefill, so the compute buffer is the
  // larger of the two.
  int64_t vision_encoder = 0;
  int64_t compute_buffer() const { return sat_add(logits, std::max(sat_add(activations, attention_scores), vision_encoder)); }
  int64_t subtotal = 0;                 // before the margin
  int64_t margin = 0;
  int64_t total = 0;
};

InferenceMemory inference_memory(const PreparedInference& prepared, const InferenceSettings& settings) noexcept;

// The same numbers as a tree with formulas (allocates; not for the hot path).
Breakdown explain_inference(const FormatTables& tables, const PreparedInference& prepared,
                            const InferenceSettings& settings, const InferenceMemory& memory);

}  // namespace vramfit
