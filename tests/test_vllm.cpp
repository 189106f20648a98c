// vLLM's memory rank by rank (src/core/vllm.*), against vLLM's own rules:
//   budget        vllm/v1/worker/gpu_worker.py Worker.init_device (total x gpu_memory_utilization)
//   KV memory     Worker.determine_available_memory (budget - weights - torch peak - non-torch)
//   KV blocks     vllm/v1/core/kv_cache_utils.py get_num_blocks (available // page // layers)
//   concurrency   kv_cache_utils.get_max_concurrency_for_kv_cache_config (blocks / blocks per request)
//   shards        vllm/model_executor/layers/linear.py, vocab_parallel_embedding.py (vocab padded to 64)
//   defaults      vllm/engine/arg_utils.py (8192 tokens / 1024 sequences on GPUs of 70 GiB+ but the A100)
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"
#include "core/vllm.hpp"
#include "io/engine_command.hpp"
#include "io/request_json.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"
#include "helpers.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

VllmMemory run(const std::string& model, const std::string& weights, const VllmSettings& settings,
               const std::vector<int64_t>& totals, const std::string& gpu_name = "H100 80 GB") {
  const FormatTables& tables = builtin_catalog().formats;
  std::vector<std::string> names(totals.size(), gpu_name);
  return vllm_memory(tables, preset(model).spec, format(weights), 0, 2, settings, totals, names, 1.0, 512 * kMiB);
}

int64_t gib(double x) { return static_cast<int64_t>(x * static_cast<double>(kGiB)); }

}  // namespace

TEST_CASE("vLLM's weights per rank: the tensors' bytes, sharded, and the rotary cache", "[vllm]") {
  VllmSettings s;
  s.max_model_len = 8192;
  // Llama 3.1 8B, one GPU: 8,030,261,248 parameters x 2 B, and cos/sin for 131,072 positions x 128 x 2 B.
  const VllmMemory one = run("llama-3.1-8b", "bf16", s, {gib(79.19)});
  CHECK(one.ranks[0].weights == int64_t(8030261248) * 2 + 131072 * 128 * 2);
  // Two ranks: every matrix and the vocabulary split in two; the norms and the rotary cache on both.
  s.tensor_parallel_size = 2;
  const VllmMemory two = run("llama-3.1-8b", "bf16", s, {gib(79.19), gib(79.19)});
  REQUIRE(two.ranks.size() == 2);
  const int64_t norms = (2 * 32 + 1) * 4096 * 2;
  CHECK(two.ranks[0].weights == (int64_t(8030261248) * 2 - norms) / 2 + norms + 131072 * 128 * 2);
  CHECK(two.ranks[1].weights == two.ranks[0].weights);
  // Pipeline stages: the first holds the embedding, the last the final norm and lm_head.
  s.tensor_parallel_size = 1;
  s.pipeline_parallel_size = 4;
  const VllmMemory pp = run("llama-3.1-8b", "bf16", s, std::vector<int64_t>(4, gib(79.19)));
  CHECK(pp.ranks[0].layers == 8);
  CHECK(pp.ranks[1].weights < pp.ranks[0].weights);
  CHECK(pp.ranks[3].weights == pp.ranks[0].weights + 4096 * 2);  // lm_head = embed_tokens; + the final norm
  CHECK(pp.ranks[0].sampler_peak == 0);
  CHECK(pp.ranks[3].sampler_peak > 0);
}

TEST_CASE("fewer KV heads than ranks: each rank keeps one head", "[vllm]") {
  VllmSettings s;
  s.max_model_len = 4096;
  s.tensor_parallel_size = 4;  // Qwen2.5 1.5B has 2 KV heads
  const VllmMemory m = run("qwen2.5-1.5b", "bf16", s, std::vector<int64_t>(4, gib(79.19)));
  CHECK(m.ranks[0].kv_page_bytes == 2 * 16 * 1 * 128 * 2);
}

TEST_CASE("the KV pool: what is left of the budget, in whole blocks of every layer", "[vllm]") {
  VllmSettings s;
  s.max_model_len = 8192;
  s.gpu_memory_utilization = 0.95;
  const VllmMemory m = run("llama-3.1-8b", "bf16", s, {gib(79.19)});
  const VllmRank& k = m.ranks[0];
  CHECK(k.requested == static_cast<int64_t>(static_cast<double>(gib(79.19)) * 0.95));
  CHECK(k.kv_available == k.requested - k.weights - k.activation_peak - k.non_torch);
  CHECK(k.kv_page_bytes == 2 * 16 * 8 * 128 * 2);
  CHECK(m.num_gpu_blocks == k.kv_available / k.kv_page_bytes / 32);
  CHECK(m.kv_tokens == m.num_gpu_blocks * 16);
  CHECK(m.max_concurrency == Approx(static_cast<double>(m.num_gpu_blocks) / 512.0));
  // fp8 KV: twice the tokens in the same memory.
  s.kv_cache_dtype = VllmKvCacheDtype::fp8;
  const VllmMemory fp8 = run("llama-3.1-8b", "bf16", s, {gib(79.19)});
  CHECK(fp8.ranks[0].kv_page_bytes == k.kv_page_bytes / 2);
  CHECK(fp8.kv_tokens >= 2 * m.kv_tokens - 16);
}

TEST_CASE("vLLM's defaults for the batch follow the GPU and the release", "[vllm]") {
  VllmSettings release;
  REQUIRE(parse_vllm_version("0.19.0", release));
  const VllmGeneration now = vllm_generation(release.version_major, release.version_minor);
  REQUIRE(parse_vllm_version("0.6.6.post1", release));
  CHECK(vllm_version_text(release) == "0.6.6");
  const VllmGeneration old = vllm_generation(release.version_major, release.version_minor);
  CHECK_FALSE(now.sorting_sampler);
  CHECK(old.sorting_sampler);
  CHECK(old.v0);
  CHECK(vllm_default_max_num_seqs(now, gib(79.19), "H100 80 GB") == 1024);
  CHECK(vllm_default_max_num_batched_tokens(now, gib(79.19), "H100 80 GB", 8192) == 8192);
  CHECK(vllm_default_max_num_seqs(now, gib(79.15), "A100 80 GB") == 256);
  CHECK(vllm_default_max_num_batched_tokens(now, gib(23.5), "GeForce RTX 4090", 8192) == 2048);
  CHECK(vllm_default_max_num_batched_tokens(old, gib(23.5), "GeForce RTX 4090", 20000) == 20000);
  CHECK(vllm_default_max_num_batched_tokens(old, gib(23.5), "GeForce RTX 4090", 131072) == 2048);
  CHECK_FALSE(parse_vllm_version("latest", release));
  CHECK_FALSE(parse_vllm_version("0.x", release));
  CHECK_FALSE(parse_vllm_version("7", release));
  CHECK(parse_vllm_version("0.10.1rc1", release));
  CHECK(release.version_minor == 10);
}

TEST_CASE("the profiled sampler: the vocabulary sorted before 0.11, not after", "[vllm]") {
  VllmSettings s;
  s.max_model_len = 8192;
  s.max_num_seqs = 256;
  s.max_num_batched_tokens = 2048;
  s.version_minor = 8;
  const VllmMemory sorting = run("qwen3-8b", "bf16", s, {gib(23.5)});
  s.version_minor = 19;
  const VllmMemory lean = run("qwen3-8b", "bf16", s, {gib(23.5)});
  const int64_t rows = 256, vocab = 151936, hidden_states = (2048 + 256) * 4096 * 2;
  CHECK(sorting.ranks[0].sampler_peak == rows * vocab * 2 + rows * vocab * 36 + hidden_states);
  CHECK(lean.ranks[0].sampler_peak == rows * vocab * 2 + rows * vocab * 12 + hidden_states);
  CHECK(lean.ranks[0].activation_peak == lean.ranks[0].sampler_peak);
}

TEST_CASE("vLLM refuses to start in its own words, and says what would fit", "[vllm]") {
  VllmSettings s;
  s.max_model_len = 8192;
  // 70B in bf16 on one 24 GB card: no memory for the cache blocks.
  const VllmMemory big = run("llama-3.1-70b", "bf16", s, {gib(23.5)}, "GeForce RTX 4090");
  CHECK_FALSE(big.fits);
  CHECK(big.refusal.find("No available memory for the cache blocks") != std::string::npos);
  // 8B with its whole 131,072-token context on a 24 GB card: the pool is too small for one request.
  s.max_model_len = 131072;
  const VllmMemory longest = run("llama-3.1-8b", "bf16", s, {gib(23.5)}, "GeForce RTX 4090");
  CHECK_FALSE(longest.fits);
  CHECK(longest.refusal.find("To serve at least one request with the model's max seq len (131072)") != std::string::npos);
  CHECK(longest.longest_model_len == longest.kv_tokens);
  CHECK(longest.longest_model_len < 131072);
  // At the smallest utilization vramfit reports, one such request fits.
  s.max_model_len = 16384;
  const VllmMemory ok = run("llama-3.1-8b", "bf16", s, {gib(23.5)}, "GeForce RTX 4090");
  REQUIRE(ok.fits);
  s.gpu_memory_utilization = ok.min_utilization + 0.001;
  const VllmMemory least = run("llama-3.1-8b", "bf16", s, {gib(23.5)}, "GeForce RTX 4090");
  CHECK(least.num_gpu_blocks >= 1024);
  s.gpu_memory_utilization = ok.min_utilization - 0.002;
  CHECK_FALSE(run("llama-3.1-8b", "bf16", s, {gib(23.5)}, "GeForce RTX 4090").fits);
}

TEST_CASE("engine vllm in a request: JSON both ways, errors naming the field", "[vllm]") {
  const json request = {{"model", {{"preset", "qwen2.5-7b"}}},
                        {"weights", {{"format", "bf16"}}},
                        {"engine", "vllm"},
                        {"vllm", {{"max-model-len", 32768}, {"tensor-parallel-size", 2}, {"gpu-memory-utilization", 0.85},
                                  {"kv-cache-dtype", "fp8"}, {"version", "0.19.0"}}},
                        {"gpus", {"rtx-4090", "rtx-3090"}}};
  auto r = request_from_json(request);
  REQUIRE(r);
  CHECK(r->engine == Engine::vllm);
  CHECK(r->vllm.tensor_parallel_size == 2);
  auto again = request_from_json(request_to_json(*r));
  REQUIRE(again);
  CHECK(request_to_json(*again) == request_to_json(*r));
  auto report = estimate(*r, builtin_catalog());
  REQUIRE(report);
  CHECK(report->engine->vllm.ranks.size() == 2);
  // The 3090's CUDA total is in the catalog; the 4090's is not, and the report says so.
  CHECK(report->engine->vllm.ranks[1].total == static_cast<int64_t>(23.58 * static_cast<double>(kGiB) + 0.5));
  CHECK(report->engine->vllm.ranks[0].total == 24564 * kMiB);
  const json out = report_to_json(*report);
  CHECK(out.at("engine").at("name") == "vllm");
  CHECK(out.at("engine").at("ranks").size() == 2);
  CHECK(out.at("engine").at("log_lines").size() == 10);
  auto field_of = [](json j) {
    auto bad = request_from_json(j);
    return bad ? std::string("(accepted)") : bad.error().field;
  };
  json bad = request;
  bad["vllm"]["kv-cache-dtype"] = "q4_0";
  CHECK(field_of(bad) == "vllm.kv-cache-dtype");
  bad = request;
  bad["vllm"]["version"] = "latest";
  CHECK(field_of(bad) == "vllm.version");
  bad = request;
  bad["vllm"]["gpu-memory-utilization"] = 1.5;
  CHECK(field_of(bad) == "vllm.gpu-memory-utilization");
  bad = request;
  bad["engine"] = "generic";
  CHECK(field_of(bad) == "vllm");
  // Attention heads must divide among the ranks; the GPU list must have one GPU per rank.
  json three = request;
  three["vllm"]["tensor-parallel-size"] = 3;
  three["gpus"] = {"h100-80", "h100-80", "h100-80"};
  auto heads = estimate(*request_from_json(three), builtin_catalog());
  REQUIRE_FALSE(heads);
  CHECK(heads.error().field == "vllm.tensor-parallel-size");
  json count = request;
  count["gpus"] = {"h100-80"};
  auto gpus = estimate(*request_from_json(count), builtin_catalog());
  REQUIRE_FALSE(gpus);
  CHECK(gpus.error().field == "gpus");
}

TEST_CASE("a pasted vllm serve command becomes the request, flag by flag", "[vllm]") {
  auto c = read_engine_command(
      "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 32K --gpu-memory-utilization=0.85 "
      "--max-num-seqs 64 --kv-cache-dtype fp8 --enforce-eager --dtype half --port 8000 --trust-remote-code");
  REQUIRE(c);
  CHECK(c->model == "Qwen/Qwen2.5-7B-Instruct");
  CHECK(c->weights_format == "fp16");
  const json& v = c->request.at("vllm");
  CHECK(c->request.at("engine") == "vllm");
  CHECK(v.at("tensor-parallel-size") == 2);
  CHECK(v.at("max-model-len") == 32768);  // vLLM: 32K = 32 x 1024, 32k = 32,000
  CHECK(v.at("gpu-memory-utilization") == 0.85);
  CHECK(v.at("max-num-seqs") == 64);
  CHECK(v.at("enforce-eager") == true);
  CHECK(c->ignored == std::vector<std::string>{"--port 8000", "--trust-remote-code"});
  auto small_k = read_engine_command("vllm serve m -tp 4 --max-model-len 32k -q awq");
  REQUIRE(small_k);
  CHECK(small_k->request["vllm"]["max-model-len"] == 32000);
  CHECK(small_k->request["vllm"]["tensor-parallel-size"] == 4);
  CHECK(small_k->weights_format == "awq-int4");
  auto one_group = read_engine_command("vllm serve m --disable-hybrid-kv-cache-manager");
  REQUIRE(one_group);
  CHECK(one_group->request["vllm"]["disable-hybrid-kv-cache-manager"] == true);
  json with_model = one_group->request;
  with_model["model"] = {{"preset", "gpt-oss-20b"}};
  auto read_back = request_from_json(with_model);
  REQUIRE(read_back);
  CHECK(read_back->vllm.disable_hybrid_kv_cache_manager);
  CHECK(request_to_json(*read_back).at("vllm").at("disable-hybrid-kv-cache-manager") == true);
  auto python = read_engine_command("python3 -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.1-8B -pp 2");
  REQUIRE(python);
  CHECK(python->model == "meta-llama/Llama-3.1-8B");
  CHECK(python->request["vllm"]["pipeline-parallel-size"] == 2);
  auto unknown = read_engine_command("vllm serve m --frobnicate 3");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().field == "command.--frobnicate");
  CHECK(unknown.error().message.find("not a vLLM flag") != std::string::npos);
  auto quant = read_engine_command("vllm serve m --quantization marlin24");
  REQUIRE_FALSE(quant);
  // Flags alone, the engine named by the caller (vramfit infer --engine vllm ...).
  auto flags = read_engine_words({"-tp", "2", "--max-model-len", "8192"}, "vllm");
  REQUIRE(flags);
  CHECK(flags->request["vllm"]["tensor-parallel-size"] == 2);
}

TEST_CASE("vramfit infer --engine vllm takes vLLM's own flags and prints its lines", "[vllm][cli]") {
  std::ostringstream out, err;
  const int status = run_cli({"infer", "--engine", "vllm", "-m", "llama-3.1-8b", "-g", "h100-80", "-tp", "2",
                              "--max-model-len", "8192", "--gpu-memory-utilization", "0.95"},
                             out, err);
  INFO(err.str());
  CHECK(status == 0);
  CHECK(out.str().find("(rank 1) Model loading took 7.5") != std::string::npos);
  CHECK(out.str().find("Maximum concurrency for 8,192 tokens per request:") != std::string::npos);
  CHECK(out.str().find("STARTS on 2 GPUs") != std::string::npos);
  // The same as a pasted command: the Hugging Face id is read as the preset of that repository.
  std::ostringstream out2, err2;
  const int pasted = run_cli({"infer", "-g", "h100-80", "--cmd",
                              "vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-model-len 8192 "
                              "--gpu-memory-utilization 0.95"},
                             out2, err2);
  INFO(err2.str());
  CHECK(pasted == 0);
  CHECK(out2.str() == out.str());
  CHECK(err2.str().find("read as the preset llama-3.1-8b") != std::string::npos);
  std::ostringstream out3, err3;
  CHECK(run_cli({"infer", "--cmd", "vllm serve someone/unknown-model"}, out3, err3) == 2);
  // An id that is no preset is read from the Hub; the suite runs offline (tests/main.cpp), so
  // the answer is the offline error naming the id (tests/hub/ reads it from a local Hub).
  CHECK(err3.str().find("hf: someone/unknown-model: offline") != std::string::npos);
}

TEST_CASE("the vLLM decode bound: ranks read in parallel, stages in turn", "[vllm]") {
  VllmSettings s;
  s.max_model_len = 8192;
  const VllmMemory one = run("llama-3.1-8b", "bf16", s, {gib(79.19)});
  const VllmDecodeBound b1 = vllm_decode_bound(preset("llama-3.1-8b").spec, one, s, {3350.0});
  CHECK(b1.tokens_per_second_empty == Approx(3350e9 / static_cast<double>(one.ranks[0].weights)));
  CHECK(b1.tokens_per_second_full < b1.tokens_per_second_empty);
  s.tensor_parallel_size = 2;
  const VllmMemory two = run("llama-3.1-8b", "bf16", s, {gib(79.19), gib(79.19)});
  CHECK(vllm_decode_bound(preset("llama-3.1-8b").spec, two, s, {3350.0, 3350.0}).tokens_per_second_empty >
        1.9 * b1.tokens_per_second_empty);
  s.tensor_parallel_size = 1;
  s.pipeline_parallel_size = 2;
  const VllmMemory stages = run("llama-3.1-8b", "bf16", s, {gib(79.19), gib(79.19)});
  CHECK(vllm_decode_bound(preset("llama-3.1-8b").spec, stages, s, {3350.0, 3350.0}).tokens_per_second_empty ==
        Approx(3350e9 / static_cast<double>(stages.ranks[0].weights + stages.ranks[1].weights)));
}

TEST_CASE("the vLLM prompt bound: FLOPs per token over dense BF16 throughput", "[vllm]") {
  const ModelSpec& llama = preset("llama-3.1-8b").spec;
  // One layer: q, k, v, o, gate, up, down and two norms.
  const int64_t layer = 4096 * 4096 + 2 * 4096 * 1024 + 4096 * 4096 + 3 * 4096 * 14336 + 2 * 4096;
  const std::vector<int64_t> active = active_parameters_per_layer(llama);
  REQUIRE(active.size() == 32);
  CHECK(active[0] == layer);
  // 2 FLOPs per weight and 4 x q width per earlier position, half of the 8,192-token prompt on average.
  const double per_token = 32.0 * (2.0 * layer + 4.0 * 4096 * 4096);
  VllmSettings s;
  s.max_model_len = 8192;
  const VllmMemory one = run("llama-3.1-8b", "bf16", s, {gib(79.19)});
  CHECK(vllm_prefill_bound(llama, one, s, {989.0}) == Approx(989e12 / per_token));
  s.tensor_parallel_size = 2;
  const VllmMemory two = run("llama-3.1-8b", "bf16", s, {gib(79.19), gib(79.19)});
  CHECK(vllm_prefill_bound(llama, two, s, {989.0, 312.0}) == Approx(2 * 312e12 / per_token));  // the slower rank sets the pace
  CHECK(vllm_prefill_bound(llama, two, s, {989.0, 0.0}) == 0);  // a rank's throughput unknown: no bound
  // MoE: a token multiplies experts_per_token of each layer's experts.
  const ModelSpec& moe = preset("qwen3-30b-a3b").spec;
  int64_t sum = 0;
  for (int64_t x : active_parameters_per_layer(moe)) sum += x;
  CHECK(sum + 151936 * 2048 * 2 + 2048 == count_active_parameters(moe));  // + embeddings, lm_head, final norm
  // The rate follows the weights: FP8 weights on FP8 tensor cores (H100: 1,979 dense), INT8 w8a8
  // on INT8 ones; MXFP4 and GGUF weights have no rate in the catalog: no bound.
  auto r = request_from_json({{"model", {{"preset", "llama-3.1-8b"}}}, {"weights", {{"format", "fp8"}}}, {"engine", "vllm"},
                              {"vllm", {{"max-model-len", 8192}}}, {"gpu", {{"id", "h100-80"}}}});
  REQUIRE(r);
  auto with = [&](const char* weights) {
    Request q = *r;
    q.weight_format = weights;
    auto report = estimate(q, builtin_catalog());
    REQUIRE(report);
    return report->engine->vllm_prefill_tokens_per_second;
  };
  CHECK(with("fp8") == Approx(1979e12 / per_token));
  CHECK(with("int8") == Approx(1979e12 / per_token));
  CHECK(with("bf16") == Approx(989e12 / per_token));
  CHECK(with("gptq-int4") == Approx(989e12 / per_token));
  CHECK(with("gguf-q4_k_m") == 0);
}

TEST_CASE("hybrid models: sliding-window and full layers in KV groups of equal size, padded", "[vllm]") {
  // Gemma 3 1B: 26 layers, every sixth full (4 full, 22 sliding): groups of 4 layers, one full
  // group and six sliding ones (the last padded) share each block index: 7 groups.
  VllmSettings s;
  s.max_model_len = 32768;
  const VllmMemory g3 = run("gemma-3-1b", "bf16", s, {gib(79.19)});
  const VllmRank& k = g3.ranks[0];
  CHECK(k.layers_per_group == 4);
  CHECK(k.full_groups == 1);
  CHECK(k.sliding_groups == 6);
  CHECK(k.blocks == k.kv_available / k.kv_page_bytes / 4);
  CHECK(g3.kv_tokens == g3.num_gpu_blocks / 7 * 16);
  // A request's blocks: 32,768 / 16 for the full group, min(512 - 1 + 8,192, 32,768) / 16 + 1 per sliding group.
  CHECK(g3.max_concurrency == Approx(static_cast<double>(g3.num_gpu_blocks) / (2048 + 6 * (ceil_div(511 + 8192, 16) + 1))));
  // gpt-oss-20b: 12 sliding (window 128) and 12 full layers: two groups of 12. vLLM 0.19.0 on two
  // H100s printed "Maximum concurrency for 8,192 tokens per request: 316.07x" from 323,972 blocks:
  // 323,972 / (512 + 513) = 316.07.
  s.max_model_len = 8192;
  s.tensor_parallel_size = 2;
  const VllmMemory oss = run("gpt-oss-20b", "mxfp4-moe", s, {gib(79.19), gib(79.19)});
  CHECK(oss.ranks[0].layers_per_group == 12);
  CHECK(oss.ranks[0].full_groups + oss.ranks[0].sliding_groups == 2);
  CHECK(oss.max_concurrency == Approx(static_cast<double>(oss.num_gpu_blocks) / 1025.0));
  CHECK(oss.kv_tokens == oss.num_gpu_blocks / 2 * 16);
  // Llama 4 Scout: 12 full layers and 36 chunked ones (ChunkedLocalAttentionSpec) in groups of
  // 12 — "(FullAttention x 12) (ChunkedLocalAttention x 12) x 3", as vLLM pull request 21761
  // lists them; a request's chunked groups hold min(8,192 + 8,192 batched, tokens) each, no extra block.
  s.max_model_len = 65536;
  s.tensor_parallel_size = 4;
  const VllmMemory scout = run("llama-4-scout", "bf16", s, {gib(79.19), gib(79.19), gib(79.19), gib(79.19)});
  CHECK(scout.ranks[0].layers_per_group == 12);
  CHECK(scout.ranks[0].full_groups == 1);
  CHECK(scout.ranks[0].sliding_groups == 3);
  CHECK(scout.max_concurrency == Approx(static_cast<double>(scout.num_gpu_blocks) / (65536 / 16 + 3 * (16384 / 16))));
  // --disable-hybrid-kv-cache-manager: every layer in one group again, each holding every token.
  s.disable_hybrid_kv_cache_manager = true;
  const VllmMemory scout_one_group = run("llama-4-scout", "bf16", s, {gib(79.19), gib(79.19), gib(79.19), gib(79.19)});
  CHECK(scout_one_group.ranks[0].layers_per_group == 48);
  CHECK(scout_one_group.max_concurrency == Approx(static_cast<double>(scout_one_group.num_gpu_blocks) / (65536 / 16)));
  s.disable_hybrid_kv_cache_manager = false;
  s.max_model_len = 8192;
  s.tensor_parallel_size = 2;
  // Before the hybrid allocator (V0), every layer is one group.
  s.version_minor = 6;
  const VllmMemory v0 = run("gpt-oss-20b", "mxfp4-moe", s, {gib(79.19), gib(79.19)});
  CHECK(v0.ranks[0].layers_per_group == 24);
  CHECK(v0.max_concurrency == Approx(static_cast<double>(v0.num_gpu_blocks) / 512.0));
}

TEST_CASE("--enable-lora: max_loras slots of max_lora_rank in every linear layer, counted with the weights", "[vllm][lora]") {
  VllmSettings s;
  s.max_model_len = 8192;
  const VllmMemory base = run("llama-3.1-8b", "bf16", s, {gib(79.19)});
  s.enable_lora = true;
  s.max_loras = 4;
  s.max_lora_rank = 64;
  const VllmMemory lora = run("llama-3.1-8b", "bf16", s, {gib(79.19)});
  // Per layer, lora_a (rank x input) + lora_b (output x rank) for q, k, v, o, gate, up, down:
  // 64 x ((4096 + 4096) + 2 x (4096 + 1024) + (4096 + 4096) + 2 x (4096 + 14336) + (14336 + 4096)).
  const int64_t per_layer = 64 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096) + 2 * (4096 + 14336) + (14336 + 4096));
  CHECK(lora.ranks[0].lora == int64_t(32) * per_layer * 4 * 2);  // 32 layers x 4 slots x 2 B (bf16)
  CHECK(lora.ranks[0].lora == 1342177280);
  CHECK(lora.ranks[0].weights == base.ranks[0].weights + lora.ranks[0].lora);
  CHECK(lora.ranks[0].kv_available == base.ranks[0].kv_available - lora.ranks[0].lora);
  // Two ranks: column-parallel layers keep lora_a whole and split lora_b's output; row-parallel
  // ones split lora_a's input and keep lora_b whole.
  s.tensor_parallel_size = 2;
  const VllmMemory two = run("llama-3.1-8b", "bf16", s, {gib(79.19), gib(79.19)});
  const int64_t per_layer_tp2 =
      64 * ((4096 + 2048) + 2 * (4096 + 512) + (2048 + 4096) + 2 * (4096 + 7168) + (7168 + 4096));
  CHECK(two.ranks[0].lora == int64_t(32) * per_layer_tp2 * 4 * 2);
  // --fully-sharded-loras: the column-parallel layers' lora_a rank and the row-parallel layers'
  // lora_b output are split as well.
  s.fully_sharded_loras = true;
  const VllmMemory sharded = run("llama-3.1-8b", "bf16", s, {gib(79.19), gib(79.19)});
  const int64_t per_layer_sharded =
      32 * 4096 + 64 * 2048 + 2 * (32 * 4096 + 64 * 512) + (64 * 2048 + 2048 * 64) + 2 * (32 * 4096 + 64 * 7168) + (64 * 7168 + 2048 * 64);
  CHECK(sharded.ranks[0].lora == int64_t(32) * per_layer_sharded * 4 * 2);
  // A MoE model: each expert of each layer has its slots (FusedMoEWithLoRA), the router too.
  VllmSettings moe;
  moe.max_model_len = 4096;
  moe.enable_lora = true;
  const VllmMemory mixtral = run("mixtral-8x7b", "bf16", moe, {gib(139.8)});
  const int64_t attention = 16 * ((4096 + 4096) + 2 * (4096 + 1024) + (4096 + 4096));
  const int64_t router = 16 * (4096 + 8);
  const int64_t experts = 8 * 16 * (2 * (4096 + 14336) + (14336 + 4096));
  CHECK(mixtral.ranks[0].lora == int64_t(32) * (attention + router + experts) * 2);
  // The pasted command and the request JSON carry vLLM's flags.
  auto c = read_engine_command("vllm serve meta-llama/Llama-3.1-8B --enable-lora --max-loras 4 --max-lora-rank 64 --max-cpu-loras 8");
  REQUIRE(c);
  CHECK(c->request["vllm"]["enable-lora"] == true);
  CHECK(c->request["vllm"]["max-loras"] == 4);
  CHECK(c->request["vllm"]["max-lora-rank"] == 64);
  auto bad = read_engine_command("vllm serve m --enable-lora --lora-dtype int4");
  REQUIRE(bad);
  json request = bad->request;
  request["model"] = {{"preset", "llama-3.1-8b"}};
  request["gpu"] = {{"id", "h100-80"}};
  CHECK(estimate_error(request).field == "vllm.lora-dtype");
}

TEST_CASE("vLLM's default --max-model-len follows rope_scaling; a longer one is refused in vLLM's words", "[vllm][context]") {
  std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/configs/qwen2.5-7b-instruct-yarn.json");
  const json yarn = json::parse(in);
  json request = {{"model", {{"config", yarn}}}, {"gpu", {{"id", "h100-80"}}}, {"engine", "vllm"}};
  // _get_and_verify_max_len: YaRN x 4 over 32,768 positions.
  CHECK(estimate_ok(request).engine->vllm.max_model_len == 131072);
  request["vllm"] = {{"max-model-len", 262144}};
  const Error longer = estimate_error(request);
  CHECK(longer.field == "vllm.max-model-len");
  CHECK(longer.message.find("greater than the derived max_model_len (131072)") != std::string::npos);
  // Without the rope_scaling block the model's own 32,768 is the limit.
  json plain = yarn;
  plain.erase("rope_scaling");
  request["model"] = {{"config", plain}};
  request["vllm"] = {{"max-model-len", 65536}};
  CHECK(estimate_error(request).field == "vllm.max-model-len");
}
