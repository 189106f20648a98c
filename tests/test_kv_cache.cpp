// KV cache: 2 x layers x kv_heads x head_dim x bytes x tokens x sequences, with sliding
// windows, MLA latents and quantized cache types at their true sizes.
#include "helpers.hpp"

#include "report/engines.hpp"

#include <fstream>

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

namespace {
json kv_request(const std::string& model, int64_t context, const std::string& dtype = "f16", int64_t sequences = 1) {
  return {{"model", {{"preset", model}}}, {"context_tokens", context}, {"concurrent_sequences", sequences},
          {"kv_cache", {{"dtype", dtype}}}, {"gpu", {{"id", "h200"}}}};
}
}  // namespace

TEST_CASE("article 004: 131,072 bytes per token and 1,073,741,824 at 8,192 tokens", "[kv][article004]") {
  const Report r = estimate_ok(kv_request("article-004-8b", 8192));
  CHECK(r.memory.kv_bytes_per_token_per_layer * 32 == 131072);  // 2 x 32 x 8 x 128 x 2 B
  CHECK(r.memory.kv_cache == 1073741824);
  const BreakdownItem* kv = find_item(r.breakdown, "kv_cache");
  REQUIRE(kv);
  CHECK(kv->formula ==
        "2 x 32 layers x 8 KV heads x 128 head_dim x 2 B (FP16) x 8,192 tokens x 1 sequence = 1,073,741,824 B");
}

TEST_CASE("doubling the context doubles the cache; sequences multiply it", "[kv][article004]") {
  const int64_t one = estimate_ok(kv_request("llama-3.1-8b", 8192)).memory.kv_cache;
  CHECK(estimate_ok(kv_request("llama-3.1-8b", 16384)).memory.kv_cache == 2 * one);
  CHECK(estimate_ok(kv_request("llama-3.1-8b", 8192, "f16", 4)).memory.kv_cache == 4 * one);
}

TEST_CASE("quantized KV caches at their true sizes", "[kv]") {
  // Per layer and token: 1,024 elements for K and 1,024 for V.
  // q8_0: 32 blocks x 34 B = 1,088 B per row (1.0625 B/element); q4_0: 32 x 18 = 576 B (0.5625).
  CHECK(estimate_ok(kv_request("llama-3.1-8b", 1, "q8_0")).memory.kv_cache == 2 * 32 * 1088);
  CHECK(estimate_ok(kv_request("llama-3.1-8b", 1, "q4_0")).memory.kv_cache == 2 * 32 * 576);
  CHECK(estimate_ok(kv_request("llama-3.1-8b", 1, "fp8")).memory.kv_cache == 2 * 32 * 1024);
  CHECK(estimate_ok(kv_request("llama-3.1-8b", 1, "f32")).memory.kv_cache == 2 * 32 * 4096);
}

TEST_CASE("sliding-window layers hold at most the window", "[kv][sliding]") {
  // Gemma 2 9B: 42 layers, the 21 even ones slide over 4,096 tokens; 2 x 8 x 256 x 2 B = 8,192 B per layer-token.
  CHECK(estimate_ok(kv_request("gemma-2-9b", 8192)).memory.kv_cache == int64_t(21) * 8192 * 8192 + int64_t(21) * 8192 * 4096);
  // Below the window every layer holds the whole context.
  CHECK(estimate_ok(kv_request("gemma-2-9b", 2048)).memory.kv_cache == int64_t(42) * 8192 * 2048);
  // Gemma 3 1B: 4 global layers of 26, window 512, 1 KV head x 256: 1,024 B per layer-token.
  CHECK(estimate_ok(kv_request("gemma-3-1b", 32768)).memory.kv_cache == int64_t(4) * 1024 * 32768 + int64_t(22) * 1024 * 512);
  // gpt-oss-20b: 12 of 24 layers slide over 128 tokens; 2 x 8 x 64 x 2 B = 2,048 B.
  CHECK(estimate_ok(kv_request("gpt-oss-20b", 8192)).memory.kv_cache == int64_t(12) * 2048 * 8192 + int64_t(12) * 2048 * 128);
}

TEST_CASE("MLA caches one latent of kv_lora_rank + rope dims per layer", "[kv][mla]") {
  // DeepSeek-V3: 61 layers x (512 + 64) x 2 B = 70,272 B per token.
  const Report r = estimate_ok(kv_request("deepseek-v3", 8192));
  CHECK(r.memory.kv_bytes_per_token_per_layer == (512 + 64) * 2);
  CHECK(r.memory.kv_cache == int64_t(61) * 576 * 2 * 8192);
}

TEST_CASE("tensor parallelism splits KV heads, or replicates them past the head count", "[kv][tp]") {
  json request = kv_request("llama-3.1-70b", 8192);
  const int64_t single = estimate_ok(request).memory.kv_cache;
  request["gpu_count"] = 4;  // 8 KV heads / 4 = 2 per GPU
  CHECK(estimate_ok(request).memory.kv_cache == single / 4);
  request["gpu_count"] = 16;  // more GPUs than KV heads: 1 head each, not 0.5
  CHECK(estimate_ok(request).memory.kv_cache == single / 8);
  // MLA's latent is not split.
  json mla = kv_request("deepseek-v3", 8192);
  const int64_t latent = estimate_ok(mla).memory.kv_cache;
  mla["gpu_count"] = 8;
  CHECK(estimate_ok(mla).memory.kv_cache == latent);
}

namespace {
json fixture_config(const std::string& name) {
  std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/configs/" + name);
  return json::parse(in);
}
json config_request(const std::string& fixture, int64_t context, int64_t sequences, const std::string& engine = "generic") {
  json request = {{"model", {{"config", fixture_config(fixture)}}}, {"context_tokens", context},
                  {"concurrent_sequences", sequences}, {"gpu", {{"id", "h200"}}}, {"weights", {{"format", "bf16"}}}};
  if (engine != "generic") request["engine"] = engine;
  return request;
}
}  // namespace

TEST_CASE("Mamba and RWKV hold a fixed state per sequence; T5 and BART cache only the decoder's layers", "[kv][recurrent]") {
  // mamba-130m: 24 layers x ((4 - 1) conv + 16 SSM) x 1,536 d_inner x 4 B per sequence, at any context.
  const Report mamba = estimate_ok(config_request("mamba-130m-hf.json", 1024, 8));
  CHECK(mamba.memory.kv_cache == 8 * 24 * (3 + 16) * 1536 * 4);
  CHECK(mamba.memory.kv_bytes_per_token_per_layer == 0);
  CHECK(estimate_ok(config_request("mamba-130m-hf.json", 100000, 8)).memory.kv_cache == mamba.memory.kv_cache);
  const BreakdownItem* state = find_item(mamba.breakdown, "kv_cache");
  REQUIRE(state);
  CHECK(state->label == "Recurrent state");
  CHECK(state->formula == "24 layers x ((4 - 1) conv + 16 SSM) x 1,536 d_inner x 4 B (fp32) x 8 sequences = 22,413,312 B");
  // RWKV-4 169M: 12 layers x 5 x 768 x 4 B.
  CHECK(estimate_ok(config_request("rwkv-4-169m-pile.json", 1024, 1)).memory.kv_cache == 12 * 5 * 768 * 4);
  // t5-small: 6 decoder layers x 2 x 8 heads x 64 x 2 B (FP16 cache) per token of input + output.
  const Report t5 = estimate_ok(config_request("t5-small.json", 512, 2));
  CHECK(t5.memory.kv_cache == 2 * 512 * 6 * 2 * 8 * 64 * 2);
  const BreakdownItem* kv = find_item(t5.breakdown, "kv_cache");
  REQUIRE(kv);
  CHECK(kv->note.find("the 6 encoder layers cache nothing") != std::string::npos);
  CHECK(estimate_ok(config_request("bart-base.json", 1024, 1)).memory.kv_cache == 1024 * 6 * 2 * 768 * 2);
  // GPT-Neo 1.3B: 12 global layers over the context, 12 local ones over at most 256 tokens.
  CHECK(estimate_ok(config_request("gpt-neo-1.3B.json", 2048, 1)).memory.kv_cache ==
        (12 * 2048 + 12 * 256) * int64_t(2) * 2048 * 2);

  // vLLM's and Transformers' buffers for these are not modelled: an error naming the model, not a guess.
  for (const char* engine : {"vllm", "transformers"}) {
    INFO(engine);
    const Error e = estimate_error(config_request("mamba-130m-hf.json", 1024, 1, engine));
    CHECK(e.field == "model");
    CHECK(e.message.find("recurrent state") != std::string::npos);
  }
  // llama.cpp's are (llama_memory_recurrent): no KV cache, one state per sequence of -np in each
  // recurrent layer's RS buffer, on the layer's device, whatever -c is.
  json mamba_llamacpp = config_request("mamba-130m-hf.json", 1024, 1, "llama.cpp");
  mamba_llamacpp["weights"]["format"] = "gguf-q8_0";
  mamba_llamacpp["llama.cpp"] = {{"ctx-size", 65536}, {"parallel", 3}, {"n-gpu-layers", 13}};
  const Report on_llamacpp = estimate_ok(mamba_llamacpp);
  const LlamaCppMemory& m = on_llamacpp.engine->llamacpp;
  CHECK(m.rs_cells == 3);
  CHECK(m.gpus[0].kv + m.host.kv == 0);
  CHECK(m.gpus[0].rs == 12 * 3 * (3 + 16) * 1536 * 4);  // -ngl 13: the last 12 layers and the output layer
  CHECK(m.host.rs == 12 * 3 * (3 + 16) * 1536 * 4);
  const std::vector<std::string> lines = llamacpp_log_lines(m);
  CHECK(std::find(lines.begin(), lines.end(), "llama_memory_recurrent: CUDA0 RS buffer size =     4.01 MiB") != lines.end());
  // Jamba on llama.cpp (llama_memory_hybrid): a KV cache for its 4 attention layers only, the
  // 28 Mamba layers' states beside it.
  json jamba = config_request("jamba-v0.1.json", 8192, 1, "llama.cpp");
  jamba["weights"]["format"] = "gguf-q4_k_m";
  jamba["gpus"] = {"h200", "h200"};
  jamba.erase("gpu");
  jamba["llama.cpp"] = {{"ctx-size", 8192}, {"parallel", 2}};
  const Report hybrid = estimate_ok(jamba);
  const LlamaCppMemory& h = hybrid.engine->llamacpp;
  CHECK(h.gpus[0].kv + h.gpus[1].kv == 4 * int64_t(8192) * 2 * 8 * 128 * 2);
  CHECK(h.gpus[0].rs + h.gpus[1].rs == 28 * 2 * int64_t(3 + 16) * 8192 * 4);
  const json training = {{"mode", "training"}, {"model", {{"config", fixture_config("t5-small.json")}}}, {"gpu", {{"id", "h200"}}}};
  const Error e = estimate_error(training);
  CHECK(e.field == "model");
  CHECK(e.message.find("encoder-decoder") != std::string::npos);
}

TEST_CASE("Llama 3.2 Vision: 32 layers grow with the context, 8 cross-attention layers hold the image", "[kv][vision]") {
  // MllamaTextCrossAttention caches k_proj and v_proj of the vision states: 4 tiles x 1,601
  // patches per image, whatever the context; the other 32 layers cache the text.
  const Report one = estimate_ok(config_request("llama-3.2-11b-vision-instruct.json", 8192, 2));
  const int64_t row = 2 * 8 * 128 * 2;  // K and V rows of 8 KV heads x 128 in FP16
  const int64_t image = 8 * int64_t(4 * 1601) * row;
  CHECK(one.memory.kv_cache == 2 * (32 * int64_t(8192) * row + image));
  CHECK(estimate_ok(config_request("llama-3.2-11b-vision-instruct.json", 16384, 2)).memory.kv_cache ==
        one.memory.kv_cache + 2 * 32 * int64_t(8192) * row);
  const BreakdownItem* cross = find_item(one.breakdown, "kv_cache.cross");
  REQUIRE(cross);
  CHECK(cross->formula == "2 x 8 layers x 8 KV heads x 128 head_dim x 2 B (FP16) x 6,404 tokens x 2 sequences = 419,692,544 B");
  CHECK(cross->bytes == 2 * image);
  // The vision encoder's pass covers all four tiles.
  CHECK(one.memory.vision_encoder == int64_t(4 * 1601) * 2 * (5 * 1280 + 2 * 5120));

  // Not yet for the engines or for training: an error naming the cross-attention, not a guess.
  for (const char* engine : {"llama.cpp", "vllm", "transformers"}) {
    INFO(engine);
    json request = config_request("llama-3.2-11b-vision-instruct.json", 1024, 1, engine);
    if (std::string(engine) == "llama.cpp") request["weights"]["format"] = "gguf-q8_0";
    const Error e = estimate_error(request);
    CHECK(e.field == "model");
    CHECK(e.message.find("cross-attention to the image's tiles") != std::string::npos);
  }
  // BERT and its kin serve embeddings: no KV cache and no sampler, which the engines' models
  // assume; refused by name rather than sized as a decoder.
  for (const char* engine : {"vllm", "transformers"}) {
    INFO(engine);
    const Error e = estimate_error(config_request("bert-large-uncased.json", 512, 1, engine));
    CHECK(e.field == "model");
    CHECK(e.message.find("an encoder, served for embeddings") != std::string::npos);
  }
  const json training = {{"mode", "training"}, {"model", {{"preset", "llama-3.2-11b-vision"}}}, {"gpu", {{"id", "h200"}}}};
  CHECK(estimate_error(training).message.find("cross-attention layers") != std::string::npos);
}

TEST_CASE("Jamba: 4 attention layers grow with the context, 28 Mamba layers hold a fixed state", "[kv][recurrent]") {
  const int64_t row = 2 * 8 * 128 * 2;                 // K and V rows of 8 KV heads x 128 in FP16
  const int64_t state = 28 * (3 + 16) * 8192 * 4;      // (d_conv - 1 + d_state) x d_inner in fp32
  const Report jamba = estimate_ok(config_request("jamba-v0.1.json", 65536, 2));
  CHECK(jamba.memory.kv_cache == 2 * (4 * int64_t(65536) * row + state));
  CHECK(estimate_ok(config_request("jamba-v0.1.json", 131072, 2)).memory.kv_cache == jamba.memory.kv_cache + 2 * 4 * int64_t(65536) * row);
  const BreakdownItem* fixed = find_item(jamba.breakdown, "kv_cache.state");
  REQUIRE(fixed);
  CHECK(fixed->formula == "28 layers x ((4 - 1) conv + 16 SSM) x 8,192 d_inner x 4 B (fp32) x 2 sequences = 34,865,152 B");
  for (const char* engine : {"vllm", "transformers"}) {
    INFO(engine);
    CHECK(estimate_error(config_request("jamba-v0.1.json", 1024, 1, engine)).message.find("recurrent state") != std::string::npos);
  }
  const json training = {{"mode", "training"}, {"model", {{"config", fixture_config("jamba-v0.1.json")}}}, {"gpu", {{"id", "h200"}}}};
  CHECK(estimate_error(training).message.find("recurrent layers") != std::string::npos);
}

TEST_CASE("Qwen3-Next: 12 full-attention layers grow with the context, 36 DeltaNet layers hold a fixed state", "[kv][recurrent]") {
  const Report next = estimate_ok(config_request("qwen3-next-80b-a3b-instruct.json", 65536, 1));
  const int64_t state = 36 * int64_t(3 * 8192 + 32 * 128 * 128) * 4;  // conv and delta-rule state in fp32
  CHECK(next.memory.kv_cache == 12 * int64_t(65536) * 2 * 2 * 256 * 2 + state);
  const BreakdownItem* fixed = find_item(next.breakdown, "kv_cache.state");
  REQUIRE(fixed);
  CHECK(fixed->formula == "36 layers x ((4 - 1) x 8,192 conv + 32 heads x 128 x 128 state) x 4 B (fp32) x 1 sequence = 79,036,416 B");
  CHECK(estimate_error(config_request("qwen3-next-80b-a3b-instruct.json", 1024, 1, "vllm")).message.find("recurrent state") !=
        std::string::npos);
  // A hybrid whose recurrent layers have no width is refused, naming it.
  json config = fixture_config("qwen3-next-80b-a3b-instruct.json");
  config["linear_num_value_heads"] = 0;
  const Error e = estimate_error({{"model", {{"config", config}}}, {"gpu", {{"id", "h200"}}}});
  CHECK(e.message.find("recurrent layers need positive widths") != std::string::npos);
}
