// Hugging Face config.json -> ModelSpec: the keys every architecture shares, read here; what
// differs per architecture is a row of its family's table (hf_config/*_family.cpp), and the
// sections any config may have (rope_scaling, quantization_config, vision_config) are read in
// hf_config/rope_and_storage.cpp and hf_config/multimodal.cpp.
#include "hf_config.hpp"

#include <algorithm>

#include "hf_config/architectures.hpp"
#include "hf_config/config_sections.hpp"

namespace vramfit {

namespace {

// Keys that say nothing about the tensors (tokens, dropout, initialisation, numerics, tooling).
bool describes_no_tensor(const std::string& key) {
  for (const char* part : {"token_id", "dropout", "pdrop", "eps", "epsilon", "initializer", "transformers_version",
                           "architectures", "_name_or_path", "use_cache", "act", "rope", "auto_map", "tokenizer",
                           "label", "torch_dtype", "dtype", "task_specific", "summary_", "quantization_config"}) {
    if (key.find(part) != std::string::npos) return true;
  }
  return false;
}

// An unknown model_type from a config.json alone: which of its keys vramfit could not place.
Error unknown_architecture(const std::string& type, const json& config, const ConfigReader& r) {
  std::string unplaced;
  int listed = 0;
  for (const auto& item : config.items()) {
    const std::string& key = item.key();
    if (describes_no_tensor(key) || std::find(r.asked.begin(), r.asked.end(), key) != r.asked.end()) continue;
    if (listed++ < 12) unplaced += (unplaced.empty() ? "" : ", ") + key;
  }
  if (listed > 12) unplaced += ", ... (" + std::to_string(listed) + " in all)";
  return make_error("config.unknown_architecture", "model_type",
                    r.origin + ": model_type '" + type + "' is not one vramfit knows, and a config.json alone does not say "
                    "its tensors" + (unplaced.empty() ? std::string() : " (keys it could not place: " + unplaced + ")") +
                    ". Open the model's safetensors or GGUF header instead: its weights are then counted from the file.");
}

// The sizes every architecture gives, under the key names of the families that name them
// differently: GPT-2's n_embd / n_layer / n_head / n_inner / n_positions, BLOOM's n_embed,
// GPT-Neo and T5's num_layers / num_heads, T5's d_model / d_kv / d_ff, BART's encoder_ keys.
void read_sizes(const json& config, ConfigReader& r, const HfArchitecture& a, ModelSpec& s, HfConfigRead& out) {
  s.parameters_only = r.integer("parameters", 0);
  s.hidden_size = r.integer("hidden_size", r.integer("n_embd", r.integer("n_embed", r.integer("d_model", 0))));
  s.layers = r.integer("num_hidden_layers", r.integer("n_layer", r.integer("num_layers", 0)));
  s.attention_heads = r.integer("num_attention_heads", r.integer("n_head", r.integer("num_heads", r.integer("encoder_attention_heads", 0))));
  s.kv_heads = r.integer("num_key_value_heads", s.attention_heads);
  if (!r.has("num_key_value_heads") && s.attention_heads > 0 && a.num_key_value_heads_key) {
    out.assumptions.push_back("num_key_value_heads missing: taken equal to num_attention_heads (no GQA).");
  }
  const int64_t derived_head_dim = a.head_dim > 0 ? a.head_dim : s.attention_heads > 0 ? s.hidden_size / s.attention_heads : 0;
  s.head_dim = r.integer("head_dim", r.integer("d_kv", derived_head_dim));
  const int64_t wide = a.ffn_width_factor * s.hidden_size;
  s.intermediate_size = r.integer("intermediate_size", r.integer("ffn_hidden_size", r.integer("n_inner", r.integer("ffn_dim", r.integer("d_ff", r.integer("encoder_ffn_dim", wide))))));
  s.vocab_size = r.integer("vocab_size", 0);
  s.max_context_tokens = r.integer("max_position_embeddings", r.integer("n_positions", 0));
  read_rope_scaling(config, r, s, out);
  s.tied_embeddings = r.boolean("tie_word_embeddings", a.tie_word_embeddings);
}

// The structure the row gives, and the bias keys where the family reads them.
void apply_structure(ConfigReader& r, const HfArchitecture& a, ModelSpec& s) {
  const bool attention_bias = r.boolean("attention_bias", a.attention_bias);
  s.qkv_bias = a.always_biased.qkv || attention_bias;
  s.attention_output_bias = attention_bias && a.attention_bias_on_output;
  s.mlp_bias = r.boolean("mlp_bias", false);
  if (a.biases_fixed) {
    s.qkv_bias = a.always_biased.qkv;
    s.attention_output_bias = a.always_biased.output;
    s.mlp_bias = a.always_biased.mlp;
  }
  s.norm = a.norm;
  s.mlp = a.mlp;
  s.qk_norm = a.qk_norm;
  s.qk_norm_full = a.qk_norm_full;
  s.norms_per_layer = a.norms_per_layer;
  s.attention_sinks = a.attention_sinks;
  s.fused_qkv = a.fused_qkv;
  s.output_bias = a.output_bias;
}

// Structure keys of vramfit's own configs (write_hf_config), for custom models: they describe
// any architecture and win over the row's structure.
void read_structure_keys(ConfigReader& r, ModelSpec& s) {
  s.qkv_bias = r.boolean("qkv_bias", s.qkv_bias);
  s.attention_output_bias = r.boolean("attention_output_bias", s.attention_output_bias);
  s.qk_norm = r.boolean("qk_norm", s.qk_norm);
  s.qk_norm_full = r.boolean("qk_norm_full", s.qk_norm_full);
  s.norms_per_layer = static_cast<int>(r.integer("norms_per_layer", s.norms_per_layer));
  s.attention_sinks = r.boolean("attention_sinks", s.attention_sinks);
  s.fused_qkv = r.boolean("fused_qkv", s.fused_qkv);
  s.output_bias = r.boolean("output_bias", s.output_bias);
  s.position_embeddings = r.integer("position_embeddings", s.position_embeddings);
  s.token_type_embeddings = r.integer("token_type_embeddings", s.token_type_embeddings);
  s.relative_position_embeddings = r.integer("relative_position_embeddings", s.relative_position_embeddings);
  s.embedding_norm = r.boolean("embedding_norm", s.embedding_norm);
  s.final_norm = r.boolean("final_norm", s.final_norm);
  s.pooler = r.boolean("pooler", s.pooler);
  s.encoder_only = r.boolean("encoder_only", s.encoder_only);
  s.scaled_context_tokens = r.integer("scaled_context_tokens", s.scaled_context_tokens);
  s.relative_attention_buckets = r.integer("relative_attention_buckets", s.relative_attention_buckets);
  const std::string mixer = r.text("mixer", "");
  if (mixer == "mamba" || mixer == "rwkv") {
    s.mixer = mixer == "mamba" ? Mixer::mamba : Mixer::rwkv;
    s.ssm_inner = r.integer("ssm_inner", s.ssm_inner);
    s.ssm_state = r.integer("ssm_state", s.ssm_state);
    s.ssm_conv_kernel = r.integer("ssm_conv_kernel", s.ssm_conv_kernel);
    s.ssm_dt_rank = r.integer("ssm_dt_rank", s.ssm_dt_rank);
    s.ssm_conv_bias = r.boolean("ssm_conv_bias", s.ssm_conv_bias);
    s.ssm_proj_bias = r.boolean("ssm_proj_bias", s.ssm_proj_bias);
  } else if (!mixer.empty() && mixer != "attention") {
    r.fail("mixer", "must be attention, mamba or rwkv (got '" + mixer + "')");
  }
  if (r.text("mlp_kind", "gated") == "plain") s.mlp = MlpKind::plain;
  if (r.text("norm_kind", "rms") == "layer") s.norm = NormKind::layer;
}

// Mixture of experts: the key differs per family.
void read_experts(ConfigReader& r, const HfArchitecture& a, ModelSpec& s, HfConfigRead& out) {
  s.experts = r.integer("num_local_experts", r.integer("num_experts", r.integer("n_routed_experts", 0)));
  if (s.experts == 0) return;
  s.experts_per_token = r.integer("num_experts_per_tok", 0);
  s.moe_intermediate_size = r.integer("moe_intermediate_size", s.intermediate_size);
  if (a.shared_expert == SharedExpert::gated) {
    s.shared_experts = r.has("shared_expert_intermediate_size") ? 1 : 0;
    s.shared_expert_intermediate_size = r.integer("shared_expert_intermediate_size", 0);
    s.shared_expert_gate = s.shared_experts > 0;
  } else {
    s.shared_experts = r.integer("n_shared_experts", 0);
    s.shared_expert_intermediate_size = s.moe_intermediate_size;
  }
  s.first_dense_layers = r.integer("first_k_dense_replace", 0);
  s.moe_layer_period = r.integer("expert_layer_period", 1);  // Jamba
  s.moe_layer_offset = r.integer("expert_layer_offset", 0);
  s.router_bias = s.expert_bias = a.expert_biases;
  s.router_score_correction = a.router_score_correction;
  if (r.integer("decoder_sparse_step", 1) != 1 ||
      (r.has("mlp_only_layers") && r.config.at("mlp_only_layers").is_array() && !r.config.at("mlp_only_layers").empty())) {
    out.assumptions.push_back("decoder_sparse_step / mlp_only_layers: every layer read as an MoE layer.");
  }
}

// Sliding-window attention: which layers see only the window.
void read_sliding_window(ConfigReader& r, const HfArchitecture& a, ModelSpec& s) {
  const bool neo = a.sliding == SlidingLayers::gpt_neo;
  const int64_t window = r.integer("sliding_window", neo ? r.integer("window_size", 256) : 0);
  // Qwen's config classes default use_sliding_window to false (Qwen2-Audio's text_config leaves it out).
  const bool sliding_enabled = r.boolean("use_sliding_window", a.sliding != SlidingLayers::when_enabled) && a.sliding != SlidingLayers::never;
  const bool neo_types = neo && !r.has("layer_types");
  const char* types_key = neo_types ? "attention_layers" : "layer_types";
  if (window <= 0 || !sliding_enabled || s.layers <= 0 || s.layers > (1 << 16)) return;
  s.sliding_layers.assign(static_cast<size_t>(s.layers), 0);
  if (read_layer_types(r, s, types_key, neo_types ? "local" : "sliding_attention")) {
  } else if (r.has("sliding_window_pattern") || a.sliding == SlidingLayers::every_sixth_global) {
    // Gemma 3: every pattern-th layer is global, the others slide (transformers' default 6).
    const int64_t pattern = r.integer("sliding_window_pattern", 6);
    if (pattern <= 0) r.fail("sliding_window_pattern", "must be a positive integer");
    for (int64_t i = 0; pattern > 0 && i < s.layers; ++i) s.sliding_layers[static_cast<size_t>(i)] = (i + 1) % pattern != 0;
  } else if (a.sliding == SlidingLayers::even_layers) {
    for (int64_t i = 0; i < s.layers; ++i) s.sliding_layers[static_cast<size_t>(i)] = i % 2 == 0;  // even layers slide
  } else {
    for (auto& layer : s.sliding_layers) layer = 1;  // Mistral v0.1 style: every layer
  }
  s.sliding_window = window;
  if (s.sliding_layer_count() == 0) { s.sliding_window = 0; s.sliding_layers.clear(); }
}

// Attention beyond the row's: multi-head latent attention, and the layers that attend to an image.
void read_attention_variants(const json& config, ConfigReader& r, const HfArchitecture& a, ModelSpec& s) {
  // Multi-head latent attention (DeepSeek-V2/V3).
  s.kv_lora_rank = r.integer("kv_lora_rank", 0);
  if (s.kv_lora_rank > 0) {
    s.q_lora_rank = r.integer("q_lora_rank", 0);
    s.qk_rope_head_dim = r.integer("qk_rope_head_dim", 0);
    s.qk_nope_head_dim = r.integer("qk_nope_head_dim", 0);
    s.v_head_dim = r.integer("v_head_dim", 0);
    s.head_dim = s.qk_nope_head_dim + s.qk_rope_head_dim;
  }

  // Mllama's text model: the layers that attend to the image, and embed_tokens' 8 extra rows
  // (MllamaTextModel: nn.Embedding(vocab_size + 8, hidden_size)).
  if (config.contains("cross_attention_layers") && s.layers > 0 && s.layers <= (1 << 16)) {
    const json& list = config.at("cross_attention_layers");
    s.cross_attention_layers.assign(static_cast<size_t>(s.layers), 0);
    for (size_t i = 0; list.is_array() && i < list.size(); ++i) {
      if (!list[i].is_number_integer() || list[i].get<int64_t>() < 0 || list[i].get<int64_t>() >= s.layers) {
        r.fail("cross_attention_layers[" + std::to_string(i) + "]", "must be a layer index from 0 to " + std::to_string(s.layers - 1));
        break;
      }
      s.cross_attention_layers[static_cast<size_t>(list[i].get<int64_t>())] = 1;
    }
    if (!list.is_array()) r.fail("cross_attention_layers", "must be a list of layer indices");
    if (s.cross_attention_layer_count() == 0) s.cross_attention_layers.clear();
    if (a.extra_embedding_rows > 0) s.extra_embedding_rows = r.integer("extra_embedding_rows", a.extra_embedding_rows);
  }
}

// The model_type read, and its row: a config without one is read as a Llama-style decoder.
struct ArchitectureRead {
  std::string type;
  const HfArchitecture* row = nullptr;
  bool known = false;
};

ArchitectureRead read_architecture(const json& root, bool nested, ConfigReader& r, HfConfigRead& out) {
  ArchitectureRead a;
  a.type = r.text("model_type", "");
  if (nested && a.type.empty()) a.type = ConfigReader{root, r.origin, std::nullopt}.text("model_type", "");
  // vramfit's own explicit structure keys (write_hf_config) describe any architecture.
  const bool explicit_structure = r.has("mlp_kind") && r.has("norm_kind");
  a.row = a.type.empty() ? nullptr : find_hf_architecture(a.type);
  a.known = a.type.empty() || a.row != nullptr || explicit_structure;
  if (a.type.empty()) {
    a.type = "llama";
    a.row = find_hf_architecture(a.type);
    out.assumptions.push_back("model_type missing: read as a Llama-style decoder.");
  } else if (!a.known) {
    out.assumptions.push_back("model_type '" + a.type + "' is not one vramfit knows: the weights are the file's; the KV cache "
                              "is sized from num_attention_heads, num_key_value_heads and head_dim.");
  }
  return a;
}

}  // namespace

Result<HfConfigRead> read_hf_config(const json& root, const std::string& origin, bool weights_from_file) {
  if (!root.is_object()) {
    return make_error("config.not_object", "", origin + ": expected a JSON object");
  }
  // Multimodal configs keep the language model under text_config (Gemma 3, LLaVA, ...).
  const bool nested = root.contains("text_config") && root.at("text_config").is_object();
  HfConfigRead out;
  const json filled = nested ? with_class_defaults(root.at("text_config"), out) : json();
  const json& config = !filled.is_null() ? filled : nested ? root.at("text_config") : root;
  ConfigReader r{config, origin, std::nullopt};
  ModelSpec& s = out.spec;
  const ArchitectureRead architecture = read_architecture(root, nested, r, out);
  static const HfArchitecture kLlamaStyle{};  // an unknown model_type: LlamaConfig's keys
  const HfArchitecture& a = architecture.row ? *architecture.row : kLlamaStyle;
  s.architecture = architecture.type;

  read_sizes(config, r, a, s, out);
  apply_structure(r, a, s);
  if (a.read) a.read(r, s, out);
  read_structure_keys(r, s);
  read_experts(r, a, s, out);
  if (a.read_after_experts) a.read_after_experts(r, s, out);
  const char* const mtp_key = r.has("num_nextn_predict_layers") ? "num_nextn_predict_layers" : "mtp_num_hidden_layers";
  s.mtp_layers = r.integer(mtp_key, 0);
  read_attention_variants(config, r, a, s);
  read_sliding_window(r, a, s);
  read_vision_tower(root, origin, s, r, out);
  if (nested) {
    ConfigReader root_reader{root, origin, std::nullopt};
    read_stored_format(root, root_reader, out);  // multimodal: quantization and dtype at the top
  } else {
    read_stored_format(config, r, out);
  }
  if (r.error) return *r.error;
  if (!architecture.known && !weights_from_file && s.parameters_only == 0) return unknown_architecture(architecture.type, config, r);
  if (auto e = validate_model_spec(s)) {
    e->message = origin + ": " + e->message;
    return *e;
  }
  if (s.mtp_layers > 0) {  // counted once the dimensions are known to be in range
    const std::string mtp = std::to_string(count_mtp_parameters(s)) + " parameters of multi-token prediction";
    out.assumptions.push_back(mtp_key + (" " + std::to_string(s.mtp_layers)) +
                              (weights_from_file ? ": " + mtp + ", in the file's weights (loaded to speculate)."
                                                 : ": the checkpoint also holds " + mtp + ", loaded only to speculate; not counted."));
  }
  return out;
}

Result<HfConfigRead> read_hf_config_text(const std::string& text, const std::string& origin) {
  const json parsed = parse_json(text);
  if (parsed.is_discarded()) {
    return make_error("config.bad_json", "", origin + ": not valid JSON");
  }
  return read_hf_config(parsed, origin);
}

}  // namespace vramfit
