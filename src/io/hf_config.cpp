#include "hf_config.hpp"

#include "core/units.hpp"

#include <algorithm>
#include <cmath>

namespace vramfit {

namespace {

constexpr int64_t kMaxDimension = int64_t(1) << 40;  // no real model comes near this

// Its lookups are kept out of line: read_hf_config makes some 150 of them, and inlined copies
// would cost the page's module kilobytes for no measurable speed (configs are read once).
struct Reader {
  const json& config;
  std::string origin;
  std::optional<Error> error;
  std::vector<const char*> asked = {};  // every key looked up (the others were not placed)

  [[gnu::noinline]] bool has(const char* key) {
    asked.push_back(key);
    return config.contains(key) && !config.at(key).is_null();
  }

  [[gnu::noinline]] void fail(const std::string& field, const std::string& what) {
    if (!error) error = make_error("config.invalid_field", field, origin + ": " + field + " " + what);
  }

  // A non-negative integer; JSON floats with an integral value (4096.0) are accepted.
  [[gnu::noinline]] int64_t integer(const char* key, int64_t fallback) {
    if (!has(key)) return fallback;
    const json& v = config.at(key);
    if (v.is_number_integer()) {
      const int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(kMaxDimension)
                            ? kMaxDimension + 1
                            : v.get<int64_t>();
      if (x < 0) { fail(key, "must not be negative (got " + std::to_string(x) + ")"); return fallback; }
      if (x > kMaxDimension) { fail(key, "is too large (" + v.dump() + ")"); return fallback; }
      return x;
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!std::isfinite(d)) { fail(key, "must be a finite number"); return fallback; }
      if (d < 0 || d != std::floor(d) || d > static_cast<double>(kMaxDimension)) {
        fail(key, "must be a non-negative integer (got " + v.dump() + ")");
        return fallback;
      }
      return static_cast<int64_t>(d);
    }
    fail(key, std::string("must be a number (got ") + v.type_name() + ")");
    return fallback;
  }

  [[gnu::noinline]] bool boolean(const char* key, bool fallback) {
    if (!has(key)) return fallback;
    const json& v = config.at(key);
    if (!v.is_boolean()) { fail(key, std::string("must be true or false (got ") + v.type_name() + ")"); return fallback; }
    return v.get<bool>();
  }

  [[gnu::noinline]] std::string text(const char* key, const std::string& fallback) {
    if (!has(key)) return fallback;
    const json& v = config.at(key);
    if (!v.is_string()) { fail(key, std::string("must be a string (got ") + v.type_name() + ")"); return fallback; }
    return v.get<std::string>();
  }
};

const char* const kKnownArchitectures[] = {
    "parameters_only", "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
    "gemma", "gemma2", "gemma3", "gemma3_text", "phi3", "deepseek_v2", "deepseek_v3", "gpt_oss",
    "gpt_neox", "falcon", "starcoder2", "gpt2", "gpt_bigcode", "gptj", "phi", "bert", "roberta",
    "xlm-roberta", "opt", "bloom", "stablelm", "granite", "olmo2", "internlm2", "glm", "deberta-v2", "olmoe", "cohere",
    "gpt_neo", "t5", "bart", "mamba", "rwkv", "qwen2_vl", "qwen2_5_vl", "qwen2_vl_text", "qwen2_5_vl_text",
    "llava_next", "idefics3", "mllama", "mllama_text_model", "jamba", "qwen3_next", "llama4", "llama4_text", "whisper", "qwen3_5", "qwen3_5_text", "qwen3_5_moe",
    "qwen3_5_moe_text", "ministral3"};

// Families whose configs have no num_key_value_heads: their KV heads are the attention heads
// or set by their own keys (Falcon and GPT-BigCode's multi_query, DeepSeek's MLA).
bool has_no_gqa_key(const std::string& model_type) {
  for (const char* family : {"deepseek_v2", "deepseek_v3", "falcon", "gpt_neox", "starcoder2", "gpt2", "gpt_bigcode", "gptj",
                             "bert", "roberta", "xlm-roberta", "deberta-v2", "phi", "opt", "bloom", "gpt_neo", "t5", "bart", "whisper"}) {
    if (model_type == family) return true;
  }
  return false;
}

bool is_known_architecture(const std::string& model_type) {
  for (const char* known : kKnownArchitectures) if (model_type == known) return true;
  return false;
}

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
Error unknown_architecture(const std::string& type, const json& config, const Reader& r) {
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

// rope_scaling (transformers' modeling_rope_utils.py, ROPE_INIT_FUNCTIONS): linear and YaRN
// stretch RoPE to original_max_position_embeddings (else max_position_embeddings) x factor, the
// context vLLM also derives (_get_and_verify_max_len). llama3 and LongRoPE configs already give
// the long context as max_position_embeddings; dynamic NTK rescales past it with no set end.
void read_rope_scaling(const json& config, Reader& r, ModelSpec& s, HfConfigRead& out) {
  const char* key = config.contains("rope_scaling") ? "rope_scaling" : "rope_parameters";
  if (!config.contains(key) || !config.at(key).is_object()) return;
  Reader rope{config.at(key), r.origin + ": " + key, std::nullopt};
  const std::string type = rope.text("rope_type", rope.text("type", ""));
  const double factor = rope.config.contains("factor") && rope.config.at("factor").is_number() ? rope.config.at("factor").get<double>() : 0.0;
  const int64_t original = rope.integer("original_max_position_embeddings", s.max_context_tokens);
  if (rope.error) {
    if (!r.error) r.error = rope.error;
    return;
  }
  const std::string named = std::string(key) + " " + type;
  // Gemma 3's linear factor is already in its max_position_embeddings (vLLM's
  // _get_and_verify_max_len skips "gemma3" model types for the same reason).
  if (s.architecture.rfind("gemma3", 0) == 0) return;
  if ((type == "linear" || type == "yarn") && factor > 1.0 && factor < 1024.0 && original > 0) {
    const int64_t scaled = static_cast<int64_t>(static_cast<double>(original) * factor);
    if (scaled > s.max_context_tokens) {
      s.scaled_context_tokens = scaled;
      out.assumptions.push_back(named + " x " + json(factor).dump() + " over " + std::to_string(original) +
                                " positions: context up to " + std::to_string(scaled) + " tokens.");
    }
  } else if (type == "dynamic") {
    out.assumptions.push_back(named + ": RoPE is rescaled past max_position_embeddings with no set end; the context "
                              "warning uses max_position_embeddings.");
  } else if (!type.empty() && type != "default" && type != "llama3" && type != "longrope" && type != "su" &&
             type != "mrope") {  // Qwen2-VL's multimodal sections: no scaling
    out.assumptions.push_back(named + " is not one vramfit reads: the context is max_position_embeddings.");
  }
}

// quantization_config (transformers' *QuantizationConfig), else torch_dtype -> a format id.
void read_stored_format(const json& config, Reader& r, HfConfigRead& out) {
  if (config.contains("quantization_config") && config.at("quantization_config").is_object()) {
    const json& q = config.at("quantization_config");
    Reader qr{q, r.origin, std::nullopt};
    const std::string method = qr.text("quant_method", "");
    const int64_t bits = qr.integer("bits", 4);
    int64_t group = 0;
    if (q.contains("group_size") && q.at("group_size").is_number_integer()) group = q.at("group_size").get<int64_t>();
    if (method == "gptq" || method == "awq") {
      out.stored_format = method == "awq" ? "awq-int4" : (bits == 8 ? "gptq-int8" : "gptq-int4");
      if (method == "awq" && bits != 4) out.assumptions.push_back("AWQ with " + std::to_string(bits) + " bits sized as AWQ int4");
      if (group > 0) out.stored_group_size = group;
      if (group < 0) {
        out.stored_group_size = 1 << 16;
        out.assumptions.push_back("group_size -1 (one group per column) sized as groups of 65,536 rows");
      }
    } else if (method == "bitsandbytes") {
      if (qr.boolean("load_in_8bit", false)) {
        out.stored_format = "bnb-int8";
      } else {
        const bool fp4 = qr.text("bnb_4bit_quant_type", "nf4") == "fp4";
        const bool double_quant = qr.boolean("bnb_4bit_use_double_quant", false);
        out.stored_format = fp4 ? "bnb-fp4" : (double_quant ? "bnb-nf4-dq" : "bnb-nf4");
      }
    } else if (method == "fp8" || method == "fbgemm_fp8") {
      out.stored_format = "fp8";
      if (q.contains("weight_block_size")) {
        out.assumptions.push_back("FP8 with block scales sized with one scale per tensor (the 128x128 block scales add 0.02%)");
      }
    } else if (method == "mxfp4") {
      out.stored_format = "mxfp4-moe";
    } else if (!method.empty()) {
      out.assumptions.push_back("quantization_config.quant_method '" + method + "' is not one vramfit sizes; weights sized by the chosen format");
    }
    if (qr.error && !r.error) r.error = qr.error;
    if (!out.stored_format.empty()) {
      out.stored_format_reason = "quantization_config: " + method;
      return;
    }
  }
  const std::string dtype = r.text("torch_dtype", r.text("dtype", ""));
  if (dtype == "bfloat16") out.stored_format = "bf16";
  else if (dtype == "float16") out.stored_format = "fp16";
  else if (dtype == "float32") out.stored_format = "fp32";
  if (!out.stored_format.empty()) out.stored_format_reason = "torch_dtype: " + dtype;
}

// GPT-Neo (GPTNeoModel): GPT-2's tensors but q, k and v without bias; its configs list each
// layer's attention in attention_layers ("global" or "local": window_size tokens), read with
// the sliding windows below.
void read_gpt_neo(Reader& r, ModelSpec& s) {
  s.norm = NormKind::layer;
  s.mlp = MlpKind::plain;
  s.attention_output_bias = s.mlp_bias = true;
  s.position_embeddings = s.max_context_tokens;
  s.tied_embeddings = r.boolean("tie_word_embeddings", true);
}

// T5 (T5Stack) and BART (BartEncoder, BartDecoder): an encoder stack then a decoder stack.
// T5: RMS norms without biases, relative attention bias tables in each stack's first layer,
// feed_forward_proj "relu" (wi, wo) or "gated-gelu" (wi_0, wi_1, wo), a final norm per stack.
// BART: LayerNorms and biases everywhere, a learned position table (max_position_embeddings + 2
// rows, BartLearnedPositionalEmbedding's offset) and layernorm_embedding per stack, no final norm.
// Whisper (WhisperEncoder, WhisperDecoder): BART's layers with k_proj unbiased, the encoder fed by
// its conv stem over num_mel_bins with a table of max_source_positions, the decoder a table of
// max_target_positions, a final LayerNorm per stack; its cache holds max_source_positions
// encoder states and up to max_target_positions tokens.
void read_sequence_to_sequence(Reader& r, ModelSpec& s) {
  const std::string type = s.architecture;
  const bool whisper = type == "whisper";
  if (type != "t5" && type != "bart" && !whisper) return;
  if (r.has("decoder_layers") || (type == "t5" && !r.has("encoder_layers"))) {
    // The configs' own keys: T5's num_layers + num_decoder_layers, BART's encoder_ + decoder_layers.
    s.encoder_layers = type == "t5" ? r.integer("num_layers", 6) : r.integer("encoder_layers", 0);  // T5Config: 6
    s.layers = s.encoder_layers + (type == "t5" ? r.integer("num_decoder_layers", s.encoder_layers) : r.integer("decoder_layers", 0));
  } else {
    s.encoder_layers = r.integer("encoder_layers", 0);  // vramfit's own keys: num_hidden_layers is both stacks
  }
  if (s.encoder_layers < 1) {
    r.fail(type == "t5" && !r.has("encoder_layers") ? "num_layers" : "encoder_layers", "must be a positive integer");
    return;
  }
  if (type == "t5") {
    s.relative_attention_buckets = r.integer("relative_attention_buckets", r.integer("relative_attention_num_buckets", 32));
    s.mlp = r.text("mlp_kind", r.text("feed_forward_proj", "relu").rfind("gated-", 0) == 0 ? "gated" : "plain") == "gated"
                ? MlpKind::gated : MlpKind::plain;
    s.tied_embeddings = r.boolean("tie_word_embeddings", true);
    return;
  }
  // d_model, encoder_attention_heads and encoder_ffn_dim are read with the other families' keys.
  if (r.integer("decoder_ffn_dim", s.intermediate_size) != s.intermediate_size) {
    r.fail("decoder_ffn_dim", "different from encoder_ffn_dim is not counted yet");
  }
  if (r.integer("decoder_attention_heads", s.attention_heads) != s.attention_heads) {
    r.fail("decoder_attention_heads", "different from encoder_attention_heads is not counted yet");
  }
  s.norm = NormKind::layer;
  s.mlp = MlpKind::plain;
  s.qkv_bias = s.attention_output_bias = s.mlp_bias = true;
  s.tied_embeddings = r.boolean("tie_word_embeddings", true);
  if (whisper) {
    s.no_key_bias = true;
    s.audio_mel_bins = r.integer("num_mel_bins", 80);
    s.encoder_position_embeddings = r.integer("max_source_positions", 1500);
    s.position_embeddings = r.integer("max_target_positions", r.integer("position_embeddings", 448));
    s.max_context_tokens = sat_add(s.encoder_position_embeddings, s.position_embeddings);
    return;
  }
  s.position_embeddings = r.integer("position_embeddings", s.max_context_tokens + 2);
  s.embedding_norm = true;
  s.final_norm = r.boolean("final_norm", r.boolean("add_final_layer_norm", false));
}

// Jamba (JambaConfig, JambaForCausalLM): attention in every attn_layer_period-th layer from
// attn_layer_offset, JambaMambaMixer (Mamba with RMSNorms over dt, B and C) in the others, each
// followed by its MLP, or by an MoE of num_experts in every expert_layer_period-th layer from
// expert_layer_offset (read with the other families' experts). vramfit's own keys write the same.
void read_jamba(Reader& r, ModelSpec& s) {
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
  s.tied_embeddings = r.boolean("tie_word_embeddings", false);
  if (s.attention_layer_period < 1) r.fail("attn_layer_period", "must be a positive integer");
}

// Qwen3-Next (Qwen3NextConfig) and Qwen3.5 (Qwen3_5TextConfig, Qwen3_5MoeTextConfig): full
// attention in every full_attention_interval-th layer (its q_proj also gives an output gate; q and
// k norms), Gated DeltaNet linear attention in the others (linear_num_key_heads /
// linear_num_value_heads of linear_key_head_dim / linear_value_head_dim, a causal conv of
// linear_conv_kernel_dim; Qwen3.5 splits in_proj_qkvz and in_proj_ba into in_proj_qkv, _z, _b
// and _a, the same sizes); an MoE with a gated shared expert in every layer, or (Qwen3.5's dense
// models) an MLP.
void read_qwen3_next(Reader& r, ModelSpec& s) {
  s.mixer = Mixer::delta_net;
  s.attention_layer_period = r.integer("full_attention_interval", 4);
  s.attention_layer_offset = s.attention_layer_period - 1;  // layer_types: full_attention when (i + 1) % interval == 0
  s.linear_key_heads = r.integer("linear_num_key_heads", 16);
  s.linear_value_heads = r.integer("linear_num_value_heads", 32);
  s.linear_key_head_dim = r.integer("linear_key_head_dim", 128);
  s.linear_value_head_dim = r.integer("linear_value_head_dim", 128);
  s.ssm_conv_kernel = r.integer("linear_conv_kernel_dim", 4);
  s.attention_output_gate = s.qk_norm = true;
  s.tied_embeddings = r.boolean("tie_word_embeddings", false);
  if (s.attention_layer_period < 1) r.fail("full_attention_interval", "must be a positive integer");
}

// Which layers slide, from a config's list of every layer's attention (layer_types, GPT-Neo's
// attention_layers): those whose entry is `sliding` ("sliding_attention", "local", Llama 4's
// "chunked_attention"). sliding_layers must already hold one entry per layer. False when the
// config has no such list.
bool read_layer_types(Reader& r, ModelSpec& s, const char* key, const char* sliding) {
  if (!r.config.contains(key) || !r.config.at(key).is_array()) return false;
  const json& types = r.config.at(key);
  if (types.size() != s.sliding_layers.size()) {
    r.fail(key, "must list one entry per layer (" + std::to_string(s.layers) + "), got " + std::to_string(types.size()));
    return true;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    if (!types[i].is_string()) { r.fail(std::string(key) + "[" + std::to_string(i) + "]", "must be a string"); break; }
    s.sliding_layers[i] = types[i].get<std::string>() == sliding;
  }
  return true;
}

// Which layers a Llama 4 config gives experts: moe_layers, else every interleave_moe_layer_step-th
// layer from step - 1 (Llama4TextConfig.__post_init__). A list must be such a run, from its first
// layer to the last; vramfit keeps it as a period, an offset and the dense layers before it.
void read_llama4_moe_layers(Reader& r, ModelSpec& s) {
  const int64_t step = r.integer("interleave_moe_layer_step", 1);
  if (step < 1 || step > (1 << 16)) {
    r.fail("interleave_moe_layer_step", "must be an integer from 1 to 65,536");
    return;
  }
  int64_t first = step - 1, period = step;
  if (r.has("moe_layers")) {
    const json& list = r.config.at("moe_layers");
    bool run = list.is_array() && !list.empty();
    for (size_t i = 0; run && i < list.size(); ++i) run = list[i].is_number_integer();
    if (run) {
      first = list[0].get<int64_t>();
      period = list.size() > 1 ? list[1].get<int64_t>() - first : std::max<int64_t>(1, s.layers - first);
      run = first >= 0 && period >= 1 && period <= (1 << 16);
      for (size_t i = 0; run && i < list.size(); ++i) run = list[i].get<int64_t>() == first + static_cast<int64_t>(i) * period;
      run = run && list.back().get<int64_t>() < s.layers && list.back().get<int64_t>() + period >= s.layers;
    }
    if (!run) {
      r.fail("moe_layers", "must list every n-th layer from one layer to the last (other lists are not counted yet)");
      return;
    }
  }
  s.first_dense_layers = first;
  s.moe_layer_period = period;
  s.moe_layer_offset = first % period;
}

// Llama 4 (Llama4TextConfig, Llama4TextDecoderLayer): its MoE layers have num_local_experts
// experts of intermediate_size and one shared expert as wide (Llama4TextMoe; a router without
// bias), its dense layers intermediate_size_mlp; the L2 q/k norm has no weights. The RoPE layers
// (no_rope_layers[i] = 1; else all but every no_rope_layer_interval-th) attend within chunks of
// attention_chunk_size tokens, the NoPE layers to the whole context. The chunked layers' cache is
// sized as a sliding window of one chunk, as llama.cpp keeps it (llama_model::load_hparams,
// LLM_ARCH_LLAMA4: LLAMA_SWA_TYPE_CHUNKED, n_swa 8192, set_swa_pattern(4)).
void read_llama4(Reader& r, ModelSpec& s, HfConfigRead& out) {
  if (s.experts > 0) {
    s.moe_intermediate_size = s.shared_expert_intermediate_size = s.intermediate_size;
    s.shared_experts = 1;
    read_llama4_moe_layers(r, s);
  }
  s.intermediate_size = r.integer("intermediate_size_mlp", 16384);
  s.tied_embeddings = r.boolean("tie_word_embeddings", false);
  // attention_chunk_size null: every layer attends to the whole context.
  const bool unchunked = r.config.contains("attention_chunk_size") && r.config.at("attention_chunk_size").is_null();
  const int64_t chunk = unchunked ? 0 : r.integer("attention_chunk_size", 8192);
  if (chunk <= 0 || s.layers <= 0 || s.layers > (1 << 16)) return;
  const json& rope = r.has("no_rope_layers") ? r.config.at("no_rope_layers") : json::array();
  const int64_t interval = r.integer("no_rope_layer_interval", 4);
  s.sliding_layers.assign(static_cast<size_t>(s.layers), 0);
  const bool listed = read_layer_types(r, s, "layer_types", "chunked_attention");
  for (size_t i = 0; !listed && i < s.sliding_layers.size(); ++i) {
    if (rope.is_array() && !rope.empty()) {
      if (i >= rope.size() || !rope[i].is_number_integer()) { r.fail("no_rope_layers", "must give every layer a 0 or 1"); return; }
      s.sliding_layers[i] = rope[i].get<int64_t>() != 0;
    } else {
      s.sliding_layers[i] = interval <= 0 || (static_cast<int64_t>(i) + 1) % interval != 0;
    }
  }
  s.sliding_window = chunk;
  if (s.sliding_layer_count() == 0) { s.sliding_window = 0; s.sliding_layers.clear(); return; }
  s.chunked_attention = true;
  // vLLM keeps every token in every layer when its hybrid KV cache manager is off: with
  // --disable-hybrid-kv-cache-manager, and by default for chunked attention between its pull
  // requests 21761 and 29627 (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE).
  out.assumptions.push_back("attention_chunk_size " + std::to_string(chunk) + ": the " + std::to_string(s.sliding_layer_count()) +
                            " chunked-attention layers' cache is sized as a sliding window of one chunk, as llama.cpp and vLLM's "
                            "hybrid KV cache manager keep it; with that manager off, vLLM keeps every token.");
}

// Mamba (MambaConfig, MambaMixer) and RWKV-4 (RwkvConfig, RwkvBlock): no attention heads.
void read_recurrent(Reader& r, ModelSpec& s) {
  const std::string type = s.architecture;
  if (type == "mamba") {
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
    s.tied_embeddings = r.boolean("tie_word_embeddings", true);
  } else if (type == "rwkv") {
    s.mixer = Mixer::rwkv;
    s.ssm_inner = r.integer("attention_hidden_size", s.hidden_size);
    s.norm = NormKind::layer;
    s.embedding_norm = true;  // blocks[0].pre_ln
    s.max_context_tokens = r.integer("context_length", s.max_context_tokens);
    s.tied_embeddings = r.boolean("tie_word_embeddings", false);
  } else {
    return;
  }
  s.attention_heads = s.kv_heads = s.head_dim = 0;
}

// The largest grid of LLaVA-NeXT's image_grid_pinpoints in tiles of image_size, plus the base
// image (LlavaNextModel.get_image_features runs every crop of an image through the tower).
int64_t llava_next_crops(const json& root, int64_t image_size, Reader& top) {
  if (!root.contains("image_grid_pinpoints") || image_size <= 0) return 1;
  const json& points = root.at("image_grid_pinpoints");
  int64_t most = 1;
  bool valid = points.is_array();
  for (const json& p : valid ? points : json::array()) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number_integer() ||
        p[0].get<int64_t>() <= 0 || p[1].get<int64_t>() <= 0 || p[0].get<int64_t>() > (1 << 16) || p[1].get<int64_t>() > (1 << 16)) {
      valid = false;
      break;
    }
    most = std::max(most, ceil_div(p[0].get<int64_t>(), image_size) * ceil_div(p[1].get<int64_t>(), image_size));
  }
  if (!valid) top.fail("image_grid_pinpoints", "must be a list of [height, width] pairs of positive integers up to 65,536");
  return most + 1;
}

// A multimodal config's text_config lists only what differs from its class's defaults (LLaVA's
// Vicuna and Mistral, Pixtral's Mistral NeMo, Idefics3's Llama 3.1, Qwen2-Audio's Qwen2):
// transformers fills the rest from LlamaConfig / MistralConfig / Qwen2Config's __init__
// defaults, and so does vramfit, saying which.
// Null when nothing is missing.
json with_class_defaults(const json& text, HfConfigRead& out) {
  const auto type = text.find("model_type");
  if (type == text.end() || !type->is_string()) return json();
  const bool mistral = *type == "mistral", qwen2 = *type == "qwen2";
  if (!mistral && !qwen2 && *type != "llama") return json();
  const struct { const char* key; int64_t llama, mistral, qwen2; } defaults[] = {
      {"vocab_size", 32000, 32000, 151936}, {"hidden_size", 4096, 4096, 4096}, {"intermediate_size", 11008, 14336, 22016},
      {"num_hidden_layers", 32, 32, 32}, {"num_attention_heads", 32, 32, 32}, {"num_key_value_heads", 0, 8, 32}};
  json filled = text;
  std::string used;
  for (const auto& d : defaults) {
    const int64_t value = mistral ? d.mistral : qwen2 ? d.qwen2 : d.llama;
    if (value == 0 || (text.contains(d.key) && !text.at(d.key).is_null())) continue;
    filled[d.key] = value;
    used += (used.empty() ? "" : ", ") + std::string(d.key) + " " + std::to_string(value);
  }
  if (used.empty()) return json();
  out.assumptions.push_back(std::string("text_config leaves out ") + (mistral ? "MistralConfig" : qwen2 ? "Qwen2Config" : "LlamaConfig") +
                            "'s defaults, read as transformers reads them: " + used + ".");
  return filled;
}

// vision_config: the image encoder and projector of LLaVA and LLaVA-NeXT (CLIPVisionConfig, or
// PixtralVisionConfig under a llava config), Mistral 3 (PixtralVisionConfig), Gemma 3 and Idefics3 (SiglipVisionConfig,
// Idefics3VisionConfig), Qwen2-VL / Qwen2.5-VL / Qwen3.5 (their VisionConfig: depth, embed_dim or
// hidden_size, mlp_ratio or intermediate_size, out_hidden_size), Mllama (MllamaVisionConfig) and
// Llama 4; Qwen2-Audio's audio_config (Qwen2AudioEncoderConfig). Other families' towers are not
// counted, and the assumptions say so.
void read_vision_tower(const json& root, const std::string& origin, ModelSpec& s, Reader& r, HfConfigRead& out) {
  Reader top{root, origin, std::nullopt};
  const std::string family = top.text("model_type", "");
  const bool audio = family == "qwen2_audio";
  const char* const key = audio ? "audio_config" : "vision_config";
  if (!root.contains(key) || !root.at(key).is_object()) return;
  Reader v{root.at(key), origin + ": " + key, std::nullopt};
  VisionTower& t = s.vision;
  const bool llava = family == "llava" || family == "llava_next", mistral3 = family == "mistral3";
  if (audio) {
    // Qwen2AudioEncoder (Whisper-large-v3's encoder; WhisperConfig's defaults where a key is
    // missing), then Qwen2AudioMultiModalProjector: one biased linear to the text width.
    t.kind = VisionKind::whisper;
    t.layers = v.integer("encoder_layers", 32);
    t.hidden = v.integer("d_model", 1280);
    t.heads = v.integer("encoder_attention_heads", 20);
    t.intermediate = v.integer("encoder_ffn_dim", 5120);
    t.channels = v.integer("num_mel_bins", 128);
    t.image_size = v.integer("max_source_positions", 1500);
    t.patch = 2;
    t.out_hidden = s.hidden_size;
    t.projector = ProjectorKind::linear;
    t.projector_input = t.hidden;
  } else if (llava || mistral3 || family == "gemma3" || family == "idefics3" || family == "mllama") {
    // LLaVA's tower is CLIP's unless its vision_config says Pixtral or SigLIP (Granite Vision).
    const std::string tower = v.text("model_type", "");
    const bool pixtral = mistral3 || (llava && tower == "pixtral");
    t.kind = pixtral ? VisionKind::pixtral : llava && tower != "siglip_vision_model" ? VisionKind::clip
             : family == "mllama" ? VisionKind::mllama : VisionKind::siglip;
    // PixtralVisionConfig's defaults (its config.json names only what differs).
    t.layers = v.integer("num_hidden_layers", pixtral ? 24 : 0);
    t.hidden = v.integer("hidden_size", pixtral ? 1024 : 0);
    t.heads = v.integer("num_attention_heads", v.integer("attention_heads", pixtral ? 16 : 0));  // Mllama: attention_heads
    t.intermediate = v.integer("intermediate_size", pixtral ? 4096 : 0);
    t.patch = v.integer("patch_size", pixtral ? 16 : 0);
    t.image_size = v.integer("image_size", pixtral ? 1024 : 0);
    t.channels = v.integer("num_channels", 3);
    t.out_hidden = s.hidden_size;
    t.projector = llava ? ProjectorKind::llava_mlp : mistral3 ? ProjectorKind::patch_merger : family == "gemma3" ? ProjectorKind::gemma3
                  : family == "idefics3" ? ProjectorKind::pixel_shuffle : ProjectorKind::linear;
    t.projector_bias = top.boolean("multimodal_projector_bias", true);
    t.rms_norm = t.gated_mlp = pixtral;
    // Tiles per image: LLaVA-NeXT's crops, Idefics3's processor default, Mllama's max_num_tiles
    // (also vramfit's own key for the others, as write_hf_config writes them).
    int64_t tiles = 1;
    if (mistral3) {
      t.merge = top.integer("spatial_merge_size", 2);
    } else if (family == "llava_next") {
      t.image_newline = true;
      tiles = llava_next_crops(root, t.image_size, top);
    } else if (family == "idefics3") {
      t.scale_factor = top.integer("scale_factor", 2);
      tiles = 17;  // Idefics3ImageProcessor: longest_edge 4 x 364 -> 4 x 4 crops, and the whole image
      out.assumptions.push_back("Idefics3: an image is read as the image processor's default 4 x 4 crops of " +
                                std::to_string(t.image_size) + " px and the whole image (17 tiles through the tower).");
    } else if (family == "mllama") {
      tiles = 4;
      t.global_layers = v.integer("num_global_layers", 8);
      t.projector_input = v.integer("vision_output_dim", 7680);
      const json& ratios = root.at("vision_config").value("supported_aspect_ratios", json::array());
      // MllamaVisionConfig's default list has 8 entries.
      t.aspect_ratios = v.integer("aspect_ratio_count", ratios.is_array() && !ratios.empty() ? static_cast<int64_t>(ratios.size()) : 8);
    }
    t.tiles = v.integer("max_num_tiles", tiles);
    // SiglipVisionTransformer builds its pooling head unless vision_use_head says no (Gemma 3's
    // does); Idefics3VisionTransformer has none.
    t.pooling_head = t.kind == VisionKind::siglip && family != "idefics3" && v.boolean("vision_use_head", true);
    // LLaVA's projector takes the vision_feature_layer outputs concatenated (LlavaNextModel.get_image_features);
    // vision_output_dim is vramfit's own key for the width, as write_hf_config writes it.
    const json& feature_layers = root.value("vision_feature_layer", json());
    if (llava) t.projector_input = v.integer("vision_output_dim", sat_mul(t.hidden, feature_layers.is_array() ? int64_t(feature_layers.size()) : 1));
  } else if (family == "llama4") {
    // Llama4VisionModel: a CLIP-like encoder of one 336-px tile, then the pixel-shuffle adapter.
    t.kind = VisionKind::llama4;
    t.layers = v.integer("num_hidden_layers", 34);
    t.hidden = v.integer("hidden_size", 768);
    t.heads = v.integer("num_attention_heads", 16);
    t.intermediate = v.integer("intermediate_size", 5632);
    t.patch = v.integer("patch_size", 14);
    t.image_size = v.integer("image_size", 448);
    t.channels = v.integer("num_channels", 3);
    t.out_hidden = s.hidden_size;
    t.projector = ProjectorKind::llama4;
    // The adapter's fc1 gives projector_input_dim, its fc2 takes projector_output_dim, and the
    // projector takes vision_output_dim: one width in any model that runs.
    t.projector_input = v.integer("projector_output_dim", 4096);
    if (v.integer("projector_input_dim", t.projector_input) != t.projector_input ||
        v.integer("vision_output_dim", t.projector_input) != t.projector_input) {
      v.fail("vision_output_dim", "must equal projector_input_dim and projector_output_dim (the adapter's one width)");
    }
    t.tiles = v.integer("max_num_tiles", 17);
    out.assumptions.push_back("Llama 4: an image is read as the image processor's default 16 tiles of " +
                              std::to_string(t.image_size) + " px and the whole image (max_patches 16: 17 tiles through the tower).");
  } else if (family == "qwen2_vl" || family == "qwen2_5_vl" || family.rfind("qwen3_5", 0) == 0) {
    const bool qwen3_5 = family.rfind("qwen3_5", 0) == 0;
    t.kind = qwen3_5 ? VisionKind::qwen3_5 : VisionKind::qwen2_vl;
    t.layers = v.integer("depth", 0);
    t.heads = v.integer("num_heads", 0);
    t.patch = v.integer("patch_size", qwen3_5 ? 16 : 14);
    t.channels = v.integer("in_chans", v.integer("in_channels", 3));
    t.temporal_patch = v.integer("temporal_patch_size", 2);
    t.merge = v.integer("spatial_merge_size", 2);
    if (family == "qwen2_vl") {  // Qwen2VisionTransformerPretrainedModel: LayerNorms, fc1/fc2
      t.hidden = v.integer("embed_dim", 0);
      t.intermediate = sat_mul(t.hidden, v.integer("mlp_ratio", 4));
      t.out_hidden = v.integer("hidden_size", s.hidden_size);
    } else {  // Qwen2_5_VisionTransformerPretrainedModel: RMSNorms, a gated MLP; Qwen3_5VisionModel: neither
      t.hidden = v.integer("hidden_size", 0);
      t.intermediate = v.integer("intermediate_size", 0);
      t.out_hidden = v.integer("out_hidden_size", s.hidden_size);
      t.rms_norm = t.gated_mlp = !qwen3_5;
      if (qwen3_5) t.position_table = v.integer("num_position_embeddings", 2304);
    }
  } else {
    out.assumptions.push_back("vision_config of model_type '" + family + "' is not counted.");  // the README lists those that are
    return;
  }
  if (v.error && !r.error) r.error = v.error;
  if (top.error && !r.error) r.error = top.error;
  if (r.error) return;
  const bool mllama = t.kind == VisionKind::mllama, llama4 = t.kind == VisionKind::llama4;
  const struct { int64_t value, limit; const char* field; bool top_level; } bounds[] = {
      {t.layers, 1 << 10, audio ? "encoder_layers" : "num_hidden_layers", false}, {t.hidden, 1 << 16, audio ? "d_model" : "hidden_size", false},
      {t.intermediate, 1 << 18, audio ? "encoder_ffn_dim" : "intermediate_size", false}, {t.patch, 1 << 10, "patch_size", false},
      {t.channels, audio ? 1 << 12 : 64, audio ? "num_mel_bins" : "num_channels", false}, {t.temporal_patch, 64, "temporal_patch_size", false},
      {t.tiles, 64, mllama || llama4 ? "max_num_tiles" : "image_grid_pinpoints", !mllama && !llama4},
      {mllama ? t.global_layers : 1, 1 << 10, "num_global_layers", false},
      {mllama ? t.aspect_ratios : 1, 1 << 10, "supported_aspect_ratios", false},
      {mllama || llama4 || llava ? t.projector_input : 1, 1 << 20, llava ? "vision_feature_layer" : "vision_output_dim", llava},
      {t.projector == ProjectorKind::pixel_shuffle ? t.scale_factor : 1, 64, "scale_factor", true},
      {t.projector == ProjectorKind::patch_merger ? t.merge : 1, 16, "spatial_merge_size", true},
      {t.kind == VisionKind::qwen3_5 ? t.position_table : 1, 1 << 20, "num_position_embeddings", false}};
  for (const auto& b : bounds) {
    if (b.value <= 0 || b.value > b.limit) {
      r.fail(b.top_level ? std::string(b.field) : v.origin.substr(origin.size() + 2) + "." + b.field,
             "must be an integer from 1 to " + std::to_string(b.limit));
      return;
    }
  }
  if (!t.dynamic_resolution() && (t.image_size < t.patch || t.image_size > (1 << 16))) {
    r.fail(v.origin.substr(origin.size() + 2) + (audio ? ".max_source_positions" : ".image_size"), "must lie between patch_size and 65,536");
  }
  if (t.dynamic_resolution() && (t.merge <= 0 || t.merge > 16 || t.out_hidden <= 0 || t.out_hidden > (1 << 18))) {
    r.fail(v.origin.substr(origin.size() + 2) + ".spatial_merge_size", "and out_hidden_size must be positive");
  }
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
  Reader r{config, origin, std::nullopt};
  ModelSpec& s = out.spec;

  std::string type = r.text("model_type", "");
  if (nested && type.empty()) type = Reader{root, origin, std::nullopt}.text("model_type", "");
  // vramfit's own explicit structure keys (write_hf_config) describe any architecture.
  const bool explicit_structure = r.has("mlp_kind") && r.has("norm_kind");
  const bool known = type.empty() || is_known_architecture(type) || explicit_structure;
  if (type.empty()) {
    type = "llama";
    out.assumptions.push_back("model_type missing: read as a Llama-style decoder.");
  } else if (!known) {
    out.assumptions.push_back("model_type '" + type + "' is not one vramfit knows: the weights are the file's; the KV cache "
                              "is sized from num_attention_heads, num_key_value_heads and head_dim.");
  }
  s.architecture = type;
  const bool gemma = type.rfind("gemma", 0) == 0;
  const bool gemma_4_norms = type == "gemma2" || type == "gemma3" || type == "gemma3_text";

  const bool falcon = type == "falcon";
  s.parameters_only = r.integer("parameters", 0);
  // GPT-2's key names (GPT-2, GPT-BigCode, GPT-J, Falcon's older configs): n_embd, n_layer,
  // n_head, n_inner, n_positions (transformers' GPT2Config attribute_map).
  const bool gpt2_family = type == "gpt2" || type == "gpt_bigcode" || type == "gptj";
  const bool bert_family = type == "bert" || type == "roberta" || type == "xlm-roberta" || type == "deberta-v2";
  const bool opt = type == "opt", bloom = type == "bloom";
  s.hidden_size = r.integer("hidden_size", r.integer("n_embd", r.integer("n_embed", r.integer("d_model", 0))));  // BloomConfig: n_embed
  // GPTNeoConfig and T5Config: num_layers, num_heads; T5: d_model, d_kv, d_ff.
  s.layers = r.integer("num_hidden_layers", r.integer("n_layer", r.integer("num_layers", 0)));
  s.attention_heads = r.integer("num_attention_heads", r.integer("n_head", r.integer("num_heads", r.integer("encoder_attention_heads", 0))));
  s.kv_heads = r.integer("num_key_value_heads", s.attention_heads);
  if (falcon) {
    // FalconConfig: multi_query -> 1 KV head; new_decoder_architecture -> num_kv_heads.
    if (r.boolean("new_decoder_architecture", false)) s.kv_heads = r.integer("num_kv_heads", s.attention_heads);
    else if (r.boolean("multi_query", true)) s.kv_heads = 1;
  }
  // GPTBigCodeConfig: multi_query (default true) -> one KV head for all query heads.
  if (type == "gpt_bigcode" && r.boolean("multi_query", true)) s.kv_heads = 1;
  if (!r.has("num_key_value_heads") && s.attention_heads > 0 && !has_no_gqa_key(type)) {
    out.assumptions.push_back("num_key_value_heads missing: taken equal to num_attention_heads (no GQA).");
  }
  // Without head_dim: hidden_size / num_attention_heads (LlamaConfig and most others), but
  // Qwen3Config's own default, 128 (configuration_qwen3.py, Qwen3Config.__init__ head_dim=128).
  const int64_t derived_head_dim = type == "qwen3" ? 128 : s.attention_heads > 0 ? s.hidden_size / s.attention_heads : 0;
  s.head_dim = r.integer("head_dim", r.integer("d_kv", derived_head_dim));
  // n_inner null: 4 x n_embd (GPT2MLP, GPTJMLP); Falcon: 4 x hidden_size.
  const int64_t wide = falcon || gpt2_family || bloom || type == "gpt_neo" || type == "rwkv" ? 4 * s.hidden_size : 0;
  s.intermediate_size = r.integer("intermediate_size", r.integer("ffn_hidden_size", r.integer("n_inner", r.integer("ffn_dim", r.integer("d_ff", r.integer("encoder_ffn_dim", wide))))));
  s.vocab_size = r.integer("vocab_size", 0);
  s.max_context_tokens = r.integer("max_position_embeddings", r.integer("n_positions", 0));
  read_rope_scaling(config, r, s, out);
  // transformers' defaults per config class: Gemma, Falcon, StarCoder2, GPT-2 and GPT-BigCode
  // tie, the others not.
  s.tied_embeddings = r.boolean("tie_word_embeddings", gemma || falcon || type == "starcoder2" || type == "gpt2" ||
                                                           type == "gpt_bigcode" || opt || bloom || type == "cohere");

  // InternLM2 names it "bias"; GLM's attention_bias is on q, k and v only (GlmAttention's o_proj
  // has none); InternLM2's wqkv and GLM's gate_up_proj are fused tensors of the same sizes.
  const bool attention_bias = r.boolean("attention_bias", type == "gpt_oss") || (type == "internlm2" && r.boolean("bias", false));
  s.qkv_bias = type == "qwen2" || type == "qwen2_moe" || type.rfind("qwen2_vl", 0) == 0 || type.rfind("qwen2_5_vl", 0) == 0 ||
               attention_bias;
  s.attention_output_bias = attention_bias && type != "glm";
  s.mlp_bias = r.boolean("mlp_bias", false);
  s.qk_norm = type == "qwen3" || type == "qwen3_moe" || type == "gemma3" || type == "gemma3_text" || type == "olmo2" ||
              type == "olmoe";
  // OLMo 2 (Olmo2DecoderLayer): RMSNorm over all of q and of k, and its two norms come after
  // attention and the MLP (post_attention_ and post_feedforward_layernorm): still two per layer.
  // Granite: Llama's tensors; its multipliers (embedding, residual, attention, logits) are scalars.
  s.qk_norm_full = type == "olmo2" || type == "olmoe";  // OlmoeAttention too, before its MoE
  // Cohere (CohereDecoderLayer): one LayerNorm without bias (a weight, as RMSNorm's) before
  // attention and MLP in parallel; use_qk_norm normalises q and k over all heads.
  if (type == "cohere") s.qk_norm = s.qk_norm_full = r.boolean("use_qk_norm", false);
  s.norms_per_layer = gemma_4_norms ? 4 : type == "cohere" ? 1 : 2;
  s.attention_sinks = type == "gpt_oss";
  s.fused_qkv = type == "phi3" || type == "gpt_neox" || falcon || type == "internlm2";

  // GPT-NeoX, Falcon, StarCoder2: LayerNorm with bias and a plain (GELU) MLP.
  if (type == "gpt_neox" || falcon || type == "starcoder2") {
    s.norm = NormKind::layer;
    s.mlp = MlpKind::plain;
    const bool bias = type == "gpt_neox" ? true : r.boolean(falcon ? "bias" : "use_bias", !falcon);
    s.qkv_bias = s.attention_output_bias = s.mlp_bias = bias;
  }
  // OPT (OPTDecoder: learned positions with 2 extra rows, LayerNorms with bias, biases unless
  // enable_bias is false, a final LayerNorm when do_layer_norm_before) and BLOOM (ALiBi - no
  // position table -, a LayerNorm after the embeddings, query_key_value in one tensor).
  if (opt || bloom) {
    s.norm = NormKind::layer;
    s.mlp = MlpKind::plain;
    s.qkv_bias = s.attention_output_bias = s.mlp_bias = !opt || r.boolean("enable_bias", true);
    s.fused_qkv = bloom;
    s.embedding_norm = bloom;
    if (opt) {
      s.position_embeddings = s.max_context_tokens + 2;  // OPTLearnedPositionalEmbedding's offset
      s.final_norm = r.boolean("do_layer_norm_before", true) && !r.boolean("_remove_final_layer_norm", false);
      if (r.integer("word_embed_proj_dim", s.hidden_size) != s.hidden_size) {
        r.fail("word_embed_proj_dim", "different from hidden_size (OPT-350m's project_in/project_out) is not counted yet");
      }
      if (!r.boolean("layer_norm_elementwise_affine", true)) r.fail("layer_norm_elementwise_affine", "false is not counted yet");
    }
  }
  // StableLM (StableLmDecoderLayer): LayerNorms with bias, a gated MLP, q/k/v biases when
  // use_qkv_bias, no post-attention LayerNorm with use_parallel_residual.
  if (type == "stablelm") {
    s.norm = NormKind::layer;
    s.qkv_bias = r.boolean("use_qkv_bias", false);
    s.norms_per_layer = r.boolean("use_parallel_residual", false) ? 1 : 2;
    if (r.boolean("qk_layernorm", false)) r.fail("qk_layernorm", "true is not supported yet (per-head q/k LayerNorms are not counted)");
  }
  // GPT-2, GPT-BigCode (GPT2Attention's c_attn: q, k, v in one tensor), GPT-J and Phi
  // (q/k/v/out, GPT-J without biases; one LayerNorm before parallel attention and MLP, a bias
  // on the LM head), BERT-style encoders (learned positions and segments, an embeddings
  // LayerNorm, post-norm layers, a pooler, no LM head).
  if (gpt2_family || type == "phi" || bert_family) {
    s.norm = NormKind::layer;
    s.mlp = MlpKind::plain;
    s.qkv_bias = s.attention_output_bias = type != "gptj";
    s.mlp_bias = true;
    s.fused_qkv = type == "gpt2" || type == "gpt_bigcode";
    if (type == "gpt2" || type == "gpt_bigcode") s.position_embeddings = s.max_context_tokens;
    if (type == "gptj" || type == "phi") {
      s.norms_per_layer = 1;
      s.output_bias = true;
    }
    if (type == "phi" && r.boolean("qk_layernorm", false)) {
      r.fail("qk_layernorm", "true is not supported yet (Phi's per-head q/k LayerNorms are not counted)");
    }
  }
  if (bert_family) {
    s.position_embeddings = s.max_context_tokens;
    s.token_type_embeddings = r.integer("type_vocab_size", 2);
    s.embedding_norm = s.pooler = s.encoder_only = true;
    s.final_norm = false;
    s.tied_embeddings = false;
  }
  // DeBERTa-v2/v3 (DebertaV2Embeddings, DebertaV2Encoder): absolute positions only with
  // position_biased_input, no segments by default, no pooler; relative attention's rel_embeddings
  // (2 x position_buckets rows, else 2 x max_relative_positions) with its LayerNorm.
  if (type == "deberta-v2") {
    s.position_embeddings = r.boolean("position_biased_input", true) ? s.max_context_tokens : 0;
    s.token_type_embeddings = r.integer("type_vocab_size", 0);
    s.pooler = false;
    if (r.boolean("relative_attention", false)) {
      // -1 means "unset" for both keys (DebertaV2Config), so they are read as signed numbers.
      auto signed_key = [&config](const char* key) {
        return config.contains(key) && config.at(key).is_number_integer() ? config.at(key).get<int64_t>() : int64_t(-1);
      };
      int64_t span = signed_key("max_relative_positions");
      if (span < 1 || span > kMaxDimension) span = s.max_context_tokens;
      const int64_t buckets = signed_key("position_buckets");
      s.relative_position_embeddings = 2 * (buckets > 0 && buckets <= kMaxDimension ? buckets : span);
      s.final_norm = r.text("norm_rel_ebd", "none").find("layer_norm") != std::string::npos;
    }
    if (r.integer("embedding_size", s.hidden_size) != s.hidden_size) r.fail("embedding_size", "different from hidden_size (embed_proj) is not counted yet");
    if (r.integer("conv_kernel_size", 0) > 0) r.fail("conv_kernel_size", "DeBERTa's convolution layer is not counted yet");
  }
  if (type == "gpt_neo") read_gpt_neo(r, s);
  read_sequence_to_sequence(r, s);
  read_recurrent(r, s);
  if (type == "jamba") read_jamba(r, s);
  const bool qwen3_next = type == "qwen3_next" || type.rfind("qwen3_5", 0) == 0;  // and Qwen3.5's
  if (qwen3_next) read_qwen3_next(r, s);
  if (falcon) {
    // Parallel attention shares one input LayerNorm; the new architecture has ln_attn and ln_mlp.
    const bool new_arch = r.boolean("new_decoder_architecture", false);
    s.norms_per_layer = new_arch ? 2 : (r.boolean("parallel_attn", true) ? 1 : 2);
  }

  // Explicit structure keys (not Hugging Face's; written by write_hf_config for custom models).
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

  // Mixture of experts: the key differs per family.
  s.experts = r.integer("num_local_experts", r.integer("num_experts", r.integer("n_routed_experts", 0)));
  if (s.experts > 0) {
    s.experts_per_token = r.integer("num_experts_per_tok", 0);
    s.moe_intermediate_size = r.integer("moe_intermediate_size", s.intermediate_size);
    if (type == "qwen2_moe" || qwen3_next) {
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
    s.router_bias = s.expert_bias = type == "gpt_oss";
    s.router_score_correction = type == "deepseek_v3";
    if (r.integer("decoder_sparse_step", 1) != 1 ||
        (r.has("mlp_only_layers") && config.at("mlp_only_layers").is_array() && !config.at("mlp_only_layers").empty())) {
      out.assumptions.push_back("decoder_sparse_step / mlp_only_layers: every layer read as an MoE layer.");
    }
  }

  if (type == "llama4" || type == "llama4_text") read_llama4(r, s, out);

  const char* const mtp_key = r.has("num_nextn_predict_layers") ? "num_nextn_predict_layers" : "mtp_num_hidden_layers";
  s.mtp_layers = r.integer(mtp_key, 0);
  // Multi-head latent attention (DeepSeek-V2/V3).
  s.kv_lora_rank = r.integer("kv_lora_rank", 0);
  if (s.kv_lora_rank > 0) {
    s.q_lora_rank = r.integer("q_lora_rank", 0);
    s.qk_rope_head_dim = r.integer("qk_rope_head_dim", 0);
    s.qk_nope_head_dim = r.integer("qk_nope_head_dim", 0);
    s.v_head_dim = r.integer("v_head_dim", 0);
    s.head_dim = s.qk_nope_head_dim + s.qk_rope_head_dim;
  }

  // Sliding-window attention: which layers see only the window.
  const bool neo = type == "gpt_neo";
  const int64_t window = r.integer("sliding_window", neo ? r.integer("window_size", 256) : 0);
  // Qwen's config classes default use_sliding_window to false (Qwen2-Audio's text_config leaves it out).
  const bool sliding_enabled = r.boolean("use_sliding_window", type.rfind("qwen", 0) != 0) && type != "phi3";
  const bool neo_types = neo && !r.has("layer_types");
  const char* types_key = neo_types ? "attention_layers" : "layer_types";
  if (window > 0 && sliding_enabled && s.layers > 0 && s.layers <= (1 << 16)) {
    s.sliding_layers.assign(static_cast<size_t>(s.layers), 0);
    if (read_layer_types(r, s, types_key, neo_types ? "local" : "sliding_attention")) {
    } else if (r.has("sliding_window_pattern") || type == "gemma3" || type == "gemma3_text") {
      // Gemma 3: every pattern-th layer is global, the others slide (transformers' default 6).
      const int64_t pattern = r.integer("sliding_window_pattern", 6);
      if (pattern <= 0) r.fail("sliding_window_pattern", "must be a positive integer");
      for (int64_t i = 0; pattern > 0 && i < s.layers; ++i) s.sliding_layers[static_cast<size_t>(i)] = (i + 1) % pattern != 0;
    } else if (type == "gemma2") {
      for (int64_t i = 0; i < s.layers; ++i) s.sliding_layers[static_cast<size_t>(i)] = i % 2 == 0;  // even layers slide
    } else {
      for (auto& layer : s.sliding_layers) layer = 1;  // Mistral v0.1 style: every layer
    }
    s.sliding_window = window;
    if (s.sliding_layer_count() == 0) { s.sliding_window = 0; s.sliding_layers.clear(); }
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
    if (type == "mllama_text_model" || type == "mllama") s.extra_embedding_rows = r.integer("extra_embedding_rows", 8);
  }

  read_vision_tower(root, origin, s, r, out);
  if (nested) {
    Reader root_reader{root, origin, std::nullopt};
    read_stored_format(root, root_reader, out);  // multimodal: quantization and dtype at the top
  } else {
    read_stored_format(config, r, out);
  }
  if (r.error) return *r.error;
  if (!known && !weights_from_file && s.parameters_only == 0) return unknown_architecture(type, config, r);
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

namespace {

struct IntegerKey { const char* key; int64_t value; bool always; };  // else written when > 0
struct FlagKey { const char* key; bool value; bool always; };        // else written when true

void write_keys(json& c, std::initializer_list<IntegerKey> integers, std::initializer_list<FlagKey> flags) {
  for (const IntegerKey& k : integers) if (k.always || k.value > 0) c[k.key] = k.value;
  for (const FlagKey& k : flags) if (k.always || k.value) c[k.key] = k.value;
}

}  // namespace

json write_hf_config(const ModelSpec& s) {
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
  if (s.vision.kind == VisionKind::none) return c;
  // A multimodal model as its family's config.json: the text under text_config, the tower's keys.
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

}  // namespace vramfit
