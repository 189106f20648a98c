#include "report/engine_common.hpp"

namespace vramfit {

// Each device's value of a Gpu field, in device order.
std::vector<double> per_device(const std::vector<Gpu>& devices, double Gpu::*field) {
  std::vector<double> values;
  for (const Gpu& gpu : devices) values.push_back(field ? gpu.*field : 0.0);
  return values;
}

// The weights' main storage type: the format's, or the type holding most of a file's bytes.
std::string main_weight_type(const Request& request, const Catalog& catalog, const WeightFormat* format) {
  if (format) return catalog.formats.storage_types[static_cast<size_t>(format->default_type)].id;
  std::string type;
  int64_t most = -1;
  for (const StoredWeights::Row& row : request.stored_weights.by_type) {
    if (row.bytes > most) {
      most = row.bytes;
      type = row.type;
    }
  }
  return type;
}

// The GPUs in device order: the request's list, else `count` x the request's GPU.
std::optional<Error> resolve_devices(const Request& request, const Catalog& catalog, int64_t count, const Gpu& gpu_given,
                                     EngineReport& report) {
  if (request.gpu_ids.empty()) {
    report.devices.assign(static_cast<size_t>(count), gpu_given);
    return std::nullopt;
  }
  for (size_t i = 0; i < request.gpu_ids.size(); ++i) {
    const Gpu* gpu = catalog.find_gpu(request.gpu_ids[i]);
    if (!gpu) {
      return make_error("request.unknown_gpu", "gpus[" + std::to_string(i) + "]",
                        "gpus[" + std::to_string(i) + "]: no GPU '" + request.gpu_ids[i] + "' (vramfit gpus lists them)");
    }
    report.devices.push_back(*gpu);
  }
  return std::nullopt;
}

ShardedWeightShapes sharded_weight_shapes(const Catalog& catalog, const WeightFormat* format, const ModelSpec& model,
                                          int64_t file_bytes) {
  if (format) return {format, 1.0};
  const WeightFormat* bf16 = catalog.formats.find_format("bf16");
  const int64_t as_bf16 = summarize_weights(catalog.formats, *bf16, model, 0).bytes;
  return {bf16, as_bf16 > 0 ? static_cast<double>(file_bytes) / static_cast<double>(as_bf16) : 1.0};
}

// The draft model of speculative decoding, estimated as a model of its own (its preset, config
// or file, in its own weight format) with the engine's GPU; an error names the draft's field.
Result<Report> estimate_draft(const Request& request, const Catalog& catalog) {
  Request d = *request.draft;
  d.mode = Mode::inference;
  d.engine = Engine::generic;
  d.draft.reset();
  d.gpu_id = request.gpu_id;
  d.gpu_capacity_bytes = request.gpu_capacity_bytes;
  auto draft = estimate(d, catalog);
  if (!draft) {
    Error e = draft.error();
    e.field = "draft." + e.field;
    e.message = "draft." + e.message;
    return e;
  }
  return draft;
}

std::optional<Error> read_gpu_ids(const json& request, Request& into) {
  if (!request.contains("gpus")) return std::nullopt;
  const json& ids = request.at("gpus");
  if (!ids.is_array()) return make_error("request.bad_type", "gpus", "gpus: expected a list of GPU ids");
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string field = "gpus[" + std::to_string(i) + "]";
    if (!ids[i].is_string()) return make_error("request.bad_type", field, field + ": expected a GPU id");
    into.gpu_ids.push_back(ids[i].get<std::string>());
  }
  return std::nullopt;
}

}  // namespace vramfit
