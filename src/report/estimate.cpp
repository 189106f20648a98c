#include "estimate.hpp"

#include <algorithm>
#include <vector>

#include "io/hf_config.hpp"
#include "io/header_reads.hpp"
#include "io/model_file.hpp"
#include "io/engine_json.hpp"
#include "io/request_json.hpp"
#include "report/device_limit.hpp"
#include "report/engines.hpp"
#include "report/networks.hpp"

namespace vramfit {

int kv_cache_storage_type(const FormatTables& tables, const std::string& dtype) {
  static const char* const allowed[][2] = {
      {"f32", "f32"}, {"fp32", "f32"}, {"f16", "f16"}, {"fp16", "f16"}, {"bf16", "bf16"},
      {"fp8", "fp8"}, {"q8_0", "q8_0"}, {"q5_1", "q5_1"}, {"q5_0", "q5_0"},
      {"q4_1", "q4_1"}, {"q4_0", "q4_0"}, {"iq4_nl", "iq4_nl"}};
  for (const auto& pair : allowed) {
    if (dtype == pair[0]) return tables.find_storage(pair[1]);
  }
  return -1;
}

Result<WeightsSummary> stored_weights_summary(const FormatTables& tables, const StoredWeights& stored) {
  WeightsSummary w;
  w.stored_in = stored.file.empty() ? stored.source : stored.file;
  w.parameters = w.active_parameters = stored.parameters;
  w.replicated_bytes = stored.replicated_bytes;
  for (size_t i = 0; i < stored.by_type.size(); ++i) {
    const StoredWeights::Row& row = stored.by_type[i];
    const int type = tables.find_storage(row.type);
    if (type < 0) {
      const std::string field = "weights.stored.by_type[" + std::to_string(i) + "].type";
      return make_error("request.unknown_type", field, field + ": unknown storage type '" + row.type + "'");
    }
    w.by_type.push_back(WeightsByType{type, row.elements, row.tensors, row.bytes, row.replicated_bytes});
    w.bytes = sat_add(w.bytes, row.bytes);
  }
  // A request that gives only the total of 1-D tensors (rows without replicated_bytes): the
  // rest is placed in the f32 row first (where model files keep norms), then row by row.
  int64_t unplaced = stored.replicated_bytes;
  for (const WeightsByType& row : w.by_type) unplaced -= row.replicated_bytes;
  const int f32 = tables.find_storage("f32");
  for (int pass = 0; pass < 2 && unplaced > 0; ++pass) {
    for (WeightsByType& row : w.by_type) {
      if (pass == 0 && row.storage_type != f32) continue;
      const int64_t room = std::min(unplaced, row.bytes - row.replicated_bytes);
      row.replicated_bytes += room;
      unplaced -= room;
    }
  }
  return w;
}

namespace {

std::optional<Error> resolve_gpu(const Request& request, const Catalog& catalog, Gpu& out) {
  if (request.gpu_capacity_bytes > 0) {
    out.id = "custom";
    out.name = "Custom GPU";
    out.total_bytes = request.gpu_capacity_bytes;
    return std::nullopt;
  }
  const Gpu* gpu = catalog.find_gpu(request.gpu_id);
  if (!gpu) return make_error("request.unknown_gpu", "gpu.id", "gpu.id: no GPU '" + request.gpu_id + "' (vramfit gpus lists them)");
  out = *gpu;
  return std::nullopt;
}

// The per-GPU total of training_memory() for each GPU count, computed when first asked and
// shared by every GPU's fewest-GPUs search: one request computes it at most kMaxGpuCount
// times, not that many times per catalog GPU (DeepSeek-V3 has 47,000 tensors to walk).
class TotalsByGpuCount {
 public:
  TotalsByGpuCount(const FormatTables& tables, const ModelSpec& model, const TrainingSettings& settings)
      : tables_(tables), model_(model), settings_(settings), totals_(static_cast<size_t>(kMaxGpuCount) + 1, -1) {}
  int64_t operator()(int64_t gpus) {
    int64_t& total = totals_[static_cast<size_t>(gpus)];
    if (total < 0) {
      TrainingSettings s = settings_;
      s.gpu_count = gpus;
      auto m = training_memory(tables_, model_, s);
      total = m ? m->total : kByteCeiling;
    }
    return total;
  }

 private:
  const FormatTables& tables_;
  const ModelSpec& model_;
  const TrainingSettings& settings_;
  std::vector<int64_t> totals_;
};

// base: training_memory() at these settings, computed once by the caller for every GPU.
// zero3_totals: the same model with ZeRO-3, for the advice when unsharded training does not fit.
TrainingFit fit_training(const ModelSpec& model, const TrainingSettings& settings, const TrainingMemory& base,
                         TotalsByGpuCount& total_for_gpus, TotalsByGpuCount& zero3_totals, int64_t capacity) {
  TrainingFit f;
  f.capacity_bytes = capacity;
  f.required_bytes = base.total;
  f.headroom_bytes = capacity - f.required_bytes;
  f.fits = f.headroom_bytes >= 0;
  // Batch and sequence change only activations and logits: retotal_training is arithmetic.
  auto batch_total = [&](int64_t b) { TrainingSettings s = settings; s.micro_batch = b; return retotal_training_bytes(model, s, base); };
  auto batch_fits = [&](int64_t b) { return batch_total(b) <= capacity; };
  f.max_batch = batch_fits(1) ? largest_fitting(1, kMaxMicroBatch, capacity, batch_fits, batch_total) : 0;
  auto seq_total = [&](int64_t n) { TrainingSettings s = settings; s.sequence_length = n; return retotal_training_bytes(model, s, base); };
  auto seq_fits = [&](int64_t n) { return seq_total(n) <= capacity; };
  f.max_sequence_length = seq_fits(1) ? largest_fitting(1, kMaxTrainingSequence, capacity, seq_fits, seq_total) : 0;
  if (settings.sharding == Sharding::none) {
    f.min_gpus = f.fits ? 1 : 0;  // data parallelism alone does not divide the memory
    for (int64_t n = 2; !f.fits && n <= kMaxGpuCount; ++n) {
      if (zero3_totals(n) <= capacity) { f.min_gpus_zero3 = n; break; }
    }
  } else {
    for (int64_t n = 1; n <= kMaxGpuCount; ++n) {
      if (total_for_gpus(n) <= capacity) { f.min_gpus = n; break; }
    }
  }
  return f;
}

Result<Report> estimate_training(Report report, const Catalog& catalog) {
  const Request& request = report.request;
  if (request.has_network) {
    return estimate_network_training(std::move(report), catalog);
  }
  auto memory = training_memory(catalog.formats, report.prepared.model, request.training);
  if (!memory) return memory.error();
  report.training = *memory;
  report.breakdown = explain_training(report.prepared.model, request.training, report.training);
  for (const std::string& a : request.custom_model_assumptions) report.breakdown.assumptions.push_back(a);
  TotalsByGpuCount total_for_gpus(catalog.formats, report.prepared.model, request.training);
  TrainingSettings zero3 = request.training;
  zero3.sharding = Sharding::zero3;
  TotalsByGpuCount zero3_totals(catalog.formats, report.prepared.model, zero3);
  report.training_fit = fit_training(report.prepared.model, request.training, report.training, total_for_gpus,
                                     zero3_totals, report.gpu.usable_bytes());
  if (request.compare_gpus) {
    for (const Gpu& gpu : catalog.gpus) {
      GpuVerdict v{&gpu, {}, fit_training(report.prepared.model, request.training, report.training, total_for_gpus,
                                          zero3_totals, gpu.usable_bytes())};
      report.gpus.push_back(v);
    }
  }
  return report;
}

}  // namespace

namespace {

// The model a request names (a preset or its own config), checked.
std::optional<Error> resolve_model(const Request& request, const Catalog& catalog, Report& report) {
  if (request.has_custom_model) {
    report.model_id = "custom";
    report.model_name = request.custom_model_name.empty() ? "Custom model" : request.custom_model_name;
    report.prepared.model = request.custom_model;
  } else {
    const ModelPreset* preset = catalog.find_model(request.model_preset);
    if (!preset) {
      return make_error("request.unknown_model", "model.preset",
                        "model.preset: no preset '" + request.model_preset + "' (vramfit models lists them)");
    }
    report.model_id = preset->id;
    report.model_name = preset->name;
    report.prepared.model = preset->spec;
  }
  if (auto e = validate_model_spec(report.prepared.model)) {
    e->field = "model." + e->field;
    return *e;
  }
  return std::nullopt;
}

}  // namespace

Result<Report> resolve_training(const Request& request, const Catalog& catalog) {
  Report report;
  report.request = request;
  if (!request.has_network) {
    if (auto e = resolve_model(request, catalog, report)) return *e;
    report.prepared.weights.parameters = count_parameters(report.prepared.model);
    report.prepared.weights.active_parameters = count_active_parameters(report.prepared.model);
  }
  if (auto e = resolve_gpu(request, catalog, report.gpu)) return *e;
  return report;
}

Result<Report> estimate(const Request& request, const Catalog& catalog) {
  if (request.mode == Mode::training) {
    // Megatron-LM's answer is the CLI's and the estimator module's (report/framework_requests):
    // the page's module, which links this function, has no room for it yet (docs/performance.md).
    if (request.framework != TrainingFramework::hf_trainer && !request.has_network) {
      return make_error("request.bad_value", "training.framework",
                        "training.framework: megatron is answered by the CLI and the estimator module; the page's module "
                        "does not answer it yet");
    }
    auto report = resolve_training(request, catalog);
    if (!report) return report.error();
    return estimate_training(std::move(report).value(), catalog);
  }
  Report report;
  report.request = request;
  const InferenceSettings& settings = request.settings;
  if (auto e = resolve_model(request, catalog, report)) return *e;

  const WeightFormat* format = catalog.formats.find_format(request.weight_format);
  if (!format && !request.has_stored_weights) {
    return make_error("request.unknown_format", "weights.format",
                      "weights.format: no format '" + request.weight_format + "' (vramfit formats lists them)");
  }
  const int kv_type = kv_cache_storage_type(catalog.formats, request.kv_cache_dtype);
  if (kv_type < 0) {
    return make_error("request.unknown_kv_dtype", "kv_cache.dtype",
                      "kv_cache.dtype: '" + request.kv_cache_dtype +
                          "' is not one of f32, f16, bf16, fp8, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl");
  }

  if (auto e = resolve_gpu(request, catalog, report.gpu)) return *e;

  const StorageType& kv = catalog.formats.storage_types[static_cast<size_t>(kv_type)];
  if (request.has_stored_weights) {
    auto weights = stored_weights_summary(catalog.formats, request.stored_weights);
    if (!weights) return weights.error();
    bool all_f32 = true;
    for (const StoredWeights::Row& row : request.stored_weights.by_type) all_f32 = all_f32 && row.type == "f32";
    report.prepared = prepare_inference(report.prepared.model, *weights, all_f32 ? 4 : 2, kv);
  } else {
    report.prepared = prepare_inference(catalog.formats, report.prepared.model, *format, request.group_size, kv);
  }
  report.memory = inference_memory(report.prepared, settings);
  report.breakdown = explain_inference(catalog.formats, report.prepared, settings, report.memory);
  for (const std::string& a : request.custom_model_assumptions) report.breakdown.assumptions.push_back(a);
  if (request.has_stored_weights) {
    for (const std::string& a : request.stored_weights.assumed) report.breakdown.assumptions.push_back(a);
    for (const std::string& w : request.stored_weights.warnings) report.breakdown.warnings.push_back(w);
  }
  report.fit = fit_inference(report.prepared, settings, report.gpu.usable_bytes());
  if (const EngineParts* engine = engine_parts(request.engine)) {
    const ModelSpec& model = report.prepared.model;
    // llama.cpp keeps a recurrent layer's state (llama_memory_recurrent); vLLM and Transformers' are not modelled.
    const bool recurrent = (model.is_recurrent() || model.is_hybrid()) && request.engine != Engine::llamacpp;
    if (recurrent || model.is_encoder_decoder() || model.cross_attention_layer_count() > 0 || model.encoder_only) {
      return make_error("request.bad_value", "model",
                        std::string("model: ") + engine_name(request.engine) + "'s buffers for " + model.architecture +
                            (recurrent ? " (a recurrent state per sequence)"
                             : model.is_encoder_decoder() ? " (an encoder-decoder)"
                             : model.encoder_only         ? " (an encoder, served for embeddings: no KV cache, no sampler)"
                                                          : " (cross-attention to the image's tiles)") +
                            " are not modelled yet; engine \"generic\" counts it");
    }
    if (auto e = engine->estimate(request, catalog, format, report)) return *e;
  }
  if (request.compare_gpus) {
    for (const Gpu& gpu : catalog.gpus) {
      report.gpus.push_back(GpuVerdict{&gpu, fit_inference(report.prepared, settings, gpu.usable_bytes()), {}});
    }
  }
  return report;
}

namespace {

json item_to_json(const BreakdownItem& item) {
  json j = {{"id", item.id}, {"label", item.label}, {"bytes", item.bytes}, {"formula", item.formula}};
  if (!item.note.empty()) j["note"] = item.note;
  if (!item.children.empty()) {
    j["children"] = json::array();
    for (const BreakdownItem& child : item.children) j["children"].push_back(item_to_json(child));
  }
  return j;
}

json fit_to_json(const FitResult& fit) {
  return {{"fits", fit.fits},
          {"capacity_bytes", fit.capacity_bytes},
          {"required_bytes", fit.required_bytes},
          {"headroom_bytes", fit.headroom_bytes},
          {"max_context_tokens", fit.max_context_tokens},
          {"context_limited_by_model", fit.context_limited_by_model},
          {"max_concurrent_sequences", fit.max_concurrent_sequences},
          {"min_gpus", fit.min_gpus}};
}

}  // namespace

json breakdown_to_json(const Breakdown& b) {
  json j = {{"mode", b.mode}, {"total_bytes", b.total_bytes}, {"gpu_count", b.gpu_count}, {"items", json::array()}};
  for (const BreakdownItem& item : b.items) j["items"].push_back(item_to_json(item));
  j["warnings"] = b.warnings;
  j["assumptions"] = b.assumptions;
  return j;
}

namespace {

// "breakdown", "fit" (with the GPU) and, when asked, "gpus": the same in both modes.
template <class VerdictJson>
void add_breakdown_and_fit(json& j, const Report& r, json fit, VerdictJson verdict_json) {
  j["breakdown"] = breakdown_to_json(r.breakdown);
  fit["gpu"] = {{"id", r.gpu.id}, {"name", r.gpu.name}, {"total_bytes", r.gpu.total_bytes},
                {"usable_bytes", r.gpu.usable_bytes()}};
  if (const std::string note = unified_memory_note(r); !note.empty()) fit["gpu"]["unified_memory"] = note;
  fit["gpu_count"] = r.request.settings.gpu_count;
  j["fit"] = fit;
  if (r.request.compare_gpus) {
    j["gpus"] = json::array();
    for (const GpuVerdict& v : r.gpus) {
      json g = verdict_json(v);
      g["id"] = v.gpu->id;
      g["name"] = v.gpu->name;
      j["gpus"].push_back(g);
    }
  }
}

json training_fit_to_json(const TrainingFit& f) {
  return {{"fits", f.fits}, {"capacity_bytes", f.capacity_bytes}, {"required_bytes", f.required_bytes},
          {"headroom_bytes", f.headroom_bytes}, {"max_batch", f.max_batch},
          {"max_sequence_length", f.max_sequence_length}, {"min_gpus", f.min_gpus},
          {"min_gpus_zero3", f.min_gpus_zero3}};
}

json training_report_to_json(const Report& r, json j) {
  if (r.request.has_network) {
    const NetworkMemory& m = r.network;
    json layers = json::array();
    for (const LayerRow& row : m.layers) {
      layers.push_back({{"name", row.name}, {"type", row.type}, {"output_shape", row.output_shape},
                        {"parameters", row.parameters}, {"activation_bytes", row.activation_bytes}, {"keeps", row.keeps}});
    }
    j["model"] = {{"id", r.model_id}, {"name", r.model_name}, {"parameters", m.parameters}};
    j["network"] = {{"layers", layers}, {"parameters", m.parameters}, {"parameter_bytes", m.parameter_bytes},
                    {"buffer_bytes", m.buffer_bytes}, {"gradient_bytes", m.gradient_bytes},
                    {"optimizer_bytes", m.optimizer.total()}, {"optimizer_step_bytes", m.optimizer.step_bytes},
                    {"activation_bytes", m.activation_bytes}, {"activation_elements", m.activation_elements},
                    {"input_bytes", m.input_bytes}, {"total_bytes", m.total}};
  } else {
    const TrainingMemory& m = r.training;
    j["model"] = {{"id", r.model_id}, {"name", r.model_name}, {"parameters", m.parameters},
                  {"layers", r.prepared.model.layers}};
    j["training"] = {{"trainable_parameters", m.trainable_parameters}, {"trainable_tensors", m.trainable_tensors},
                     {"frozen_weight_bytes", m.frozen_weights}, {"weight_bytes", m.weights}, {"master_bytes", m.master},
                     {"gradient_bytes", m.gradients}, {"optimizer_bytes", m.optimizer},
                     {"activation_bytes", m.activations}, {"activation_bytes_per_layer", m.layer.total()},
                     {"logits_bytes", m.logits}, {"total_bytes", m.total}};
  }
  add_breakdown_and_fit(j, r, training_fit_to_json(r.training_fit),
                        [](const GpuVerdict& v) { return training_fit_to_json(v.training_fit); });
  return j;
}

}  // namespace

json report_to_json(const Report& r) {
  json j;
  j["v"] = kRequestVersion;
  j["request"] = request_to_json(r.request);
  if (r.request.mode == Mode::training) return training_report_to_json(r, std::move(j));
  j["model"] = {{"id", r.model_id},
                {"name", r.model_name},
                {"parameters", r.prepared.weights.parameters},
                {"active_parameters", r.prepared.weights.active_parameters},
                {"layers", r.prepared.model.layers},
                {"kv_bytes_per_token", r.memory.kv_bytes_per_token_per_layer *
                                           (r.prepared.full_attention_layers + r.prepared.sliding_layers)},
                {"state_bytes_per_sequence", r.prepared.state_bytes_per_sequence}};
  add_breakdown_and_fit(j, r, fit_to_json(r.fit), [](const GpuVerdict& v) { return fit_to_json(v.fit); });
  if (const EngineParts* engine = engine_parts(r.request.engine); engine) j["engine"] = engine->to_json(r);
  return j;
}

json error_to_json(const Error& e) {
  return {{"v", kRequestVersion}, {"error", {{"id", e.id}, {"field", e.field}, {"message", e.message}}}};
}

namespace {
// What an entry point answers when an exception escaped (see guard_exceptions).
json internal_error_json(const char* what) {
  return error_to_json(make_error("internal", "", std::string("internal error: ") + what));
}
}  // namespace

std::string estimate_json(const std::string& request_text) {
  return guard_exceptions(
      [&]() -> std::string {
        const Catalog& catalog = builtin_catalog();
        if (!builtin_catalog_error().empty()) {
          return error_to_json(make_error("catalog.invalid", "", builtin_catalog_error())).dump();
        }
        auto request = request_from_text(request_text);
        if (!request) return error_to_json(request.error()).dump();
        auto report = estimate(*request, catalog);
        if (!report) return error_to_json(report.error()).dump();
        return report_to_json(*report).dump();
      },
      [](const char* what) { return internal_error_json(what).dump(); });
}

json catalog_to_json(const Catalog& catalog) {
  json models = json::array(), gpus = json::array(), formats = json::array();
  for (const ModelPreset& m : catalog.models) {
    models.push_back({{"id", m.id}, {"name", m.name}, {"family", m.family}, {"hf_repo", m.hf_repo},
                      {"parameters", count_parameters(m.spec)}, {"active_parameters", count_active_parameters(m.spec)},
                      {"published_parameters", m.published_parameters}, {"note", m.note},
                      {"config", write_hf_config(m.spec)}});
  }
  for (const Gpu& g : catalog.gpus) {
    gpus.push_back({{"id", g.id}, {"name", g.name}, {"vendor", g.vendor}, {"segment", g.segment},
                    {"total_bytes", g.total_bytes}, {"usable_bytes", g.usable_bytes()},
                    {"usable_fraction", g.usable_fraction}, {"bandwidth_gbs", g.bandwidth_gbs},
                    {"basis", g.basis}, {"source", g.source}});
  }
  for (const WeightFormat& f : catalog.formats.formats) {
    const StorageType& t = catalog.formats.storage_types[static_cast<size_t>(f.default_type)];
    formats.push_back({{"id", f.id}, {"label", f.label}, {"main_layout", t.id}, {"bytes_per_element", t.bytes_per_element()}});
  }
  return {{"models", models}, {"gpus", gpus}, {"formats", formats},
          {"kv_cache_dtypes", {"f16", "bf16", "f32", "fp8", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"}}};
}

json read_config_fragment_json(const std::string& text, const std::string& name) {
  return guard_exceptions(
      [&] {
        auto read = read_hf_config_text(text, name);
        if (!read) return error_to_json(read.error());
        // The model's own name when the config gives it (transformers writes the repository or
        // folder it was loaded from as _name_or_path): "Qwen2.5-7B-Instruct", not "config.json".
        std::string shown = name;
        const json parsed = parse_json(text);
        if (parsed.is_object() && parsed.contains("_name_or_path") && parsed["_name_or_path"].is_string()) {
          const std::string model = base_name(parsed["_name_or_path"].get<std::string>());
          if (!model.empty()) shown = model;
        }
        json fragment = {{"model", {{"config", write_hf_config(read->spec)}, {"name", shown}}}};
        if (!read->stored_format.empty()) {
          fragment["weights"] = {{"format", read->stored_format}};
          if (read->stored_group_size > 0) fragment["weights"]["group_size"] = read->stored_group_size;
        }
        fragment["assumed"] = read->assumptions;
        return fragment;
      },
      internal_error_json);
}

namespace {

json read_model_file_json_unguarded(const std::string& name, const uint8_t* data, int64_t size, int64_t file_size) {
  const Catalog& catalog = builtin_catalog();
  Request request;
  const ModelFileKind kind = model_file_kind(name);
  Result<ModelFileRead> read =
      make_error("file.unknown_kind", "file", name + ": not a .gguf, .safetensors or config.json file");
  if (kind == ModelFileKind::config) {
    if (file_size > kMaxConfigFileBytes) {
      return error_to_json(make_error("file.too_large", "file", name + ": " + with_thousands(file_size) +
                                                                   " B; a config.json is read up to " +
                                                                   with_thousands(kMaxConfigFileBytes) + " B"));
    }
    return read_config_fragment_json(std::string(reinterpret_cast<const char*>(data), static_cast<size_t>(size)), name);
  }
  if (kind == ModelFileKind::gguf) {
    auto gguf = read_gguf(data, size, name, file_size);
    if (!gguf) return error_to_json(gguf.error());
    // A LoRA adapter (--lora) or a multimodal projector (--mmproj): llama.cpp's settings, as
    // {"llama.cpp": {"lora": [...]}} or {"llama.cpp": {"mmproj": {...}}} to merge into a request.
    if (is_gguf_adapter(*gguf) || is_gguf_mmproj(*gguf)) {
      LlamaCppSettings settings;
      const char* key = is_gguf_adapter(*gguf) ? "lora" : "mmproj";
      if (is_gguf_adapter(*gguf)) {
        auto lora = lora_from_gguf(catalog.formats, *gguf, name);
        if (!lora) return error_to_json(lora.error());
        settings.lora.push_back(std::move(lora).value());
      } else {
        auto mmproj = mmproj_from_gguf(catalog.formats, *gguf, name);
        if (!mmproj) return error_to_json(mmproj.error());
        settings.mmproj = std::move(mmproj).value();
        settings.has_mmproj = true;
      }
      return {{"llama.cpp", {{key, llamacpp_settings_to_json(settings).at(key)}}}};
    }
    read = model_from_gguf(catalog.formats, *gguf, name);
  } else if (kind == ModelFileKind::safetensors) {
    auto file = read_safetensors(data, size, name, file_size);
    if (!file) return error_to_json(file.error());
    read = model_from_safetensors({*file}, nullptr, {name});
  }
  if (!read) return error_to_json(read.error());
  if (auto e = apply_model_file(request, *read)) return error_to_json(*e);
  const json full = request_to_json(request);
  return {{"model", full["model"]}, {"weights", full["weights"]}};
}

}  // namespace

json read_model_file_json(const std::string& name, const uint8_t* data, int64_t size, int64_t file_size) {
  return guard_exceptions([&] { return read_model_file_json_unguarded(name, data, size, file_size); },
                          internal_error_json);
}

json read_model_file_header_json(const std::string& name, int64_t file_size,
                                 const std::function<bool(int64_t, std::vector<uint8_t>&)>& read_prefix) {
  const ModelFileKind kind = model_file_kind(name);
  std::vector<uint8_t> bytes;
  int64_t length = next_header_read(kind, file_size, 0, nullptr, false);
  for (;;) {
    if (!read_prefix(length, bytes)) return error_to_json(make_error("file.unreadable", "file", "cannot read " + name));
    json result = read_model_file_json(name, bytes.data(), static_cast<int64_t>(bytes.size()), file_size);
    const bool runs_on = result.contains("error") && result["error"].value("id", std::string()) == "gguf.truncated";
    const int64_t next = next_header_read(kind, file_size, length, bytes.data(), runs_on);
    if (next == 0) return result;
    length = next;
  }
}

}  // namespace vramfit
