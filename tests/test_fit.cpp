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
  // Not the verdict's own rule restated: bounds from the model card. Llama 3.1 8B has
  // 8,030,261,248 parameters, 16,060,522,496 B in BF16; at 8,192 tokens its KV cache is
  // 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B a token, 1,073,741,824 B. A GPU with less
  // than the weights cannot hold it on one card; one with the weights and the cache twice over,
  // plus 4 GiB for runtime, buffers and the 10% margin, holds it.
  const Report r = estimate_ok({{"model", {{"preset", "llama-3.1-8b"}}}, {"compare_gpus", true}, {"gpu", {{"id", "rtx-4090"}}}});
  REQUIRE(r.gpus.size() == builtin_catalog().gpus.size());
  const int64_t weights = 8030261248LL * 2, kv = 8192LL * 131072;
  int below = 0, above = 0;
  for (const GpuVerdict& v : r.gpus) {
    INFO(v.gpu->id << ": " << v.gpu->usable_bytes() << " B");
    if (v.gpu->usable_bytes() < weights) {
      CHECK_FALSE(v.fit.fits);
      CHECK(v.fit.min_gpus >= 2);
      ++below;
    } else if (v.gpu->usable_bytes() >= weights + 2 * kv + 4 * kGiB) {
      CHECK(v.fit.fits);
      CHECK(v.fit.min_gpus == 1);
      ++above;
    }
  }
  CHECK(below >= 3);  // RTX 3060, 4060, 2060 ...
  CHECK(above >= 10);
}

TEST_CASE("fit map cells: the KV cache's growth along a row, the weights at its start", "[fit]") {
  // Not the map's own callee: the architecture's numbers. Along a row (sequences fixed), memory
  // grows by the KV cache alone: 131,072 B per token per sequence for Llama 3.1 8B in FP16
  // (2 x 32 layers x 8 KV heads x 128 x 2 B), plus the 10% margin on it, once the workload fills
  // a prefill chunk (512 tokens: llama.cpp's n_ubatch; below it the compute buffer grows too);
  // with flash attention the compute buffer does not grow with the context. Up a column, it
  // grows by that per sequence, and by each sequence's row of logits: 128,256 (the vocabulary)
  // x 4 B in FP32.
  const Report r = vramfit::test::estimate_ok({{"model", {{"preset", "llama-3.1-8b"}}}, {"gpu", {{"id", "rtx-4090"}}}});
  const FitMapAxis context{256, 131072, 32}, sequences{1, 64, 16};
  const FitMap map = inference_fit_map(r.prepared, r.request.settings, r.fit.capacity_bytes, context, sequences);
  REQUIRE(map.fraction.size() == 32 * 16);
  CHECK(context.value(0) >= 256);
  CHECK(context.value(31) <= 131072);
  const double capacity = static_cast<double>(r.fit.capacity_bytes);
  const double per_token = 131072.0 * 1.10;
  int full_chunk = 0;  // the first column of 512 tokens or more
  while (context.value(full_chunk) < 512) ++full_chunk;
  REQUIRE(full_chunk < 13);
  for (int row : {0, 7, 15}) {
    const double seqs = static_cast<double>(sequences.value(row));
    for (auto [a, b] : {std::pair{full_chunk, 13}, std::pair{13, 31}}) {
      INFO("row " << row << ", columns " << a << " and " << b);
      const double tokens = static_cast<double>(context.value(b) - context.value(a));
      const double grown = (map.at(b, row) - map.at(a, row)) * capacity;
      CHECK(grown == Approx(tokens * seqs * per_token).epsilon(2e-4));  // float cells: ~1e-7 of the GPU each
    }
  }
  for (int col : {full_chunk, 31}) {
    const double tokens = static_cast<double>(context.value(col));
    const double grown = (map.at(col, 15) - map.at(col, 0)) * capacity;
    const double more = static_cast<double>(sequences.value(15) - sequences.value(0));
    CHECK(grown == Approx(more * (tokens * per_token + 128256.0 * 4 * 1.10)).epsilon(2e-4));
  }
  // The first cell: the BF16 weights (16,060,522,496 B, the card's parameter count x 2) and
  // more, less than the weights and 4 GiB.
  const double first = static_cast<double>(map.at(0, 0)) * capacity;
  CHECK(first > 16060522496.0);
  CHECK(first < 16060522496.0 + 4.0 * kGiB);
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

