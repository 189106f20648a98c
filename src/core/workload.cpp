#include "workload.hpp"

#include <algorithm>

namespace vramfit {

Workload workload_of(const Request& r) {
  if (r.mode == Mode::training) {
    if (r.has_network) return {0, r.network_settings.batch};
    return {r.training.sequence_length, r.training.micro_batch};
  }
  switch (r.engine) {
    case Engine::llamacpp: {
      // -c holds every -np sequence's cells (llama_context: n_ctx_seq = n_ctx / n_seq_max).
      const int64_t parallel = std::max<int64_t>(1, r.llamacpp.parallel);
      return {r.llamacpp.ctx_size > 0 ? r.llamacpp.ctx_size / parallel : 0, parallel};
    }
    case Engine::vllm: return {r.vllm.max_model_len, r.vllm.max_num_seqs};
    case Engine::transformers:
      return {r.transformers.input_length + r.transformers.max_new_tokens, r.transformers.batch_size};
    default: return {r.settings.context_tokens, r.settings.concurrent_sequences};
  }
}

void carry_workload(Request& r, const Workload& w) {
  const int64_t context = w.context_tokens, sequences = w.sequences;
  if (r.mode == Mode::training) {
    if (r.has_network) {
      if (sequences > 0) r.network_settings.batch = sequences;
      return;
    }
    if (context > 0) r.training.sequence_length = context;
    if (sequences > 0) r.training.micro_batch = sequences;
    return;
  }
  switch (r.engine) {
    case Engine::llamacpp: {
      LlamaCppSettings& l = r.llamacpp;
      if (sequences > 0) l.parallel = sequences;
      if (context > 0) l.ctx_size = context * std::max<int64_t>(1, l.parallel);
      break;
    }
    case Engine::vllm:
      if (context > 0) r.vllm.max_model_len = context;
      // One sequence is no cap a user sets on vLLM: its scheduler's default stays (0).
      if (sequences > 1 || (sequences == 1 && r.vllm.max_num_seqs > 0)) r.vllm.max_num_seqs = sequences;
      break;
    case Engine::transformers: {
      TransformersSettings& t = r.transformers;
      if (sequences > 0) t.batch_size = sequences;
      if (context > 0) {
        // The prompt and the new tokens share the context; the new tokens as set, while they leave a prompt.
        if (t.max_new_tokens >= context) t.max_new_tokens = std::max<int64_t>(1, context / 2);
        t.input_length = context - t.max_new_tokens;
      }
      break;
    }
    default:
      if (context > 0) r.settings.context_tokens = context;
      if (sequences > 0) r.settings.concurrent_sequences = sequences;
      break;
  }
}

std::string gguf_weights_for_llamacpp(Request& request) {
  if (request.engine != Engine::llamacpp || request.has_stored_weights || request.weight_format.rfind("gguf-", 0) == 0) return "";
  const std::string& f = request.weight_format;
  const char* gguf = f == "bf16"                                                  ? "gguf-bf16"
                     : f == "fp16" || f == "fp32"                                 ? "gguf-f16"
                     : f == "mxfp4-moe"                                           ? "gguf-mxfp4_moe"
                     : f == "int4" || f.find("int4") != std::string::npos || f.rfind("bnb-nf4", 0) == 0 || f == "bnb-fp4"
                         ? "gguf-q4_k_m"
                         : "gguf-q8_0";  // fp8, int8, gptq-int8, bnb-int8 and any other
  std::string replaced = f;
  request.weight_format = gguf;
  return replaced;
}

}  // namespace vramfit
