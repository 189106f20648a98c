// What llama.cpp loads beside the model: LoRA adapter files and a multimodal projector:
//   LoRA files llama.cpp's src/llama-adapter.cpp llama_adapter_lora_init_impl (--lora)
//   mmproj     llama.cpp's tools/mtmd/clip.cpp clip_ctx (--mmproj: one backend, the first GPU or the CPU)
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli/cli.hpp"
#include "core/llamacpp.hpp"
#include "io/engine_command.hpp"
#include "io/gguf.hpp"
#include "io/model_file.hpp"
#include "io/request_json.hpp"
#include "report/command_request.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"
#include "helpers.hpp"
#include "support/model_file_writers.hpp"
#include "support/published_gguf.hpp"

using namespace vramfit;
using namespace vramfit::test;

// llama.cpp's --lora adapter files: src/llama-adapter.cpp llama_adapter_lora_init_impl (each A/B
// pair in the buffer of the model tensor it adapts; norms skipped; one "LoRA buffer size" per device).
namespace {

LlamaCppLora llama_8b_lora(int64_t rank) {
  const auto bytes = write_lora_gguf(preset("llama-3.1-8b").spec, "llama", rank);
  auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), "adapter.gguf");
  if (!gguf) FAIL(gguf.error().message);
  auto lora = lora_from_gguf(builtin_catalog().formats, *gguf, "adapter.gguf");
  if (!lora) FAIL(lora.error().message);
  return std::move(lora).value();
}

}  // namespace

TEST_CASE("a LoRA adapter GGUF: its pairs' bytes by the layer they adapt; not an adapter, an error", "[llamacpp][gguf]") {
  const LlamaCppLora lora = llama_8b_lora(16);
  CHECK(lora.rank == 16);
  REQUIRE(lora.pairs.layer.size() == 32);
  // q and o: (4096 x 16 + 16 x 4096) x 2 B; k and v: (4096 x 16 + 16 x 1024) x 2 B. The norm is skipped.
  for (int64_t bytes : lora.pairs.layer) CHECK(bytes == 2 * 262144 + 2 * 163840);
  CHECK(lora.pairs.input == 0);
  CHECK(lora.pairs.output == 0);
  const auto model = llama_3_2_1b_gguf("Q8_0");
  auto gguf = read_gguf(model.data(), static_cast<int64_t>(model.size()), "model.gguf");
  REQUIRE(gguf);
  CHECK_FALSE(is_gguf_adapter(*gguf));
  auto not_lora = lora_from_gguf(builtin_catalog().formats, *gguf, "model.gguf");
  REQUIRE_FALSE(not_lora);
  CHECK(not_lora.error().id == "gguf.not_lora");
}

TEST_CASE("llama.cpp's --lora: each pair on its layer's device, one 'LoRA buffer size' line per device", "[llamacpp]") {
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.lora.push_back(llama_8b_lora(16));
  const FormatTables& tables = builtin_catalog().formats;
  const ModelSpec& spec = preset("llama-3.1-8b").spec;
  const LlamaCppWeights weights = llamacpp_weights(tables, spec, format("gguf-q4_k_m"));
  const LlamaCppMemory all = llamacpp_memory(tables, spec, weights, s, {24 * kGiB});
  CHECK(all.gpus[0].lora == 32LL * 851968);
  CHECK(all.host.lora == 0);
  const std::vector<std::string> lines = llamacpp_log_lines(all);
  CHECK(std::find(lines.begin(), lines.end(), "llama_adapter_lora_init_impl: CUDA0 LoRA buffer size =    26.00 MiB") != lines.end());
  s.n_gpu_layers = 17;  // the output layer and layers 16..31 on the GPU
  const LlamaCppMemory half = llamacpp_memory(tables, spec, weights, s, {24 * kGiB});
  CHECK(half.gpus[0].lora == 16LL * 851968);
  CHECK(half.host.lora == 16LL * 851968);
  LlamaCppSettings without = s;
  without.lora.clear();
  CHECK(half.gpus[0].total() - llamacpp_memory(tables, spec, weights, without, {24 * kGiB}).gpus[0].total() == 16LL * 851968);
}

TEST_CASE("llama.cpp's --lora against a log: one rank-1 F32 pair on Qwen3-8B's blk.0.attn_q", "[llamacpp]") {
  // A public llama-server run (llama.cpp b10107, Qwen3-8B-Q4_K_M.gguf, -c 8192 -ngl 99 --parallel 1,
  // Apple M4 Pro) with a probe adapter of one all-zero rank-1 F32 pair, blk.0.attn_q.weight.lora_a /
  // .lora_b, printed "MTL0_Mapped LoRA buffer size = 0.03 MiB": (4,096 x 1 + 1 x 4,096) x 4 B.
  GgufWriter w;
  w.put<uint32_t>(0x46554747u);
  w.put<uint32_t>(3);
  w.put<uint64_t>(2);
  w.put<uint64_t>(3);
  w.kv_string("general.architecture", "qwen3");
  w.kv_string("general.type", "adapter");
  w.kv_string("adapter.type", "lora");
  uint64_t offset = 0;
  for (const auto& [name, dims] : {std::pair<std::string, std::vector<uint64_t>>{"blk.0.attn_q.weight.lora_a", {4096, 1}},
                                   std::pair<std::string, std::vector<uint64_t>>{"blk.0.attn_q.weight.lora_b", {1, 4096}}}) {
    w.put_string(name);
    w.put<uint32_t>(2);
    for (uint64_t d : dims) w.put<uint64_t>(d);
    w.put<uint32_t>(0);  // F32
    w.put<uint64_t>(offset);
    offset += 4096 * 4;
  }
  auto gguf = read_gguf(w.bytes.data(), static_cast<int64_t>(w.bytes.size()), "probe_adapter.gguf");
  REQUIRE(gguf);
  auto lora = lora_from_gguf(builtin_catalog().formats, *gguf, "probe_adapter.gguf");
  REQUIRE(lora);
  CHECK(lora->rank == 1);
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.lora.push_back(*lora);
  const FormatTables& tables = builtin_catalog().formats;
  const ModelSpec& spec = preset("qwen3-8b").spec;
  const LlamaCppMemory m = llamacpp_memory(tables, spec, llamacpp_weights(tables, spec, format("gguf-q4_k_m")), s, {24 * kGiB});
  CHECK(m.gpus[0].lora == 32768);
  const std::vector<std::string> lines = llamacpp_log_lines(m);
  CHECK(std::find(lines.begin(), lines.end(), "llama_adapter_lora_init_impl: CUDA0 LoRA buffer size =     0.03 MiB") != lines.end());
}

TEST_CASE("--lora in a request and a pasted llama-server line; an adapter for another model is refused", "[llamacpp][cli]") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("vramfit-lora-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path file = folder / "adapter.gguf";
  {
    const auto bytes = write_lora_gguf(preset("llama-3.1-8b").spec, "llama", 16);
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::ostringstream out, err;
  CHECK(run_cli({"infer", "-m", "llama-3.1-8b", "-w", "gguf-q4_k_m", "--cmd", "llama-server -c 8192 --lora " + file.string()}, out, err) == 0);
  INFO(err.str());
  CHECK(out.str().find("llama_adapter_lora_init_impl: CUDA0 LoRA buffer size =    26.00 MiB") != std::string::npos);
  std::ostringstream scaled, err2;
  CHECK(run_cli({"infer", "-m", "llama-3.1-8b", "-w", "gguf-q4_k_m", "--cmd",
                 "llama-server -c 8192 --lora-scaled " + file.string() + " 0.5"},
                scaled, err2) == 0);
  CHECK(scaled.str() == out.str());
  std::ostringstream json_out, err3;
  CHECK(run_cli({"infer", "-m", "llama-3.1-8b", "-w", "gguf-q4_k_m", "--engine", "llama.cpp", "--lora-gguf", file.string(), "--json"},
                json_out, err3) == 0);
  const json report = json::parse(json_out.str());
  CHECK(report.at("engine").at("gpus")[0].at("lora_bytes") == 32LL * 851968);
  // The request carries the adapter (its bytes by layer): JSON both ways.
  auto r = request_from_json(report.at("request"));
  REQUIRE(r);
  REQUIRE(r->llamacpp.lora.size() == 1);
  CHECK(r->llamacpp.lora[0].file == "adapter.gguf");
  CHECK(request_to_json(*request_from_json(request_to_json(*r))) == request_to_json(*r));
  // Llama 3.2 1B has 16 layers: an adapter of 32 is for another model.
  json other = report.at("request");
  other["model"] = {{"preset", "llama-3.2-1b"}};
  CHECK(estimate_error(other).field == "llama.cpp.lora[0]");
  std::ostringstream generic, err4;
  CHECK(run_cli({"infer", "-m", "llama-3.1-8b", "--lora-gguf", file.string()}, generic, err4) == 2);
  CHECK(err4.str().find("a LoRA adapter file is for engine llama.cpp") != std::string::npos);
  fs::remove_all(folder);
}

// llama.cpp's --mmproj files: tools/mtmd/clip.cpp (clip_ctx: the projector's one backend, the
// first GPU or, with --no-mmproj-offload, the CPU).
TEST_CASE("--mmproj: a projector GGUF's weights and one image's graph on the first GPU, or the CPU", "[llamacpp][gguf]") {
  const auto bytes = write_mmproj_gguf();
  auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), "mmproj-model-f16.gguf");
  REQUIRE(gguf);
  CHECK(is_gguf_mmproj(*gguf));
  CHECK_FALSE(is_gguf_adapter(*gguf));
  auto read = mmproj_from_gguf(builtin_catalog().formats, *gguf, "mmproj-model-f16.gguf");
  REQUIRE(read);
  const LlamaCppMmproj& p = *read;
  CHECK(p.projector == "mlp");
  CHECK(p.patches() == 576);  // (336 / 14)^2
  // 23 layers of 4 x 1024^2 + 2 x 1024 x 4096 and the projector's 1024 x 4096 + 4096^2, in F16.
  CHECK(p.weight_bytes == 2 * (23 * (4 * 1024LL * 1024 + 2 * 1024LL * 4096) + 1024LL * 4096 + 4096LL * 4096));
  auto model = llama_3_2_1b_gguf("Q8_0");
  auto not_clip = read_gguf(model.data(), static_cast<int64_t>(model.size()), "model.gguf");
  REQUIRE(not_clip);
  CHECK(mmproj_from_gguf(builtin_catalog().formats, *not_clip, "model.gguf").error().id == "gguf.not_mmproj");

  const FormatTables& tables = builtin_catalog().formats;
  const ModelSpec& spec = preset("llama-2-7b").spec;
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.has_mmproj = true;
  s.mmproj = p;
  const LlamaCppWeights weights = llamacpp_weights(tables, spec, format("gguf-q4_k_m"));
  const LlamaCppMemory on_gpu = llamacpp_memory(tables, spec, weights, s, {24 * kGiB, 24 * kGiB});
  // One encoder layer over 576 patches in f32: 5 x 1024 + 2 x 4096 values each (flash attention on).
  CHECK(on_gpu.mmproj_compute == 576LL * 4 * (5 * 1024 + 2 * 4096));
  CHECK(on_gpu.gpus[0].mmproj == p.weight_bytes + on_gpu.mmproj_compute);
  CHECK(on_gpu.gpus[1].mmproj == 0);
  s.flash_attn = LlamaFlashAttn::off;
  CHECK(llamacpp_memory(tables, spec, weights, s, {24 * kGiB}).mmproj_compute == 576LL * 4 * (5 * 1024 + 2 * 4096) + 576LL * 576 * 16 * 4);
  s.flash_attn = LlamaFlashAttn::automatic;
  s.no_mmproj_offload = true;
  const LlamaCppMemory on_cpu = llamacpp_memory(tables, spec, weights, s, {24 * kGiB});
  CHECK(on_cpu.gpus[0].mmproj == 0);
  CHECK(on_cpu.host.mmproj == p.weight_bytes + on_cpu.mmproj_compute);
}

TEST_CASE("--mmproj of Qwen3-VL's family: clip's 1,472-px warmup image, checked against two logs", "[llamacpp][gguf]") {
  // Qwen3.6-27B's mmproj as llama.cpp logs it (validation/engines/llamacpp.json, point
  // qwen36-27b-udq4kxl-mtp-rtx5090-ctx131072-np4): projector qwen3vl_merger, n_embd 1152, n_ff 4304,
  // 16 heads, image_size 768, patch_size 16, n_merge 2; "warmup with image size = 1472 x 1472",
  // "CUDA0 compute buffer size = 248.10 MiB", "CPU compute buffer size = 24.93 MiB".
  const std::vector<std::pair<std::string, std::vector<int64_t>>> tensors = {{"v.blk.0.attn_qkv.weight", {1152, 3456}},
                                                                              {"v.blk.0.ffn_up.weight", {1152, 4304}}};
  const auto bytes = write_vision_clip_gguf(tensors, {"qwen3vl_merger", 768, 16, 1152, 4304, 16, 2});
  auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), "mmproj-BF16.gguf");
  REQUIRE(gguf);
  auto read = mmproj_from_gguf(builtin_catalog().formats, *gguf, "mmproj-BF16.gguf");
  REQUIRE(read);
  LlamaCppMmproj p = *read;
  CHECK(p.qwen3vl());
  CHECK(p.warmup_side() == 1472);    // 46 tokens x 2 x 16 px (set_warmup_n_tokens(46*46))
  CHECK(p.patches() == 92 * 92);     // 8,464
  const FormatTables& tables = builtin_catalog().formats;
  const ModelSpec& spec = preset("qwen3.6-27b").spec;
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.flash_attn = LlamaFlashAttn::on;
  s.has_mmproj = true;
  s.mmproj = p;
  const LlamaCppWeights weights = llamacpp_weights(tables, spec, format("gguf-q4_k_m"));
  const LlamaCppMemory on_gpu = llamacpp_memory(tables, spec, weights, s, {32 * kGiB});
  // 6.5 x 1,152 f32 values a patch (the residual, fused qkv, roped q and k, k in f16) over the MLP's
  // 2 x 1,152 + 4,304: 241.77 MiB against the log's 248.10, 2.6 % under.
  CHECK(on_gpu.mmproj_compute == 8464LL * 26 * 1152);
  const double gpu_miss = static_cast<double>(on_gpu.mmproj_compute) / (248.10 * static_cast<double>(kMiB)) - 1.0;
  CHECK(gpu_miss < 0.0);
  CHECK(gpu_miss > -0.03);
  // The warmup image's three f32 planes and 4 i32 M-RoPE positions a patch, in host memory: the log's 24.93 MiB.
  CHECK(on_gpu.mmproj_host_input == 1472LL * 1472 * 12 + 8464LL * 16);
  CHECK(std::abs(static_cast<double>(on_gpu.mmproj_host_input) / static_cast<double>(kMiB) - 24.93) < 0.005);
  CHECK(on_gpu.host.mmproj == on_gpu.mmproj_host_input);
  // Qwen3.5-2B's mmproj on a CPU (point qwen35-2b-q80-cpu-ctx262144-np4-ub1024: n_embd 1024, n_ff 4096,
  // the same warmup): one buffer, "CPU compute buffer size = 223.30 MiB"; vramfit 214.91 MiB, 3.8 % under.
  s.mmproj.hidden = 1024;
  s.mmproj.intermediate = 4096;
  const LlamaCppMemory on_cpu = llamacpp_memory(tables, spec, weights, s, {});
  CHECK(on_cpu.mmproj_compute == 8464LL * 26 * 1024);
  CHECK(on_cpu.mmproj_host_input == 0);
  const double cpu_miss = static_cast<double>(on_cpu.mmproj_compute) / (223.30 * static_cast<double>(kMiB)) - 1.0;
  CHECK(cpu_miss < 0.0);
  CHECK(cpu_miss > -0.04);
  // The request keeps n_merge.
  Request request;
  request.engine = Engine::llamacpp;
  request.llamacpp.has_mmproj = true;
  request.llamacpp.mmproj = p;
  auto again = request_from_json(request_to_json(request));
  REQUIRE(again);
  CHECK(again->llamacpp.mmproj.merge == 2);
  CHECK(again->llamacpp.mmproj.patches() == 8464);
}

TEST_CASE("--mmproj with an audio projector: clip.audio.* keys, Whisper's encoder over clip's 3,000-frame warmup", "[llamacpp][gguf]") {
  const auto bytes = write_audio_mmproj_gguf();
  auto gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), "mmproj-Qwen2-Audio-7B-Instruct-f16.gguf");
  REQUIRE(gguf);
  auto read = mmproj_from_gguf(builtin_catalog().formats, *gguf, "mmproj-Qwen2-Audio-7B-Instruct-f16.gguf");
  REQUIRE(read);
  const LlamaCppMmproj& p = *read;
  CHECK(p.audio);
  CHECK(p.projector == "qwen2a");
  CHECK(p.hidden == 1280);
  CHECK(p.patches() == 1500);  // warmup_audio_size 3000 mel frames through the stride-2 conv
  CHECK(p.weight_bytes == 2 * (2 * (4 * 1280LL * 1280 + 2 * 1280LL * 5120) + 1280LL * 4096));
  // Its graph: one encoder layer over 1,500 positions in f32 (flash attention on).
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.has_mmproj = true;
  s.mmproj = p;
  const FormatTables& tables = builtin_catalog().formats;
  const ModelSpec& spec = preset("llama-2-7b").spec;
  const LlamaCppMemory memory = llamacpp_memory(tables, spec, llamacpp_weights(tables, spec, format("gguf-q4_k_m")), s, {24 * kGiB});
  CHECK(memory.mmproj_compute == 1500LL * 4 * (5 * 1280 + 2 * 5120));
  // The request JSON keeps it an audio projector.
  Request request;
  request.engine = Engine::llamacpp;
  request.llamacpp = s;
  auto again = request_from_json(request_to_json(request));
  REQUIRE(again);
  CHECK(again->llamacpp.mmproj.audio);
  CHECK(again->llamacpp.mmproj.patches() == 1500);
  // Without its sizes it is refused naming the audio keys.
  auto broken = *gguf;
  broken.metadata.erase("clip.audio.embedding_length");
  auto refused = mmproj_from_gguf(tables, broken, "broken.gguf");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("clip.audio.embedding_length") != std::string::npos);
}

TEST_CASE("--mmproj in a pasted llama-server line and a request; --no-mmproj-offload", "[llamacpp][cli]") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("vramfit-mmproj-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path file = folder / "mmproj-model-f16.gguf";
  {
    const auto bytes = write_mmproj_gguf();
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::ostringstream out, err;
  CHECK(run_cli({"infer", "-m", "llama-2-7b", "-w", "gguf-q4_k_m", "--json", "--cmd",
                 "llama-server -c 4096 --mmproj " + file.string() + " --no-mmproj-offload"},
                out, err) == 0);
  INFO(err.str());
  const json report = json::parse(out.str());
  CHECK(report.at("engine").at("host").at("mmproj_bytes").get<int64_t>() > 0);
  CHECK(report.at("engine").at("gpus")[0].at("mmproj_bytes") == 0);
  auto r = request_from_json(report.at("request"));
  REQUIRE(r);
  CHECK(r->llamacpp.has_mmproj);
  CHECK(r->llamacpp.no_mmproj_offload);
  CHECK(r->llamacpp.mmproj.file == "mmproj-model-f16.gguf");
  CHECK(request_to_json(*request_from_json(request_to_json(*r))) == request_to_json(*r));
  std::ostringstream text, err2;
  CHECK(run_cli({"infer", "-m", "llama-2-7b", "-w", "gguf-q4_k_m", "--engine", "llama.cpp", "--mmproj-gguf", file.string()}, text,
                err2) == 0);
  CHECK(text.str().find("mmproj (--mmproj): mmproj-model-f16.gguf (mlp)") != std::string::npos);
  CHECK(text.str().find("on CUDA0") != std::string::npos);
  fs::remove_all(folder);
}

// A measured log: slaren, 2024-07-10, ngxson/llama.cpp pull request 9 ("fix lora issues"):
//   ./llama-cli -m models/Meta-Llama-3-8B-Instruct/ggml-model-f16.gguf -ngl 30 -cnv --lora .../ggml-lora-f16.gguf
//   llama_lora_adapter_init_internal:  CUDA_Host LoRA buffer size =    18.08 MiB
//   llama_lora_adapter_init_internal:      CUDA0 LoRA buffer size =   110.00 MiB
//   llama_lora_adapter_init_internal:      CUDA1 LoRA buffer size =    40.00 MiB
//   llama_lora_adapter_init_internal: loaded 450 tensors from lora file
// 450 tensors = 225 pairs: q, k, v, o, gate, up, down of 32 layers and token_embd's. Its rank is
// not in the log; rank 32 makes a layer's pairs 5.00 MiB exactly in F16. That build's -ngl 30 put
// 30 repeating layers on the GPUs and the output layer on the CPU (llama.cpp counted the output
// layer apart then); today's -ngl 31 does the same for the repeating layers. The split between
// the two GPUs follows their free memory, which the log does not give: the GPUs' sum is compared.
TEST_CASE("validation: a LoRA's buffers on the host and the GPUs, as a 2024 llama.cpp log prints them", "[llamacpp]") {
  const int64_t rank = 32, h = 4096, kv = 1024, ffn = 14336, vocab = 128256;
  LlamaCppLora lora;
  lora.file = "ggml-lora-f16.gguf";
  lora.rank = rank;
  const int64_t per_layer = 2 * rank * ((h + h) * 2 + (h + kv) * 2 + 3 * (h + ffn));  // q, o; k, v; gate, up, down
  lora.pairs.layer.assign(32, per_layer);
  lora.pairs.layer_experts.assign(32, 0);
  lora.pairs.layer_vectors.assign(32, 0);
  lora.pairs.input = 2 * rank * (vocab + h);  // token_embd's pair: on the CPU with token_embd
  LlamaCppSettings s;
  s.ctx_size = 8192;
  s.n_gpu_layers = 31;
  s.lora.push_back(lora);
  const FormatTables& tables = builtin_catalog().formats;
  const ModelSpec& spec = preset("llama-3.1-8b").spec;
  const LlamaCppMemory m = llamacpp_memory(tables, spec, llamacpp_weights(tables, spec, format("gguf-f16")), s, {24 * kGiB, 24 * kGiB});
  auto mib = [](int64_t bytes) { return std::round(static_cast<double>(bytes) / static_cast<double>(kMiB) * 100.0) / 100.0; };
  CHECK(mib(m.host.lora) == 18.08);
  CHECK(mib(m.gpus[0].lora + m.gpus[1].lora) == 150.00);
}
