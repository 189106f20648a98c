// The engines' parts of the estimate (engine "llama.cpp": core/llamacpp; "vllm": core/vllm;
// "transformers": core/transformers): each engine's placement and its part of the report JSON.
#pragma once
#include <optional>

#include "core/llamacpp.hpp"
#include "core/transformers.hpp"
#include "core/vllm.hpp"
#include "report/estimate.hpp"

namespace vramfit {

// An engine's answer: the GPUs in device (rank) order and the engine's own figures.
struct EngineReport {
  std::vector<Gpu> devices;
  LlamaCppMemory llamacpp;             // engine "llama.cpp": buffers per device, the fit, the decode bound
  LlamaCppFit llamacpp_fit;
  LlamaCppDecodeBound llamacpp_decode;
  LlamaCppPrefillBound llamacpp_prefill;
  std::string prefill_rate;            // which tensor rate the prompt bound uses ("INT8", "FP16 (FP16 accumulate)", ...)
  VllmMemory vllm;                     // engine "vllm": its ranks and KV pool
  VllmDecodeBound vllm_decode;
  double vllm_prefill_tokens_per_second = 0;  // vllm_prefill_bound
  TransformersMemory transformers;     // engine "transformers": each GPU and the host
  TransformersFit transformers_fit;
  double transformers_decode_tokens_per_second = 0;   // transformers_decode_bound
  double transformers_prefill_tokens_per_second = 0;  // transformers_prefill_bound
  std::vector<std::string> assumptions;  // what the engine's estimate assumed
  // Speculative decoding (Request::draft): the draft model, and for llama.cpp its own buffers.
  std::string draft_name;              // empty: no draft model
  int64_t draft_parameters = 0;
  int64_t draft_weight_bytes = 0;
  LlamaCppMemory llamacpp_draft;       // engine "llama.cpp" with -md (per device, beside `llamacpp`)
};

struct EngineParts {
  // Fills report.devices and the engine's part of the report; an error names the field.
  std::optional<Error> (*estimate)(const Request&, const Catalog&, const WeightFormat*, Report&) = nullptr;
  json (*to_json)(const Report&) = nullptr;  // the report's "engine" object
};

// The parts of a request's engine (nullptr for the generic engine).
const EngineParts* engine_parts(Engine engine);

}  // namespace vramfit
