#include "model_spec.hpp"

#include "units.hpp"

#include <algorithm>
#include <string>

namespace vramfit {

int64_t VisionTower::patches_per_tile() const {
  if (kind == VisionKind::none || dynamic_resolution() || patch <= 0) return 0;
  if (kind == VisionKind::whisper) return image_size;  // one position per 2 mel frames
  const int64_t side = image_size / patch;
  return side * side + (kind == VisionKind::clip || kind == VisionKind::mllama || kind == VisionKind::llama4 ? 1 : 0);
}

int64_t VisionTower::patches_per_image() const { return tiles * patches_per_tile(); }

int64_t ModelSpec::recurrent_state_elements() const {
  switch (mixer) {
    case Mixer::mamba: return (ssm_conv_kernel - 1 + ssm_state) * ssm_inner;
    case Mixer::rwkv: return 5 * hidden_size;
    case Mixer::delta_net:
      return (ssm_conv_kernel - 1) * linear_conv_dim() + linear_value_heads * linear_key_head_dim * linear_value_head_dim;
    case Mixer::attention: return 0;
  }
  return 0;
}

namespace {

// How many of a model's layers satisfy one of its per-layer predicates.
template <typename Predicate>
int64_t count_layers(const ModelSpec& s, Predicate is_counted) {
  int64_t n = 0;
  for (int64_t i = 0; i < s.layers; ++i) n += is_counted(i) ? 1 : 0;
  return n;
}

}  // namespace

int64_t ModelSpec::recurrent_layer_count() const {
  return count_layers(*this, [this](int64_t i) { return is_recurrent_layer(i); });
}

int64_t ModelSpec::moe_layer_count() const {
  return count_layers(*this, [this](int64_t i) { return is_moe_layer(i); });
}

int64_t ModelSpec::cross_attention_layer_count() const {
  return count_layers(*this, [this](int64_t i) { return is_cross_attention_layer(i); });
}

int64_t ModelSpec::sliding_layer_count() const {
  return count_layers(*this, [this](int64_t i) { return is_sliding_layer(i); });
}

const char* tensor_role_name(TensorRole role) {
  switch (role) {
    case TensorRole::token_embd: return "token_embd";
    case TensorRole::output: return "output";
    case TensorRole::attn_q: return "attn_q";
    case TensorRole::attn_k: return "attn_k";
    case TensorRole::attn_v: return "attn_v";
    case TensorRole::attn_qkv: return "attn_qkv";
    case TensorRole::attn_output: return "attn_output";
    case TensorRole::attn_q_a: return "attn_q_a";
    case TensorRole::attn_q_b: return "attn_q_b";
    case TensorRole::attn_kv_a: return "attn_kv_a_mqa";
    case TensorRole::attn_kv_b: return "attn_kv_b";
    case TensorRole::ffn_gate: return "ffn_gate";
    case TensorRole::ffn_up: return "ffn_up";
    case TensorRole::ffn_down: return "ffn_down";
    case TensorRole::ffn_gate_exps: return "ffn_gate_exps";
    case TensorRole::ffn_up_exps: return "ffn_up_exps";
    case TensorRole::ffn_down_exps: return "ffn_down_exps";
    case TensorRole::ffn_gate_shexp: return "ffn_gate_shexp";
    case TensorRole::ffn_up_shexp: return "ffn_up_shexp";
    case TensorRole::ffn_down_shexp: return "ffn_down_shexp";
    case TensorRole::shared_expert_gate: return "ffn_gate_inp_shexp";
    case TensorRole::router: return "ffn_gate_inp";
    case TensorRole::vector: return "vector";
    case TensorRole::position_embd: return "position_embd";
    case TensorRole::ssm_in: return "ssm_in";
    case TensorRole::ssm_conv: return "ssm_conv1d";
    case TensorRole::ssm_x: return "ssm_x";
    case TensorRole::ssm_dt: return "ssm_dt";
    case TensorRole::ssm_out: return "ssm_out";
    case TensorRole::time_mix_key: return "time_mix_key";
    case TensorRole::time_mix_value: return "time_mix_value";
    case TensorRole::time_mix_receptance: return "time_mix_receptance";
    case TensorRole::time_mix_output: return "time_mix_output";
    case TensorRole::vision: return "v";
  }
  return "?";
}

bool is_expert_role(TensorRole role) {
  return role == TensorRole::ffn_gate_exps || role == TensorRole::ffn_up_exps ||
         role == TensorRole::ffn_down_exps;
}

namespace {

std::optional<Error> require_positive(int64_t value, const char* field) {
  if (value <= 0) {
    return make_error("model.not_positive", field,
                      std::string(field) + " must be a positive integer (got " +
                          std::to_string(value) + ")");
  }
  return std::nullopt;
}

// Upper bounds far above any real model (hidden 16,384, vocab 262,144, 256 experts today)
// that keep every tensor's element count and every byte count inside 64 bits.
std::optional<Error> require_at_most(int64_t value, int64_t limit, const char* field) {
  if (value > limit) {
    return make_error("model.out_of_range", field,
                      std::string(field) + " (" + std::to_string(value) + ") is above the limit of " +
                          std::to_string(limit));
  }
  return std::nullopt;
}

std::optional<Error> check_bounds(const ModelSpec& s) {
  const struct { int64_t value, limit; const char* field; } bounds[] = {
      {s.layers, 1 << 12, "num_hidden_layers"},       {s.hidden_size, 1 << 18, "hidden_size"},
      {s.attention_heads, 1 << 14, "num_attention_heads"}, {s.kv_heads, 1 << 14, "num_key_value_heads"},
      {s.head_dim, 1 << 14, "head_dim"},              {s.intermediate_size, 1 << 20, "intermediate_size"},
      {s.vocab_size, 1 << 23, "vocab_size"},          {s.experts, 1 << 12, "num_experts"},
      {s.experts_per_token, 1 << 12, "num_experts_per_tok"}, {s.moe_intermediate_size, 1 << 20, "moe_intermediate_size"},
      {s.shared_experts, 1 << 8, "n_shared_experts"}, {s.shared_expert_intermediate_size, 1 << 20, "shared_expert_intermediate_size"},
      {s.q_lora_rank, 1 << 16, "q_lora_rank"},        {s.kv_lora_rank, 1 << 16, "kv_lora_rank"},
      {s.qk_rope_head_dim, 1 << 14, "qk_rope_head_dim"}, {s.qk_nope_head_dim, 1 << 14, "qk_nope_head_dim"},
      {s.v_head_dim, 1 << 14, "v_head_dim"},          {s.sliding_window, 1 << 24, "sliding_window"},
      {s.parameters_only, int64_t(1) << 50, "parameters"}, {s.encoder_layers, 1 << 12, "encoder_layers"},
      {s.relative_attention_buckets, 1 << 16, "relative_attention_num_buckets"}, {s.ssm_inner, 1 << 20, "intermediate_size"},
      {s.ssm_state, 1 << 12, "state_size"},           {s.ssm_conv_kernel, 1 << 8, "conv_kernel"},
      {s.ssm_dt_rank, 1 << 16, "time_step_rank"},        {s.mtp_layers, 16, "num_nextn_predict_layers"},
      {s.linear_key_heads, 1 << 12, "linear_num_key_heads"}, {s.linear_value_heads, 1 << 12, "linear_num_value_heads"},
      {s.linear_key_head_dim, 1 << 12, "linear_key_head_dim"}, {s.linear_value_head_dim, 1 << 12, "linear_value_head_dim"},
      {s.extra_embedding_rows, 1 << 16, "extra_embedding_rows"}, {s.audio_mel_bins, 1 << 12, "num_mel_bins"},
      {s.encoder_position_embeddings, 1 << 24, "max_source_positions"}};
  for (const auto& b : bounds) {
    if (auto e = require_at_most(b.value, b.limit, b.field)) return e;
  }
  if (s.norms_per_layer < 0 || s.norms_per_layer > 8) {
    return make_error("model.out_of_range", "norms_per_layer", "norms_per_layer must lie between 0 and 8");
  }
  // With the bounds above each tensor fits 64 bits; the sum is checked in floating point.
  if (s.parameters_only == 0) {
    double total = 0;
    for (const TensorShape& t : enumerate_tensors(s)) total += static_cast<double>(t.elements());
    if (total > static_cast<double>(int64_t(1) << 50)) {
      return make_error("model.out_of_range", "num_hidden_layers",
                        "the model would have more than 2^50 parameters; check the dimensions");
    }
  }
  return std::nullopt;
}

}  // namespace

namespace {

// Mamba and RWKV layers: their own widths instead of attention heads.
std::optional<Error> validate_recurrent(const ModelSpec& s) {
  if (auto e = require_positive(s.hidden_size, "hidden_size")) return e;
  if (auto e = require_positive(s.vocab_size, "vocab_size")) return e;
  if (s.mixer == Mixer::mamba) {
    if (auto e = require_positive(s.ssm_inner, "intermediate_size")) return e;
    if (auto e = require_positive(s.ssm_state, "state_size")) return e;
    if (auto e = require_positive(s.ssm_conv_kernel, "conv_kernel")) return e;
    if (auto e = require_positive(s.ssm_dt_rank, "time_step_rank")) return e;
  } else {
    if (auto e = require_positive(s.ssm_inner, "attention_hidden_size")) return e;
    if (auto e = require_positive(s.intermediate_size, "intermediate_size")) return e;
  }
  if (s.is_moe() || s.is_encoder_decoder() || s.uses_mla()) {
    return make_error("model.out_of_range", "model_type", "a recurrent (Mamba, RWKV) model has no experts, encoder or latent attention");
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> validate_model_spec(const ModelSpec& s) {
  if (auto e = check_bounds(s)) return e;
  // Layers chosen by period and offset (Jamba's attention and experts, Qwen3-Next's attention).
  if (s.attention_layer_period < 0 || s.attention_layer_period > (1 << 16) ||
      (s.attention_layer_period > 0 && (s.attention_layer_offset < 0 || s.attention_layer_offset >= s.attention_layer_period))) {
    return make_error("model.out_of_range", "attn_layer_offset",
                      "attn_layer_offset must lie from 0 to below attn_layer_period, which is at most 65,536");
  }
  if (s.moe_layer_period < 1 || s.moe_layer_period > (1 << 16) || s.moe_layer_offset < 0 || s.moe_layer_offset >= s.moe_layer_period) {
    return make_error("model.out_of_range", "expert_layer_offset",
                      "expert_layer_offset must lie from 0 to below expert_layer_period, which is from 1 to 65,536");
  }
  if (s.is_hybrid()) {  // Jamba's Mamba layers, Qwen3-Next's DeltaNet layers: their own widths
    const bool mamba = s.mixer == Mixer::mamba;
    const int64_t narrowest = mamba ? std::min({s.ssm_inner, s.ssm_state, s.ssm_conv_kernel, s.ssm_dt_rank})
                                    : std::min({s.linear_key_heads, s.linear_value_heads, s.linear_key_head_dim,
                                                s.linear_value_head_dim, s.ssm_conv_kernel});
    if (narrowest <= 0) {
      return make_error("model.out_of_range", "model_type", "a hybrid model's recurrent layers need positive widths (mamba_* or linear_* keys)");
    }
  }
  if (s.is_recurrent()) {
    if (auto e = require_positive(s.layers, "num_hidden_layers")) return e;
    return validate_recurrent(s);
  }
  if (s.encoder_layers < 0 || (s.is_encoder_decoder() && s.encoder_layers >= s.layers)) {
    return make_error("model.out_of_range", "encoder_layers", "encoder_layers must lie between 0 and num_hidden_layers - 1 (a decoder follows)");
  }
  // The KV cache needs the attention shape even when only the parameter count is known.
  if (auto e = require_positive(s.layers, "num_hidden_layers")) return e;
  if (s.uses_mla()) {
    if (auto e = require_positive(s.attention_heads, "num_attention_heads")) return e;
    if (auto e = require_positive(s.qk_rope_head_dim, "qk_rope_head_dim")) return e;
  } else {
    if (auto e = require_positive(s.kv_heads, "num_key_value_heads")) return e;
    if (auto e = require_positive(s.head_dim, "head_dim")) return e;
  }
  if (s.parameters_only > 0) return std::nullopt;

  if (auto e = require_positive(s.hidden_size, "hidden_size")) return e;
  if (auto e = require_positive(s.attention_heads, "num_attention_heads")) return e;
  if (auto e = require_positive(s.vocab_size, "vocab_size")) return e;
  if (!s.uses_mla() && s.attention_heads % s.kv_heads != 0) {
    return make_error("model.heads_not_divisible", "num_key_value_heads",
                      "num_key_value_heads (" + std::to_string(s.kv_heads) +
                          ") must divide num_attention_heads (" +
                          std::to_string(s.attention_heads) + ")");
  }
  if (s.uses_mla()) {
    if (auto e = require_positive(s.qk_nope_head_dim, "qk_nope_head_dim")) return e;
    if (auto e = require_positive(s.v_head_dim, "v_head_dim")) return e;
  }
  const bool has_dense_layers = !s.is_moe() || s.first_dense_layers > 0;
  if (has_dense_layers) {
    if (auto e = require_positive(s.intermediate_size, "intermediate_size")) return e;
  }
  if (s.is_moe()) {
    if (auto e = require_positive(s.experts_per_token, "num_experts_per_tok")) return e;
    if (auto e = require_positive(s.moe_intermediate_size, "moe_intermediate_size")) return e;
    if (s.experts_per_token > s.experts) {
      return make_error("model.out_of_range", "num_experts_per_tok",
                        "num_experts_per_tok (" + std::to_string(s.experts_per_token) +
                            ") must not exceed the number of experts (" +
                            std::to_string(s.experts) + ")");
    }
    if (s.first_dense_layers < 0 || s.first_dense_layers > s.layers) {
      return make_error("model.out_of_range", "first_k_dense_replace",
                        "first_k_dense_replace must lie between 0 and num_hidden_layers");
    }
  }
  if (s.sliding_window < 0) {
    return make_error("model.out_of_range", "sliding_window", "sliding_window must not be negative");
  }
  return std::nullopt;
}

int64_t count_parameters(const ModelSpec& s) {
  if (s.parameters_only > 0) return s.parameters_only;
  int64_t total = 0;
  for (const TensorShape& t : enumerate_tensors(s)) total += t.elements();
  return total;
}

int64_t count_mtp_parameters(const ModelSpec& s) {
  if (s.mtp_layers <= 0 || s.parameters_only > 0 || s.layers <= 0) return 0;
  int64_t last_layer = 0;
  for (const TensorShape& t : enumerate_tensors(s)) last_layer += t.layer == s.layers - 1 ? t.elements() : 0;
  const int64_t h = s.hidden_size;
  const int64_t own_embeddings = s.mixer == Mixer::delta_net ? 0 : 2 * s.vocab_size * h;  // Qwen's share the model's
  return s.mtp_layers * (own_embeddings + 3 * h + 2 * h * h + last_layer);
}

std::vector<int64_t> active_parameters_per_layer(const ModelSpec& s) {
  std::vector<int64_t> per_layer(static_cast<size_t>(std::max<int64_t>(0, s.layers)), 0);
  if (s.parameters_only > 0) return per_layer;
  for (const TensorShape& t : enumerate_tensors(s)) {
    if (t.layer < 0 || t.layer >= s.layers) continue;
    const bool expert = is_expert_role(t.role) || (t.role == TensorRole::vector && t.copies > 1);
    per_layer[static_cast<size_t>(t.layer)] += expert ? t.row_length * t.rows * s.experts_per_token : t.elements();
  }
  return per_layer;
}

double prefill_flops_per_token(const ModelSpec& s, const std::vector<int64_t>& active, int64_t first_layer, int64_t layers,
                               int64_t prompt_tokens) {
  const int64_t q_width = s.attention_heads * (s.uses_mla() ? s.qk_nope_head_dim + s.qk_rope_head_dim : s.head_dim);
  const int64_t end = std::min<int64_t>(first_layer + layers, static_cast<int64_t>(active.size()));
  double flops = 0;
  for (int64_t layer = first_layer; layer < end; ++layer) {
    double positions = static_cast<double>(prompt_tokens) / 2.0;
    if (s.is_sliding_layer(layer)) positions = std::min(positions, static_cast<double>(s.sliding_window));
    flops += 2.0 * static_cast<double>(active[static_cast<size_t>(layer)]) + 4.0 * positions * static_cast<double>(q_width);
  }
  return flops;
}

int64_t count_active_parameters(const ModelSpec& s) {
  if (s.parameters_only > 0) return s.parameters_only;
  int64_t total = 0;
  for (const TensorShape& t : enumerate_tensors(s)) {
    if (is_expert_role(t.role) || (t.role == TensorRole::vector && t.copies > 1)) {
      total += t.row_length * t.rows * s.experts_per_token;
    } else {
      total += t.elements();
    }
  }
  return total;
}

}  // namespace vramfit
