#include "model_file.hpp"

#include <algorithm>
#include <map>

#include "core/units.hpp"
#include "hf_config.hpp"

namespace vramfit {

namespace {

// llama.cpp architecture names -> Hugging Face model_type (structure flags come from it).
std::string hf_model_type_for_gguf(const std::string& arch) {
  static const std::map<std::string, std::string> names = {
      {"llama", "llama"}, {"qwen2", "qwen2"}, {"qwen2moe", "qwen2_moe"}, {"qwen3", "qwen3"},
      {"qwen3moe", "qwen3_moe"}, {"gemma", "gemma"}, {"gemma2", "gemma2"}, {"gemma3", "gemma3_text"},
      {"phi3", "phi3"}, {"deepseek2", "deepseek_v3"}, {"gpt-oss", "gpt_oss"}, {"mistral3", "mistral"},
      {"qwen3next", "qwen3_next"}, {"qwen35", "qwen3_5_text"}, {"qwen35moe", "qwen3_5_moe_text"}};
  auto it = names.find(arch);
  return it == names.end() ? arch : it->second;
}

// A GGUF tensor's storage type, checked: a ggml type vramfit knows, rows of whole blocks.
Result<const StorageType*> tensor_storage(const FormatTables& tables, const GgufTensorInfo& t, const std::string& file) {
  const int type = tables.find_storage_by_ggml(t.ggml_type);
  if (type < 0) {
    return make_error("gguf.unknown_type", "tensors." + t.name, file + ": tensor " + t.name + " has unknown ggml type " + std::to_string(t.ggml_type));
  }
  const StorageType& st = tables.storage_types[static_cast<size_t>(type)];
  if (t.dims[0] % st.block_elements != 0) {
    return make_error("gguf.bad_dims", "tensors." + t.name, file + ": tensor " + t.name + ": row of " + std::to_string(t.dims[0]) +
                                                              " elements is not a whole number of " + st.label + " blocks");
  }
  return &st;
}

// One GGUF tensor into llama.cpp's placement units (llama_model::load_tensors): token_embd
// (the input layer, always on the CPU), blk.N.* (layer N; its ffn_*_exps experts apart), and
// everything else with the output layer (output_norm, output, rope factors).
void add_to_layer(LlamaCppWeights& w, const std::string& name, int64_t bytes, bool is_vector) {
  if (name == "token_embd.weight") {
    w.input = sat_add(w.input, bytes);
    return;
  }
  int64_t layer = -1;
  if (name.rfind("blk.", 0) == 0) {
    layer = 0;
    size_t i = 4;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && layer < (1 << 20)) layer = layer * 10 + (name[i++] - '0');
    if (i == 4 || i >= name.size() || name[i] != '.') layer = -1;
  }
  if (layer < 0) {
    w.output = sat_add(w.output, bytes);
    return;
  }
  const size_t index = static_cast<size_t>(layer);
  if (w.layer.size() <= index) {
    w.layer.resize(index + 1, 0);
    w.layer_experts.resize(index + 1, 0);
    w.layer_vectors.resize(index + 1, 0);
  }
  const bool expert = name.find("_exps.") != std::string::npos;
  if (expert) w.layer_experts[index] = sat_add(w.layer_experts[index], bytes);
  else w.layer[index] = sat_add(w.layer[index], bytes);
  if (is_vector && !expert) w.layer_vectors[index] = sat_add(w.layer_vectors[index], bytes);
}

// One tensor into its type's row; a 1-D tensor is replicated on every tensor-parallel GPU.
void add_row(StoredWeights& w, const std::string& type, int64_t elements, int64_t bytes, bool replicated) {
  auto it = std::find_if(w.by_type.begin(), w.by_type.end(), [&](const StoredWeights::Row& r) { return r.type == type; });
  if (it == w.by_type.end()) {
    w.by_type.push_back({type, 0, 0, 0, 0});
    it = w.by_type.end() - 1;
  }
  it->elements = sat_add(it->elements, elements);
  it->tensors += 1;
  it->bytes = sat_add(it->bytes, bytes);
  if (replicated) {
    it->replicated_bytes = sat_add(it->replicated_bytes, bytes);
    w.replicated_bytes = sat_add(w.replicated_bytes, bytes);
  }
}

// A GGUF value that may be a scalar or a per-layer array: the largest entry.
int64_t scalar_or_max(const GgufFile& f, const std::string& key, int64_t fallback) {
  const GgufValue* v = f.find(key);
  if (!v) return fallback;
  if (v->kind == GgufValue::Kind::integer) return v->integer;
  if (v->kind == GgufValue::Kind::array && !v->array_integers.empty()) {
    return *std::max_element(v->array_integers.begin(), v->array_integers.end());
  }
  return fallback;
}

// A GGUF's hyperparameters (arch-prefixed keys) written as config.json keys, each one read listed.
struct GgufKeys {
  const GgufFile& gguf;
  std::string arch, p;  // p: "<arch>."
  ModelFileRead& out;
  json& c = out.config;
  void take(const std::string& key, const char* field, bool per_layer = false) {
    const int64_t value = per_layer ? scalar_or_max(gguf, p + key, -1) : gguf.integer_or(p + key, -1);
    if (value >= 0) {
      c[field] = value;
      out.read.push_back(p + key + " = " + std::to_string(value));
    }
  }
};

// The keys every architecture has: layers (less the MTP layers), widths, heads, experts, MLA.
void read_common_keys(GgufKeys& k) {
  const GgufFile& gguf = k.gguf;
  const std::string& p = k.p;
  json& c = k.c;
  ModelFileRead& out = k.out;
  k.take("block_count", "num_hidden_layers");
  // block_count counts the MTP (NextN) layers too, the last nextn_predict_layers of them
  // (llama_model::load_hparams, LLM_KV_NEXTN_PREDICT_LAYERS; Qwen3.6's and GLM's MTP GGUFs): as a
  // config, the decoder's layers and num_nextn_predict_layers. Their tensors stay in the weights.
  const int64_t nextn = gguf.integer_or(p + "nextn_predict_layers", 0);
  if (nextn > 0 && c.value("num_hidden_layers", int64_t(0)) > nextn) {
    c["num_hidden_layers"] = c["num_hidden_layers"].get<int64_t>() - nextn;
    c["num_nextn_predict_layers"] = nextn;
    out.read.push_back(p + "nextn_predict_layers = " + std::to_string(nextn));
    out.derived.push_back("num_hidden_layers = block_count - nextn_predict_layers = " + c["num_hidden_layers"].dump() +
                          " (the last " + std::to_string(nextn) + " block(s) are MTP layers)");
  }
  k.take("embedding_length", "hidden_size");
  k.take("attention.head_count", "num_attention_heads", true);
  k.take("attention.head_count_kv", "num_key_value_heads", true);
  k.take("feed_forward_length", "intermediate_size", true);
  k.take("context_length", "max_position_embeddings");
  k.take("vocab_size", "vocab_size");
  k.take("expert_count", "num_local_experts");
  k.take("expert_used_count", "num_experts_per_tok");
  k.take("expert_feed_forward_length", "moe_intermediate_size");
  k.take("expert_shared_count", "n_shared_experts");
  k.take("leading_dense_block_count", "first_k_dense_replace");
  k.take("attention.q_lora_rank", "q_lora_rank");
  k.take("attention.kv_lora_rank", "kv_lora_rank");
  k.take("attention.sliding_window", "sliding_window");
  const int64_t key_length = gguf.integer_or(p + "attention.key_length", -1);
  if (c.contains("kv_lora_rank")) {
    // MLA: key_length = nope + rope, value_length = v_head_dim, rope.dimension_count = rope.
    const int64_t rope = gguf.integer_or(p + "rope.dimension_count", 64);
    c["qk_rope_head_dim"] = rope;
    c["qk_nope_head_dim"] = key_length > rope ? key_length - rope : 128;
    c["v_head_dim"] = gguf.integer_or(p + "attention.value_length", 128);
    out.derived.push_back("MLA head dims: nope " + c["qk_nope_head_dim"].dump() + ", rope " + std::to_string(rope) +
                          ", v " + c["v_head_dim"].dump());
  } else if (key_length > 0) {
    c["head_dim"] = key_length;
    out.read.push_back(p + "attention.key_length = " + std::to_string(key_length));
  }
}

// What an architecture's GGUF names its own way: Qwen3-Next's and Qwen3.5's Gated DeltaNet,
// Mamba's mixer, Llama 4's dense and expert widths and chunked attention.
void read_architecture_keys(GgufKeys& k) {
  const GgufFile& gguf = k.gguf;
  const std::string& arch = k.arch;
  const std::string& p = k.p;
  json& c = k.c;
  ModelFileRead& out = k.out;
  if (arch == "qwen3next" || arch == "qwen35" || arch == "qwen35moe") {
    // Gated DeltaNet widths as convert_hf_to_gguf writes them (conversion/qwen.py,
    // Qwen3NextModel.set_gguf_parameters, which Qwen3.5's models inherit): ssm.conv_kernel =
    // linear_conv_kernel_dim, ssm.state_size = linear_key_head_dim, ssm.group_count =
    // linear_num_key_heads, ssm.time_step_rank = linear_num_value_heads, ssm.inner_size =
    // linear_value_head_dim x linear_num_value_heads; full attention every
    // full_attention_interval-th layer (llama_model::load_hparams, LLM_ARCH_QWEN3NEXT).
    k.take("ssm.conv_kernel", "linear_conv_kernel_dim");
    k.take("ssm.state_size", "linear_key_head_dim");
    k.take("ssm.group_count", "linear_num_key_heads");
    k.take("ssm.time_step_rank", "linear_num_value_heads");
    k.take("full_attention_interval", "full_attention_interval");
    k.take("expert_shared_feed_forward_length", "shared_expert_intermediate_size");
    const int64_t inner = gguf.integer_or(p + "ssm.inner_size", -1), heads = c.value("linear_num_value_heads", int64_t(0));
    if (inner > 0 && heads > 0 && inner % heads == 0) {
      c["linear_value_head_dim"] = inner / heads;
      out.derived.push_back("linear_value_head_dim = " + std::to_string(inner / heads) + " (ssm.inner_size / ssm.time_step_rank)");
    }
  } else if (arch == "mamba") {
    // conversion/mamba.py, MambaModel.set_gguf_parameters: feed_forward_length is written as 0;
    // the mixer's widths are the ssm keys (MambaConfig's names).
    k.take("ssm.inner_size", "intermediate_size");
    k.take("ssm.state_size", "state_size");
    k.take("ssm.conv_kernel", "conv_kernel");
    k.take("ssm.time_step_rank", "time_step_rank");
  }
  if (arch == "llama4") {
    // llama_model::load_hparams, LLM_ARCH_LLAMA4: feed_forward_length is the dense layers' width
    // and expert_feed_forward_length the experts' (Llama4TextConfig's intermediate_size_mlp and
    // intermediate_size); every 4th layer attends to the whole context, the others in chunks of
    // 8,192 tokens unless attention.sliding_window is 0.
    k.take("interleave_moe_layer_step", "interleave_moe_layer_step");
    if (c.contains("intermediate_size")) c["intermediate_size_mlp"] = c["intermediate_size"];
    if (c.contains("moe_intermediate_size")) c["intermediate_size"] = c["moe_intermediate_size"];
    c.erase("moe_intermediate_size");
    if (c.value("sliding_window", int64_t(-1)) == 0) c["attention_chunk_size"] = nullptr;
    c.erase("sliding_window");
    out.derived.push_back("chunked attention in 3 layers of 4 by llama.cpp's rule for llama4");
  }
}

// Which layers slide: llama.cpp's per-architecture rule (the GGUF stores only the window).
void read_sliding_layers(GgufKeys& k) {
  const std::string& arch = k.arch;
  json& c = k.c;
  if (c.contains("sliding_window") && c.contains("num_hidden_layers")) {
    const int64_t layers = c["num_hidden_layers"].get<int64_t>();
    json types = json::array();
    for (int64_t i = 0; i < std::min<int64_t>(layers, 1 << 16); ++i) {
      bool sliding = true;
      if (arch == "gemma2" || arch == "gpt-oss") sliding = i % 2 == 0;
      else if (arch == "gemma3") sliding = (i + 1) % 6 != 0;
      types.push_back(sliding ? "sliding_attention" : "full_attention");
    }
    c["layer_types"] = types;
    k.out.derived.push_back("sliding-window layers by llama.cpp's rule for " + arch);
  }
}

// Weights: every tensor at its ggml type's exact size; the vocabulary and tied embeddings from
// the tensors where the keys do not say.
std::optional<Error> read_gguf_weights(const FormatTables& tables, const GgufFile& gguf, const std::string& file, ModelFileRead& out) {
  json& c = out.config;
  StoredWeights& w = out.weights;
  w.source = "gguf";
  w.file = file;
  bool has_output = false;
  int64_t data_end = 0;  // where the last tensor's data ends
  for (const GgufTensorInfo& t : gguf.tensors) {
    auto type = tensor_storage(tables, t, file);
    if (!type) return type.error();
    const StorageType& st = **type;
    const int64_t bytes = storage_bytes(st, t.dims[0], t.elements() / t.dims[0], 1);
    add_row(w, st.id, t.elements(), bytes, t.dims.size() == 1);
    add_to_layer(w.by_layer, t.name, bytes, t.dims.size() == 1);
    w.parameters = sat_add(w.parameters, t.elements());
    data_end = std::max(data_end, sat_add(sat_add(gguf.header_bytes, static_cast<int64_t>(std::min<uint64_t>(t.offset, uint64_t(1) << 62))), bytes));
    if (t.name == "output.weight") has_output = true;
    if (t.name == "token_embd.weight" && !c.contains("vocab_size") && t.dims.size() == 2) {
      c["vocab_size"] = t.dims[1];
      out.derived.push_back("vocab_size = " + std::to_string(t.dims[1]) + " (token_embd.weight)");
    }
  }
  if (!c.contains("vocab_size")) {
    if (const GgufValue* tokens = gguf.find("tokenizer.ggml.tokens"); tokens && tokens->kind == GgufValue::Kind::array) {
      c["vocab_size"] = static_cast<int64_t>(tokens->array_length);
      out.derived.push_back("vocab_size = " + std::to_string(tokens->array_length) + " (tokenizer.ggml.tokens)");
    }
  }
  c["tie_word_embeddings"] = !has_output;
  w.by_layer.output_is_token_embd = !has_output;
  if (!has_output) w.by_layer.output = sat_add(w.by_layer.output, w.by_layer.input);
  w.has_layers = true;
  out.derived.push_back(std::to_string(gguf.tensors.size()) + " tensors, " + std::to_string(w.parameters) +
                        " parameters, at their ggml types' block sizes");
  if (gguf.file_size > 0 && data_end > gguf.file_size) {
    w.warnings.push_back(file + " is " + with_thousands(gguf.file_size) + " B but its tensors end at " +
                         with_thousands(data_end) + " B: an incomplete download? The estimate from its header stands; "
                         "llama.cpp will not load the file.");
  }
  return std::nullopt;
}

}  // namespace

Result<ModelFileRead> model_from_gguf(const FormatTables& tables, const GgufFile& gguf, const std::string& file) {
  ModelFileRead out;
  const std::string arch = gguf.string_or("general.architecture", "");
  if (arch.empty()) {
    return make_error("gguf.missing_key", "general.architecture", file + ": general.architecture is missing");
  }
  out.config["model_type"] = hf_model_type_for_gguf(arch);
  out.read.push_back("general.architecture = " + arch + " (read as model_type " + out.config["model_type"].get<std::string>() + ")");
  GgufKeys keys{gguf, arch, arch + ".", out};
  read_common_keys(keys);
  read_architecture_keys(keys);
  read_sliding_layers(keys);
  if (auto e = read_gguf_weights(tables, gguf, file, out)) return *e;
  return out;
}

bool is_gguf_adapter(const GgufFile& gguf) { return gguf.string_or("general.type", "") == "adapter"; }

Result<LlamaCppLora> lora_from_gguf(const FormatTables& tables, const GgufFile& gguf, const std::string& file) {
  // llama_adapter_lora_init_impl: "expect general.type to be 'adapter'", "expect adapter.type to be 'lora'".
  if (!is_gguf_adapter(gguf) || gguf.string_or("adapter.type", "") != "lora") {
    return make_error("gguf.not_lora", "file", file + ": not a LoRA adapter (llama.cpp expects general.type 'adapter' and "
                                                      "adapter.type 'lora')");
  }
  LlamaCppLora lora;
  lora.file = file;
  for (const GgufTensorInfo& t : gguf.tensors) {
    auto ends_with = [&](const char* suffix) {
      const size_t n = std::char_traits<char>::length(suffix);
      return t.name.size() >= n && t.name.compare(t.name.size() - n, n, suffix) == 0;
    };
    if (ends_with("_norm.weight")) continue;  // skipped by llama.cpp ("TODO: add support for norm vector")
    const bool a = ends_with(".lora_a");
    if (!a && !ends_with(".lora_b")) {
      return make_error("gguf.bad_lora", "tensors." + t.name, file + ": LoRA tensor '" + t.name + "' has unexpected suffix");
    }
    auto type = tensor_storage(tables, t, file);
    if (!type) return type.error();
    const StorageType& st = **type;
    const std::string adapted = t.name.substr(0, t.name.size() - 7);  // the model tensor's name
    if (a && lora.rank == 0 && t.dims.size() == 2) lora.rank = adapted == "token_embd.weight" ? t.dims[0] : t.dims[1];
    add_to_layer(lora.pairs, adapted, storage_bytes(st, t.dims[0], t.elements() / t.dims[0], 1), false);
  }
  if (lora.rank == 0) return make_error("gguf.bad_lora", "file", file + ": a LoRA adapter without lora_a tensors");
  int64_t total = sat_add(lora.pairs.input, lora.pairs.output);
  for (size_t i = 0; i < lora.pairs.layer.size(); ++i) total = sat_add(total, sat_add(lora.pairs.layer[i], lora.pairs.layer_experts[i]));
  if (total > (int64_t(1) << 50)) return make_error("gguf.bad_lora", "file", file + ": its tensors claim more than 2^50 bytes");
  return lora;
}

bool is_gguf_mmproj(const GgufFile& gguf) { return gguf.string_or("general.architecture", "") == "clip"; }

Result<LlamaCppMmproj> mmproj_from_gguf(const FormatTables& tables, const GgufFile& gguf, const std::string& file) {
  if (!is_gguf_mmproj(gguf)) return make_error("gguf.not_mmproj", "file", file + ": not a multimodal projector (general.architecture is not 'clip')");
  LlamaCppMmproj p;
  p.file = file;
  // An audio-only projector (clip_model_loader: has_audio_encoder without has_vision_encoder)
  // is read from its clip.audio.* keys; clip.audio.projector_type names it in mixed files.
  const GgufValue* has_audio = gguf.find("clip.has_audio_encoder");
  p.audio = has_audio && has_audio->kind == GgufValue::Kind::boolean && has_audio->boolean && !gguf.find("clip.vision.image_size");
  const std::string keys = p.audio ? "clip.audio." : "clip.vision.";
  p.projector = gguf.string_or(keys + "projector_type", gguf.string_or("clip.projector_type", "mlp"));
  p.image_size = p.audio ? 3000 : gguf.integer_or("clip.vision.image_size", 0);  // clip_hparams::warmup_audio_size
  p.patch_size = p.audio ? 2 : gguf.integer_or("clip.vision.patch_size", 0);
  p.hidden = gguf.integer_or(keys + "embedding_length", 0);
  p.intermediate = gguf.integer_or(keys + "feed_forward_length", 0);
  p.heads = gguf.integer_or(keys + "attention.head_count", 0);
  p.merge = std::clamp<int64_t>(gguf.integer_or("clip.vision.spatial_merge_size", 0), 0, 64);
  for (int64_t v : {p.image_size, p.patch_size, p.hidden, p.intermediate, p.heads}) {
    if (v <= 0 || v > (int64_t(1) << 20)) {
      return make_error("gguf.bad_mmproj", "file", file + ": " + keys + (p.audio ? "" : "image_size, patch_size, ") +
                                                       "embedding_length, feed_forward_length and attention.head_count must be positive sizes");
    }
  }
  for (const GgufTensorInfo& t : gguf.tensors) {
    auto type = tensor_storage(tables, t, file);
    if (!type) return type.error();
    p.weight_bytes = sat_add(p.weight_bytes, storage_bytes(**type, t.dims[0], t.elements() / t.dims[0], 1));
  }
  if (p.weight_bytes > (int64_t(1) << 50)) return make_error("gguf.bad_mmproj", "file", file + ": its tensors claim more than 2^50 bytes");
  return p;
}

std::string storage_id_for_safetensors_dtype(const std::string& dtype) {
  static const std::map<std::string, std::string> ids = {
      {"F64", "f64"}, {"F32", "f32"}, {"F16", "f16"}, {"BF16", "bf16"}, {"F8_E4M3", "fp8"}, {"F8_E5M2", "fp8"},
      {"F8_E8M0", "i8"}, {"I64", "i64"}, {"U64", "i64"}, {"I32", "i32"}, {"U32", "i32"}, {"I16", "i16"},
      {"U16", "i16"}, {"I8", "i8"}, {"U8", "i8"}, {"BOOL", "i8"}};
  auto it = ids.find(dtype);
  return it == ids.end() ? "" : it->second;
}

namespace {

// Architecture from Llama-style tensor names and shapes (model.layers.N.self_attn.q_proj ...).
void derive_config_from_names(const std::vector<SafetensorsFile>& shards, ModelFileRead& out) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const SafetensorsFile& f : shards) for (const SafetensorsTensor& t : f.tensors) shapes[t.name] = t.shape;
  json& c = out.config;
  c["model_type"] = "llama";
  out.assumed.push_back("no config.json: architecture derived from tensor names and shapes (Llama-style naming)");
  // "model.layers.<N>." and "model.layers.0.mlp.experts.<N>." give the layer and expert counts.
  auto number_after = [](const std::string& name, const std::string& prefix, int64_t& value) {
    if (name.compare(0, prefix.size(), prefix) != 0) return false;
    size_t i = prefix.size();
    int64_t n = 0;
    int digits = 0;
    while (i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 9) n = n * 10 + (name[i++] - '0'), ++digits;
    if (digits == 0 || i >= name.size() || name[i] != '.') return false;
    value = n;
    return true;
  };
  int64_t layers = 0, experts = 0;
  for (const auto& entry : shapes) {
    int64_t n = 0;
    if (number_after(entry.first, "model.layers.", n)) layers = std::max<int64_t>(layers, n + 1);
    if (number_after(entry.first, "model.layers.0.mlp.experts.", n)) experts = std::max<int64_t>(experts, n + 1);
  }
  c["num_hidden_layers"] = layers;
  auto shape_of = [&](const std::string& name) -> const std::vector<int64_t>* {
    auto it = shapes.find(name);
    return it == shapes.end() ? nullptr : &it->second;
  };
  if (auto* e = shape_of("model.embed_tokens.weight"); e && e->size() == 2) {
    c["vocab_size"] = (*e)[0];
    c["hidden_size"] = (*e)[1];
  }
  c["tie_word_embeddings"] = shape_of("lm_head.weight") == nullptr;
  int64_t head_dim = 128;
  if (auto* qn = shape_of("model.layers.0.self_attn.q_norm.weight"); qn && qn->size() == 1) {
    head_dim = (*qn)[0];
    c["qk_norm"] = true;
    out.derived.push_back("head_dim = " + std::to_string(head_dim) + " (q_norm)");
  } else {
    out.assumed.push_back("head_dim = 128 (a safetensors header carries no attention shape; give config.json to be sure)");
  }
  c["head_dim"] = head_dim;
  if (auto* q = shape_of("model.layers.0.self_attn.q_proj.weight"); q && q->size() == 2) c["num_attention_heads"] = (*q)[0] / head_dim;
  if (auto* k = shape_of("model.layers.0.self_attn.k_proj.weight"); k && k->size() == 2) c["num_key_value_heads"] = (*k)[0] / head_dim;
  c["qkv_bias"] = shape_of("model.layers.0.self_attn.q_proj.bias") != nullptr;
  c["attention_output_bias"] = shape_of("model.layers.0.self_attn.o_proj.bias") != nullptr;
  if (auto* up = shape_of("model.layers.0.mlp.up_proj.weight"); up && up->size() == 2) c["intermediate_size"] = (*up)[0];
  if (experts > 0) {
    c["num_local_experts"] = experts;
    if (auto* up = shape_of("model.layers.0.mlp.experts.0.up_proj.weight"); up && up->size() == 2) c["moe_intermediate_size"] = (*up)[0];
    c["num_experts_per_tok"] = 2;
    out.assumed.push_back("experts per token = 2 (not in the header; give config.json to be sure)");
  }
  out.derived.push_back(std::to_string(layers) + " layers (model.layers.N)");
}

}  // namespace

std::string shards_name(const std::vector<std::string>& files) {
  if (files.empty()) return "";
  if (files.size() <= 2) return files.size() == 1 ? files[0] : files[0] + ", " + files[1];
  return files.front() + ", ..., " + files.back();
}

Result<ModelFileRead> model_from_safetensors(const std::vector<SafetensorsFile>& shards, const json* config,
                                             const std::vector<std::string>& files) {
  ModelFileRead out;
  if (config) {
    out.config = *config;
    out.read.push_back("architecture from config.json");
  } else {
    derive_config_from_names(shards, out);
  }
  StoredWeights& w = out.weights;
  w.source = "safetensors";
  w.file = shards_name(files);
  bool packed = false;
  for (const SafetensorsFile& f : shards) {
    for (const SafetensorsTensor& t : f.tensors) {
      const std::string type = storage_id_for_safetensors_dtype(t.dtype);
      add_row(w, type, t.elements(), t.bytes, t.shape.size() <= 1);
      w.parameters = sat_add(w.parameters, t.elements());
      packed = packed || t.dtype == "I32" || t.dtype == "U8";
    }
  }
  out.read.push_back(std::to_string(shards.size()) + " safetensors header(s): every tensor's dtype and shape");
  if (packed) {
    out.assumed.push_back("integer tensors (GPTQ/AWQ qweight, bitsandbytes) are counted as their stored elements; "
                          "their bytes are exact, the parameter count is not the logical one");
  }
  return out;
}

Result<ModelFileRead> model_from_safetensors_index(const SafetensorsIndex& index, const json& config, const std::string& file) {
  ModelFileRead out;
  out.config = config;
  std::string dtype = config.contains("torch_dtype") && config["torch_dtype"].is_string() ? config["torch_dtype"].get<std::string>() : "bfloat16";
  const std::string type = dtype == "float32" ? "f32" : dtype == "float16" ? "f16" : "bf16";
  const int64_t element_bytes = type == "f32" ? 4 : 2;
  StoredWeights& w = out.weights;
  w.source = "safetensors-index";
  w.file = file;
  w.parameters = index.total_size / element_bytes;
  w.by_type.push_back({type, w.parameters, static_cast<int64_t>(index.tensor_names.size()), index.total_size});
  out.read.push_back("metadata.total_size = " + std::to_string(index.total_size) + " B over " +
                     std::to_string(index.shards.size()) + " shard(s), " + std::to_string(index.tensor_names.size()) + " tensors");
  out.assumed.push_back("parameters = total_size / " + std::to_string(element_bytes) + " B (" + dtype + ", from torch_dtype)");
  return out;
}

std::optional<Error> apply_model_file(Request& request, const ModelFileRead& read) {
  auto spec = read_hf_config(read.config, read.weights.file, /*weights_from_file=*/true);
  if (!spec) return spec.error();
  request.has_custom_model = true;
  request.custom_model = spec->spec;
  request.model_preset.clear();
  request.custom_model_name = read.weights.file;
  request.weight_format = "as_stored";
  request.has_stored_weights = true;
  request.stored_weights = read.weights;
  request.stored_weights.read = read.read;
  request.stored_weights.derived = read.derived;
  request.stored_weights.assumed = read.assumed;
  for (const std::string& a : spec->assumptions) request.stored_weights.assumed.push_back(a);
  return std::nullopt;
}

}  // namespace vramfit
