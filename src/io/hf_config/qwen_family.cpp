// Qwen's decoders: Qwen2 (q, k and v always biased), Qwen3 (q/k norms, head_dim 128 by default),
// their MoE variants (Qwen2-MoE's gated shared expert), the VL text models, and Qwen3-Next /
// Qwen3.5 (Gated DeltaNet layers between full-attention ones). Every Qwen config class defaults
// use_sliding_window to false.
#include "architectures.hpp"

namespace vramfit {

namespace {

// Qwen3-Next (Qwen3NextConfig) and Qwen3.5 (Qwen3_5TextConfig, Qwen3_5MoeTextConfig): full
// attention in every full_attention_interval-th layer (its q_proj also gives an output gate; q and
// k norms), Gated DeltaNet linear attention in the others (linear_num_key_heads /
// linear_num_value_heads of linear_key_head_dim / linear_value_head_dim, a causal conv of
// linear_conv_kernel_dim; Qwen3.5 splits in_proj_qkvz and in_proj_ba into in_proj_qkv, _z, _b
// and _a, the same sizes); an MoE with a gated shared expert in every layer, or (Qwen3.5's dense
// models) an MLP.
void read_qwen3_next(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.mixer = Mixer::delta_net;
  s.attention_layer_period = r.integer("full_attention_interval", 4);
  s.attention_layer_offset = s.attention_layer_period - 1;  // layer_types: full_attention when (i + 1) % interval == 0
  s.linear_key_heads = r.integer("linear_num_key_heads", 16);
  s.linear_value_heads = r.integer("linear_num_value_heads", 32);
  s.linear_key_head_dim = r.integer("linear_key_head_dim", 128);
  s.linear_value_head_dim = r.integer("linear_value_head_dim", 128);
  s.ssm_conv_kernel = r.integer("linear_conv_kernel_dim", 4);
  s.attention_output_gate = s.qk_norm = true;
  if (s.attention_layer_period < 1) r.fail("full_attention_interval", "must be a positive integer");
}

constexpr AttentionBiases kQkvBiased = {.qkv = true};

constexpr HfArchitecture kRows[] = {
    {.model_type = "qwen2", .source = "models/qwen2/configuration_qwen2.py", .always_biased = kQkvBiased,
     .sliding = SlidingLayers::when_enabled},
    {.model_type = "qwen2_moe", .source = "models/qwen2_moe/configuration_qwen2_moe.py", .always_biased = kQkvBiased,
     .sliding = SlidingLayers::when_enabled, .shared_expert = SharedExpert::gated},
    {.model_type = "qwen2_vl", .source = "models/qwen2_vl/configuration_qwen2_vl.py", .always_biased = kQkvBiased,
     .sliding = SlidingLayers::when_enabled},
    {.model_type = "qwen2_vl_text", .source = "models/qwen2_vl/configuration_qwen2_vl.py", .always_biased = kQkvBiased,
     .sliding = SlidingLayers::when_enabled},
    {.model_type = "qwen2_5_vl", .source = "models/qwen2_5_vl/configuration_qwen2_5_vl.py", .always_biased = kQkvBiased,
     .sliding = SlidingLayers::when_enabled},
    {.model_type = "qwen2_5_vl_text", .source = "models/qwen2_5_vl/configuration_qwen2_5_vl.py", .always_biased = kQkvBiased,
     .sliding = SlidingLayers::when_enabled},
    // Qwen3Config.__init__: head_dim=128.
    {.model_type = "qwen3", .source = "models/qwen3/configuration_qwen3.py", .head_dim = 128, .qk_norm = true,
     .sliding = SlidingLayers::when_enabled},
    {.model_type = "qwen3_moe", .source = "models/qwen3_moe/configuration_qwen3_moe.py", .qk_norm = true,
     .sliding = SlidingLayers::when_enabled},
    {.model_type = "qwen3_next", .source = "models/qwen3_next/configuration_qwen3_next.py", .sliding = SlidingLayers::when_enabled,
     .shared_expert = SharedExpert::gated, .read = read_qwen3_next},
    {.model_type = "qwen3_5", .source = "models/qwen3_5/configuration_qwen3_5.py", .sliding = SlidingLayers::when_enabled,
     .shared_expert = SharedExpert::gated, .read = read_qwen3_next},
    {.model_type = "qwen3_5_text", .source = "models/qwen3_5/configuration_qwen3_5.py", .sliding = SlidingLayers::when_enabled,
     .shared_expert = SharedExpert::gated, .read = read_qwen3_next},
    {.model_type = "qwen3_5_moe", .source = "models/qwen3_5_moe/configuration_qwen3_5_moe.py",
     .sliding = SlidingLayers::when_enabled, .shared_expert = SharedExpert::gated, .read = read_qwen3_next},
    {.model_type = "qwen3_5_moe_text", .source = "models/qwen3_5_moe/configuration_qwen3_5_moe.py",
     .sliding = SlidingLayers::when_enabled, .shared_expert = SharedExpert::gated, .read = read_qwen3_next},
};

}  // namespace

const std::span<const HfArchitecture> kQwenFamily = kRows;

}  // namespace vramfit
