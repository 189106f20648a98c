#include "report/engines.hpp"

#include "core/llamacpp.hpp"
#include "io/engine_json.hpp"

namespace vramfit {

namespace {

EngineParts g_llamacpp;

// engine "llama.cpp": the GPUs in device order, llama.cpp's buffers on each and the host, and
// what fits (core/llamacpp).
std::optional<Error> estimate_llamacpp(const Request& request, const Catalog& catalog, const WeightFormat* format,
                                       Report& report) {
  const StoredWeights& stored = request.stored_weights;
  if (request.has_stored_weights && (!stored.has_layers || stored.source != "gguf")) {
    return make_error("request.bad_value", "weights.stored",
                      "weights.stored: llama.cpp loads GGUF files; this model's weights come from " +
                          (stored.source.empty() ? std::string("a file") : stored.source) + " without llama.cpp's layer placement");
  }
  if (request.has_stored_weights && static_cast<int64_t>(stored.by_layer.layer.size()) != report.prepared.model.layers) {
    return make_error("request.bad_value", "weights.stored.by_layer",
                      "weights.stored.by_layer: " + std::to_string(stored.by_layer.layer.size()) + " layers, but the model has " +
                          std::to_string(report.prepared.model.layers));
  }
  if (!request.has_stored_weights && (!format || format->id.rfind("gguf-", 0) != 0)) {
    return make_error("request.bad_value", "weights.format",
                      "weights.format: llama.cpp loads GGUF files: choose a gguf-* format (got '" + request.weight_format + "')");
  }
  const LlamaCppSettings& l = request.llamacpp;
  if (l.flash_attn == LlamaFlashAttn::off && l.cache_type_v != "f16" && l.cache_type_v != "bf16" && l.cache_type_v != "f32") {
    // llama_context::llama_context: "quantized V cache was requested, but this requires Flash Attention"
    return make_error("request.bad_value", "llama.cpp.cache-type-v",
                      "llama.cpp.cache-type-v: a quantized V cache needs flash attention (llama.cpp refuses -fa off with -ctv " +
                          l.cache_type_v + ")");
  }
  if (request.gpu_ids.empty()) {
    report.devices.assign(static_cast<size_t>(request.settings.gpu_count), report.gpu);
  } else {
    for (size_t i = 0; i < request.gpu_ids.size(); ++i) {
      const Gpu* gpu = catalog.find_gpu(request.gpu_ids[i]);
      if (!gpu) {
        return make_error("request.unknown_gpu", "gpus[" + std::to_string(i) + "]",
                          "gpus[" + std::to_string(i) + "]: no GPU '" + request.gpu_ids[i] + "' (vramfit gpus lists them)");
      }
      report.devices.push_back(*gpu);
    }
  }
  if (l.main_gpu >= static_cast<int64_t>(report.devices.size())) {
    return make_error("request.out_of_range", "llama.cpp.main-gpu",
                      "llama.cpp.main-gpu: " + std::to_string(l.main_gpu) + " is not one of the " +
                          std::to_string(report.devices.size()) + " GPUs");
  }
  std::vector<int64_t> capacity;
  for (const Gpu& gpu : report.devices) capacity.push_back(gpu.usable_bytes());
  const LlamaCppWeights weights = request.has_stored_weights ? stored.by_layer
                                                             : llamacpp_weights(catalog.formats, report.prepared.model, *format);
  report.llamacpp = llamacpp_memory(catalog.formats, report.prepared.model, weights, l, capacity);
  std::vector<double> bandwidth;
  for (const Gpu& gpu : report.devices) bandwidth.push_back(gpu.bandwidth_gbs);
  report.llamacpp_decode = llamacpp_decode_bound(report.prepared.model, weights, report.llamacpp, bandwidth,
                                                 request.host_bandwidth_gbs);
  report.llamacpp_fit = llamacpp_fit(catalog.formats, report.prepared.model, weights, l, capacity, 0,
                                     request.settings.runtime_bytes, request.settings.margin_fraction);
  return std::nullopt;
}

json llamacpp_to_json(const Report& r) {
  auto buffers = [](const LlamaCppBuffers& b) {
    return json{{"device", b.device}, {"model_bytes", b.model}, {"expert_bytes", b.experts}, {"kv_bytes", b.kv}, {"compute_bytes", b.compute},
                {"output_bytes", b.output}, {"total_bytes", b.total()}, {"layers", b.layers}, {"output_layer", b.output_layer}};
  };
  const LlamaCppMemory& m = r.llamacpp;
  const LlamaCppFit& f = r.llamacpp_fit;
  json devices = json::array();
  for (size_t g = 0; g < m.gpus.size(); ++g) {
    json d = buffers(m.gpus[g]);
    d["gpu"] = {{"id", r.devices[g].id}, {"name", r.devices[g].name}};
    d["runtime_bytes"] = r.request.settings.runtime_bytes;
    d["need_bytes"] = f.gpu_need[g];
    d["capacity_bytes"] = f.gpu_capacity[g];
    d["fits"] = f.gpu_need[g] <= f.gpu_capacity[g];
    devices.push_back(d);
  }
  return {{"name", "llama.cpp"},
          {"n_ctx", m.n_ctx},
          {"swa_cells", m.swa_cells},
          {"ubatch_tokens", m.ubatch_tokens},
          {"offloaded_layers", m.offloaded_layers},
          {"layer_slots", m.layer_slots},
          {"flash_attention", m.flash_attention},
          {"gpus", devices},
          {"host", buffers(m.host)},
          {"fits", f.fits},
          {"max_gpu_layers", f.max_gpu_layers},
          {"max_ctx_size", f.max_ctx_size},
          {"log_lines", llamacpp_log_lines(m)},
          {"decode_bound", {{"tokens_per_second_empty_cache", r.llamacpp_decode.tokens_per_second_empty},
                            {"tokens_per_second_full_cache", r.llamacpp_decode.tokens_per_second_full},
                            {"gpu_bytes_per_token", r.llamacpp_decode.gpu_bytes_per_token},
                            {"host_bytes_per_token", r.llamacpp_decode.host_bytes_per_token},
                            {"host_bandwidth_gbs", r.request.host_bandwidth_gbs}}}};
}
}  // namespace

const EngineParts& engine_llamacpp() { return g_llamacpp; }

void enable_engines() {
  enable_engine_json();
  g_llamacpp.estimate = estimate_llamacpp;
  g_llamacpp.to_json = llamacpp_to_json;
}

}  // namespace vramfit
