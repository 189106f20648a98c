// engine "transformers": accelerate's device map, generate's peak per device, and its report JSON.
#include "report/engine_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/llamacpp.hpp"
#include "core/units.hpp"
#include "core/vllm.hpp"
#include "io/engine_json.hpp"
#include "report/networks.hpp"

namespace vramfit {

namespace {

// engine "transformers": the GPUs in CUDA order, accelerate's device map over them and the
// host, generate's peak on each (core/transformers).
std::optional<Error> estimate_transformers(const Request& request, const Catalog& catalog, const WeightFormat* format,
                                           Report& report) {
  const ModelSpec& m = report.prepared.model;
  if (m.parameters_only > 0) {
    return make_error("request.bad_value", "model",
                      "model: Transformers' memory follows the model's modules; give a preset or a config, not only a parameter count");
  }
  if (!format || format->id.rfind("gguf-", 0) == 0 || format->id == "mxfp4-moe") {
    return make_error("request.bad_value", "weights.format",
                      "weights.format: Transformers loads safetensors checkpoints (fp32, fp16, bf16, bitsandbytes, GPTQ, AWQ, fp8); "
                      "got '" + request.weight_format + "'");
  }
  const TransformersSettings& t = request.transformers;
  auto engine = std::make_shared<EngineReport>();
  EngineReport& e = *engine;
  report.engine = engine;
  if (auto error = resolve_devices(request, catalog, request.settings.gpu_count, report.gpu, e)) return error;
  if (t.device_map == TransformersDeviceMap::none && e.devices.size() > 1) {
    return make_error("request.bad_value", "transformers.device_map",
                      "transformers.device_map: none puts the whole model on one GPU; use auto, balanced_low_0 or sequential "
                      "to spread it over " + std::to_string(e.devices.size()) + " GPUs");
  }
  // modeling_utils.py before 4.22 takes the string "auto" alone (the others came with PR #18349).
  if (transformers_generation(t.version_major, t.version_minor).auto_fills_in_order &&
      (t.device_map == TransformersDeviceMap::sequential || t.device_map == TransformersDeviceMap::balanced_low_0)) {
    return make_error("request.bad_value", "transformers.device_map",
                      std::string("transformers.device_map: ") + transformers_device_map_name(t.device_map) +
                          " came in 4.22.0; before it \"auto\" alone, which fills the GPUs in order");
  }
  // Each GPU's free memory for the model: its total (CUDA's, where known) less the CUDA context.
  std::vector<int64_t> free;
  for (const Gpu& gpu : e.devices) {
    const int64_t total = gpu.cuda_visible_bytes();
    free.push_back(std::max<int64_t>(0, total - request.settings.runtime_bytes));
  }
  const int64_t activation = report.prepared.activation_bytes;
  e.transformers = transformers_memory(catalog.formats, m, *format, request.group_size, activation, t, free, request.host_memory_bytes);
  e.transformers_fit =
      transformers_fit(catalog.formats, m, *format, request.group_size, activation, t, free, request.host_memory_bytes);
  e.transformers_decode_tokens_per_second =
      transformers_decode_bound(e.transformers, per_device(e.devices, &Gpu::bandwidth_gbs), request.host_bandwidth_gbs);
  e.prefill_rate = "BF16 with FP32 accumulation (PyTorch's GEMMs)";
  e.transformers_prefill_tokens_per_second =
      transformers_prefill_bound(m, e.transformers, per_device(e.devices, &Gpu::bf16_tflops), t.input_length);
  const TransformersGeneration& g = e.transformers.generation;
  e.assumptions.push_back("transformers " + transformers_version_text(t) + ": " +
                          (g.legacy_cache ? "generate keeps tuple caches (before 4.42): the old and new caches overlap each step"
                                          : "generate keeps a DynamicCache (4.42 and later): one layer's old tensor at a time") +
                          "; " +
                          (g.all_prompt_logits ? "logits for every prompt token (before 4.45)" : "logits for the last token only (4.45 and later)") +
                          (g.auto_fills_in_order ? "; device_map \"auto\" fills GPU 0 first (before 4.22)" : "") +
                          " (the boundary releases are assumed from the release history)");
  e.assumptions.push_back("every layer keeps every token in the cache (DynamicCache), sliding-window layers too");
  e.assumptions.push_back("before the model: the CUDA context, " + format_bytes(request.settings.runtime_bytes, DisplayUnits::gib) +
                          " per GPU (overhead.runtime_bytes), outside torch.cuda.max_memory_allocated");
  if (request.host_memory_bytes <= 0 && e.transformers.host.weights > 0) {
    e.assumptions.push_back("the host's RAM is not checked (host.memory_bytes 0): offloaded modules are assumed to fit it");
  }
  return std::nullopt;
}

json transformers_to_json(const Report& r) {
  const EngineReport& en = *r.engine;
  const TransformersMemory& m = en.transformers;
  json gpus = json::array();
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const TransformersDevice& d = m.gpus[i];
    const int64_t capacity = i < en.devices.size() ? en.devices[i].cuda_visible_bytes() : 0;
    const int64_t need = d.peak() + r.request.settings.runtime_bytes;
    gpus.push_back({{"gpu", {{"id", en.devices[i].id}, {"name", en.devices[i].name}}},
                    {"index", d.index},
                    {"layers", d.layers()},
                    {"first_layer", d.layers() > 0 ? d.first_layer : -1},
                    {"last_layer", d.layers() > 0 ? d.last_layer : -1},
                    {"embeddings", d.embeddings},
                    {"lm_head", d.lm_head},
                    {"weights_bytes", d.weights},
                    {"buffers_bytes", d.buffers},
                    {"offloaded_layer_bytes", d.executed_offload},
                    {"kv_bytes", d.kv},
                    {"prefill_peak_bytes", d.prefill_peak},
                    {"decode_peak_bytes", d.decode_peak},
                    {"max_memory_allocated_bytes", d.peak()},
                    {"max_memory_bytes", i < m.max_memory.size() ? m.max_memory[i] : 0},
                    {"runtime_bytes", r.request.settings.runtime_bytes},
                    {"need_bytes", need},
                    {"capacity_bytes", capacity},
                    {"fits", need <= capacity}});
  }
  const TransformersSettings& t = r.request.transformers;
  return {{"name", "transformers"},
          {"version", transformers_version_text(t)},
          {"gpus", gpus},
          {"host",
           {{"weights_bytes", m.host.weights + m.host.buffers},
            {"capacity_bytes", r.request.host_memory_bytes},
            {"fits", r.request.host_memory_bytes <= 0 || m.host.weights + m.host.buffers <= r.request.host_memory_bytes}}},
          {"kv_bytes_per_token", m.kv_bytes_per_token},
          {"footprint_bytes", m.footprint},
          {"fits", m.fits},
          {"refusal", m.refusal},
          {"max_batch_size", en.transformers_fit.max_batch_size},
          {"max_new_tokens", en.transformers_fit.max_new_tokens},
          {"log_lines", transformers_log_lines(m)},
          {"assumptions", en.assumptions},
          {"decode_bound", {{"tokens_per_second", en.transformers_decode_tokens_per_second},
                            {"host_bandwidth_gbs", r.request.host_bandwidth_gbs}}},
          {"prefill_bound",
           {{"tokens_per_second", en.transformers_prefill_tokens_per_second},
            {"prompt_tokens", t.input_length},
            {"tensor_rate", en.prefill_rate}}}};
}

}  // namespace

const EngineParts kTransformersParts{estimate_transformers, transformers_to_json};

}  // namespace vramfit
