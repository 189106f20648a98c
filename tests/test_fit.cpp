// The fit solver: verdicts at the edges, the closed-form searches against brute force,
// and the fewest GPUs.
#include "helpers.hpp"

#include "core/fit_map.hpp"

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

TEST_CASE("exactly at capacity fits; one byte less does not", "[fit]") {
  json request = {{"model", {{"preset", "llama-3.1-8b"}}}, {"gpu", {{"id", "rtx-4090"}}}};
  const int64_t needed = estimate_ok(request).memory.total;
  request["gpu"] = {{"capacity_bytes", needed}};
  Report at = estimate_ok(request);
  CHECK(at.fit.fits);
  CHECK(at.fit.headroom_bytes == 0);
  CHECK(at.fit.max_context_tokens == 8192);  // the requested context is the longest that fits
  CHECK(at.fit.max_concurrent_sequences == 1);
  request["gpu"] = {{"capacity_bytes", needed - 1}};
  Report below = estimate_ok(request);
  CHECK_FALSE(below.fit.fits);
  CHECK(below.fit.headroom_bytes == -1);
  CHECK(below.fit.max_context_tokens < 8192);
  CHECK(below.fit.min_gpus == 2);
}

TEST_CASE("nothing fits: 405 B in BF16 on 12 GB cards, even 64 of them", "[fit]") {
  const Report r = estimate_ok({{"model", {{"preset", "llama-3.1-405b"}}}, {"gpu", {{"id", "rtx-3060"}}}});
  CHECK_FALSE(r.fit.fits);
  CHECK(r.fit.max_context_tokens == 0);
  CHECK(r.fit.max_concurrent_sequences == 0);
  CHECK(r.fit.min_gpus == 0);
}

TEST_CASE("everything fits: a 0.5 B model on a B200 reaches the model's own context limit", "[fit]") {
  const Report r = estimate_ok({{"model", {{"preset", "qwen2.5-0.5b"}}}, {"gpu", {{"id", "b200"}}}});
  CHECK(r.fit.fits);
  CHECK(r.fit.max_context_tokens == 32768);
  CHECK(r.fit.context_limited_by_model);
  CHECK(r.fit.min_gpus == 1);
}

TEST_CASE("longest context and most sequences equal a brute-force scan", "[fit]") {
  const Catalog& c = builtin_catalog();
  struct Case { const char* model; const char* kv; bool flash; int64_t capacity; };
  const Case cases[] = {
      {"llama-3.1-8b", "f16", true, 20 * kGiB},
      {"gemma-2-9b", "q8_0", true, 21 * kGiB},      // sliding window: a kink at 4,096 tokens
      {"gemma-3-1b", "f16", false, 3 * kGiB},       // no flash attention: scores grow with context
      {"deepseek-v3", "f16", true, 1400 * kGiB},
  };
  for (const Case& k : cases) {
    INFO(k.model);
    const ModelPreset& m = preset(k.model);
    const PreparedInference p = prepare_inference(c.formats, m.spec, format("bf16"), 0,
                                                  c.formats.storage_types[static_cast<size_t>(kv_cache_storage_type(c.formats, k.kv))]);
    InferenceSettings s;
    s.flash_attention = k.flash;
    s.context_tokens = 4096;
    const FitResult f = fit_inference(p, s, k.capacity);
    // Brute force over context: the answer fits and one more token does not.
    InferenceSettings probe = s;
    probe.context_tokens = f.max_context_tokens;
    CHECK(inference_memory(p, probe).total <= k.capacity);
    if (!f.context_limited_by_model) {
      probe.context_tokens = f.max_context_tokens + 1;
      CHECK(inference_memory(p, probe).total > k.capacity);
    }
    int64_t scan = 0;
    for (int64_t seqs = 1; seqs <= 4096; ++seqs) {
      probe = s;
      probe.concurrent_sequences = seqs;
      if (inference_memory(p, probe).total > k.capacity) break;
      scan = seqs;
    }
    CHECK(f.max_concurrent_sequences == scan);
  }
}

TEST_CASE("largest_fitting handles flat, steep and kinked curves", "[fit]") {
  auto check = [](auto memory, int64_t capacity, int64_t hi) {
    auto fits = [&](int64_t x) { return memory(x) <= capacity; };
    int64_t expected = 1;
    for (int64_t x = 1; x <= hi; ++x) if (fits(x)) expected = x; else break;
    CHECK(largest_fitting(1, hi, capacity, fits, memory) == expected);
  };
  check([](int64_t x) { return 100 + 3 * x; }, 1000, 10000);
  check([](int64_t x) { return 100 + 3 * std::min<int64_t>(x, 50) + x / 7; }, 400, 10000);
  check([](int64_t x) { return x * x; }, 999999, 5000);
  check([](int64_t) { return int64_t(1); }, 10, 777);  // everything fits
}

TEST_CASE("tensor-parallel degrees must divide the heads", "[fit]") {
  const ModelSpec& m = preset("llama-3.1-70b").spec;  // 64 heads, 8 KV heads
  CHECK(valid_tensor_parallel(m, 1));
  CHECK(valid_tensor_parallel(m, 8));
  CHECK(valid_tensor_parallel(m, 16));
  CHECK_FALSE(valid_tensor_parallel(m, 3));
  CHECK_FALSE(valid_tensor_parallel(m, 6));
  // Qwen2.5-7B has 28 heads and 4 KV heads: 7 GPUs divide the heads but not the KV heads.
  CHECK_FALSE(valid_tensor_parallel(preset("qwen2.5-7b").spec, 7));
}

TEST_CASE("which catalog GPUs fit, in one call", "[fit]") {
  const Report r = estimate_ok({{"model", {{"preset", "llama-3.1-8b"}}}, {"compare_gpus", true}, {"gpu", {{"id", "rtx-4090"}}}});
  REQUIRE(r.gpus.size() == builtin_catalog().gpus.size());
  for (const GpuVerdict& v : r.gpus) {
    INFO(v.gpu->id);
    CHECK(v.fit.fits == (v.fit.required_bytes <= v.gpu->usable_bytes()));
    if (v.fit.fits) CHECK(v.fit.min_gpus == 1);
  }
}

TEST_CASE("fit map cells are the estimator's totals over the GPU's capacity", "[fit]") {
  const Report r = vramfit::test::estimate_ok({{"model", {{"preset", "llama-3.1-8b"}}}, {"gpu", {{"id", "rtx-4090"}}}});
  const FitMapAxis context{256, 131072, 32}, sequences{1, 64, 16};
  const FitMap map = inference_fit_map(r.prepared, r.request.settings, r.fit.capacity_bytes, context, sequences);
  REQUIRE(map.fraction.size() == 32 * 16);
  CHECK(context.value(0) >= 256);
  CHECK(context.value(31) <= 131072);
  for (int row : {0, 7, 15}) {
    for (int col : {0, 13, 31}) {
      InferenceSettings s = r.request.settings;
      s.context_tokens = context.value(col);
      s.concurrent_sequences = sequences.value(row);
      CHECK(map.at(col, row) == static_cast<float>(static_cast<double>(inference_memory(r.prepared, s).total) /
                                                   static_cast<double>(r.fit.capacity_bytes)));
    }
  }
  // Training: the arithmetic-only retotal equals a full recomputation at every cell probed.
  const Report t = vramfit::test::estimate_ok({{"mode", "training"}, {"model", {{"preset", "qwen2.5-7b"}}},
                                              {"training", {{"method", "lora"}, {"recompute", "full"}}}});
  const FitMapAxis seq{128, 32768, 24}, batch{1, 32, 6};
  const FitMap tm = training_fit_map(t.prepared.model, t.request.training, t.training, t.training_fit.capacity_bytes, seq, batch);
  for (int row : {0, 5}) {
    for (int col : {0, 11, 23}) {
      TrainingSettings s = t.request.training;
      s.sequence_length = seq.value(col);
      s.micro_batch = batch.value(row);
      auto full = training_memory(builtin_catalog().formats, t.prepared.model, s);
      REQUIRE(full);
      CHECK(tm.at(col, row) == static_cast<float>(static_cast<double>(full->total) / static_cast<double>(t.training_fit.capacity_bytes)));
    }
  }
}

TEST_CASE("training fit map: every cell is retotal_training_bytes (the workload is linear in the batch)", "[fit]") {
  using vramfit::test::estimate_ok;
  const std::vector<json> trainings = {
      {{"method", "full"}, {"recompute", "none"}, {"flash_attention", false}, {"dropout", true}},
      {{"method", "lora"}, {"recompute", "full"}},
      {{"method", "qlora"}, {"recompute", "selective"}},
      {{"method", "full"}, {"sharding", "zero3"}, {"margin_fraction", 0.2}},
  };
  for (const char* preset : {"llama-3.1-8b", "qwen3-30b-a3b", "deepseek-v3", "gemma-2-9b"}) {
    for (const json& training : trainings) {
      INFO(preset << " " << training.dump());
      const Report t = estimate_ok({{"mode", "training"}, {"model", {{"preset", preset}}}, {"training", training}, {"gpu_count", 8}});
      const FitMapAxis seq{64, 131072, 37}, batch{1, 512, 23};
      const FitMap map = training_fit_map(t.prepared.model, t.request.training, t.training, t.training_fit.capacity_bytes, seq, batch);
      int mismatches = 0;
      for (int row = 0; row < batch.cells; ++row) {
        for (int col = 0; col < seq.cells; ++col) {
          TrainingSettings s = t.request.training;
          s.sequence_length = seq.value(col);
          s.micro_batch = batch.value(row);
          const float expected = static_cast<float>(static_cast<double>(retotal_training_bytes(t.prepared.model, s, t.training)) /
                                                    static_cast<double>(t.training_fit.capacity_bytes));
          if (map.at(col, row) != expected) ++mismatches;
        }
      }
      CHECK(mismatches == 0);
    }
  }
}

