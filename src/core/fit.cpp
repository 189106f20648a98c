#include "fit.hpp"

#include <algorithm>

namespace vramfit {

bool valid_tensor_parallel(const ModelSpec& model, int64_t gpus) {
  if (gpus == 1) return true;
  if (model.parameters_only > 0 && model.attention_heads <= 0) return true;
  return model.attention_heads % gpus == 0 &&
         (model.uses_mla() || model.kv_heads % gpus == 0 || gpus % model.kv_heads == 0);
}

FitResult fit_inference(const PreparedInference& p, const InferenceSettings& s, int64_t capacity) {
  FitResult r;
  r.capacity_bytes = capacity;
  r.required_bytes = inference_memory(p, s).total;
  r.headroom_bytes = capacity - r.required_bytes;
  r.fits = r.required_bytes <= capacity;

  // Longest context at the requested number of sequences (memory grows with context).
  InferenceSettings probe = s;
  auto memory_at_context = [&](int64_t ctx) {
    probe.context_tokens = ctx;
    return inference_memory(p, probe).total;
  };
  auto context_fits = [&](int64_t ctx) { return memory_at_context(ctx) <= capacity; };
  const int64_t model_context = p.model.usable_context_tokens();
  const int64_t context_limit = model_context > 0 ? std::min(model_context, kMaxContextTokens) : kMaxContextTokens;
  if (context_fits(1)) {
    r.max_context_tokens = largest_fitting(1, context_limit, capacity, context_fits, memory_at_context);
    r.context_limited_by_model = model_context > 0 && r.max_context_tokens == context_limit;
  }

  // Most sequences at the requested context.
  probe = s;
  auto memory_at_sequences = [&](int64_t seqs) {
    probe.concurrent_sequences = seqs;
    return inference_memory(p, probe).total;
  };
  auto sequences_fit = [&](int64_t seqs) { return memory_at_sequences(seqs) <= capacity; };
  if (sequences_fit(1)) {
    r.max_concurrent_sequences = largest_fitting(1, kMaxSequences, capacity, sequences_fit, memory_at_sequences);
  }

  // Fewest GPUs of this kind with tensor parallelism.
  probe = s;
  for (int64_t gpus = 1; gpus <= kMaxGpuCount; ++gpus) {
    if (!valid_tensor_parallel(p.model, gpus)) continue;
    probe.gpu_count = gpus;
    if (inference_memory(p, probe).total <= capacity) {
      r.min_gpus = gpus;
      break;
    }
  }
  return r;
}

}  // namespace vramfit
