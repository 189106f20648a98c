// The one entry point every front end calls: a request in, a report out. The CLI, the
// desktop/web app and the JavaScript API all go through here, so they agree byte for byte.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/json.hpp"

#include "catalog/catalog.hpp"
#include "core/fit.hpp"
#include "core/inference.hpp"
#include "core/request.hpp"
#include "core/result.hpp"

namespace vramfit {

// Training: does one step fit, and how far can the batch / sequence / GPU count go.
struct TrainingFit {
  bool fits = false;
  int64_t capacity_bytes = 0;     // per GPU, usable
  int64_t required_bytes = 0;     // per GPU
  int64_t headroom_bytes = 0;
  int64_t max_batch = 0;          // largest micro-batch (network: batch) that fits; 0: not even 1
  int64_t max_sequence_length = 0;// transformers: longest sequence at this micro-batch; 0: none
  int64_t min_gpus = 0;           // ZeRO/FSDP: fewest GPUs that fit (same sharding); 0: none up to 64
  // Without sharding (DDP every GPU holds everything, so more GPUs do not help): the fewest
  // GPUs that fit with ZeRO-3 instead, when the step does not fit; 0: none up to 64 (or fits).
  int64_t min_gpus_zero3 = 0;
};

struct EngineReport;

struct GpuVerdict {
  const Gpu* gpu = nullptr;
  FitResult fit;
  TrainingFit training_fit;       // mode "training"
};

struct Report {
  Request request;
  std::string model_id;    // preset id, or "custom"
  std::string model_name;
  PreparedInference prepared;
  InferenceMemory memory;
  Breakdown breakdown;
  Gpu gpu;                 // the chosen GPU (catalog entry or custom)
  FitResult fit;
  std::vector<GpuVerdict> gpus;  // every catalog GPU, when request.compare_gpus

  // An engine's answer (request.engine other than generic): report/engines.hpp.
  std::shared_ptr<const EngineReport> engine;

  // mode "training" (request.has_network: network, else training)
  TrainingMemory training;
  NetworkMemory network;
  TrainingFit training_fit;
  MegatronMemory megatron;        // training.framework "megatron": each rank type (report/frameworks.hpp)
};

// Resolves the request against the catalog (preset, format, KV dtype, GPU) and estimates.
Result<Report> estimate(const Request& request, const Catalog& catalog);
// A training request's model and GPU resolved (the report's model, parameter counts and GPU),
// nothing estimated yet: what estimate() and the frameworks' answers start from.
Result<Report> resolve_training(const Request& request, const Catalog& catalog);

// The weights a model file stores, as the estimator's summary (type ids resolved).
Result<WeightsSummary> stored_weights_summary(const FormatTables& tables, const StoredWeights& stored);

// Storage type for a KV cache dtype name ("f16", "fp16", "q8_0", ...), or -1.
int kv_cache_storage_type(const FormatTables& tables, const std::string& dtype);

json breakdown_to_json(const Breakdown& breakdown);
json report_to_json(const Report& report);
json error_to_json(const Error& error);

// Request JSON text in, report (or error) JSON text out. Never throws.
std::string estimate_json(const std::string& request_text);

// A model file's header bytes -> the request fields it gives:
//   {"model": {"config": ..., "name": ...}, "weights": {"format": "as_stored", "stored": ...}}
// or {"error": {...}}. The kind comes from the name's extension (io/header_reads.hpp); for a
// GGUF prefix that ends inside the header the error id is gguf.truncated and the caller reads
// more, as next_header_read() says.
json read_model_file_json(const std::string& name, const uint8_t* data, int64_t size, int64_t file_size);
// The same, reading the file through `read_prefix(length, bytes)` (which puts its first `length`
// bytes in `bytes`, false when it cannot) under the one header-reading policy.
json read_model_file_header_json(const std::string& name, int64_t file_size,
                                 const std::function<bool(int64_t, std::vector<uint8_t>&)>& read_prefix);
// The "config" kind of read_model_file_json() alone: what the app calls for a pasted
// config.json (without linking the GGUF and safetensors readers into the page).
json read_config_fragment_json(const std::string& text, const std::string& name);

// The catalogs as JSON (models, GPUs, weight formats, KV cache dtypes), for front ends
// that build pickers. The same lists `vramfit models/gpus/formats --json` print.
json catalog_to_json(const Catalog& catalog);

}  // namespace vramfit
