// ModelSpec -> config.json: the keys read_hf_config turns back into the same spec (Hugging Face's
// where they exist, vramfit's own structure keys for what they cannot say).
#include "io/hf_config.hpp"

namespace vramfit {

namespace {

struct IntegerKey { const char* key; int64_t value; bool always; };  // else written when > 0
struct FlagKey { const char* key; bool value; bool always; };        // else written when true

void write_keys(json& c, std::initializer_list<IntegerKey> integers, std::initializer_list<FlagKey> flags) {
  for (const IntegerKey& k : integers) if (k.always || k.value > 0) c[k.key] = k.value;
  for (const FlagKey& k : flags) if (k.always || k.value) c[k.key] = k.value;
}

// The language model's keys (the whole config.json of a text-only model).
json write_text_config(const ModelSpec& s) {
  json c;
  c["model_type"] = s.architecture.empty() ? "llama" : s.architecture;
  write_keys(c,
             {{"parameters", s.parameters_only, false}, {"hidden_size", s.hidden_size, true},
              {"num_hidden_layers", s.layers, true}, {"num_attention_heads", s.attention_heads, true},
              {"num_key_value_heads", s.kv_heads, true}, {"head_dim", s.head_dim, true},
              {"intermediate_size", s.intermediate_size, true}, {"vocab_size", s.vocab_size, true},
              {"max_position_embeddings", s.max_context_tokens, false}, {"scaled_context_tokens", s.scaled_context_tokens, false},
              {"norms_per_layer", s.norms_per_layer, true}, {"position_embeddings", s.position_embeddings, false},
              {"token_type_embeddings", s.token_type_embeddings, false},
              {"relative_position_embeddings", s.relative_position_embeddings, false},
              {"encoder_layers", s.encoder_layers, false}, {"relative_attention_buckets", s.relative_attention_buckets, false},
              {"num_nextn_predict_layers", s.mtp_layers, false}, {"num_mel_bins", s.audio_mel_bins, false},
              {"max_source_positions", s.encoder_position_embeddings, false}},
             {{"tie_word_embeddings", s.tied_embeddings, true}, {"qkv_bias", s.qkv_bias, true},
              {"attention_output_bias", s.attention_output_bias, true}, {"mlp_bias", s.mlp_bias, true},
              {"qk_norm", s.qk_norm, true}, {"qk_norm_full", s.qk_norm_full, false},
              {"attention_sinks", s.attention_sinks, true}, {"fused_qkv", s.fused_qkv, true},
              {"output_bias", s.output_bias, false}, {"embedding_norm", s.embedding_norm, false},
              {"pooler", s.pooler, false}, {"encoder_only", s.encoder_only, false}});
  // Encoders' readers default these otherwise (type_vocab_size 2, positions, DeBERTa's norm): written even at 0 / true.
  if (!s.final_norm || s.encoder_only) c["final_norm"] = s.final_norm;
  if (s.encoder_only) {
    c["position_embeddings"] = s.position_embeddings;
    c["token_type_embeddings"] = s.token_type_embeddings;
  }
  if (s.mixer == Mixer::delta_net) {  // Qwen3-Next's own keys
    write_keys(c,
               {{"full_attention_interval", s.attention_layer_period, true}, {"linear_num_key_heads", s.linear_key_heads, true},
                {"linear_num_value_heads", s.linear_value_heads, true}, {"linear_key_head_dim", s.linear_key_head_dim, true},
                {"linear_value_head_dim", s.linear_value_head_dim, true}, {"linear_conv_kernel_dim", s.ssm_conv_kernel, true}},
               {});
  } else if (s.is_hybrid()) {  // Jamba's own keys
    write_keys(c,
               {{"attn_layer_period", s.attention_layer_period, true}, {"attn_layer_offset", s.attention_layer_offset, true},
                {"mamba_expand", s.ssm_inner / s.hidden_size, true}, {"mamba_d_state", s.ssm_state, true},
                {"mamba_d_conv", s.ssm_conv_kernel, true}, {"mamba_dt_rank", s.ssm_dt_rank, true}},
               {{"mamba_conv_bias", s.ssm_conv_bias, true}, {"mamba_proj_bias", s.ssm_proj_bias, true}});
  } else if (s.is_recurrent()) {
    c["mixer"] = s.mixer == Mixer::mamba ? "mamba" : "rwkv";
    write_keys(c,
               {{"ssm_inner", s.ssm_inner, true}, {"ssm_state", s.ssm_state, true},
                {"ssm_conv_kernel", s.ssm_conv_kernel, true}, {"ssm_dt_rank", s.ssm_dt_rank, true}},
               {{"ssm_conv_bias", s.ssm_conv_bias, true}, {"ssm_proj_bias", s.ssm_proj_bias, true}});
  }
  c["mlp_kind"] = s.mlp == MlpKind::plain ? "plain" : "gated";
  c["norm_kind"] = s.norm == NormKind::layer ? "layer" : "rms";
  if (s.experts > 0) {
    const bool qwen_shared = s.architecture == "qwen2_moe" || s.mixer == Mixer::delta_net;
    write_keys(c,
               {{"num_local_experts", s.experts, true}, {"num_experts_per_tok", s.experts_per_token, true},
                {"moe_intermediate_size", s.moe_intermediate_size, true},
                {"shared_expert_intermediate_size", qwen_shared && s.shared_experts > 0 ? s.shared_expert_intermediate_size : 0, false},
                {"n_shared_experts", qwen_shared ? 0 : s.shared_experts, false},
                {"first_k_dense_replace", s.first_dense_layers, false},
                {"expert_layer_period", s.moe_layer_period > 1 ? s.moe_layer_period : 0, false},
                {"expert_layer_offset", s.moe_layer_offset, false}},
               {});
  }
  if (s.kv_lora_rank > 0) {
    write_keys(c,
               {{"q_lora_rank", s.q_lora_rank, true}, {"kv_lora_rank", s.kv_lora_rank, true},
                {"qk_rope_head_dim", s.qk_rope_head_dim, true}, {"qk_nope_head_dim", s.qk_nope_head_dim, true},
                {"v_head_dim", s.v_head_dim, true}},
               {});
  }
  if (s.sliding_window > 0) {
    c["sliding_window"] = s.sliding_window;
    json types = json::array();
    for (uint8_t sliding : s.sliding_layers) types.push_back(sliding ? "sliding_attention" : "full_attention");
    c["layer_types"] = types;
  }
  if (s.architecture == "llama4" || s.architecture == "llama4_text") {  // Llama 4's own keys
    for (const char* generic : {"moe_intermediate_size", "n_shared_experts", "expert_layer_period", "expert_layer_offset",
                                "first_k_dense_replace", "sliding_window", "layer_types"}) {
      c.erase(generic);
    }
    c["intermediate_size_mlp"] = s.intermediate_size;
    if (s.is_moe()) {
      c["intermediate_size"] = s.moe_intermediate_size;
      json moe_layers = json::array();
      for (int64_t i = 0; i < s.layers; ++i) if (s.is_moe_layer(i)) moe_layers.push_back(i);
      c["moe_layers"] = moe_layers;
    }
    c["attention_chunk_size"] = s.sliding_window > 0 ? json(s.sliding_window) : json();
    if (s.sliding_window > 0) {
      json& rope = c["no_rope_layers"] = json::array();
      for (int64_t i = 0; i < s.layers; ++i) rope.push_back(s.is_sliding_layer(i) ? 1 : 0);
    }
  }
  if (s.cross_attention_layer_count() > 0) {
    json layers = json::array();
    for (int64_t i = 0; i < s.layers; ++i) if (s.is_cross_attention_layer(i)) layers.push_back(i);
    c["cross_attention_layers"] = layers;
    c["extra_embedding_rows"] = s.extra_embedding_rows;
  }
  return c;
}

// A multimodal model as its family's config.json: the text under text_config, the tower's keys.
json write_multimodal_config(const ModelSpec& s, const json& c) {
  const VisionTower& v = s.vision;
  const bool qwen = v.dynamic_resolution(), qwen3_5 = v.kind == VisionKind::qwen3_5;
  const char* family = qwen3_5 ? (s.is_moe() ? "qwen3_5_moe" : "qwen3_5")
                       : qwen ? (v.rms_norm ? "qwen2_5_vl" : "qwen2_vl")
                       : v.kind == VisionKind::mllama ? "mllama"
                       : v.kind == VisionKind::llama4 ? "llama4"
                       : v.kind == VisionKind::whisper ? "qwen2_audio"
                       : v.projector == ProjectorKind::pixel_shuffle ? "idefics3"
                       : v.projector == ProjectorKind::gemma3 ? "gemma3"
                       : v.projector == ProjectorKind::patch_merger ? "mistral3"
                       : v.image_newline ? "llava_next" : "llava";
  json root = {{"model_type", family}, {"text_config", c}};
  json& vision = root[v.kind == VisionKind::whisper ? "audio_config" : "vision_config"];
  if (v.kind == VisionKind::whisper) {
    write_keys(vision,
               {{"encoder_layers", v.layers, true}, {"d_model", v.hidden, true}, {"encoder_attention_heads", v.heads, true},
                {"encoder_ffn_dim", v.intermediate, true}, {"num_mel_bins", v.channels, true},
                {"max_source_positions", v.image_size, true}},
               {});
  } else if (qwen) {
    const bool qwen2 = !v.rms_norm && !qwen3_5;  // Qwen2-VL's own names: embed_dim, mlp_ratio
    write_keys(vision,
               {{"depth", v.layers, true}, {"num_heads", v.heads, true}, {"patch_size", v.patch, true},
                {"in_chans", v.channels, true}, {"temporal_patch_size", v.temporal_patch, true},
                {"spatial_merge_size", v.merge, true}, {qwen2 ? "embed_dim" : "hidden_size", v.hidden, true},
                {qwen2 ? "mlp_ratio" : "intermediate_size", qwen2 ? v.intermediate / v.hidden : v.intermediate, true},
                {qwen2 ? "hidden_size" : "out_hidden_size", v.out_hidden, true},
                {"num_position_embeddings", v.position_table, false}},
               {});
  } else {
    write_keys(vision,
               {{"num_hidden_layers", v.layers, true}, {"hidden_size", v.hidden, true}, {"num_attention_heads", v.heads, true},
                {"intermediate_size", v.intermediate, true}, {"patch_size", v.patch, true}, {"image_size", v.image_size, true},
                {"num_channels", v.channels, true}, {"num_global_layers", v.global_layers, false},
                {"vision_output_dim", v.projector_input, false}, {"aspect_ratio_count", v.aspect_ratios, false},
                {"max_num_tiles", v.tiles, true}},  // vramfit's keys: tiles (always: Mllama's default is 4) and aspect ratios
               {});
  }
  if (v.kind == VisionKind::pixtral) vision["model_type"] = "pixtral";
  if (v.kind == VisionKind::siglip) {
    vision["model_type"] = "siglip_vision_model";
    vision["vision_use_head"] = v.pooling_head;
  }
  if (v.kind == VisionKind::llama4) {
    vision["projector_input_dim"] = vision["projector_output_dim"] = v.projector_input;
  }
  if (v.scale_factor > 0) root["scale_factor"] = v.scale_factor;
  if (v.projector == ProjectorKind::patch_merger) root["spatial_merge_size"] = v.merge;
  if (!v.projector_bias) root["multimodal_projector_bias"] = false;
  return root;
}

}  // namespace

json write_hf_config(const ModelSpec& s) {
  const json text = write_text_config(s);
  return s.vision.kind == VisionKind::none ? text : write_multimodal_config(s, text);
}

}  // namespace vramfit
