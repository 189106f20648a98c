// GGUF headers written here byte by byte in llama.cpp's own naming and type numbers, not
// through vramfit's tensor roles or type rules, so these tests check vramfit against
// llama.cpp rather than against itself:
//   tensor names   llama.cpp src/llama-arch.cpp (LLM_TENSOR_NAMES: token_embd, blk.N.attn_q, ...)
//   ggml type ids  ggml/include/ggml.h (F32 0, Q4_K 12, Q6_K 14); block sizes ggml/src/ggml-common.h
//                  (block_q4_K: 144 B per 256, block_q6_K: 210 B per 256)
//   Q4_K_M mix     src/llama-quant.cpp llama_tensor_get_type_impl: output (or a tied token_embd)
//                  Q6_K; attn_v and ffn_down Q6_K where use_more_bits(i, n); else Q4_K; 1-D F32
#include <cstdint>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "report/engines.hpp"
#include "io/gguf.hpp"
#include "io/model_file.hpp"
#include "support/model_file_writers.hpp"
#include "support/published_gguf.hpp"

#include <cstdlib>
#include <fstream>

using namespace vramfit;
using namespace vramfit::test;

namespace {

constexpr uint32_t kF32 = 0, kQ4K = 12, kQ6K = 14;

// A GGUF v3 header, appended field by field (little-endian).
struct HandWrittenGguf {
  std::vector<uint8_t> bytes;
  void u32(uint32_t v) { for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i))); }
  void u64(uint64_t v) { for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i))); }
  void str(const std::string& s) { u64(s.size()); bytes.insert(bytes.end(), s.begin(), s.end()); }
  void key_u32(const std::string& key, uint32_t v) { str(key); u32(4); u32(v); }  // GGUF_TYPE_UINT32 = 4
  void key_str(const std::string& key, const std::string& v) { str(key); u32(8); str(v); }  // GGUF_TYPE_STRING = 8
  uint64_t offset = 0;
  void tensor(const std::string& name, std::vector<uint64_t> ne, uint32_t type, uint64_t bytes_of_data) {
    str(name);
    u32(static_cast<uint32_t>(ne.size()));
    for (uint64_t d : ne) u64(d);
    u32(type);
    u64(offset);
    offset += (bytes_of_data + 31) / 32 * 32;  // general.alignment 32
  }
};

uint64_t q4_k(uint64_t elements) { return elements / 256 * 144; }
uint64_t q6_k(uint64_t elements) { return elements / 256 * 210; }

// Llama 3.2 1B (meta-llama/Llama-3.2-1B config.json: 16 layers, hidden 2048, 32 heads, 8 KV
// heads, FFN 8192, vocab 128256, tied embeddings) as llama.cpp's convert + quantize write it
// in Q4_K_M, with the rope_freqs tensor llama.cpp adds for Llama 3's rope scaling.
std::vector<uint8_t> llama_3_2_1b_q4_k_m() {
  HandWrittenGguf g;
  const int layers = 16;
  const uint64_t tensors = 3 + 9 * layers;
  g.u32(0x46554747u);  // "GGUF"
  g.u32(3);
  g.u64(tensors);
  g.u64(12);
  g.key_str("general.architecture", "llama");
  g.key_u32("general.file_type", 15);  // LLAMA_FTYPE_MOSTLY_Q4_K_M
  g.key_u32("llama.block_count", layers);
  g.key_u32("llama.context_length", 131072);
  g.key_u32("llama.embedding_length", 2048);
  g.key_u32("llama.feed_forward_length", 8192);
  g.key_u32("llama.attention.head_count", 32);
  g.key_u32("llama.attention.head_count_kv", 8);
  g.key_u32("llama.rope.dimension_count", 64);
  g.key_u32("llama.attention.key_length", 64);
  g.key_u32("llama.attention.value_length", 64);
  g.key_u32("llama.vocab_size", 128256);
  g.tensor("rope_freqs.weight", {32}, kF32, 32 * 4);
  g.tensor("token_embd.weight", {2048, 128256}, kQ6K, q6_k(2048ull * 128256));  // tied: the output's type
  g.tensor("output_norm.weight", {2048}, kF32, 2048 * 4);
  for (int i = 0; i < layers; ++i) {
    const std::string b = "blk." + std::to_string(i) + ".";
    const bool more = use_more_bits(i, layers);
    g.tensor(b + "attn_norm.weight", {2048}, kF32, 2048 * 4);
    g.tensor(b + "attn_q.weight", {2048, 2048}, kQ4K, q4_k(2048ull * 2048));
    g.tensor(b + "attn_k.weight", {2048, 512}, kQ4K, q4_k(2048ull * 512));
    g.tensor(b + "attn_v.weight", {2048, 512}, more ? kQ6K : kQ4K, more ? q6_k(2048ull * 512) : q4_k(2048ull * 512));
    g.tensor(b + "attn_output.weight", {2048, 2048}, kQ4K, q4_k(2048ull * 2048));
    g.tensor(b + "ffn_norm.weight", {2048}, kF32, 2048 * 4);
    g.tensor(b + "ffn_gate.weight", {2048, 8192}, kQ4K, q4_k(2048ull * 8192));
    g.tensor(b + "ffn_up.weight", {2048, 8192}, kQ4K, q4_k(2048ull * 8192));
    g.tensor(b + "ffn_down.weight", {8192, 2048}, more ? kQ6K : kQ4K, more ? q6_k(8192ull * 2048) : q4_k(8192ull * 2048));
  }
  return g.bytes;
}

const StoredWeights::Row* row_of(const StoredWeights& w, const std::string& type) {
  for (const StoredWeights::Row& r : w.by_type) {
    if (r.type == type) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a hand-written Llama 3.2 1B Q4_K_M header reads as llama.cpp wrote it", "[gguf][model_files]") {
  const auto bytes = llama_3_2_1b_q4_k_m();
  auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), "Llama-3.2-1B-Instruct-Q4_K_M.gguf");
  REQUIRE(gguf);
  auto read = model_from_gguf(builtin_catalog().formats, *gguf, "Llama-3.2-1B-Instruct-Q4_K_M.gguf");
  REQUIRE(read);
  const StoredWeights& w = read->weights;
  // use_more_bits(i, 16): layers 0, 1, 4, 7, 10, 13, 14, 15 take Q6_K for attn_v and ffn_down.
  const uint64_t v_down = 2048ull * 512 + 8192ull * 2048;
  const uint64_t always_q4 = 16 * (2048ull * 2048 * 2 + 2048ull * 512 + 2048ull * 8192 * 2);
  const StoredWeights::Row* q4 = row_of(w, "q4_k");
  const StoredWeights::Row* q6 = row_of(w, "q6_k");
  const StoredWeights::Row* f32 = row_of(w, "f32");
  REQUIRE(q4);
  REQUIRE(q6);
  REQUIRE(f32);
  CHECK(q4->tensors == 16 * 5 + 8 * 2);
  CHECK(q4->elements == static_cast<int64_t>(always_q4 + 8 * v_down));
  CHECK(q4->bytes == 467140608);  // (687,865,856 + 142,606,336) / 256 x 144
  CHECK(q6->tensors == 1 + 8 * 2);
  CHECK(q6->bytes == 332451840);  // (262,668,288 + 142,606,336) / 256 x 210
  CHECK(f32->tensors == 1 + 1 + 2 * 16);
  CHECK(f32->bytes == (32 + 2048 * 33) * 4);
  // The model's published 1,235,814,400 parameters and the 32 rope frequencies llama.cpp adds.
  CHECK(w.parameters == 1235814400 + 32);
  // The architecture, from llama.cpp's metadata keys.
  CHECK(read->config["num_hidden_layers"] == 16);
  CHECK(read->config["num_attention_heads"] == 32);
  CHECK(read->config["num_key_value_heads"] == 8);
  CHECK(read->config["hidden_size"] == 2048);
  CHECK(read->config["intermediate_size"] == 8192);
  CHECK(read->config["vocab_size"] == 128256);
  CHECK(read->config["max_position_embeddings"] == 131072);
}

TEST_CASE("the Llama 3.2 1B preset in GGUF Q4_K_M types every tensor as llama.cpp does", "[gguf][formats]") {
  // The same mix from the preset, through data/weight_formats.json's rules: the file's bytes
  // without rope_freqs (which the preset's tensor list does not have).
  const Report r = estimate_ok({{"model", {{"preset", "llama-3.2-1b"}}}, {"weights", {{"format", "gguf-q4_k_m"}}}});
  CHECK(r.memory.weights == 467140608 + 332451840 + 2048 * 33 * 4);
}

TEST_CASE("engine llama.cpp places a GGUF file's own tensors by their names", "[gguf][llamacpp]") {
  const auto bytes = llama_3_2_1b_q4_k_m();
  auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), "Llama-3.2-1B-Instruct-Q4_K_M.gguf");
  REQUIRE(gguf);
  auto read = model_from_gguf(builtin_catalog().formats, *gguf, "Llama-3.2-1B-Instruct-Q4_K_M.gguf");
  REQUIRE(read);
  const LlamaCppWeights& b = read->weights.by_layer;
  REQUIRE(read->weights.has_layers);
  CHECK(b.layer.size() == 16);
  // token_embd (tied: Q6_K) is the input; the output layer is output_norm, rope_freqs and, as
  // llama.cpp duplicates a tied token_embd for it, token_embd again.
  const int64_t token_embd = 128256LL * 2048 / 256 * 210;
  CHECK(b.input == token_embd);
  CHECK(b.output_is_token_embd);
  CHECK(b.output == token_embd + 2048 * 4 + 32 * 4);
  // Layer 0 uses more bits (attn_v, ffn_down Q6_K); layer 2 does not.
  CHECK(b.layer[2] == (2048LL * 2048 * 2 + 2048LL * 512 * 2 + 2048LL * 8192 * 3) / 256 * 144 + 2 * 2048 * 4);
  CHECK(b.layer_vectors[2] == 2 * 2048 * 4);

  Request request;
  REQUIRE_FALSE(apply_model_file(request, *read));
  request.engine = Engine::llamacpp;
  request.llamacpp.ctx_size = 4096;
  request.gpu_id = "rtx-4060";
  auto report = estimate(request, builtin_catalog());
  REQUIRE(report);
  // -ngl all: everything on the GPU (the tied output layer with its own token_embd), the
  // input token_embd on the host.
  CHECK(report->engine->llamacpp.host.model == token_embd);
  CHECK(report->engine->llamacpp.gpus[0].model == 467140608 + 332451840 + (32 + 2048 * 33) * 4);
  CHECK(report->engine->llamacpp.gpus[0].kv == 4096LL * 16 * 2 * 512 * 2);
  // The request with the file's layers goes through JSON and back unchanged.
  auto again = request_from_json(request_to_json(request));
  REQUIRE(again);
  CHECK(again->stored_weights.by_layer.layer == b.layer);
}

// Every GGUF file the C++ tests write, with vramfit's reading of each, for tests/js/gguf_oracle.test.mjs
// to parse with huggingface.js's independent parser. Hidden: it runs only when asked by its tag,
// with VRAMFIT_GGUF_DUMP naming the folder to write to.
TEST_CASE("the C++ tests' GGUF fixtures, written for the independent parser", "[.gguf-dump]") {
  const char* folder = std::getenv("VRAMFIT_GGUF_DUMP");
  REQUIRE(folder);
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files = {
      {"hand-written-llama-3.2-1b-Q4_K_M.gguf", llama_3_2_1b_q4_k_m()},
      {"llama-3.1-8b-Q4_K_M.gguf", published_gguf(llama_3_1_8b_card(), published_tensors(llama_3_1_8b_card(), "Q4_K_M"), 15)},
      {"qwen2.5-0.5b-Q4_K_M.gguf", published_gguf(qwen2_5_0_5b_card(), published_tensors(qwen2_5_0_5b_card(), "Q4_K_M"), 15)},
      {"llama-3.2-1b-Q8_0.gguf", llama_3_2_1b_gguf("Q8_0")},
      {"qwen3-8b-Q8_0.gguf", published_gguf(qwen3_8b_card(), published_tensors(qwen3_8b_card(), "Q8_0"), 7)},
      {"gemma-2-9b-Q8_0.gguf", published_gguf(gemma_2_9b_card(), published_tensors(gemma_2_9b_card(), "Q8_0"), 7)},
      {"mixtral-8x7b-Q8_0.gguf", published_gguf(mixtral_8x7b_card(), published_tensors(mixtral_8x7b_card(), "Q8_0"), 7)},
      {"llama-4-scout-F32.gguf", published_gguf(llama_4_scout_keys(), llama_4_scout_tensors())},
      {"qwen3.5-0.8b-F32.gguf", published_gguf(qwen35_keys(qwen3_5_0_8b_card()), qwen35_tensors(qwen3_5_0_8b_card()))},
      {"qwen3.6-27b-mtp-F32.gguf", published_gguf(qwen35_keys(qwen3_6_27b_mtp_card()), qwen35_tensors(qwen3_6_27b_mtp_card()))},
      {"mamba-130m-F32.gguf", published_gguf(mamba_130m_keys(), mamba_130m_tensors())},
      {"lora-rank-16.gguf", write_lora_gguf(preset("llama-3.1-8b").spec, "llama", 16)},
      {"mmproj-F16.gguf", write_mmproj_gguf()},
      {"mmproj-audio.gguf", write_audio_mmproj_gguf()},
  };
  json manifest = json::array();
  for (const auto& [name, bytes] : files) {
    INFO(name);
    auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), name);
    REQUIRE(gguf);
    json tensors = json::array();
    for (const GgufTensorInfo& t : gguf->tensors) {
      tensors.push_back({{"name", t.name}, {"type", t.ggml_type}, {"shape", t.dims}, {"offset", t.offset}});
    }
    manifest.push_back({{"file", name}, {"version", gguf->version}, {"keys", gguf->metadata.size()},
                        {"header_bytes", gguf->header_bytes}, {"tensors", tensors}});
    std::ofstream out(std::string(folder) + "/" + name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::ofstream(std::string(folder) + "/manifest.json") << manifest.dump(1);
}
