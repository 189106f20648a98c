// What the engines' reports share: the GPUs in device order, each device's rate or bandwidth,
// the weights' main storage type, and the draft model estimated as a model of its own. Each
// engine's report is a file of its own (engine_llamacpp.cpp, engine_vllm.cpp,
// engine_transformers.cpp) giving its EngineParts.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/llamacpp.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"

namespace vramfit {

// A tensor rate of the GPU catalog (TFLOPS or TOPS, 0: not known) and its name.
struct TensorRate {
  double Gpu::*rate = nullptr;  // nullptr: none in the catalog for these weights
  const char* name = "";
};

// Each device's value of a Gpu field, in device order (0 where `field` is null).
std::vector<double> per_device(const std::vector<Gpu>& devices, double Gpu::*field);

// The weights' main storage type: the format's, or the type holding most of a file's bytes.
std::string main_weight_type(const Request& request, const Catalog& catalog, const WeightFormat* format);

// A request JSON's "gpus" (a list of GPU ids) into the request, for the engines whose requests
// are read apart from request_from_json (SGLang, Ollama); an error names the entry.
std::optional<Error> read_gpu_ids(const json& request, Request& into);

// The GPUs in device order: the request's list, else `count` x the request's GPU.
std::optional<Error> resolve_devices(const Request& request, const Catalog& catalog, int64_t count, const Gpu& gpu_given,
                                     EngineReport& report);

// The weight shapes a tensor-parallel engine (vLLM, SGLang) shards: the format's, or for a
// checkpoint read from its file (no format), bf16's scaled by the file's own bytes (its tensors
// are the format's, in its own types).
struct ShardedWeightShapes {
  const WeightFormat* format = nullptr;
  double scale = 1.0;
};
ShardedWeightShapes sharded_weight_shapes(const Catalog& catalog, const WeightFormat* format, const ModelSpec& model,
                                          int64_t file_bytes);

// The draft model of speculative decoding, estimated as a model of its own (its preset, config
// or file, in its own weight format) with the engine's GPU; an error names the draft's field.
Result<Report> estimate_draft(const Request& request, const Catalog& catalog);

// A model's weights where llama.cpp places them: a GGUF file's own bytes by layer, or a gguf-*
// format's (engine_llamacpp.cpp; Ollama's runner is llama.cpp). `prefix` names the model in errors.
Result<LlamaCppWeights> llamacpp_placed_weights(const Request& request, const Catalog& catalog, const ModelSpec& model,
                                                const std::string& prefix);

extern const EngineParts kLlamaCppParts;
extern const EngineParts kVllmParts;
extern const EngineParts kTransformersParts;

}  // namespace vramfit
