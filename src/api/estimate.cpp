#include "estimate.hpp"

#include "io/hf_config.hpp"
#include "io/model_file.hpp"
#include "io/request_json.hpp"

namespace vramfit {

using nlohmann::json;

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
    w.by_type.push_back(WeightsByType{type, row.elements, row.tensors, row.bytes});
    w.bytes = sat_add(w.bytes, row.bytes);
  }
  return w;
}

Result<Report> estimate(const Request& request, const Catalog& catalog) {
  Report report;
  report.request = request;
  const InferenceSettings& settings = request.settings;

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

  if (request.gpu_capacity_bytes > 0) {
    report.gpu.id = "custom";
    report.gpu.name = "Custom GPU";
    report.gpu.total_bytes = request.gpu_capacity_bytes;
  } else {
    const Gpu* gpu = catalog.find_gpu(request.gpu_id);
    if (!gpu) {
      return make_error("request.unknown_gpu", "gpu.id", "gpu.id: no GPU '" + request.gpu_id + "' (vramfit gpus lists them)");
    }
    report.gpu = *gpu;
  }

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
  }
  report.fit = fit_inference(report.prepared, settings, report.gpu.usable_bytes());
  if (request.compare_gpus) {
    for (const Gpu& gpu : catalog.gpus) {
      report.gpus.push_back(GpuVerdict{&gpu, fit_inference(report.prepared, settings, gpu.usable_bytes())});
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

json report_to_json(const Report& r) {
  json j;
  j["v"] = kRequestVersion;
  j["request"] = request_to_json(r.request);
  j["model"] = {{"id", r.model_id},
                {"name", r.model_name},
                {"parameters", r.prepared.weights.parameters},
                {"active_parameters", r.prepared.weights.active_parameters},
                {"layers", r.prepared.model.layers},
                {"kv_bytes_per_token", r.memory.kv_bytes_per_token_per_layer *
                                           (r.prepared.full_attention_layers + r.prepared.sliding_layers)}};
  j["breakdown"] = breakdown_to_json(r.breakdown);
  json fit = fit_to_json(r.fit);
  fit["gpu"] = {{"id", r.gpu.id}, {"name", r.gpu.name}, {"total_bytes", r.gpu.total_bytes},
                {"usable_bytes", r.gpu.usable_bytes()}};
  fit["gpu_count"] = r.request.settings.gpu_count;
  j["fit"] = fit;
  if (r.request.compare_gpus) {
    j["gpus"] = json::array();
    for (const GpuVerdict& v : r.gpus) {
      json g = fit_to_json(v.fit);
      g["id"] = v.gpu->id;
      g["name"] = v.gpu->name;
      j["gpus"].push_back(g);
    }
  }
  return j;
}

json error_to_json(const Error& e) {
  return {{"v", kRequestVersion}, {"error", {{"id", e.id}, {"field", e.field}, {"message", e.message}}}};
}

std::string estimate_json(const std::string& request_text) {
  try {
    const Catalog& catalog = builtin_catalog();
    if (!builtin_catalog_error().empty()) {
      return error_to_json(make_error("catalog.invalid", "", builtin_catalog_error())).dump();
    }
    auto request = request_from_text(request_text);
    if (!request) return error_to_json(request.error()).dump();
    auto report = estimate(*request, catalog);
    if (!report) return error_to_json(report.error()).dump();
    return report_to_json(*report).dump();
  } catch (const std::exception& e) {
    return error_to_json(make_error("internal", "", std::string("internal error: ") + e.what())).dump();
  }
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

json read_model_file_json(const std::string& kind, const uint8_t* data, int64_t size, int64_t file_size,
                          const std::string& name) {
  try {
    const Catalog& catalog = builtin_catalog();
    Request request;
    if (kind == "config") {
      auto read = read_hf_config_text(std::string(reinterpret_cast<const char*>(data), static_cast<size_t>(size)), name);
      if (!read) return error_to_json(read.error());
      json fragment = {{"model", {{"config", write_hf_config(read->spec)}, {"name", name}}}};
      if (!read->stored_format.empty()) {
        fragment["weights"] = {{"format", read->stored_format}};
        if (read->stored_group_size > 0) fragment["weights"]["group_size"] = read->stored_group_size;
      }
      fragment["assumed"] = read->assumptions;
      return fragment;
    }
    Result<ModelFileRead> read = make_error("file.unknown_kind", "kind", "unknown file kind '" + kind + "'");
    if (kind == "gguf") {
      auto gguf = read_gguf(data, size, name, file_size);
      if (!gguf) return error_to_json(gguf.error());
      read = model_from_gguf(catalog.formats, *gguf, name);
    } else if (kind == "safetensors") {
      auto file = read_safetensors(data, size, name, file_size);
      if (!file) return error_to_json(file.error());
      read = model_from_safetensors({*file}, nullptr, name);
    }
    if (!read) return error_to_json(read.error());
    if (auto e = apply_model_file(request, *read)) return error_to_json(*e);
    const json full = request_to_json(request);
    return {{"model", full["model"]}, {"weights", full["weights"]}};
  } catch (const std::exception& e) {
    return error_to_json(make_error("internal", "", std::string("internal error: ") + e.what()));
  }
}

}  // namespace vramfit
