// The workload a user sets once — tokens per sequence and sequences at once — read from and
// written into whichever settings answer it: vramfit's own model (context, sequences), each
// engine's flags under their own meanings (llama.cpp: -c is the cells of all -np sequences
// together; vLLM: --max-model-len, --max-num-seqs; Transformers: input_length + max_new_tokens,
// batch_size), training (sequence length, micro-batch) or a layer list (batch). Picking another
// engine or mode carries it, so the answer changes because the engine does, not the workload.
#pragma once
#include <cstdint>
#include <string>

#include "request.hpp"

namespace vramfit {

struct Workload {
  int64_t context_tokens = 0;  // tokens per sequence; 0: not set where it was read (the model's own)
  int64_t sequences = 0;       // sequences at once; 0: not set (the engine's default)
};

// The workload of the request's current mode and engine.
Workload workload_of(const Request& request);

// Writes it into the request's current mode and engine's settings (what is 0 is left as it is).
void carry_workload(Request& request, const Workload& workload);

// llama.cpp loads GGUF files: under it, a checkpoint format (picked before the engine, or in a
// link) becomes the GGUF of the same precision: BF16 -> GGUF BF16; FP16, FP32 -> GGUF F16; 8-bit
// -> GGUF Q8_0; 4-bit -> GGUF Q4_K_M; MXFP4 (MoE) -> GGUF MXFP4_MOE. Returns the format it
// replaced, or "" when nothing changed (another engine, a GGUF format, a file's own layout).
std::string gguf_weights_for_llamacpp(Request& request);

}  // namespace vramfit
