// Throughput of the estimator, natively and in wasm (scripts/bench.sh runs both).
//   inference_memory: the numeric estimate for one workload of a prepared model (what the
//                     fit map evaluates per cell; includes the safety margin)
//   estimate:         request struct -> resolved, prepared, estimated, explained and fitted
//   estimate_json:    request JSON text -> report JSON text (the JS API path)
//   fit map:          256 x 256 cells (inference: context x sequences; training: sequence x
//                     micro-batch), milliseconds per map
//   recompute:        what the app does after an input change (App::recompute and the fit
//                     map's first draw): the estimate with every catalog GPU and llama.cpp's
//                     placement over two GPUs, then the 192 x 96 map; bench/web_perf.mjs times
//                     the same change in the page
#include <chrono>
#include <cstdio>
#include <string>

#include "report/estimate.hpp"
#include "core/fit_map.hpp"
#include "io/request_json.hpp"

using namespace vramfit;
using Clock = std::chrono::steady_clock;

template <class F>
double per_second(F&& body, double min_seconds) {
  int64_t iterations = 0, batch = 1;
  const auto start = Clock::now();
  double elapsed = 0;
  while (elapsed < min_seconds) {
    for (int64_t i = 0; i < batch; ++i) body(iterations + i);
    iterations += batch;
    batch *= 2;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return static_cast<double>(iterations) / elapsed;
}

int main() {
  const Catalog& catalog = builtin_catalog();
  const ModelPreset& model = *catalog.find_model("llama-3.1-70b");
  const PreparedInference prepared =
      prepare_inference(catalog.formats, model.spec, *catalog.formats.find_format("gguf-q4_k_m"), 0,
                        catalog.formats.storage_types[static_cast<size_t>(catalog.formats.find_storage("f16"))]);
  InferenceSettings settings;
  volatile int64_t sink = 0;

  const double memory_rate = per_second([&](int64_t i) {
    settings.context_tokens = 1024 + (i & 65535);
    settings.concurrent_sequences = 1 + (i & 15);
    sink = sink + inference_memory(prepared, settings).total;
  }, 1.0);

  Request request = *request_from_json({{"model", {{"preset", "llama-3.1-8b"}}}, {"weights", {{"format", "bf16"}}}});
  const double estimate_rate = per_second([&](int64_t i) {
    request.settings.context_tokens = 1024 + (i & 4095);
    sink = sink + estimate(request, catalog).value().memory.total;
  }, 1.0);

  const std::string text = request_to_json(request).dump();
  const double json_rate = per_second([&](int64_t) { sink = sink + static_cast<int64_t>(estimate_json(text).size()); }, 1.0);

  const double map_rate = per_second([&](int64_t i) {
    const FitMap map = inference_fit_map(prepared, settings, 25757220864 + i, {256, 131072, 256}, {1, 256, 256});
    sink = sink + static_cast<int64_t>(map.fraction[0] * 1000.0f);
  }, 1.0);
  Request training = *request_from_json({{"mode", "training"}, {"model", {{"preset", "llama-3.1-8b"}}},
                                         {"training", {{"method", "qlora"}}}});
  const Report training_report = estimate(training, catalog).value();
  const double training_map_rate = per_second([&](int64_t i) {
    const FitMap map = training_fit_map(training_report.prepared.model, training.training, training_report.training,
                                        25757220864 + i, {128, 32768, 256}, {1, 256, 256});
    sink = sink + static_cast<int64_t>(map.fraction[0] * 1000.0f);
  }, 1.0);

  // The page's recompute benchmark's request (bench/web_perf.mjs, recompute_request there).
  Request engine = *request_from_json({{"model", {{"preset", "llama-3.1-70b"}}}, {"weights", {{"format", "gguf-q4_k_m"}}},
                                        {"gpus", {"rtx-3090", "rtx-3090"}}, {"engine", "llama.cpp"},
                                        {"llama.cpp", {{"ctx-size", 16384}}}});
  engine.compare_gpus = true;
  const double recompute_rate = per_second([&](int64_t i) {
    engine.llamacpp.ctx_size = 16384 + (i & 1) * 256;
    const Report report = estimate(engine, catalog).value();
    const int64_t trained = report.prepared.model.max_context_tokens;
    const FitMap map = inference_fit_map(report.prepared, engine.settings, report.gpu.usable_bytes(),
                                         {256, std::min<int64_t>(std::max<int64_t>(trained, 4096), kMaxContextTokens), 192}, {1, 256, 96});
    sink = sink + static_cast<int64_t>(map.fraction[0] * 1000.0f);
  }, 1.0);

  std::printf("fit map 256 x 256, inference (Llama 3.1 70B Q4_K_M): %.2f ms\n", 1000.0 / map_rate);
  std::printf("fit map 256 x 256, training (Llama 3.1 8B QLoRA): %.2f ms\n", 1000.0 / training_map_rate);
  std::printf("inference_memory (Llama 3.1 70B Q4_K_M, varying context x sequences): %.2f M estimates/s\n", memory_rate / 1e6);
  std::printf("estimate (Llama 3.1 8B BF16, request -> report incl. breakdown and fit): %.0f estimates/s\n", estimate_rate);
  std::printf("estimate_json (JSON text in, JSON text out): %.0f estimates/s\n", json_rate);
  std::printf("recompute (Llama 3.1 70B Q4_K_M on llama.cpp, 2 x RTX 3090, every catalog GPU, 192 x 96 map): %.3f ms\n",
              1000.0 / recompute_rate);
  return sink == 42 ? 1 : 0;
}
