// llama.cpp's buffers device by device (src/core/llamacpp.*), against llama.cpp's own rules:
//   layer placement   src/llama-model.cpp llama_model::load_tensors (get_layer_buft_list)
//   n_ctx padding     src/llama-context.cpp llama_context::llama_context (GGML_PAD(n_ctx, 256))
//   SWA cells         src/llama-kv-cache-iswa.cpp llama_kv_cache_iswa (n_swa x n_seq + n_ubatch)
//   output buffer     src/llama-context.cpp llama_context::output_reserve (n_vocab x n_seq f32)
#include <cmath>

#include "core/llamacpp.hpp"
#include "helpers.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

LlamaCppMemory run(const std::string& model, const std::string& weights, const LlamaCppSettings& settings,
                   std::vector<int64_t> gpus = {24 * kGiB}) {
  return llamacpp_memory(builtin_catalog().formats, preset(model).spec, format(weights), settings, gpus);
}

double in_mib(int64_t bytes) { return static_cast<double>(bytes) / static_cast<double>(kMiB); }

}  // namespace

TEST_CASE("llama.cpp keeps token_embd on the CPU and everything else on the GPU at -ngl all", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  const LlamaCppMemory m = run("llama-3.1-8b", "gguf-q4_0", s);
  // token_embd 128,256 x 4,096 in Q4_0 (18 B per 32): 295,501,824 B = 281.81 MiB, the
  // "CPU_Mapped model buffer size" of a fully offloaded Llama 3.1 8B Q4_0.
  CHECK(m.host.model == 128256LL * 4096 / 32 * 18);
  CHECK(std::round(in_mib(m.host.model) * 100) / 100 == 281.81);
  REQUIRE(m.gpus.size() == 1);
  CHECK(m.gpus[0].layers == 32);
  CHECK(m.gpus[0].output_layer);
  CHECK(m.offloaded_layers == 33);
  CHECK(m.layer_slots == 33);
  // KV: 8,192 cells x 32 layers x (1,024 K + 1,024 V) f16 = 1,024 MiB, all on CUDA0.
  CHECK(m.gpus[0].kv == 1024 * kMiB);
  CHECK(m.host.kv == 0);
  // One sequence's logits: 128,256 x 4 B.
  CHECK(m.host.output == 128256 * 4);
}

TEST_CASE("llama.cpp pads the context to 256 cells and reads -c 0 as the trained context", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 35000;
  CHECK(run("llama-3.1-8b", "gguf-q4_k_m", s).n_ctx == 35072);
  s.ctx_size = 0;
  CHECK(run("llama-3.1-8b", "gguf-q4_k_m", s).n_ctx == 131072);
  // The graph is reserved for min(n_ctx, -ub) tokens.
  s.ctx_size = 256;
  CHECK(run("llama-3.1-8b", "gguf-q4_k_m", s).ubatch_tokens == 256);
}

TEST_CASE("-ngl puts the last layers on the GPU, the output layer first", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.n_gpu_layers = 1;  // only slot n_layer: the output layer
  LlamaCppMemory m = run("llama-3.1-8b", "gguf-q4_k_m", s);
  CHECK(m.gpus[0].layers == 0);
  CHECK(m.gpus[0].output_layer);
  CHECK(m.host.layers == 32);
  CHECK(m.gpus[0].kv == 0);
  s.n_gpu_layers = 20;  // layers 13..31 and the output
  m = run("llama-3.1-8b", "gguf-q4_k_m", s);
  CHECK(m.gpus[0].layers == 19);
  CHECK(m.host.layers == 13);
  CHECK(m.offloaded_layers == 20);
  // The KV cache follows the layers: 19 of 32 on the GPU.
  CHECK(m.gpus[0].kv * 13 == m.host.kv * 19);
  s.n_gpu_layers = 0;
  m = run("llama-3.1-8b", "gguf-q4_k_m", s);
  CHECK(m.gpus[0].model == 0);
  CHECK(m.gpus[0].compute == 0);
}

TEST_CASE("two GPUs split the layers in proportion to free memory or -ts", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  // Equal free memory: slots 0..32 at fractions il/33 against [0.5, 1]: 17 slots (0..16) on
  // CUDA0, 16 (17..31 and the output) on CUDA1.
  LlamaCppMemory m = run("llama-3.1-8b", "gguf-q4_k_m", s, {24 * kGiB, 24 * kGiB});
  CHECK(m.gpus[0].layers == 17);
  CHECK(m.gpus[1].layers == 15);
  CHECK(m.gpus[1].output_layer);
  CHECK(m.gpus[0].kv == 17 * 8192 * 2048 * 2);
  CHECK(m.gpus[1].kv == 15 * 8192 * 2048 * 2);
  // -ts 3,1: fractions [0.75, 1]: slots with il/33 < 0.75 (0..24) on CUDA0.
  s.tensor_split = {3, 1};
  m = run("llama-3.1-8b", "gguf-q4_k_m", s, {24 * kGiB, 24 * kGiB});
  CHECK(m.gpus[0].layers == 25);
  CHECK(m.gpus[1].layers == 7);
  // -sm none: everything on the main GPU.
  s.tensor_split.clear();
  s.split_mode = LlamaSplitMode::none;
  s.main_gpu = 1;
  m = run("llama-3.1-8b", "gguf-q4_k_m", s, {24 * kGiB, 24 * kGiB});
  CHECK(m.gpus[0].model == 0);
  CHECK(m.gpus[1].layers == 32);
}

TEST_CASE("K and V cache types are separate; -nkvo keeps the cache on the CPU", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.cache_type_k = "q8_0";
  s.cache_type_v = "q4_0";
  const LlamaCppMemory m = run("llama-3.1-8b", "gguf-q4_k_m", s);
  // Per cell and layer: 1,024 K in q8_0 (34 B per 32) + 1,024 V in q4_0 (18 B per 32).
  CHECK(m.gpus[0].kv == 8192LL * 32 * (1024 / 32 * 34 + 1024 / 32 * 18));
  s.no_kv_offload = true;
  const LlamaCppMemory host = run("llama-3.1-8b", "gguf-q4_k_m", s);
  CHECK(host.gpus[0].kv == 0);
  CHECK(host.host.kv == m.gpus[0].kv);
  CHECK_FALSE(host.flash_attention);  // -fa auto turns off when the cache is not beside the layers
}

TEST_CASE("--cpu-moe and --n-cpu-moe keep experts on the CPU", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  const LlamaCppMemory all = run("gpt-oss-20b", "gguf-mxfp4_moe", s);
  s.cpu_moe = true;
  const LlamaCppMemory cpu = run("gpt-oss-20b", "gguf-mxfp4_moe", s);
  CHECK(cpu.gpus[0].model < all.gpus[0].model / 4);
  CHECK(cpu.host.model + cpu.gpus[0].model == all.host.model + all.gpus[0].model);
  s.cpu_moe = false;
  s.n_cpu_moe = 12;  // half of the 24 layers
  const LlamaCppMemory half = run("gpt-oss-20b", "gguf-mxfp4_moe", s);
  CHECK(half.gpus[0].model > cpu.gpus[0].model);
  CHECK(half.gpus[0].model < all.gpus[0].model);
}

TEST_CASE("sliding-window layers keep n_swa x n_seq + n_ubatch cells; --swa-full the whole context", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 32768;
  const LlamaCppMemory m = run("gpt-oss-20b", "gguf-mxfp4_moe", s);
  CHECK(m.swa_cells == 128 + 512);  // gpt-oss: sliding_window 128
  s.swa_full = true;
  CHECK(run("gpt-oss-20b", "gguf-mxfp4_moe", s).swa_cells == 32768);
}

TEST_CASE("llama.cpp's compute buffer holds a whole batch of logits on the output device", "[llamacpp]") {
  // The graph is reserved with n_outputs = n_tokens: n_vocab x n_ubatch f32 logits. Measured
  // (issue 13's held-out logs): gpt-oss-20b with flash attention 398 MiB; Qwen3-8B on Metal
  // 312.75 MiB, both at -ub 512. The rule gives 398.4 and 304.75 MiB: the first within 0.1 %,
  // the second 2.6 % low (a second n_embd x n_ubatch row the allocator keeps is not modelled).
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.flash_attn = LlamaFlashAttn::on;
  const double gpt_oss = in_mib(run("gpt-oss-20b", "gguf-mxfp4_moe", s).gpus[0].compute);
  CHECK(std::abs(gpt_oss - 398.0) / 398.0 < 0.01);
  const double qwen3 = in_mib(run("qwen3-8b", "gguf-q4_k_m", s).gpus[0].compute);
  CHECK(std::abs(qwen3 - 312.75) / 312.75 < 0.03);
}

TEST_CASE("the lines llama.cpp prints", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  const std::vector<std::string> lines = llamacpp_log_lines(run("llama-3.1-8b", "gguf-q4_0", s));
  REQUIRE(lines.size() >= 5);
  CHECK(lines[0] == "load_tensors: offloaded 33/33 layers to GPU");
  CHECK(lines[2] == "load_tensors: CPU_Mapped model buffer size =   281.81 MiB");
  CHECK(lines[3] == "llama_kv_cache: CUDA0 KV buffer size =  1024.00 MiB");
}
