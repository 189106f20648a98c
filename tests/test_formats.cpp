// Weight storage: ggml block sizes, grouped int4, bitsandbytes, and llama.cpp's mixes,
// each against bytes worked out by hand.
#include "helpers.hpp"

using namespace vramfit;
using namespace vramfit::test;

TEST_CASE("GGUF block sizes match ggml's type table", "[formats][gguf]") {
  // ggml/src/ggml.c type_traits: {ggml type id, block elements, block bytes}
  struct Row { int ggml_type; int64_t block, bytes; const char* name; };
  const Row rows[] = {
      {0, 1, 4, "f32"},     {1, 1, 2, "f16"},      {2, 32, 18, "q4_0"},   {3, 32, 20, "q4_1"},
      {6, 32, 22, "q5_0"},  {7, 32, 24, "q5_1"},   {8, 32, 34, "q8_0"},   {9, 32, 36, "q8_1"},
      {10, 256, 84, "q2_k"}, {11, 256, 110, "q3_k"}, {12, 256, 144, "q4_k"}, {13, 256, 176, "q5_k"},
      {14, 256, 210, "q6_k"}, {15, 256, 292, "q8_k"}, {16, 256, 66, "iq2_xxs"}, {17, 256, 74, "iq2_xs"},
      {18, 256, 98, "iq3_xxs"}, {19, 256, 50, "iq1_s"}, {20, 32, 18, "iq4_nl"}, {21, 256, 110, "iq3_s"},
      {22, 256, 82, "iq2_s"}, {23, 256, 136, "iq4_xs"}, {24, 1, 1, "i8"}, {25, 1, 2, "i16"},
      {26, 1, 4, "i32"},    {27, 1, 8, "i64"},     {28, 1, 8, "f64"},     {29, 256, 56, "iq1_m"},
      {30, 1, 2, "bf16"},   {34, 256, 54, "tq1_0"}, {35, 256, 66, "tq2_0"}, {39, 32, 17, "mxfp4"}};
  const FormatTables& t = builtin_catalog().formats;
  for (const Row& r : rows) {
    INFO(r.name);
    const int i = t.find_storage_by_ggml(r.ggml_type);
    REQUIRE(i >= 0);
    CHECK(t.storage_types[static_cast<size_t>(i)].id == r.name);
    CHECK(t.storage_types[static_cast<size_t>(i)].block_elements == r.block);
    CHECK(t.storage_types[static_cast<size_t>(i)].block_bits == 8 * r.bytes);
  }
  // Q4_K: 4.5 bits per weight; Q8_0: 8.5; MXFP4: 4.25.
  CHECK(storage("q4_k").bytes_per_element() == Approx(4.5 / 8));
  CHECK(storage("q8_0").bytes_per_element() == Approx(8.5 / 8));
  CHECK(storage("mxfp4").bytes_per_element() == Approx(4.25 / 8));
}

TEST_CASE("plain dtypes: elements x bytes", "[formats]") {
  CHECK(storage_bytes(storage("f16"), 4096, 4096, 1) == 33554432);
  CHECK(storage_bytes(storage("f32"), 10, 3, 2) == 240);
  // FP8 keeps one fp32 scale per tensor.
  CHECK(storage_bytes(storage("fp8"), 4096, 4096, 1) == 16777216 + 4);
}

TEST_CASE("GPTQ int4, group 128: qweight + scales + zeros + g_idx", "[formats][gptq]") {
  // A 4096 x 4096 Linear: qweight 4096*4096/2 = 8,388,608 B; 32 groups x 4096 columns of
  // fp16 scales = 262,144 B and 4-bit zeros = 65,536 B; g_idx 4096 x 4 B = 16,384 B.
  const StorageType g128 = with_group_size(storage("gptq_int4"), 128);
  CHECK(storage_bytes(g128, 4096, 4096, 1) == 8388608 + 262144 + 65536 + 16384);
  // AWQ: the same without g_idx.
  const StorageType awq = with_group_size(storage("awq_int4"), 128);
  CHECK(storage_bytes(awq, 4096, 4096, 1) == 8388608 + 262144 + 65536);
  // Group 32 has 4x the scales and zeros.
  const StorageType g32 = with_group_size(storage("gptq_int4"), 32);
  CHECK(storage_bytes(g32, 4096, 4096, 1) == 8388608 + 4 * (262144 + 65536) + 16384);
}

TEST_CASE("bitsandbytes NF4 with and without double quantization", "[formats][bnb]") {
  const int64_t n = 4096 * 4096;       // 16,777,216 elements
  const int64_t blocks = n / 64;       // 262,144 blocks of 64
  // NF4: n/2 data + fp32 absmax per block + 16-entry fp32 code.
  CHECK(storage_bytes(storage("nf4"), 4096, 4096, 1) == n / 2 + 4 * blocks + 64);
  // Double quant: int8 absmax per block + fp32 per 256 blocks + codes (64 + 1024) and offset 4.
  CHECK(storage_bytes(storage("nf4_dq"), 4096, 4096, 1) == n / 2 + blocks + 4 * (blocks / 256) + 1092);
  // LLM.int8(): int8 weights + one fp32 scale per output row.
  CHECK(storage_bytes(storage("int8_bnb"), 4096, 1024, 1) == 4096 * 1024 + 4 * 1024);
}

TEST_CASE("NF4 keeps embeddings, head and norms in bf16", "[formats][bnb]") {
  const ModelSpec& m = preset("llama-3.2-1b").spec;
  const WeightsSummary w = summarize_weights(builtin_catalog().formats, format("bnb-nf4"), m, 0);
  int64_t bf16_elements = 0;
  for (const WeightsByType& t : w.by_type) {
    if (builtin_catalog().formats.storage_types[static_cast<size_t>(t.storage_type)].id == "bf16") bf16_elements = t.elements;
  }
  // tied embedding 128,256 x 2048 + 16 x 2 norms x 2048 + final norm 2048
  CHECK(bf16_elements == 262668288 + 16 * 2 * 2048 + 2048);
}

TEST_CASE("GGUF Q4_K_M of Llama 3.1 8B, tensor by tensor", "[formats][gguf]") {
  // llama.cpp Q4_K_M: Q4_K everywhere, Q6_K for the output head and for attn_v and
  // ffn_down in the 16 layers use_more_bits() picks out of 32 (0-3, 28-31, 6, 9, ..., 27);
  // norms stay F32. Hand sums:
  //   token_embd 525,336,576 x 144/256 = 295,501,824; output x 210/256 = 430,940,160
  //   layer with more bits 138,936,320 B; other layer 122,716,160 B; final norm 16,384 B
  const WeightsSummary w =
      summarize_weights(builtin_catalog().formats, format("gguf-q4_k_m"), preset("llama-3.1-8b").spec, 0);
  CHECK(w.bytes == int64_t(295501824) + 430940160 + 16 * int64_t(138936320) + 16 * int64_t(122716160) + 16384);
  CHECK(w.bytes == 4912898048);
}

TEST_CASE("GGUF falls back where the block does not divide a row", "[formats][gguf]") {
  // Qwen2.5-0.5B: hidden 896 is not a multiple of 256, so Q4_K rows of 896 become Q5_0
  // (llama-quant.cpp fallback); ffn_down rows (4864 = 19 x 256) stay K-quants.
  const FormatTables& t = builtin_catalog().formats;
  const ModelSpec& m = preset("qwen2.5-0.5b").spec;
  const WeightFormat& q4km = format("gguf-q4_k_m");
  const TensorShape attn_q{TensorRole::attn_q, 10, 896, 896, 1};
  const TensorShape ffn_down_plain{TensorRole::ffn_down, 10, 4864, 896, 1};
  const TensorShape embedding{TensorRole::token_embd, -1, 896, 151936, 1};
  CHECK(t.storage_types[static_cast<size_t>(storage_type_for_tensor(t, q4km, m, attn_q))].id == "q5_0");
  CHECK(t.storage_types[static_cast<size_t>(storage_type_for_tensor(t, q4km, m, ffn_down_plain))].id == "q4_k");
  // Tied embedding takes the output rule: Q6_K, but 896 % 256 != 0 -> Q8_0.
  CHECK(t.storage_types[static_cast<size_t>(storage_type_for_tensor(t, q4km, m, embedding))].id == "q8_0");
}

TEST_CASE("GGUF rules for 70B and 8-expert models", "[formats][gguf]") {
  const FormatTables& t = builtin_catalog().formats;
  auto type_of = [&](const std::string& model, TensorRole role, int32_t layer) {
    const TensorShape shape{role, layer, 8192, 1024, 1};
    return t.storage_types[static_cast<size_t>(storage_type_for_tensor(t, format("gguf-q4_k_m"), preset(model).spec, shape))].id;
  };
  // Llama 70B: attn_v in a layer without more bits is bumped from Q4_K to Q5_K.
  CHECK(type_of("llama-3.1-70b", TensorRole::attn_v, 11) == "q5_k");
  CHECK(type_of("llama-3.1-70b", TensorRole::attn_v, 0) == "q6_k");
  // Mixtral (8 experts): attn_v and attn_k in Q8_0, attn_output in Q5_K.
  CHECK(type_of("mixtral-8x7b", TensorRole::attn_v, 11) == "q8_0");
  CHECK(type_of("mixtral-8x7b", TensorRole::attn_k, 11) == "q8_0");
  CHECK(type_of("mixtral-8x7b", TensorRole::attn_output, 11) == "q5_k");
  CHECK(type_of("mixtral-8x7b", TensorRole::attn_q, 11) == "q4_k");
}

TEST_CASE("gpt-oss as released: MXFP4 experts, BF16 elsewhere", "[formats]") {
  const ModelSpec& m = preset("gpt-oss-20b").spec;
  const WeightsSummary w = summarize_weights(builtin_catalog().formats, format("mxfp4-moe"), m, 0);
  // Expert matrices: 24 layers x 32 experts x (2880 x 5760 + 2880 x 2880) elements.
  const int64_t expert_elements = int64_t(24) * 32 * (int64_t(2880) * 5760 + int64_t(2880) * 2880);
  const int64_t expert_bytes = expert_elements / 32 * 17;
  CHECK(w.bytes == expert_bytes + 2 * (count_parameters(m) - expert_elements));
  // About 13 GB, as the 20b checkpoint's files add up to.
  CHECK(w.bytes > 12800000000);
  CHECK(w.bytes < 13900000000);
}

TEST_CASE("the articles' 4-bit rule is exactly half a byte per parameter", "[formats]") {
  const WeightsSummary w = summarize_weights(builtin_catalog().formats, format("int4"), preset("article-004-8b").spec, 0);
  CHECK(w.bytes == 4000000000);
  CHECK(w.from_parameter_count);
}
