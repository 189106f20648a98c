// Shared by the fuzz targets: run what a reader produced through the whole estimator.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "report/estimate.hpp"
#include "catalog/catalog.hpp"
#include "io/model_file.hpp"

namespace vramfit::fuzz {

inline void require(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

// The reader's output through the estimator's arithmetic and its explanation (the fit
// searches are left to the request fuzzer, to keep each input fast).
inline void estimate_model_file(const ModelFileRead& read) {
  Request request;
  if (apply_model_file(request, read)) return;  // the derived config is not a model: an error value
  if (request.custom_model.layers > 512) return;
  const FormatTables& tables = builtin_catalog().formats;
  auto weights = stored_weights_summary(tables, request.stored_weights);
  if (!weights) return;
  const StorageType& kv = tables.storage_types[static_cast<size_t>(tables.find_storage("f16"))];
  const PreparedInference prepared = prepare_inference(request.custom_model, *weights, 2, kv);
  const InferenceMemory memory = inference_memory(prepared, request.settings);
  require(memory.total >= memory.weights, "total below the weights");
  (void)explain_inference(tables, prepared, request.settings, memory);
}

}  // namespace vramfit::fuzz
