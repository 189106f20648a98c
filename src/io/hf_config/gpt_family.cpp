// GPT-2's descendants and the other LayerNorm decoders with a plain (GELU) MLP: GPT-2, GPT-BigCode,
// GPT-J, GPT-Neo, GPT-NeoX, Phi, OPT, BLOOM, Falcon, StarCoder2, StableLM. GPT-2's key names
// (n_embd, n_layer, n_head, n_inner, n_positions: GPT2Config's attribute_map) are read for every
// architecture; n_inner null means 4 x n_embd (GPT2MLP, GPTJMLP).
#include "architectures.hpp"

namespace vramfit {

namespace {

// GPT-2, GPT-BigCode and GPT-Neo: a learned position table of n_positions (max_position_embeddings) rows.
void read_learned_positions(ConfigReader&, ModelSpec& s, HfConfigRead&) { s.position_embeddings = s.max_context_tokens; }

// GPTBigCodeConfig: multi_query (default true) -> one KV head for all query heads.
void read_gpt_bigcode(ConfigReader& r, ModelSpec& s, HfConfigRead& out) {
  read_learned_positions(r, s, out);
  if (r.boolean("multi_query", true)) s.kv_heads = 1;
}

void read_phi(ConfigReader& r, ModelSpec&, HfConfigRead&) {
  if (r.boolean("qk_layernorm", false)) r.fail("qk_layernorm", "true is not supported yet (Phi's per-head q/k LayerNorms are not counted)");
}

// Falcon (FalconConfig): multi_query -> 1 KV head, new_decoder_architecture -> num_kv_heads; one
// bias key for every linear; parallel attention shares one input LayerNorm, the new architecture
// has ln_attn and ln_mlp.
void read_falcon(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  const bool new_arch = r.boolean("new_decoder_architecture", false);
  if (new_arch) s.kv_heads = r.integer("num_kv_heads", s.attention_heads);
  else if (r.boolean("multi_query", true)) s.kv_heads = 1;
  s.qkv_bias = s.attention_output_bias = s.mlp_bias = r.boolean("bias", false);
  s.norms_per_layer = new_arch ? 2 : (r.boolean("parallel_attn", true) ? 1 : 2);
}

void read_starcoder2(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.qkv_bias = s.attention_output_bias = s.mlp_bias = r.boolean("use_bias", true);
}

// OPT (OPTDecoder): learned positions with 2 extra rows, biases unless enable_bias is false, a
// final LayerNorm when do_layer_norm_before.
void read_opt(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.qkv_bias = s.attention_output_bias = s.mlp_bias = r.boolean("enable_bias", true);
  s.position_embeddings = s.max_context_tokens + 2;  // OPTLearnedPositionalEmbedding's offset
  s.final_norm = r.boolean("do_layer_norm_before", true) && !r.boolean("_remove_final_layer_norm", false);
  if (r.integer("word_embed_proj_dim", s.hidden_size) != s.hidden_size) {
    r.fail("word_embed_proj_dim", "different from hidden_size (OPT-350m's project_in/project_out) is not counted yet");
  }
  if (!r.boolean("layer_norm_elementwise_affine", true)) r.fail("layer_norm_elementwise_affine", "false is not counted yet");
}

// BLOOM: ALiBi (no position table), a LayerNorm after the embeddings, query_key_value in one tensor.
void read_bloom(ConfigReader&, ModelSpec& s, HfConfigRead&) { s.embedding_norm = true; }

// StableLM (StableLmDecoderLayer): q/k/v biases when use_qkv_bias, no post-attention LayerNorm
// with use_parallel_residual.
void read_stablelm(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.qkv_bias = r.boolean("use_qkv_bias", false);
  s.norms_per_layer = r.boolean("use_parallel_residual", false) ? 1 : 2;
  if (r.boolean("qk_layernorm", false)) r.fail("qk_layernorm", "true is not supported yet (per-head q/k LayerNorms are not counted)");
}

constexpr AttentionBiases kAllBiased = {.qkv = true, .output = true, .mlp = true};

constexpr HfArchitecture kRows[] = {
    {.model_type = "gpt2", .source = "models/gpt2/configuration_gpt2.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .ffn_width_factor = 4, .norm = NormKind::layer, .mlp = MlpKind::plain,
     .always_biased = kAllBiased, .biases_fixed = true, .fused_qkv = true, .read = read_learned_positions},
    {.model_type = "gpt_bigcode", .source = "models/gpt_bigcode/configuration_gpt_bigcode.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .ffn_width_factor = 4, .norm = NormKind::layer, .mlp = MlpKind::plain,
     .always_biased = kAllBiased, .biases_fixed = true, .fused_qkv = true, .read = read_gpt_bigcode},
    // GPT-J: q/k/v/out without biases, one LayerNorm before parallel attention and MLP, a biased LM head.
    {.model_type = "gptj", .source = "models/gptj/configuration_gptj.py", .num_key_value_heads_key = false,
     .ffn_width_factor = 4, .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = {.mlp = true},
     .biases_fixed = true, .norms_per_layer = 1, .output_bias = true},
    // GPT-Neo (GPTNeoModel): GPT-2's tensors but q, k and v without bias; attention_layers says
    // which layers are "local" (window_size tokens), read with the sliding windows.
    {.model_type = "gpt_neo", .source = "models/gpt_neo/configuration_gpt_neo.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .ffn_width_factor = 4, .norm = NormKind::layer, .mlp = MlpKind::plain,
     .always_biased = {.output = true, .mlp = true}, .biases_fixed = true, .sliding = SlidingLayers::gpt_neo,
     .read = read_learned_positions},
    {.model_type = "gpt_neox", .source = "models/gpt_neox/configuration_gpt_neox.py", .num_key_value_heads_key = false,
     .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = kAllBiased, .biases_fixed = true, .fused_qkv = true},
    {.model_type = "phi", .source = "models/phi/configuration_phi.py", .num_key_value_heads_key = false,
     .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = kAllBiased, .biases_fixed = true,
     .norms_per_layer = 1, .output_bias = true, .read = read_phi},
    {.model_type = "opt", .source = "models/opt/configuration_opt.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .norm = NormKind::layer, .mlp = MlpKind::plain, .biases_fixed = true,
     .read = read_opt},
    {.model_type = "bloom", .source = "models/bloom/configuration_bloom.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .ffn_width_factor = 4, .norm = NormKind::layer, .mlp = MlpKind::plain,
     .always_biased = kAllBiased, .biases_fixed = true, .fused_qkv = true, .read = read_bloom},
    {.model_type = "falcon", .source = "models/falcon/configuration_falcon.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .ffn_width_factor = 4, .norm = NormKind::layer, .mlp = MlpKind::plain,
     .biases_fixed = true, .fused_qkv = true, .read = read_falcon},
    {.model_type = "starcoder2", .source = "models/starcoder2/configuration_starcoder2.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .norm = NormKind::layer, .mlp = MlpKind::plain, .biases_fixed = true,
     .read = read_starcoder2},
    {.model_type = "stablelm", .source = "models/stablelm/configuration_stablelm.py", .norm = NormKind::layer,
     .read = read_stablelm},
};

}  // namespace

const std::span<const HfArchitecture> kGptFamily = kRows;

}  // namespace vramfit
