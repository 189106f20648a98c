// Writers for the model files the readers take: a GGUF header and a safetensors header
// for any ModelSpec, so tests (and the fuzzers' seed corpus) work on real-shaped files
// without downloading any. Header only: tensor data is never needed.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/json.hpp"

#include "core/formats.hpp"
#include "core/model_spec.hpp"

namespace vramfit::test {

class GgufWriter {
 public:
  std::vector<uint8_t> bytes;

  template <class T>
  void put(T value) {
    const size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &value, sizeof(T));
  }
  void put_string(const std::string& s) {
    put<uint64_t>(s.size());
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void kv_u32(const std::string& key, uint32_t value) { put_string(key); put<uint32_t>(4); put<uint32_t>(value); }
  void kv_string(const std::string& key, const std::string& value) { put_string(key); put<uint32_t>(8); put_string(value); }
  void kv_bool(const std::string& key, bool value) { put_string(key); put<uint32_t>(7); put<uint8_t>(value ? 1 : 0); }
  void kv_string_array(const std::string& key, const std::vector<std::string>& values) {
    put_string(key); put<uint32_t>(9); put<uint32_t>(8); put<uint64_t>(values.size());
    for (const std::string& v : values) put_string(v);
  }
};

// GGUF tensor name of one of vramfit's tensors (llama.cpp's naming; 1-D tensors numbered).
inline std::string gguf_tensor_name(const TensorShape& t, int vector_index) {
  std::string role = t.role == TensorRole::vector ? "vec" + std::to_string(vector_index) : tensor_role_name(t.role);
  if (t.layer < 0) return role + ".weight";
  return "blk." + std::to_string(t.layer) + "." + role + ".weight";
}

// A GGUF v3 header for `spec` with every tensor typed as `format` would type it; `extra` adds
// the architecture's own integer keys (arch-prefixed, as "ssm.state_size").
inline std::vector<uint8_t> write_gguf(const FormatTables& tables, const ModelSpec& spec, const WeightFormat& format,
                                       const std::string& arch, int64_t vocab_tokens_to_list = 64,
                                       const std::vector<std::pair<std::string, uint32_t>>& extra = {}) {
  GgufWriter w;
  const std::vector<TensorShape> tensors = enumerate_tensors(spec);
  const int kv_count = 10 + (spec.is_moe() ? 4 : 0) + (spec.sliding_window > 0 ? 1 : 0) + static_cast<int>(extra.size());
  w.put<uint32_t>(0x46554747u);
  w.put<uint32_t>(3);
  w.put<uint64_t>(tensors.size());
  w.put<uint64_t>(static_cast<uint64_t>(kv_count));
  const std::string p = arch + ".";
  w.kv_string("general.architecture", arch);
  w.kv_u32(p + "block_count", static_cast<uint32_t>(spec.layers));
  w.kv_u32(p + "embedding_length", static_cast<uint32_t>(spec.hidden_size));
  w.kv_u32(p + "attention.head_count", static_cast<uint32_t>(spec.attention_heads));
  w.kv_u32(p + "attention.head_count_kv", static_cast<uint32_t>(spec.kv_heads));
  w.kv_u32(p + "attention.key_length", static_cast<uint32_t>(spec.head_dim));
  w.kv_u32(p + "attention.value_length", static_cast<uint32_t>(spec.head_dim));
  w.kv_u32(p + "feed_forward_length", static_cast<uint32_t>(spec.intermediate_size));
  w.kv_u32(p + "context_length", static_cast<uint32_t>(spec.max_context_tokens));
  std::vector<std::string> tokens;
  for (int64_t i = 0; i < vocab_tokens_to_list; ++i) tokens.push_back("tok" + std::to_string(i));
  w.kv_string_array("tokenizer.ggml.tokens", tokens);
  if (spec.is_moe()) {
    w.kv_u32(p + "expert_count", static_cast<uint32_t>(spec.experts));
    w.kv_u32(p + "expert_used_count", static_cast<uint32_t>(spec.experts_per_token));
    w.kv_u32(p + "expert_feed_forward_length", static_cast<uint32_t>(spec.moe_intermediate_size));
    w.kv_u32(p + "vocab_size", static_cast<uint32_t>(spec.vocab_size));
  }
  if (spec.sliding_window > 0) w.kv_u32(p + "attention.sliding_window", static_cast<uint32_t>(spec.sliding_window));
  for (const auto& [key, value] : extra) w.kv_u32(p + key, value);
  uint64_t offset = 0;
  int vector_index = 0;
  for (const TensorShape& t : tensors) {
    const int type = storage_type_for_tensor(tables, format, spec, t);
    const StorageType& st = tables.storage_types[static_cast<size_t>(type)];
    w.put_string(gguf_tensor_name(t, t.role == TensorRole::vector ? vector_index++ : 0));
    const bool stacked = t.copies > 1;
    const bool vector = t.rows == 1 && !stacked;
    w.put<uint32_t>(vector ? 1 : (stacked ? 3 : 2));
    w.put<uint64_t>(static_cast<uint64_t>(t.row_length));
    if (!vector) w.put<uint64_t>(static_cast<uint64_t>(t.rows));
    if (stacked) w.put<uint64_t>(static_cast<uint64_t>(t.copies));
    w.put<uint32_t>(static_cast<uint32_t>(st.ggml_type));
    w.put<uint64_t>(offset);
    offset += static_cast<uint64_t>((storage_bytes(st, t.row_length, t.rows, t.copies) + 31) / 32 * 32);
  }
  return w.bytes;
}

// A LoRA adapter GGUF for `spec` as convert_lora_to_gguf.py writes one: general.type "adapter",
// adapter.type "lora", and per layer and target an A (in x rank) and B (rank x out) tensor of
// ggml type `ggml_type` (F16: 1), plus one norm the adapter carries (llama.cpp skips it).
inline std::vector<uint8_t> write_lora_gguf(const ModelSpec& spec, const std::string& arch, int64_t rank, uint32_t ggml_type = 1,
                                            int64_t bytes_per_element_x2 = 4) {
  struct Pair { std::string name; int64_t in, out; };
  const int64_t q = spec.attention_heads * spec.head_dim, kv = spec.kv_heads * spec.head_dim;
  std::vector<std::pair<std::string, std::vector<int64_t>>> tensors;
  for (int64_t i = 0; i < spec.layers; ++i) {
    const std::string l = "blk." + std::to_string(i) + ".";
    for (const Pair& p : {Pair{"attn_q", spec.hidden_size, q}, Pair{"attn_k", spec.hidden_size, kv}, Pair{"attn_v", spec.hidden_size, kv},
                          Pair{"attn_output", q, spec.hidden_size}}) {
      tensors.push_back({l + p.name + ".weight.lora_a", {p.in, rank}});
      tensors.push_back({l + p.name + ".weight.lora_b", {rank, p.out}});
    }
  }
  tensors.push_back({"blk.0.attn_norm.weight", {spec.hidden_size}});
  GgufWriter w;
  w.put<uint32_t>(0x46554747u);
  w.put<uint32_t>(3);
  w.put<uint64_t>(tensors.size());
  w.put<uint64_t>(3);
  w.kv_string("general.architecture", arch);
  w.kv_string("general.type", "adapter");
  w.kv_string("adapter.type", "lora");
  uint64_t offset = 0;
  for (const auto& [name, dims] : tensors) {
    w.put_string(name);
    w.put<uint32_t>(static_cast<uint32_t>(dims.size()));
    for (int64_t d : dims) w.put<uint64_t>(static_cast<uint64_t>(d));
    w.put<uint32_t>(dims.size() == 1 ? 0u : ggml_type);
    w.put<uint64_t>(offset);
    int64_t elements = 1;
    for (int64_t d : dims) elements *= d;
    offset += static_cast<uint64_t>((elements * bytes_per_element_x2 / 2 + 31) / 32 * 32);
  }
  return w.bytes;
}

// A "clip" GGUF (llama.cpp's multimodal projector files): the header, `key_count` keys written
// by `keys`, and F16 2-D tensors.
template <typename Keys>
std::vector<uint8_t> write_clip_gguf(const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors, uint64_t key_count,
                                     Keys keys) {
  GgufWriter w;
  w.put<uint32_t>(0x46554747u);
  w.put<uint32_t>(3);
  w.put<uint64_t>(tensors.size());
  w.put<uint64_t>(key_count + 1);
  w.kv_string("general.architecture", "clip");
  keys(w);
  uint64_t offset = 0;
  for (const auto& [name, dims] : tensors) {
    w.put_string(name);
    w.put<uint32_t>(2);
    for (int64_t d : dims) w.put<uint64_t>(static_cast<uint64_t>(d));
    w.put<uint32_t>(1);  // F16
    w.put<uint64_t>(offset);
    offset += static_cast<uint64_t>(dims[0] * dims[1] * 2);
  }
  return w.bytes;
}

// A multimodal projector GGUF as llama.cpp's converters write one (general.architecture "clip"):
// LLaVA-1.5's CLIP ViT-L/14 at 336 px (1024 wide, 4096 MLP, 16 heads, `layers` layers: q, k, v,
// o and the MLP in F16) and its two-layer projector into `text_hidden`.
// A vision projector GGUF's clip.* keys: its projector type, image and patch size, the tower's
// widths and (when > 0) clip.vision.spatial_merge_size.
struct ClipVision {
  std::string projector = "mlp";
  uint32_t image_size = 336, patch_size = 14, hidden = 1024, intermediate = 4096, heads = 16, merge = 0;
};

inline std::vector<uint8_t> write_vision_clip_gguf(const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors,
                                                   const ClipVision& v) {
  return write_clip_gguf(tensors, v.merge > 0 ? 7 : 6, [&v](GgufWriter& w) {
    w.kv_string("clip.projector_type", v.projector);
    w.kv_u32("clip.vision.image_size", v.image_size);
    w.kv_u32("clip.vision.patch_size", v.patch_size);
    w.kv_u32("clip.vision.embedding_length", v.hidden);
    w.kv_u32("clip.vision.feed_forward_length", v.intermediate);
    w.kv_u32("clip.vision.attention.head_count", v.heads);
    if (v.merge > 0) w.kv_u32("clip.vision.spatial_merge_size", v.merge);
  });
}

inline std::vector<uint8_t> write_mmproj_gguf(int64_t layers = 23, int64_t text_hidden = 4096) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> tensors;
  for (int64_t i = 0; i < layers; ++i) {
    const std::string l = "v.blk." + std::to_string(i) + ".";
    for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_out"}) tensors.push_back({l + n + ".weight", {1024, 1024}});
    tensors.push_back({l + "ffn_up.weight", {1024, 4096}});
    tensors.push_back({l + "ffn_down.weight", {4096, 1024}});
  }
  tensors.push_back({"mm.0.weight", {1024, text_hidden}});
  tensors.push_back({"mm.2.weight", {text_hidden, text_hidden}});
  return write_vision_clip_gguf(tensors, ClipVision{});
}

// An audio projector GGUF as llama.cpp's converter writes Qwen2-Audio's (clip.has_audio_encoder,
// clip.audio.* keys, projector "qwen2a"): Whisper-large-v3's encoder layers (1280 wide, 5120
// MLP, 20 heads; `layers` of them, F16) and the projector's one matrix into 4096.
inline std::vector<uint8_t> write_audio_mmproj_gguf(int64_t layers = 2) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> tensors;
  for (int64_t i = 0; i < layers; ++i) {
    const std::string l = "a.blk." + std::to_string(i) + ".";
    for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_out"}) tensors.push_back({l + n + ".weight", {1280, 1280}});
    tensors.push_back({l + "ffn_up.weight", {1280, 5120}});
    tensors.push_back({l + "ffn_down.weight", {5120, 1280}});
  }
  tensors.push_back({"mm.a.fc.weight", {1280, 4096}});
  return write_clip_gguf(tensors, 7, [layers](GgufWriter& w) {
    w.kv_bool("clip.has_audio_encoder", true);
    w.kv_string("clip.projector_type", "qwen2a");
    w.kv_u32("clip.audio.num_mel_bins", 128);
    w.kv_u32("clip.audio.embedding_length", 1280);
    w.kv_u32("clip.audio.feed_forward_length", 5120);
    w.kv_u32("clip.audio.attention.head_count", 20);
    w.kv_u32("clip.audio.block_count", static_cast<uint32_t>(layers));
  });
}

// Hugging Face tensor names of a Llama/Qwen2-style dense model, with their shapes.
inline std::vector<std::pair<std::string, std::vector<int64_t>>> hf_dense_tensors(const ModelSpec& s) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> t;
  const int64_t h = s.hidden_size, q = s.attention_heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  t.push_back({"model.embed_tokens.weight", {s.vocab_size, h}});
  for (int64_t i = 0; i < s.layers; ++i) {
    const std::string l = "model.layers." + std::to_string(i) + ".";
    t.push_back({l + "input_layernorm.weight", {h}});
    t.push_back({l + "post_attention_layernorm.weight", {h}});
    t.push_back({l + "self_attn.q_proj.weight", {q, h}});
    t.push_back({l + "self_attn.k_proj.weight", {kv, h}});
    t.push_back({l + "self_attn.v_proj.weight", {kv, h}});
    t.push_back({l + "self_attn.o_proj.weight", {h, q}});
    if (s.qkv_bias) {
      t.push_back({l + "self_attn.q_proj.bias", {q}});
      t.push_back({l + "self_attn.k_proj.bias", {kv}});
      t.push_back({l + "self_attn.v_proj.bias", {kv}});
    }
    if (s.qk_norm) {
      t.push_back({l + "self_attn.q_norm.weight", {s.head_dim}});
      t.push_back({l + "self_attn.k_norm.weight", {s.head_dim}});
    }
    t.push_back({l + "mlp.gate_proj.weight", {s.intermediate_size, h}});
    t.push_back({l + "mlp.up_proj.weight", {s.intermediate_size, h}});
    t.push_back({l + "mlp.down_proj.weight", {h, s.intermediate_size}});
  }
  t.push_back({"model.norm.weight", {h}});
  if (!s.tied_embeddings) t.push_back({"lm_head.weight", {s.vocab_size, h}});
  return t;
}

// A safetensors header (8-byte length + JSON) for the given tensors in one dtype.
inline std::vector<uint8_t> write_safetensors(const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors,
                                              const std::string& dtype, int64_t element_bytes) {
  json header = {{"__metadata__", {{"format", "pt"}}}};
  uint64_t offset = 0;
  for (const auto& [name, shape] : tensors) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const uint64_t end = offset + static_cast<uint64_t>(n * element_bytes);
    header[name] = {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {offset, end}}};
    offset = end;
  }
  const std::string text = header.dump();
  std::vector<uint8_t> bytes(8);
  const uint64_t length = text.size();
  std::memcpy(bytes.data(), &length, 8);
  bytes.insert(bytes.end(), text.begin(), text.end());
  return bytes;
}

}  // namespace vramfit::test
