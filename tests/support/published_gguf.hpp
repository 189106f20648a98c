// GGUF files as llama.cpp writes them, from each model's published card and llama.cpp's own
// rules, written out here and not produced by vramfit's tensor enumeration or type tables:
//   tensor names   llama.cpp src/llama-arch.cpp LLM_TENSOR_NAMES (token_embd, blk.N.attn_q, ...,
//                  ffn_gate_exps for stacked experts, gemma2's post_attention_norm and post_ffw_norm)
//   shapes         ggml order (ne[0] is the row), from convert_hf_to_gguf.py's tensor maps
//   ggml type ids  ggml/include/ggml.h; block sizes ggml/src/ggml-common.h
//   Q4_K_M / Q8_0  src/llama-quant.cpp llama_tensor_get_type: 1-D tensors F32; the output (or a tied
//                  token_embd) Q6_K; attn_v and ffn_down Q6_K where use_more_bits(i, n), Q8_0 with 8
//                  experts; else Q4_K; a row not a multiple of 256 falls back (Q4_K -> Q5_0, Q6_K ->
//                  Q8_0: convert_incompatible_tensor). Q8_0: every matrix Q8_0.
// The cards hold the config.json values of the models' Hub repositories.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_file_writers.hpp"

namespace vramfit::test {

// What a model's config.json says, in llama.cpp's terms.
struct ModelCard {
  std::string arch;  // general.architecture: llama, qwen2, qwen3, gemma2
  uint64_t layers = 0, embd = 0, ff = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0, context = 0;
  uint64_t experts = 0, experts_used = 0, sliding_window = 0;
  bool tied = false;       // tie_word_embeddings: no output.weight
  bool qkv_bias = false;   // Qwen2: attn_q/k/v.bias
  bool qk_norm = false;    // Qwen3: attn_q_norm, attn_k_norm
  bool post_norms = false; // Gemma 2: post_attention_norm, post_ffw_norm
  bool rope_freqs = false; // Llama 3.x: rope_freqs.weight (head_dim / 2 factors)
};

// Meta-Llama-3.1-8B, Llama-3.2-1B, Qwen2.5-0.5B, Qwen3-8B, gemma-2-9b, Mixtral-8x7B-v0.1.
inline ModelCard llama_3_1_8b_card() { return {"llama", 32, 4096, 14336, 32, 8, 128, 128256, 131072, 0, 0, 0, false, false, false, false, true}; }
inline ModelCard llama_3_2_1b_card() { return {"llama", 16, 2048, 8192, 32, 8, 64, 128256, 131072, 0, 0, 0, true, false, false, false, true}; }
inline ModelCard qwen2_5_0_5b_card() { return {"qwen2", 24, 896, 4864, 14, 2, 64, 151936, 32768, 0, 0, 0, true, true, false, false, false}; }
inline ModelCard qwen3_8b_card() { return {"qwen3", 36, 4096, 12288, 32, 8, 128, 151936, 40960, 0, 0, 0, false, false, true, false, false}; }
inline ModelCard gemma_2_9b_card() { return {"gemma2", 42, 3584, 14336, 16, 8, 256, 256000, 8192, 0, 0, 4096, true, false, false, true, false}; }
inline ModelCard mixtral_8x7b_card() { return {"llama", 32, 4096, 14336, 32, 8, 128, 32000, 32768, 8, 2, 0, false, false, false, false, false}; }

enum GgmlType : uint32_t { kGgmlF32 = 0, kGgmlQ5_0 = 6, kGgmlQ8_0 = 8, kGgmlQ4_K = 12, kGgmlQ6_K = 14 };

// ggml-common.h: {elements per block, bytes per block}.
inline uint64_t ggml_bytes(uint32_t type, uint64_t elements) {
  switch (type) {
    case kGgmlF32: return elements * 4;
    case kGgmlQ5_0: return elements / 32 * 22;
    case kGgmlQ8_0: return elements / 32 * 34;
    case kGgmlQ4_K: return elements / 256 * 144;
    case kGgmlQ6_K: return elements / 256 * 210;
    default: return 0;
  }
}

struct PublishedTensor {
  std::string name;
  std::vector<uint64_t> ne;
  uint32_t type = kGgmlF32;
  uint64_t elements() const {
    uint64_t n = 1;
    for (uint64_t d : ne) n *= d;
    return n;
  }
  uint64_t bytes() const { return ggml_bytes(type, elements()); }
};

// llama-quant.cpp's use_more_bits: the first and last eighth of the layers, and every third between.
inline bool use_more_bits(uint64_t i, uint64_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

// The type llama.cpp's quantize gives a tensor of `ftype` ("Q4_K_M" or "Q8_0").
inline uint32_t quantized_type(const std::string& ftype, const ModelCard& c, const std::string& name, const std::vector<uint64_t>& ne,
                               uint64_t layer) {
  if (ne.size() == 1 || name.find("_norm") != std::string::npos || name.find("ffn_gate_inp") != std::string::npos) {
    return kGgmlF32;  // 1-D tensors, and the router, which quantize leaves in F32
  }
  if (ftype == "Q8_0") return kGgmlQ8_0;
  uint32_t type = kGgmlQ4_K;
  const bool output = name == "output.weight" || (c.tied && name == "token_embd.weight");
  if (output) type = kGgmlQ6_K;
  if (name.find("attn_v.weight") != std::string::npos) {
    if (use_more_bits(layer, c.layers)) type = kGgmlQ6_K;
    if (c.experts == 8) type = kGgmlQ8_0;
  }
  if (name.find("ffn_down") != std::string::npos && use_more_bits(layer, c.layers)) type = kGgmlQ6_K;
  if (ne[0] % 256 != 0) type = type == kGgmlQ6_K ? kGgmlQ8_0 : type == kGgmlQ4_K ? kGgmlQ5_0 : type;
  return type;
}

// Every tensor of the model in llama.cpp's order and names, typed for `ftype`.
inline std::vector<PublishedTensor> published_tensors(const ModelCard& c, const std::string& ftype) {
  std::vector<PublishedTensor> t;
  auto add = [&](const std::string& name, std::vector<uint64_t> ne, uint64_t layer = 0) {
    t.push_back({name, ne, quantized_type(ftype, c, name, ne, layer)});
  };
  const uint64_t q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
  if (c.rope_freqs) add("rope_freqs.weight", {c.head_dim / 2});
  add("token_embd.weight", {c.embd, c.vocab});
  add("output_norm.weight", {c.embd});
  if (!c.tied) add("output.weight", {c.embd, c.vocab});
  for (uint64_t i = 0; i < c.layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    add(b + "attn_norm.weight", {c.embd}, i);
    add(b + "attn_q.weight", {c.embd, q}, i);
    add(b + "attn_k.weight", {c.embd, kv}, i);
    add(b + "attn_v.weight", {c.embd, kv}, i);
    if (c.qkv_bias) {
      add(b + "attn_q.bias", {q}, i);
      add(b + "attn_k.bias", {kv}, i);
      add(b + "attn_v.bias", {kv}, i);
    }
    if (c.qk_norm) {
      add(b + "attn_q_norm.weight", {c.head_dim}, i);
      add(b + "attn_k_norm.weight", {c.head_dim}, i);
    }
    add(b + "attn_output.weight", {q, c.embd}, i);
    if (c.post_norms) add(b + "post_attention_norm.weight", {c.embd}, i);
    add(b + "ffn_norm.weight", {c.embd}, i);
    if (c.experts > 0) {
      add(b + "ffn_gate_inp.weight", {c.embd, c.experts}, i);
      add(b + "ffn_gate_exps.weight", {c.embd, c.ff, c.experts}, i);
      add(b + "ffn_up_exps.weight", {c.embd, c.ff, c.experts}, i);
      add(b + "ffn_down_exps.weight", {c.ff, c.embd, c.experts}, i);
    } else {
      add(b + "ffn_gate.weight", {c.embd, c.ff}, i);
      add(b + "ffn_up.weight", {c.embd, c.ff}, i);
      add(b + "ffn_down.weight", {c.ff, c.embd}, i);
    }
    if (c.post_norms) add(b + "post_ffw_norm.weight", {c.embd}, i);
  }
  return t;
}

// The tensor infos of a GGUF header: name, dimensions, type and offset (general.alignment 32).
inline void put_tensor_infos(GgufWriter& w, const std::vector<PublishedTensor>& tensors) {
  uint64_t offset = 0;
  for (const PublishedTensor& t : tensors) {
    w.put_string(t.name);
    w.put<uint32_t>(static_cast<uint32_t>(t.ne.size()));
    for (uint64_t d : t.ne) w.put<uint64_t>(d);
    w.put<uint32_t>(t.type);
    w.put<uint64_t>(offset);
    offset += (t.bytes() + 31) / 32 * 32;
  }
}

// The GGUF v3 header of those tensors, with the card's keys (general.alignment 32) and a tokenizer
// list of `tokens` entries (a long one makes the header run past a first read).
inline std::vector<uint8_t> published_gguf(const ModelCard& c, const std::vector<PublishedTensor>& tensors, uint32_t file_type,
                                           uint64_t tokens = 2) {
  GgufWriter w;
  const std::string p = c.arch + ".";
  const uint64_t keys = 12 + (c.experts > 0 ? 2 : 0) + (c.sliding_window > 0 ? 1 : 0);
  w.put<uint32_t>(0x46554747u);  // "GGUF"
  w.put<uint32_t>(3);
  w.put<uint64_t>(tensors.size());
  w.put<uint64_t>(keys);
  w.kv_string("general.architecture", c.arch);
  w.kv_u32("general.file_type", file_type);
  w.kv_u32(p + "block_count", static_cast<uint32_t>(c.layers));
  w.kv_u32(p + "context_length", static_cast<uint32_t>(c.context));
  w.kv_u32(p + "embedding_length", static_cast<uint32_t>(c.embd));
  w.kv_u32(p + "feed_forward_length", static_cast<uint32_t>(c.ff));
  w.kv_u32(p + "attention.head_count", static_cast<uint32_t>(c.heads));
  w.kv_u32(p + "attention.head_count_kv", static_cast<uint32_t>(c.kv_heads));
  w.kv_u32(p + "attention.key_length", static_cast<uint32_t>(c.head_dim));
  w.kv_u32(p + "attention.value_length", static_cast<uint32_t>(c.head_dim));
  w.kv_u32(p + "vocab_size", static_cast<uint32_t>(c.vocab));
  std::vector<std::string> listed;
  for (uint64_t i = 0; i < tokens; ++i) listed.push_back("tok" + std::to_string(i));
  w.kv_string_array("tokenizer.ggml.tokens", listed);
  if (c.experts > 0) {
    w.kv_u32(p + "expert_count", static_cast<uint32_t>(c.experts));
    w.kv_u32(p + "expert_used_count", static_cast<uint32_t>(c.experts_used));
  }
  if (c.sliding_window > 0) w.kv_u32(p + "attention.sliding_window", static_cast<uint32_t>(c.sliding_window));
  put_tensor_infos(w, tensors);
  return w.bytes;
}

// Architectures whose tensors the card above cannot say, each from llama.cpp's own load_tensors
// (src/models/<arch>.cpp), every tensor in F32 as convert_hf_to_gguf.py --outtype f32 writes it
// (general.file_type 0). Their keys are given as written by the converter (without the arch prefix).
struct PublishedKeys {
  std::string arch;
  std::vector<std::pair<std::string, uint64_t>> keys;  // "block_count", "ssm.state_size", ...
};

inline std::vector<uint8_t> published_gguf(const PublishedKeys& k, const std::vector<PublishedTensor>& tensors, uint64_t tokens = 2) {
  GgufWriter w;
  w.put<uint32_t>(0x46554747u);  // "GGUF"
  w.put<uint32_t>(3);
  w.put<uint64_t>(tensors.size());
  w.put<uint64_t>(3 + k.keys.size());
  w.kv_string("general.architecture", k.arch);
  w.kv_u32("general.file_type", 0);  // ALL_F32
  std::vector<std::string> listed;
  for (uint64_t i = 0; i < tokens; ++i) listed.push_back("tok" + std::to_string(i));
  w.kv_string_array("tokenizer.ggml.tokens", listed);
  for (const auto& [key, value] : k.keys) w.kv_u32(k.arch + "." + key, static_cast<uint32_t>(value));
  put_tensor_infos(w, tensors);
  return w.bytes;
}

// meta-llama/Llama-4-Scout-17B-16E's text model (src/models/llama4.cpp load_arch_tensors): 48
// layers, each an MoE layer (interleave_moe_layer_step 1) of 16 experts and a shared expert of
// the experts' width; q/k/v/o with 40 heads of 128 and 8 KV heads; untied output. rope_freqs,
// which llama.cpp does not require, is left out.
inline PublishedKeys llama_4_scout_keys() {
  return {"llama4", {{"block_count", 48}, {"context_length", 10485760}, {"embedding_length", 5120}, {"feed_forward_length", 16384},
                     {"attention.head_count", 40}, {"attention.head_count_kv", 8}, {"attention.key_length", 128},
                     {"attention.value_length", 128}, {"vocab_size", 202048}, {"expert_count", 16}, {"expert_used_count", 1},
                     {"expert_feed_forward_length", 8192}, {"interleave_moe_layer_step", 1}}};
}
inline std::vector<PublishedTensor> llama_4_scout_tensors() {
  const uint64_t embd = 5120, vocab = 202048, q = 40 * 128, kv = 8 * 128, ff_exp = 8192, experts = 16;
  std::vector<PublishedTensor> t = {{"token_embd.weight", {embd, vocab}}, {"output_norm.weight", {embd}}, {"output.weight", {embd, vocab}}};
  for (int i = 0; i < 48; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    for (PublishedTensor x : std::vector<PublishedTensor>{
             {"attn_norm.weight", {embd}}, {"attn_q.weight", {embd, q}}, {"attn_k.weight", {embd, kv}}, {"attn_v.weight", {embd, kv}},
             {"attn_output.weight", {q, embd}}, {"ffn_norm.weight", {embd}}, {"ffn_gate_inp.weight", {embd, experts}},
             {"ffn_gate_exps.weight", {embd, ff_exp, experts}}, {"ffn_down_exps.weight", {ff_exp, embd, experts}},
             {"ffn_up_exps.weight", {embd, ff_exp, experts}}, {"ffn_gate_shexp.weight", {embd, ff_exp}},
             {"ffn_down_shexp.weight", {ff_exp, embd}}, {"ffn_up_shexp.weight", {embd, ff_exp}}}) {
      x.name = b + x.name;
      t.push_back(x);
    }
  }
  return t;
}

// A Qwen3.5 text model (src/models/qwen35.cpp load_arch_tensors): every full_attention_interval-th
// layer attends (q twice as wide, with its gate; q/k norms), the others are Gated DeltaNet layers
// (attn_qkv, attn_gate, ssm_conv1d, ssm_dt.bias, ssm_a, ssm_beta, ssm_alpha, ssm_norm, ssm_out),
// widths from the ssm keys (head dims ssm.state_size, ssm.group_count key heads,
// ssm.time_step_rank value heads); every layer post-attention-normed with a dense FFN. The last
// `mtp` blocks are MTP layers (load_block_mtp): a full-attention block and its nextn tensors.
struct Qwen35Card {
  uint64_t layers, embd, ff, heads, kv_heads, head_dim, vocab, d_conv, d_state, groups, v_heads, interval, mtp;
  bool tied;
};
inline Qwen35Card qwen3_5_0_8b_card() { return {24, 1024, 3584, 8, 2, 256, 248320, 4, 128, 16, 16, 4, 0, true}; }
inline Qwen35Card qwen3_6_27b_mtp_card() { return {65, 5120, 17408, 24, 4, 256, 248320, 4, 128, 16, 48, 4, 1, false}; }

inline PublishedKeys qwen35_keys(const Qwen35Card& c) {
  PublishedKeys k{"qwen35", {{"block_count", c.layers}, {"context_length", 262144}, {"embedding_length", c.embd},
                             {"feed_forward_length", c.ff}, {"attention.head_count", c.heads}, {"attention.head_count_kv", c.kv_heads},
                             {"attention.key_length", c.head_dim}, {"attention.value_length", c.head_dim}, {"vocab_size", c.vocab},
                             {"ssm.conv_kernel", c.d_conv}, {"ssm.state_size", c.d_state}, {"ssm.group_count", c.groups},
                             {"ssm.time_step_rank", c.v_heads}, {"ssm.inner_size", c.d_state * c.v_heads},
                             {"full_attention_interval", c.interval}}};
  if (c.mtp > 0) k.keys.push_back({"nextn_predict_layers", c.mtp});
  return k;
}
inline std::vector<PublishedTensor> qwen35_tensors(const Qwen35Card& c) {
  const uint64_t q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
  const uint64_t key_dim = c.d_state * c.groups, value_dim = c.d_state * c.v_heads;
  std::vector<PublishedTensor> t = {{"token_embd.weight", {c.embd, c.vocab}}, {"output_norm.weight", {c.embd}}};
  if (!c.tied) t.push_back({"output.weight", {c.embd, c.vocab}});
  for (uint64_t i = 0; i < c.layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    const bool mtp = i >= c.layers - c.mtp, attention = mtp || (i + 1) % c.interval == 0;
    std::vector<PublishedTensor> layer = {{"attn_norm.weight", {c.embd}}, {"post_attention_norm.weight", {c.embd}}};
    if (attention) {
      layer.insert(layer.end(), {{"attn_q.weight", {c.embd, q * 2}}, {"attn_k.weight", {c.embd, kv}}, {"attn_v.weight", {c.embd, kv}},
                                 {"attn_output.weight", {q, c.embd}}, {"attn_q_norm.weight", {c.head_dim}},
                                 {"attn_k_norm.weight", {c.head_dim}}});
    } else {
      layer.insert(layer.end(), {{"attn_qkv.weight", {c.embd, key_dim * 2 + value_dim}}, {"attn_gate.weight", {c.embd, value_dim}},
                                 {"ssm_conv1d.weight", {c.d_conv, key_dim * 2 + value_dim}}, {"ssm_dt.bias", {c.v_heads}},
                                 {"ssm_a", {c.v_heads}}, {"ssm_beta.weight", {c.embd, c.v_heads}},
                                 {"ssm_alpha.weight", {c.embd, c.v_heads}}, {"ssm_norm.weight", {c.d_state}},
                                 {"ssm_out.weight", {value_dim, c.embd}}});
    }
    layer.insert(layer.end(), {{"ffn_gate.weight", {c.embd, c.ff}}, {"ffn_down.weight", {c.ff, c.embd}}, {"ffn_up.weight", {c.embd, c.ff}}});
    if (mtp) {
      layer.insert(layer.end(), {{"nextn.eh_proj.weight", {2 * c.embd, c.embd}}, {"nextn.enorm.weight", {c.embd}},
                                 {"nextn.hnorm.weight", {c.embd}}, {"nextn.shared_head_norm.weight", {c.embd}}});
    }
    for (PublishedTensor& x : layer) {
      x.name = b + x.name;
      t.push_back(x);
    }
  }
  return t;
}

// state-spaces/mamba-130m-hf (src/models/mamba.cpp load_arch_tensors; conversion/mamba.py writes
// feed_forward_length and head_count 0, the vocabulary padded to a multiple of 8, no output when
// the embeddings are tied): 24 layers of d_model 768, d_inner 1536, d_state 16, d_conv 4, dt_rank 48.
inline PublishedKeys mamba_130m_keys() {
  return {"mamba", {{"block_count", 24}, {"context_length", 1048576}, {"embedding_length", 768}, {"feed_forward_length", 0},
                    {"attention.head_count", 0}, {"ssm.conv_kernel", 4}, {"ssm.inner_size", 1536}, {"ssm.state_size", 16},
                    {"ssm.time_step_rank", 48}}};
}
inline std::vector<PublishedTensor> mamba_130m_tensors() {
  const uint64_t embd = 768, inner = 1536, state = 16, conv = 4, dt_rank = 48, vocab = 50280;
  std::vector<PublishedTensor> t = {{"token_embd.weight", {embd, vocab}}, {"output_norm.weight", {embd}}};
  for (int i = 0; i < 24; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    for (PublishedTensor x : std::vector<PublishedTensor>{
             {"attn_norm.weight", {embd}}, {"ssm_in.weight", {embd, 2 * inner}}, {"ssm_conv1d.weight", {conv, inner}},
             {"ssm_conv1d.bias", {inner}}, {"ssm_x.weight", {inner, dt_rank + 2 * state}}, {"ssm_dt.weight", {dt_rank, inner}},
             {"ssm_dt.bias", {inner}}, {"ssm_a", {state, inner}}, {"ssm_d", {inner}}, {"ssm_out.weight", {inner, embd}}}) {
      x.name = b + x.name;
      t.push_back(x);
    }
  }
  return t;
}

}  // namespace vramfit::test

namespace vramfit::test {

// Llama 3.2 1B in `ftype` ("Q4_K_M": file type 15, "Q8_0": 7) as llama.cpp writes it.
inline std::vector<uint8_t> llama_3_2_1b_gguf(const std::string& ftype, uint64_t tokens = 2) {
  return published_gguf(llama_3_2_1b_card(), published_tensors(llama_3_2_1b_card(), ftype), ftype == "Q8_0" ? 7 : 15, tokens);
}

}  // namespace vramfit::test
