#include "inference.hpp"

#include <algorithm>
#include <cmath>

namespace vramfit {

namespace {

int64_t kv_heads_on_one_gpu(const ModelSpec& m, int64_t gpus) noexcept {
  if (m.uses_mla()) return 0;
  // Tensor parallelism splits KV heads; with more GPUs than KV heads each GPU keeps one
  // (replicated), as vLLM does (num_kv_heads // tp_size, at least 1).
  return m.kv_heads % gpus == 0 ? m.kv_heads / gpus : ceil_div(m.kv_heads, gpus);
}

int64_t kv_bytes_per_token_per_layer(const PreparedInference& p, int64_t heads_on_gpu) noexcept {
  const ModelSpec& m = p.model;
  // An encoder (BERT) reads the whole input at once: nothing is cached; a recurrent model
  // (Mamba, RWKV) keeps its state instead (inference_memory).
  if (m.encoder_only || m.is_recurrent()) return 0;
  if (m.uses_mla()) {
    // MLA caches one compressed latent per token: kv_lora_rank + the decoupled RoPE key
    // (DeepSeek-V2 paper, section 2.1; vLLM and llama.cpp store exactly this).
    return row_bytes(p.kv_type, m.kv_lora_rank + m.qk_rope_head_dim);
  }
  // One key row and one value row of heads x head_dim elements (llama.cpp: n_embd_k_gqa).
  return 2 * row_bytes(p.kv_type, heads_on_gpu * m.head_dim);
}

}  // namespace

PreparedInference prepare_inference(const FormatTables& tables, const ModelSpec& model,
                                    const WeightFormat& format, int64_t group_size,
                                    const StorageType& kv_type) {
  const int default_type = format.mix >= 0 ? tables.mixes[static_cast<size_t>(format.mix)].base
                                           : format.default_type;
  const int64_t activation_bytes = tables.storage_types[static_cast<size_t>(default_type)].id == "f32" ? 4 : 2;
  return prepare_inference(model, summarize_weights(tables, format, model, group_size), activation_bytes, kv_type);
}

PreparedInference prepare_inference(const ModelSpec& model, const WeightsSummary& weights,
                                    int64_t activation_bytes, const StorageType& kv_type) {
  PreparedInference p;
  p.model = model;
  p.weights = weights;
  p.kv_type = kv_type;
  p.activation_bytes = activation_bytes;
  p.sliding_layers = model.cached_layers() > 0 ? model.sliding_layer_count() : 0;
  p.full_attention_layers = model.cached_layers() - p.sliding_layers;
  p.attention_heads = model.attention_heads;
  p.state_bytes_per_sequence = sat_mul(model.recurrent_layer_count(), model.recurrent_state_elements(), 4);
  p.cross_attention_layers = model.cross_attention_layer_count();
  p.cross_attention_tokens = p.cross_attention_layers > 0 ? model.vision.patches_per_image() : 0;
  if (model.mixer == Mixer::mamba && model.is_recurrent()) {
    p.ffn_dim = model.ssm_inner;  // in_proj's x and z halves and the conv's output: 3 x d_inner live
    return p;
  }
  if (model.mixer == Mixer::rwkv && model.is_recurrent()) {
    p.q_dim = p.kv_dim = model.ssm_inner;  // receptance, key, value
    p.ffn_dim = model.intermediate_size;
    return p;
  }
  if (model.uses_mla()) {
    p.q_dim = model.attention_heads * (model.qk_nope_head_dim + model.qk_rope_head_dim);
    p.kv_dim = model.attention_heads * (model.qk_nope_head_dim + model.v_head_dim) / 2;
  } else {
    p.q_dim = model.attention_heads * model.head_dim;
    p.kv_dim = model.kv_heads * model.head_dim;
  }
  int64_t ffn = 0;
  if (!model.is_moe() || model.first_dense_layers > 0) ffn = model.intermediate_size;
  if (model.is_moe()) {
    ffn = std::max(ffn, model.experts_per_token * model.moe_intermediate_size +
                            model.shared_experts * model.shared_expert_intermediate_size);
  }
  if (ffn == 0 && model.parameters_only > 0) ffn = 4 * model.hidden_size;  // classic 4h MLP
  p.ffn_dim = ffn;
  return p;
}

InferenceMemory inference_memory(const PreparedInference& p, const InferenceSettings& s) noexcept {
  InferenceMemory m;
  const int64_t gpus = s.gpu_count;
  const int64_t ctx = s.context_tokens;
  const int64_t seqs = s.concurrent_sequences;

  // Weights: matrices split over the GPUs, 1-D tensors replicated on each.
  m.weights = gpus == 1 ? p.weights.bytes
                        : p.weights.replicated_bytes +
                              ceil_div(p.weights.bytes - p.weights.replicated_bytes, gpus);

  // KV cache (article 004): 2 x layers x kv_heads x head_dim x bytes x tokens x sequences;
  // sliding-window layers hold at most the window.
  m.kv_heads_per_gpu = kv_heads_on_one_gpu(p.model, gpus);
  m.kv_bytes_per_token_per_layer = kv_bytes_per_token_per_layer(p, m.kv_heads_per_gpu);
  const int64_t sliding_tokens = std::min(ctx, p.model.sliding_window);
  m.kv_cache = sat_mul(seqs, m.kv_bytes_per_token_per_layer,
                       sat_add(sat_mul(p.full_attention_layers, ctx), sat_mul(p.sliding_layers, sliding_tokens)));
  // Mllama's cross-attention layers hold one image's keys and values, whatever the context
  // (MllamaTextCrossAttention: k_proj and v_proj of the vision states, cached per sequence).
  m.kv_cache = sat_add(m.kv_cache, sat_mul(seqs, m.kv_bytes_per_token_per_layer, p.cross_attention_layers, p.cross_attention_tokens));
  // A recurrent layer's state does not grow with the context; its channels split like heads
  // (a recurrent model: all of the cache; Jamba: beside its attention layers' KV).
  if (p.state_bytes_per_sequence > 0) m.kv_cache = sat_add(m.kv_cache, sat_mul(seqs, ceil_div(p.state_bytes_per_sequence, gpus)));

  if (s.overhead == OverheadModel::engine) {
    m.runtime = s.runtime_bytes;
    m.prefill_tokens = std::min(s.prefill_chunk_tokens, ctx * seqs);
    // Logits: one fp32 row of vocab_size per sequence (the next-token distribution).
    m.logits = sat_mul(seqs, p.model.vocab_size, 4);
    // Live activations while one layer runs over a prefill chunk: residual and normed
    // input (2 x hidden), q, k, v, and the MLP's gate, up and product (3 x ffn), in the
    // activation dtype; the split widths are divided over tensor-parallel GPUs.
    m.activations = sat_mul(m.prefill_tokens, p.activation_bytes,
                            sat_add(2 * p.model.hidden_size, (p.q_dim + 2 * p.kv_dim + 3 * p.ffn_dim) / gpus));
    // Without flash attention the fp32 score matrix of one layer is materialised:
    // chunk tokens x heads x cached tokens (llama.cpp KQ tensor, all sequences' cells).
    if (!s.flash_attention) {
      m.attention_scores = sat_mul(m.prefill_tokens, ceil_div(p.attention_heads, gpus), ctx, seqs, 4);
    }
  }
  const VisionTower& v = p.model.vision;
  if (s.overhead == OverheadModel::engine && v.patches_per_image() > 0) {
    // One encoder layer over an image's patches: the residual and normed input, q, k, v and
    // the MLP's two widths (2 h + 3 h + 2 x intermediate), in the activation dtype.
    const int64_t patches = v.patches_per_image();
    m.vision_encoder = sat_mul(patches, p.activation_bytes, 5 * v.hidden + 2 * v.intermediate);
    if (!s.flash_attention) m.vision_encoder = sat_add(m.vision_encoder, sat_mul(patches, patches, v.heads, 4));
  }
  m.subtotal = sat_add(sat_add(m.weights, m.kv_cache), sat_add(m.runtime, m.compute_buffer()));
  m.margin = safety_margin_bytes(m.subtotal, s.margin_fraction);
  m.total = m.subtotal + m.margin;
  return m;
}

}  // namespace vramfit
