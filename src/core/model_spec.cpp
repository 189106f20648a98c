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

namespace {

// Out of line: enumerate_tensors adds tensors from some 80 places (the page's module size).
[[gnu::noinline]] void push_tensor(std::vector<TensorShape>& t, TensorRole role, int32_t layer, int64_t row_length, int64_t rows,
                                   int64_t copies) {
  t.push_back(TensorShape{role, layer, row_length, rows, copies});
}

// Whisper's conv stem (WhisperEncoder's conv1 over the mel bins and conv2, kernel 3, each with a
// bias): Whisper's own encoder and Qwen2-Audio's audio tower (Qwen2AudioEncoder), as vision tensors.
void add_whisper_conv_stem(std::vector<TensorShape>& t, int64_t mel_bins, int64_t h) {
  push_tensor(t, TensorRole::vision, -1, 3 * mel_bins, h, 1);
  push_tensor(t, TensorRole::vision, -1, 3 * h, h, 1);
  push_tensor(t, TensorRole::vision, -1, h, 2, 1);  // the two biases
}

// The vision tower and projector (transformers' CLIPVisionTransformer, SiglipVisionTransformer,
// with SiglipMultiheadAttentionPoolingHead when vision_use_head, Idefics3VisionTransformer,
// Qwen2VisionTransformerPretrainedModel /
// Qwen2_5_VisionTransformerPretrainedModel, Qwen3_5VisionModel, PixtralVisionModel, MllamaVisionModel,
// Llama4VisionModel, Qwen2AudioEncoder;
// LlavaMultiModalProjector, Mistral3MultiModalProjector, Gemma3MultiModalProjector, Idefics3Connector, Mllama's
// multi_modal_projector, Llama4MultiModalProjector; LlavaNextModel's image_newline), all as TensorRole::vision at layer -1.
void add_vision_tower(const VisionTower& v, std::vector<TensorShape>& t) {
  if (v.kind == VisionKind::none) return;
  auto add = [&t](int64_t row_length, int64_t rows) { push_tensor(t, TensorRole::vision, -1, row_length, rows, 1); };
  const int64_t h = v.hidden;
  const bool qwen = v.dynamic_resolution(), pixtral = v.kind == VisionKind::pixtral, mllama = v.kind == VisionKind::mllama;
  const bool llama4 = v.kind == VisionKind::llama4, whisper = v.kind == VisionKind::whisper;
  auto norm = [&](int64_t n) { add(n, v.rms_norm ? 1 : 2); };  // weight (+ bias)
  auto linear = [&](int64_t in, int64_t out, bool bias) {
    add(in, out);
    if (bias) add(out, 1);
  };
  if (whisper) {
    add_whisper_conv_stem(t, v.channels, h);
  } else {
    // Patch embedding: a conv of channels x (temporal x) patch x patch per output channel.
    add(v.channels * v.temporal_patch * v.patch * v.patch, h);
  }
  if (v.kind == VisionKind::siglip || v.kind == VisionKind::qwen3_5) add(h, 1);  // SigLIP's and Qwen3.5's conv have a bias
  if (!qwen && !pixtral) add(h, v.patches_per_tile());  // learned position table (Pixtral: 2-D RoPE)
  if (v.position_table > 0) add(h, v.position_table);   // Qwen3.5's pos_embed
  if (v.kind == VisionKind::clip || mllama || llama4) add(h, 1);  // class_embedding
  if (mllama) {
    // MllamaPrecomputedPositionEmbedding: its gate and a table of every tile's positions per
    // aspect ratio; MllamaPrecomputedAspectRatioEmbedding before and after the local encoder.
    const int64_t ratios = v.aspect_ratios + 1;
    add(1, 1);
    add(sat_mul(v.tiles, v.patches_per_tile(), h), ratios);
    for (int i = 0; i < 2; ++i) {
      add(v.tiles * h, ratios);
      add(1, 1);
    }
  }
  if (v.kind == VisionKind::clip || pixtral || mllama || llama4) norm(h);  // pre_layrnorm / ln_pre / layernorm_pre
  const bool attention_bias = !pixtral && !mllama;
  for (int64_t layer = 0; layer < v.layers + v.global_layers; ++layer) {
    norm(h);
    norm(h);
    if (qwen) {
      linear(h, 3 * h, true);  // qkv
    } else {
      for (int i = 0; i < 3; ++i) linear(h, h, attention_bias && !(whisper && i == 1));  // q, k (Whisper: no bias), v
    }
    linear(h, h, attention_bias);  // out / proj / o_proj
    if (v.gated_mlp) linear(h, v.intermediate, !pixtral);  // gate
    linear(h, v.intermediate, !pixtral);                    // up / fc1
    linear(v.intermediate, h, !pixtral);                    // down / fc2
    if (layer >= v.layers) {                                // Mllama's global layers: gate_attn, gate_ffn
      add(1, 1);
      add(1, 1);
    }
  }
  if (qwen) {  // PatchMerger: ln_q, then 4h -> 4h -> out_hidden
    const int64_t merged = h * v.merge * v.merge;
    norm(h);
    linear(merged, merged, true);
    linear(merged, v.out_hidden, true);
  } else if (!pixtral) {
    norm(h);  // post_layernorm / layernorm_post
  }
  if (v.pooling_head) {  // SiglipMultiheadAttentionPoolingHead: probe, in_proj (q, k, v), out_proj, layernorm, mlp
    add(h, 1);
    linear(h, 3 * h, true);
    linear(h, h, true);
    norm(h);
    linear(h, v.intermediate, true);
    linear(v.intermediate, h, true);
  }
  if (v.projector == ProjectorKind::patch_merger) {  // Mistral3MultiModalProjector: norm, patch_merger.merging_layer
    add(h, 1);
    add(h * v.merge * v.merge, h);
  }
  if (v.projector == ProjectorKind::llava_mlp || v.projector == ProjectorKind::patch_merger) {  // linear_1, linear_2
    linear(v.projector_input > 0 ? v.projector_input : h, v.out_hidden, v.projector_bias);
    linear(v.out_hidden, v.out_hidden, v.projector_bias);
  } else if (v.projector == ProjectorKind::gemma3) {
    add(h, v.out_hidden);  // mm_input_projection_weight
    add(h, 1);             // mm_soft_emb_norm
  } else if (v.projector == ProjectorKind::pixel_shuffle) {
    add(h * v.scale_factor * v.scale_factor, v.out_hidden);  // modality_projection.proj, no bias
  } else if (v.projector == ProjectorKind::linear) {
    linear(v.projector_input, v.out_hidden, true);
  } else if (v.projector == ProjectorKind::llama4) {
    // Llama4VisionPixelShuffleMLP (2 x 2 patches, 4 h = intermediate wide, through fc1 and fc2),
    // then Llama4MultiModalProjector.linear_1; none has a bias.
    linear(v.intermediate, v.projector_input, false);
    linear(v.projector_input, v.projector_input, false);
    linear(v.projector_input, v.out_hidden, false);
  }
  if (v.image_newline) add(v.out_hidden, 1);
}

}  // namespace

std::vector<TensorShape> enumerate_tensors(const ModelSpec& s) {
  std::vector<TensorShape> t;
  if (s.parameters_only > 0) return t;
  const int64_t h = s.hidden_size;
  auto add = [&t](TensorRole role, int32_t layer, int64_t row_length, int64_t rows,
                  int64_t copies = 1) { push_tensor(t, role, layer, row_length, rows, copies); };
  auto vec = [&add](int32_t layer, int64_t n) { add(TensorRole::vector, layer, n, 1); };
  const bool layer_norm_bias = s.norm == NormKind::layer;
  auto norm = [&](int32_t layer, int64_t n) {
    vec(layer, n);
    if (layer_norm_bias) vec(layer, n);
  };

  add(TensorRole::token_embd, -1, h, s.vocab_size + s.extra_embedding_rows);
  // GPT-2's wpe, BERT's position and token type tables, BERT's embeddings LayerNorm; an
  // encoder-decoder has one position table, embeddings norm and relative bias table per stack.
  const int stacks = s.is_encoder_decoder() ? 2 : 1;
  if (s.audio_mel_bins > 0) add_whisper_conv_stem(t, s.audio_mel_bins, h);
  for (int stack = 0; stack < stacks; ++stack) {
    const int64_t positions = stack == 0 && s.encoder_position_embeddings > 0 ? s.encoder_position_embeddings : s.position_embeddings;
    if (positions > 0) add(TensorRole::position_embd, -1, h, positions);
    if (s.embedding_norm) norm(-1, h);
    if (s.relative_attention_buckets > 0) add(TensorRole::position_embd, -1, s.attention_heads, s.relative_attention_buckets);
  }
  if (s.token_type_embeddings > 0) add(TensorRole::position_embd, -1, h, s.token_type_embeddings);
  const int64_t q_dim = s.attention_heads * s.head_dim;
  const int64_t kv_dim = s.kv_heads * s.head_dim;
  auto attention = [&](int32_t i) {
    if (s.fused_qkv) {
      add(TensorRole::attn_qkv, i, h, q_dim + 2 * kv_dim);
      if (s.qkv_bias) vec(i, q_dim + 2 * kv_dim);
    } else {
      add(TensorRole::attn_q, i, h, s.attention_output_gate ? 2 * q_dim : q_dim);  // Qwen3-Next: queries and gate
      add(TensorRole::attn_k, i, h, kv_dim);
      add(TensorRole::attn_v, i, h, kv_dim);
      if (s.qkv_bias) {
        vec(i, q_dim);
        if (!s.no_key_bias) vec(i, kv_dim);
        vec(i, kv_dim);
      }
    }
    add(TensorRole::attn_output, i, q_dim, h);
    if (s.attention_output_bias) vec(i, h);
  };
  for (int32_t i = 0; i < static_cast<int32_t>(s.layers); ++i) {
    for (int n = 0; n < s.norms_per_layer; ++n) norm(i, h);

    if (s.mixer == Mixer::mamba && s.is_recurrent_layer(i)) {  // MambaMixer, JambaMambaMixer
      const int64_t inner = s.ssm_inner, state = s.ssm_state;
      add(TensorRole::ssm_in, i, h, 2 * inner);
      if (s.ssm_proj_bias) vec(i, 2 * inner);
      add(TensorRole::ssm_conv, i, s.ssm_conv_kernel, inner);
      if (s.ssm_conv_bias) vec(i, inner);
      add(TensorRole::ssm_x, i, inner, s.ssm_dt_rank + 2 * state);
      add(TensorRole::ssm_dt, i, s.ssm_dt_rank, inner);
      vec(i, inner);                              // dt_proj's bias
      add(TensorRole::vector, i, state, inner);   // A_log
      vec(i, inner);                              // D
      add(TensorRole::ssm_out, i, inner, h);
      if (s.ssm_proj_bias) vec(i, h);
      if (s.ssm_inner_norms) { vec(i, s.ssm_dt_rank); vec(i, state); vec(i, state); }  // dt, B and C layernorms
      if (s.is_recurrent()) continue;  // Mamba: the mixer is the whole layer; Jamba: its MLP or MoE follows
    }
    if (s.mixer == Mixer::delta_net && s.is_recurrent_layer(i)) {  // Qwen3NextGatedDeltaNet
      const int64_t vh = s.linear_value_heads;
      add(TensorRole::ssm_in, i, h, 2 * s.linear_key_dim() + 2 * s.linear_value_dim());  // in_proj_qkvz
      add(TensorRole::ssm_in, i, h, 2 * vh);                                             // in_proj_ba
      add(TensorRole::ssm_conv, i, s.ssm_conv_kernel, s.linear_conv_dim());             // conv1d, no bias
      vec(i, vh);                                                                        // dt_bias
      vec(i, vh);                                                                        // A_log
      vec(i, s.linear_value_head_dim);                                                   // norm (gated, per head)
      add(TensorRole::ssm_out, i, s.linear_value_dim(), h);                              // out_proj
    }
    if (s.mixer == Mixer::rwkv) {  // RwkvSelfAttention and RwkvFeedForward
      const int64_t a = s.ssm_inner;
      vec(i, a); vec(i, a);                       // time_decay, time_first
      vec(i, h); vec(i, h); vec(i, h);            // time_mix_key, _value, _receptance
      add(TensorRole::time_mix_key, i, h, a);
      add(TensorRole::time_mix_value, i, h, a);
      add(TensorRole::time_mix_receptance, i, h, a);
      add(TensorRole::time_mix_output, i, a, h);
      vec(i, h); vec(i, h);                       // the channel mix's time_mix_key, _receptance
      add(TensorRole::ffn_up, i, h, s.intermediate_size);    // key
      add(TensorRole::ffn_gate, i, h, h);                    // receptance
      add(TensorRole::ffn_down, i, s.intermediate_size, h);  // value
      continue;
    }

    // Attention (HF LlamaAttention & co.: q, k, v, o; MLA per DeepseekV3Attention).
    if (s.is_recurrent_layer(i)) {
      // Jamba's Mamba layer: its mixer above
    } else if (s.uses_mla()) {
      const int64_t qk_head = s.qk_nope_head_dim + s.qk_rope_head_dim;
      if (s.q_lora_rank > 0) {
        add(TensorRole::attn_q_a, i, h, s.q_lora_rank);
        vec(i, s.q_lora_rank);  // q_a_layernorm
        add(TensorRole::attn_q_b, i, s.q_lora_rank, s.attention_heads * qk_head);
      } else {
        add(TensorRole::attn_q, i, h, s.attention_heads * qk_head);
      }
      add(TensorRole::attn_kv_a, i, h, s.kv_lora_rank + s.qk_rope_head_dim);
      vec(i, s.kv_lora_rank);  // kv_a_layernorm
      add(TensorRole::attn_kv_b, i, s.kv_lora_rank,
          s.attention_heads * (s.qk_nope_head_dim + s.v_head_dim));
      add(TensorRole::attn_output, i, s.attention_heads * s.v_head_dim, h);
    } else {
      attention(i);
      if (i >= s.encoder_layers && s.is_encoder_decoder()) {  // the decoder's cross-attention and its norm
        norm(i, h);
        attention(i);
      }
      const bool cross = s.is_cross_attention_layer(i);
      if (s.qk_norm && s.qk_norm_full) { vec(i, q_dim); vec(i, kv_dim); }  // Olmo2Attention's q_norm, k_norm
      else if (s.qk_norm || cross) { vec(i, s.head_dim); vec(i, s.head_dim); }
      if (cross) { vec(i, 1); vec(i, 1); }  // Mllama's cross_attn_attn_gate, cross_attn_mlp_gate
      if (s.attention_sinks) vec(i, s.attention_heads);
    }

    // Feed-forward: dense MLP, or router + experts (+ shared experts).
    if (s.is_moe_layer(i)) {
      const int64_t e = s.experts, f = s.moe_intermediate_size;
      add(TensorRole::router, i, h, e);
      if (s.router_bias) vec(i, e);
      if (s.router_score_correction) vec(i, e);
      add(TensorRole::ffn_gate_exps, i, h, f, e);
      add(TensorRole::ffn_up_exps, i, h, f, e);
      add(TensorRole::ffn_down_exps, i, f, h, e);
      if (s.expert_bias) {
        add(TensorRole::vector, i, 2 * f, 1, e);  // gate_up_proj_bias
        add(TensorRole::vector, i, h, 1, e);      // down_proj_bias
      }
      if (s.shared_experts > 0) {
        const int64_t fs = s.shared_expert_intermediate_size * s.shared_experts;
        add(TensorRole::ffn_gate_shexp, i, h, fs);
        add(TensorRole::ffn_up_shexp, i, h, fs);
        add(TensorRole::ffn_down_shexp, i, fs, h);
        if (s.shared_expert_gate) add(TensorRole::shared_expert_gate, i, h, 1);
      }
    } else {
      const int64_t f = s.intermediate_size;
      if (s.mlp == MlpKind::gated) {
        add(TensorRole::ffn_gate, i, h, f);
        if (s.mlp_bias) vec(i, f);
      }
      add(TensorRole::ffn_up, i, h, f);
      if (s.mlp_bias) vec(i, f);
      add(TensorRole::ffn_down, i, f, h);
      if (s.mlp_bias) vec(i, h);
    }
  }
  if (s.relative_position_embeddings > 0) add(TensorRole::position_embd, -1, h, s.relative_position_embeddings);
  if (s.final_norm) for (int stack = 0; stack < stacks; ++stack) norm(-1, h);
  if (s.pooler) {  // BertPooler: dense + bias over the first token
    add(TensorRole::output, -1, h, h);
    vec(-1, h);
  }
  add_vision_tower(s.vision, t);
  if (s.encoder_only) return t;
  if (!s.tied_embeddings) add(TensorRole::output, -1, h, s.vocab_size);
  if (s.output_bias) vec(-1, s.vocab_size);
  return t;
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
