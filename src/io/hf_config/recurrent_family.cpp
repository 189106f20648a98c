// Recurrent and hybrid models: Mamba (MambaConfig, MambaMixer) and RWKV-4 (RwkvConfig, RwkvBlock)
// with no attention heads, and Jamba (attention every attn_layer_period-th layer, Mamba between).
#include "architectures.hpp"

#include "core/units.hpp"

namespace vramfit {

namespace {

void read_mamba(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.mixer = Mixer::mamba;
  s.ssm_inner = r.integer("ssm_inner", r.integer("intermediate_size", sat_mul(r.integer("expand", 2), s.hidden_size)));
  s.intermediate_size = 0;  // no MLP: the mixer is the whole layer
  s.ssm_state = r.integer("state_size", 16);
  s.ssm_conv_kernel = r.integer("conv_kernel", 4);
  // time_step_rank "auto": ceil(hidden_size / 16) (MambaConfig.__init__).
  const bool automatic = r.config.contains("time_step_rank") && r.config.at("time_step_rank").is_string();
  s.ssm_dt_rank = automatic || !r.has("time_step_rank") ? (s.hidden_size + 15) / 16 : r.integer("time_step_rank", 0);
  s.ssm_conv_bias = r.boolean("use_conv_bias", true);
  s.ssm_proj_bias = r.boolean("use_bias", false);
  s.norms_per_layer = 1;
  s.attention_heads = s.kv_heads = s.head_dim = 0;
}

void read_rwkv(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.mixer = Mixer::rwkv;
  s.ssm_inner = r.integer("attention_hidden_size", s.hidden_size);
  s.embedding_norm = true;  // blocks[0].pre_ln
  s.max_context_tokens = r.integer("context_length", s.max_context_tokens);
  s.attention_heads = s.kv_heads = s.head_dim = 0;
}

// Jamba (JambaConfig, JambaForCausalLM): attention in every attn_layer_period-th layer from
// attn_layer_offset, JambaMambaMixer (Mamba with RMSNorms over dt, B and C) in the others, each
// followed by its MLP, or by an MoE of num_experts in every expert_layer_period-th layer from
// expert_layer_offset (read with the other families' experts). vramfit's own keys write the same.
void read_jamba(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.mixer = Mixer::mamba;
  s.attention_layer_period = r.integer("attn_layer_period", 8);
  s.attention_layer_offset = r.integer("attn_layer_offset", 4);
  s.ssm_inner = sat_mul(r.integer("mamba_expand", 2), s.hidden_size);
  s.ssm_state = r.integer("mamba_d_state", 16);
  s.ssm_conv_kernel = r.integer("mamba_d_conv", 4);
  s.ssm_dt_rank = r.integer("mamba_dt_rank", ceil_div(s.hidden_size, 16));
  s.ssm_conv_bias = r.boolean("mamba_conv_bias", true);
  s.ssm_proj_bias = r.boolean("mamba_proj_bias", false);
  s.ssm_inner_norms = true;
  if (s.attention_layer_period < 1) r.fail("attn_layer_period", "must be a positive integer");
}

constexpr HfArchitecture kRows[] = {
    {.model_type = "mamba", .source = "models/mamba/configuration_mamba.py", .tie_word_embeddings = true, .read = read_mamba},
    {.model_type = "rwkv", .source = "models/rwkv/configuration_rwkv.py", .ffn_width_factor = 4, .norm = NormKind::layer,
     .read = read_rwkv},
    {.model_type = "jamba", .source = "models/jamba/configuration_jamba.py", .read = read_jamba},
};

}  // namespace

const std::span<const HfArchitecture> kRecurrentFamily = kRows;

}  // namespace vramfit
