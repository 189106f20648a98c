// Transformers' generate memory device by device (src/core/transformers.*), against the rules of
// its source:
//   cache      transformers cache_utils.py DynamicCache.update (torch.cat per layer); before 4.42
//              generate's tuple caches (the old and new caches overlap at each step)
//   logits     before 4.45 every prompt position, upcast to float32; later the last one only
//   device map accelerate utils/modeling.py get_balanced_memory, infer_auto_device_map
//   bnb        bitsandbytes MatMul4Bit.forward: the whole weight dequantized for more than one row
#include <sstream>

#include "cli/cli.hpp"
#include "core/transformers.hpp"
#include "helpers.hpp"
#include "io/request_json.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

TransformersMemory run(const std::string& model, const std::string& weights, const TransformersSettings& s,
                       const std::vector<int64_t>& free, int64_t host = 0) {
  return transformers_memory(builtin_catalog().formats, preset(model).spec, format(weights), 0, 2, s, free, host);
}

int64_t gib(double x) { return static_cast<int64_t>(x * static_cast<double>(kGiB)); }

TransformersSettings at(const char* version, int64_t batch, int64_t prompt, int64_t new_tokens) {
  TransformersSettings s;
  REQUIRE(parse_transformers_version(version, s));
  s.batch_size = batch;
  s.input_length = prompt;
  s.max_new_tokens = new_tokens;
  return s;
}

}  // namespace

TEST_CASE("Transformers releases: what changed, by version", "[transformers]") {
  const TransformersGeneration old = transformers_generation(4, 35);
  CHECK(old.rotary_cache_per_layer);
  CHECK(old.legacy_cache);
  CHECK(old.all_prompt_logits);
  const TransformersGeneration mid = transformers_generation(4, 42);
  CHECK_FALSE(mid.rotary_cache_per_layer);
  CHECK_FALSE(mid.legacy_cache);
  CHECK(mid.all_prompt_logits);
  const TransformersGeneration now = transformers_generation(4, 57);
  CHECK_FALSE(now.all_prompt_logits);
  CHECK_FALSE(now.model_upcasts_logits);
  CHECK_FALSE(transformers_generation(5, 0).legacy_cache);
  TransformersSettings s;
  CHECK(parse_transformers_version("4.35.2", s));
  CHECK(transformers_version_text(s) == "4.35.2");
  CHECK(parse_transformers_version("4.46", s));
  CHECK(transformers_version_text(s) == "4.46.0");
  CHECK_FALSE(parse_transformers_version("four", s));
  CHECK(parse_transformers_version("4.45.0.dev0", s));  // what follows the patch is not read
  CHECK(transformers_version_text(s) == "4.45.0");
  CHECK_FALSE(parse_transformers_version("4", s));
  CHECK_FALSE(parse_transformers_version("4.x", s));
  CHECK_FALSE(parse_transformers_version("4.45.dev0", s));
  CHECK_FALSE(parse_transformers_version("-4.45", s));
}

TEST_CASE("generate's peak: tuple caches overlap, a DynamicCache grows one layer at a time", "[transformers]") {
  // Llama 2 7B fp16, 1 x 256 prompt tokens + 512 new: the cache holds 767 tokens after the last step.
  const int64_t per_token = 32 * 2 * 4096 * 2;
  const int64_t weights = int64_t(6738415616) * 2;
  TransformersSettings s = at("4.35.2", 1, 256, 512);
  s.attn_implementation = TransformersAttention::flash_attention_2;
  const TransformersMemory old = run("llama-2-7b", "fp16", s, {gib(79)});
  const TransformersDevice& o = old.gpus.front();
  CHECK(o.weights == weights);
  CHECK(o.buffers == 32 * 2 * 4096 * 128 * 2);  // rotary cos/sin per layer in fp16
  CHECK(o.kv == 767 * per_token);
  CHECK(o.decode_peak == weights + o.buffers + 767 * per_token + 766 * per_token + 32000 * 6);
  // The prompt: all 256 positions' logits in fp16 and float32, the normed hidden states.
  CHECK(o.prefill_peak == weights + o.buffers + 256 * per_token + 256 * 4096 * 2 + 256 * 32000 * 6);

  s = at("4.57.0", 1, 256, 512);
  s.attn_implementation = TransformersAttention::flash_attention_2;
  const TransformersMemory now = run("llama-2-7b", "fp16", s, {gib(79)});
  const TransformersDevice& n = now.gpus.front();
  CHECK(n.buffers == 0);
  CHECK(n.decode_peak == weights + 767 * per_token + 766 * (per_token / 32) + 32000 * 6);
  CHECK(n.peak() < o.peak());
}

TEST_CASE("eager attention holds the prompt's scores; sdpa and flash attention do not", "[transformers]") {
  TransformersSettings s = at("4.57.0", 4, 4096, 16);
  s.attn_implementation = TransformersAttention::eager;
  const int64_t eager = run("llama-3.1-8b", "bf16", s, {gib(200)}).gpus[0].prefill_peak;
  s.attn_implementation = TransformersAttention::sdpa;
  const int64_t sdpa = run("llama-3.1-8b", "bf16", s, {gib(200)}).gpus[0].prefill_peak;
  // One layer's temporaries: sdpa's largest is the MLP (act, up and their product, 3 x 14,336 wide);
  // eager's the attention: q, k, v, rotated q and k, the output, k and v repeated to 32 heads,
  // and the scores (bf16), their float32 softmax and its bf16 cast.
  const int64_t rows = 4 * 4096;
  const int64_t mlp = rows * 14336 * 2 * 3;
  const int64_t attention = rows * (3 * 4096 + 3 * 1024) * 2 + rows * 2 * 4096 * 2 + int64_t(4) * 32 * 4096 * 4096 * 8;
  CHECK(eager - sdpa == attention - mlp);
}

TEST_CASE("bitsandbytes 4-bit: the prompt dequantizes the largest weight, one token does not", "[transformers]") {
  TransformersSettings s = at("4.57.0", 1, 512, 16);
  const TransformersMemory prompt = run("llama-3.1-8b", "bnb-nf4", s, {gib(24)});
  s.bnb_4bit_compute_dtype = BnbComputeDtype::bfloat16;
  const TransformersMemory same_dtype = run("llama-3.1-8b", "bnb-nf4", s, {gib(24)});
  // The largest linear layer of Llama 3.1 8B: 14,336 x 4,096 (gate/up/down); float32 compute adds a 4 B copy.
  CHECK(prompt.gpus[0].prefill_peak - same_dtype.gpus[0].prefill_peak == int64_t(14336) * 4096 * 4);
  s.input_length = 1;
  const TransformersMemory one_row = run("llama-3.1-8b", "bnb-nf4", s, {gib(24)});
  CHECK(one_row.gpus[0].prefill_peak < same_dtype.gpus[0].prefill_peak - int64_t(14336) * 4096 * 2);
}

TEST_CASE("device_map auto: balanced over the GPUs, then the CPU; offloaded layers run on GPU 0", "[transformers]") {
  TransformersSettings s = at("4.57.0", 1, 512, 512);
  s.device_map = TransformersDeviceMap::auto_map;
  // Two 80 GB GPUs for a 16 GB model: both get layers (get_balanced_memory), GPU 0 the embedding,
  // the last GPU lm_head.
  const TransformersMemory two = run("llama-3.1-8b", "bf16", s, {gib(79), gib(79)});
  REQUIRE(two.gpus.size() == 2);
  CHECK(two.gpus[0].embeddings);
  CHECK(two.gpus[0].layers() > 8);
  CHECK(two.gpus[1].layers() > 8);
  CHECK(two.gpus[0].layers() + two.gpus[1].layers() == 32);
  CHECK(two.gpus[1].lm_head);
  CHECK(two.host.weights == 0);
  CHECK(two.fits);
  const std::vector<std::string> lines = transformers_log_lines(two);
  CHECK(lines[0].find("'model.embed_tokens': 0") != std::string::npos);
  CHECK(lines[0].find("'lm_head': 1") != std::string::npos);
  // One 8 GB GPU: most layers go to the CPU; their KV cache and the largest of them live on GPU 0.
  const TransformersMemory small = run("llama-3.1-8b", "bf16", s, {gib(8)}, gib(64));
  CHECK(small.host.weights > gib(8));
  CHECK(small.gpus[0].offloaded_layers == 32 - small.gpus[0].layers());
  CHECK(small.gpus[0].executed_offload > 0);
  CHECK(small.gpus[0].kv == int64_t(1023) * 32 * 2 * 8 * 128 * 2);
  CHECK(small.fits);
  // Too little host RAM: accelerate would go to disk; vramfit says so.
  const TransformersMemory disk = run("llama-3.1-8b", "bf16", s, {gib(8)}, gib(4));
  CHECK_FALSE(disk.fits);
  CHECK(disk.refusal.find("disk") != std::string::npos);
  // No device map: one GPU, out of memory when the weights do not fit.
  s.device_map = TransformersDeviceMap::none;
  const TransformersMemory none = run("llama-3.1-8b", "bf16", s, {gib(8)});
  CHECK_FALSE(none.fits);
  CHECK(none.refusal.find("CUDA out of memory") != std::string::npos);
}

TEST_CASE("device_map auto by release: GPU 0 first before 4.22, balanced from 4.22 (PR #18349)", "[transformers]") {
  // The PR's own words: "sequential" is "the current auto: fill each GPU sequentially (and if the
  // user has lots of GPU spaces, some are not used at all)". A 16 GB model on two 79 GiB GPUs:
  TransformersSettings s = at("4.21.3", 1, 512, 512);
  s.device_map = TransformersDeviceMap::auto_map;
  const TransformersMemory before = run("llama-3.1-8b", "bf16", s, {gib(79), gib(79)});
  REQUIRE(before.gpus.size() == 2);
  CHECK(before.gpus[0].layers() == 32);
  CHECK(before.gpus[0].lm_head);
  CHECK(before.gpus[1].layers() == 0);
  CHECK(before.gpus[1].weights == 0);
  CHECK(before.max_memory == std::vector<int64_t>{gib(79), gib(79)});  // get_max_memory(): all of it
  s = at("4.22.0", 1, 512, 512);
  s.device_map = TransformersDeviceMap::auto_map;
  const TransformersMemory from = run("llama-3.1-8b", "bf16", s, {gib(79), gib(79)});
  CHECK(from.gpus[0].layers() > 8);
  CHECK(from.gpus[1].layers() > 8);
  CHECK(from.gpus[1].lm_head);
  CHECK(from.max_memory[0] < gib(79));  // get_balanced_memory
  // 4.22's "sequential" is 4.21's "auto".
  s.device_map = TransformersDeviceMap::sequential;
  const TransformersMemory sequential = run("llama-3.1-8b", "bf16", s, {gib(79), gib(79)});
  CHECK(sequential.gpus[0].layers() == before.gpus[0].layers());
  CHECK(sequential.gpus[0].weights == before.gpus[0].weights);
  CHECK(sequential.max_memory == before.max_memory);
  // Before 4.22 "sequential" and "balanced_low_0" were not names from_pretrained knew.
  for (const char* name : {"sequential", "balanced_low_0"}) {
    json j = {{"model", {{"preset", "llama-3.1-8b"}}}, {"engine", "transformers"},
              {"transformers", {{"device_map", name}, {"version", "4.21.3"}}}, {"gpus", {"a100-80", "a100-80"}}};
    auto r = estimate(*request_from_json(j), builtin_catalog());
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "transformers.device_map");
    CHECK(r.error().message.find("came in 4.22.0") != std::string::npos);
    j["transformers"]["version"] = "4.22.0";
    CHECK(estimate(*request_from_json(j), builtin_catalog()));
  }
}

TEST_CASE("the largest batch and the most new tokens that fit", "[transformers]") {
  TransformersSettings s = at("4.57.0", 1, 1024, 1024);
  const TransformersFit f =
      transformers_fit(builtin_catalog().formats, preset("llama-3.1-8b").spec, format("bf16"), 0, 2, s, {gib(24)}, 0);
  CHECK(f.max_batch_size >= 1);
  s.batch_size = f.max_batch_size;
  CHECK(run("llama-3.1-8b", "bf16", s, {gib(24)}).fits);
  s.batch_size = f.max_batch_size + 1;
  CHECK_FALSE(run("llama-3.1-8b", "bf16", s, {gib(24)}).fits);
  s.batch_size = 1;
  s.max_new_tokens = f.max_new_tokens;
  CHECK(run("llama-3.1-8b", "bf16", s, {gib(24)}).fits);
  s.max_new_tokens = f.max_new_tokens + 1;
  CHECK_FALSE(run("llama-3.1-8b", "bf16", s, {gib(24)}).fits);
}

TEST_CASE("engine transformers in a request: its arguments by name, errors naming the field", "[transformers][request]") {
  json j = {{"model", {{"preset", "llama-3.1-8b"}}},
            {"weights", {{"format", "bf16"}}},
            {"engine", "transformers"},
            {"transformers",
             {{"device_map", "balanced"},
              {"attn_implementation", "eager"},
              {"batch_size", 4},
              {"input_length", 1000},
              {"max_new_tokens", 200},
              {"version", "4.44.2"}}},
            {"gpus", {"rtx-4090", "rtx-3090"}}};
  auto request = request_from_json(j);
  REQUIRE(request);
  CHECK(request->transformers.device_map == TransformersDeviceMap::auto_map);
  CHECK(request->transformers.batch_size == 4);
  const json back = request_to_json(*request);
  CHECK(back["transformers"]["device_map"] == "auto");
  CHECK(back["transformers"]["version"] == "4.44.2");
  CHECK(request_from_json(back));
  auto report = estimate(*request, builtin_catalog());
  REQUIRE(report);
  const json out = report_to_json(*report);
  CHECK(out["engine"]["gpus"].size() == 2);
  CHECK(out["engine"]["gpus"][0]["gpu"]["id"] == "rtx-4090");

  json bad = j;
  bad["transformers"]["attn_implementation"] = "paged";
  auto e = request_from_json(bad);
  REQUIRE_FALSE(e);
  CHECK(e.error().field == "transformers.attn_implementation");
  bad = j;
  bad["transformers"]["device_map"] = "none";
  auto r2 = estimate(*request_from_json(bad), builtin_catalog());
  REQUIRE_FALSE(r2);
  CHECK(r2.error().field == "transformers.device_map");
  bad = j;
  bad["weights"]["format"] = "gguf-q4_k_m";
  auto r3 = estimate(*request_from_json(bad), builtin_catalog());
  REQUIRE_FALSE(r3);
  CHECK(r3.error().field == "weights.format");
}

TEST_CASE("vramfit infer --engine transformers takes from_pretrained's and generate's arguments", "[transformers][cli]") {
  std::ostringstream out, err;
  const int status =
      run_cli({"infer", "--engine", "transformers", "-m", "llama-2-7b", "-w", "fp16", "-g", "a100-80", "--transformers-version",
               "4.35.2", "--attn-implementation", "eager", "--input-length", "256", "--max-new-tokens", "512"},
              out, err);
  INFO(err.str());
  CHECK(status == 0);
  CHECK(out.str().find("torch.cuda.max_memory_allocated(0): 14348061952") != std::string::npos);
  CHECK(out.str().find("FITS on 1 GPU") != std::string::npos);
  std::ostringstream out2, err2;
  CHECK(run_cli({"infer", "-m", "llama-2-7b", "--batch-size", "4"}, out2, err2) == 2);
  CHECK(err2.str().find("transformers") != std::string::npos);
}

TEST_CASE("the Transformers prompt bound: each layer's FLOPs at its GPU's BF16 rate", "[transformers]") {
  const ModelSpec& spec = preset("llama-3.1-8b").spec;
  const std::vector<int64_t> active = active_parameters_per_layer(spec);
  const double flops = prefill_flops_per_token(spec, active, 0, spec.layers, 8192);
  TransformersSettings s = at("4.57.0", 1, 8192, 16);
  const TransformersMemory one = run("llama-3.1-8b", "bf16", s, {gib(79)});
  CHECK(transformers_prefill_bound(spec, one, {989.4}, 8192) == Approx(989.4e12 / flops));
  // Two equal GPUs in turn, or one GPU running the CPU's layers too: the same FLOPs at the same rate.
  s.device_map = TransformersDeviceMap::auto_map;
  const TransformersMemory two = run("llama-3.1-8b", "bf16", s, {gib(79), gib(79)});
  CHECK(transformers_prefill_bound(spec, two, {989.4, 989.4}, 8192) == Approx(989.4e12 / flops));
  const TransformersMemory offload = run("llama-3.1-8b", "bf16", s, {gib(8)}, gib(64));
  REQUIRE(offload.host.layers() > 0);
  CHECK(transformers_prefill_bound(spec, offload, {989.4}, 8192) == Approx(989.4e12 / flops));
  CHECK(transformers_prefill_bound(spec, one, {0.0}, 8192) == 0.0);  // a rate not in the catalog: no bound
}
