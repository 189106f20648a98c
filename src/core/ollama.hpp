// Ollama's own estimate, the one that decides how many layers its llama.cpp runner puts on the
// GPUs, and the line it prints for it ("msg=offload library=cuda layers.requested=-1
// layers.model=33 layers.offload=33 ... memory.required.full=..."). It is Ollama's scheduler,
// not llama.cpp: a model of per-layer bytes, a KV per layer and a compute-graph formula per
// architecture, with a minimum and one spare layer held on each GPU.
//
// Sources, ollama/ollama at v0.12.10 (the last release with this estimator; v0.12.11 sizes by a
// trial allocation, and v0.30 hands placement to llama-server's --fit), and the releases before
// it where a rule changed (OllamaSettings::version_minor):
//   llm/memory.go       estimateGPULayers, pickBestFullFitByLibrary, predictServerFit
//   fs/ggml/ggml.go     GGML.GraphSize, SupportsFlashAttention, SupportsKVCacheType,
//                       KV.OllamaEngineRequired, Tensors.GroupLayers
//   ml/device.go        DeviceInfo.MinimumMemory (457 MiB; Metal 512 MiB)
//   llm/server.go       NewLlamaServer: num_ctx capped at the model's context, num_batch at num_ctx
//   envconfig/config.go OLLAMA_CONTEXT_LENGTH (4096), OLLAMA_NUM_PARALLEL (1), OLLAMA_FLASH_ATTENTION,
//                       OLLAMA_KV_CACHE_TYPE, OLLAMA_GPU_OVERHEAD, OLLAMA_SCHED_SPREAD
//   format/bytes.go     HumanBytes2 (how the line prints bytes)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llamacpp.hpp"
#include "model_spec.hpp"
#include "result.hpp"

namespace vramfit {

struct OllamaSettings {
  int64_t num_ctx = 4096;        // num_ctx (Modelfile / API option; OLLAMA_CONTEXT_LENGTH sets the default, 4096)
  int64_t num_batch = 512;       // num_batch
  int64_t num_gpu = -1;          // num_gpu: layers to offload, -1 = as many as the estimate fits
  // OLLAMA_NUM_PARALLEL: sequences, each with num_ctx of KV; 0 = not set, the release's choice
  // (server/sched.go: 4 if the model fits with it, else 1, before 0.7.0; 2, else 1, before 0.10.0; 1 after).
  int64_t num_parallel = 0;
  std::optional<bool> flash_attention;  // OLLAMA_FLASH_ATTENTION (unset: the model's default, off for these models)
  std::string kv_cache_type;     // OLLAMA_KV_CACHE_TYPE ("", f16, q8_0, q4_0; used only with flash attention)
  int64_t gpu_overhead = 0;      // OLLAMA_GPU_OVERHEAD: bytes kept free on each GPU
  bool sched_spread = false;     // OLLAMA_SCHED_SPREAD: every GPU, not the fewest that hold the model
  // The release (`ollama -v`), 0.minor.patch: the estimator's rules changed at 0.6.1 and 0.6.3 (what
  // the weights fields print) and 0.7.0 (the layers placed from the last down, not the first up).
  int version_minor = 12, version_patch = 10;
  bool before(int minor, int patch) const { return version_minor < minor || (version_minor == minor && version_patch < patch); }
};
std::string ollama_version_text(const OllamaSettings& settings);

// One GPU as Ollama sees it: its library and the memory free when the model is scheduled
// ("memory.available").
struct OllamaGpu {
  std::string library = "cuda";  // "cuda", "rocm" or "metal"
  int64_t free_bytes = 0;
};

// What GraphSize returns: the KV bytes of each layer and the compute graph with every layer on
// the GPU (full) or only some (partial).
struct OllamaGraph {
  std::vector<int64_t> kv;
  int64_t partial = 0, full = 0;
};

// The model as Ollama's estimator reads its GGUF: the architecture name, the attention shape and
// the bytes of each blk.N group and of the output layer.
struct OllamaModel {
  std::string arch;              // general.architecture
  int64_t blocks = 0;            // block_count
  int64_t embedding = 0, heads = 0, heads_kv = 0, key_length = 0, value_length = 0;
  int64_t vocab = 0;             // tokenizer.ggml.tokens
  int64_t context_length = 0;    // the trained context (num_ctx is capped at it)
  bool embedding_model = false;  // <arch>.pooling_type present: no flash attention
  std::vector<int64_t> block_bytes;  // blk.N: every tensor of the layer, experts included
  int64_t output_bytes = 0;      // output_norm + output (token_embd when tied)
};

// The model's facts from its shapes and llama.cpp's per-layer bytes; an error names what
// the release sizes some other way (its own engine's architectures, projectors, MoE graphs,
// recurrent layers) or what the estimate cannot be given.
Result<OllamaModel> ollama_model(const ModelSpec& model, const LlamaCppWeights& weights, const OllamaSettings& settings);

// GGML.GraphSize for `context` tokens per sequence and `batch`.
OllamaGraph ollama_graph_size(const OllamaModel& model, int64_t context, int64_t batch, int64_t parallel,
                              const std::string& kv_cache_type, bool flash_attention);

struct OllamaEstimate {
  std::string library;
  int64_t layers_requested = -1, layers_model = 0, layers_offload = 0;
  std::vector<int64_t> tensor_split;   // layers per GPU of `gpus`
  std::vector<size_t> gpus;            // the GPUs used, indices into the list given
  std::vector<int64_t> available;      // their free memory
  std::vector<int64_t> allocations;    // what the estimate puts on each
  int64_t gpu_overhead = 0;
  int64_t required_full = 0;           // memory.required.full: every layer, wherever it lands
  int64_t required_partial = 0;        // memory.required.partial: on the GPUs (0 when no layer fits)
  int64_t kv = 0;                      // memory.required.kv
  int64_t weights_repeating = 0, weights_nonrepeating = 0;
  int64_t weights_total = 0;           // memory.weights.total as the release prints it
  int64_t graph_full = 0, graph_partial = 0;
  // The settings as Ollama applied them.
  int64_t num_ctx = 0, num_batch = 0, num_parallel = 1;
  bool flash_attention = false;
  std::string kv_cache_type;           // "" = f16
  std::vector<std::string> warnings;   // what Ollama logs about the settings it changed
  bool split_as_list = true;           // layers.split printed as a Go []int ("[4 4 9]", from 0.11.5), else "4,4,9"
  bool fully_loaded() const { return layers_offload >= layers_model; }
};

// estimateGPULayers over the GPUs given (one library), as NewLlamaServer calls it at load.
OllamaEstimate ollama_estimate_gpu_layers(const OllamaModel& model, const OllamaSettings& settings,
                                          const std::vector<OllamaGpu>& gpus);

// The scheduler's choice, then the estimate on it (server/sched.go, llm/memory.go
// pickBestFullFitByLibrary): from 0.11.5 the fewest GPUs, most free memory first, on which every
// layer fits; before it one GPU (the first, most free first, that holds every layer) else all of
// them, for each OLLAMA_NUM_PARALLEL the release tries; with OLLAMA_SCHED_SPREAD all; when nothing
// holds every layer, all of them with one sequence.
OllamaEstimate ollama_schedule(const OllamaModel& model, const OllamaSettings& settings, const std::vector<OllamaGpu>& gpus);

// format.HumanBytes2: "5.4 GiB", "448.0 MiB", "0 B".
std::string ollama_human_bytes(int64_t bytes);

// The "offload" line Ollama logs for the estimate.
std::string ollama_offload_line(const OllamaEstimate& estimate);

// The llama.cpp runner Ollama then starts (runner/llamarunner, llama/llama.go NewContextParams):
// --ctx-size num_ctx x parallel, n_batch num_batch x parallel (n_ubatch stays llama.cpp's 512),
// --n-gpu-layers and --tensor-split from the estimate, its flash attention and cache type.
LlamaCppSettings ollama_runner_settings(const OllamaEstimate& estimate);

}  // namespace vramfit
