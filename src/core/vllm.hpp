// vLLM's memory, rank by rank, the way vLLM (the V1 engine, and V0's worker before it) sizes
// it: each rank loads its shard of the weights, runs one profiling forward pass and one
// sampler pass, and gives what is left of gpu_memory_utilization x the CUDA-visible total to
// the KV cache (vllm/v1/worker/gpu_worker.py, Worker.determine_available_memory).
//
// Every term follows vLLM's source (vllm-project/vllm, 2025-2026 main); the file and function
// are named beside each. Settings carry vLLM's own flag names and meanings.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "formats.hpp"
#include "model_spec.hpp"

namespace vramfit {

// --kv-cache-dtype (vllm/config/cache.py CacheDType): auto is the model's dtype.
enum class VllmKvCacheDtype { auto_dtype, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2 };
const char* vllm_kv_cache_dtype_name(VllmKvCacheDtype dtype);
bool parse_vllm_kv_cache_dtype(const std::string& name, VllmKvCacheDtype& out);

enum class VllmLoraDtype : uint8_t { auto_dtype, float16, bfloat16, float32 };
const char* vllm_lora_dtype_name(VllmLoraDtype dtype);
bool parse_vllm_lora_dtype(const std::string& name, VllmLoraDtype& out);

// --speculative-config's method (vllm/config/speculative.py SpeculativeMethod): what proposes the
// tokens the model verifies. draft_model: a second, smaller model (Request::draft), loaded beside
// the model, its attention layers in the same KV pool; ngram and suffix: from the tokens already
// seen, on the CPU (no GPU memory); eagle, eagle3 and mtp: draft heads (not modelled yet).
enum class VllmSpeculativeMethod : uint8_t { none, draft_model, ngram, suffix, eagle, eagle3, mtp };
const char* vllm_speculative_method_name(VllmSpeculativeMethod method);
bool parse_vllm_speculative_method(const std::string& name, VllmSpeculativeMethod& out);

struct VllmSettings {
  double gpu_memory_utilization = 0.9;  // --gpu-memory-utilization: the share of the CUDA-visible total vLLM may use
  int64_t max_model_len = 0;            // --max-model-len: tokens per request (0: the model's max_position_embeddings)
  int64_t max_num_seqs = 0;             // --max-num-seqs (0: vLLM's default for the GPU, below)
  int64_t max_num_batched_tokens = 0;   // --max-num-batched-tokens (0: vLLM's default for the GPU)
  int64_t tensor_parallel_size = 1;     // --tensor-parallel-size / -tp
  int64_t pipeline_parallel_size = 1;   // --pipeline-parallel-size / -pp
  VllmKvCacheDtype kv_cache_dtype = VllmKvCacheDtype::auto_dtype;  // --kv-cache-dtype
  bool enforce_eager = false;           // --enforce-eager: no CUDA graphs
  bool disable_hybrid_kv_cache_manager = false;  // --disable-hybrid-kv-cache-manager: every layer in one KV group
  int64_t block_size = 16;              // --block-size: tokens per KV block
  // LoRA (vllm/config/lora.py LoRAConfig): with --enable-lora every linear layer keeps
  // --max-loras slots of --max-lora-rank A and B matrices in the model's dtype (lora_dtype auto);
  // --fully-sharded-loras splits them over the tensor-parallel ranks as well.
  bool enable_lora = false;             // --enable-lora
  int64_t max_loras = 1;                // --max-loras: adapters in one batch (GPU slots)
  int64_t max_lora_rank = 16;           // --max-lora-rank
  bool fully_sharded_loras = false;     // --fully-sharded-loras
  VllmLoraDtype lora_dtype = VllmLoraDtype::auto_dtype;  // --lora-dtype: auto (the model's), float16, bfloat16, float32
  // --speculative-config '{"method": ..., "num_speculative_tokens": N, "model": ...}' (its model is Request::draft).
  VllmSpeculativeMethod speculative_method = VllmSpeculativeMethod::none;
  int64_t num_speculative_tokens = 0;
  // Not a flag: the vLLM release (`vllm --version`). vLLM's profiling changed across releases
  // (VllmGeneration below); the default is the newest one measured.
  int version_major = 0, version_minor = 19, version_patch = 0;
};

// "0.19.0", "0.6.6.post1", "0.11": false when not major.minor[.patch][suffix].
bool parse_vllm_version(const std::string& text, VllmSettings& out);
std::string vllm_version_text(const VllmSettings& settings);  // "0.19.0"

// What changed across vLLM releases that moves memory. Each term names its source; the
// constants marked "measured" are medians of public logs (validation/engines/vllm.json), not
// derived from code, and are reported as assumptions.
struct VllmGeneration {
  bool v0 = false;             // before 0.8: the V0 engine (worker.py), no batch defaults by GPU
  bool sorting_sampler = true; // before 0.11: the profiled sampler sorts the whole vocabulary
  bool hybrid_kv = false;      // from 0.10: sliding-window and full-attention layers in separate KV groups
  int64_t non_torch = 0;       // non-torch memory growing during profiling, one GPU (measured)
  int64_t non_torch_tp = 0;    // the same with tensor parallelism (measured: NCCL and all-reduce buffers)
  int64_t non_torch_pp = 0;    // the same with pipeline parallelism only (measured)
  int64_t cuda_graphs = 0;     // CUDA graphs captured after the KV cache (measured)
  int64_t context_tp_extra = 0;  // CUDA memory taken before vLLM's first snapshot beyond the CUDA context, with TP (measured)
};
VllmGeneration vllm_generation(int major, int minor);

// vLLM's defaults for `vllm serve` (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults):
// GPUs of 70 GiB or more other than the A100 get 8192 batched tokens and 1024 sequences;
// the others 2048 and 256.
// V0 (before 0.8) took 256 sequences and max(max_model_len, 2048) batched tokens without
// chunked prefill, which it turned on above 32K tokens with 2048 (vllm/config.py SchedulerConfig).
int64_t vllm_default_max_num_batched_tokens(const VllmGeneration& g, int64_t gpu_total_bytes, const std::string& gpu_name,
                                            int64_t max_model_len);
int64_t vllm_default_max_num_seqs(const VllmGeneration& g, int64_t gpu_total_bytes, const std::string& gpu_name);

// One rank (one GPU): what vLLM logs for it.
struct VllmRank {
  int64_t tp_rank = 0, pp_rank = 0;
  int64_t layers = 0;            // decoder layers of its pipeline stage
  bool first_stage = false, last_stage = false;
  int64_t total = 0;             // the CUDA-visible total (torch.cuda.mem_get_info()[1])
  int64_t requested = 0;         // total x gpu_memory_utilization
  int64_t weights = 0;           // "Model loading took X GiB" (LoRA slots included)
  int64_t lora = 0;              // of these, the LoRA slots (--enable-lora)
  int64_t draft_weights = 0;     // of these, the draft model's shard (--speculative-config draft_model)
  int64_t draft_page_bytes = 0;  // one block of all the draft's layers (in the same pool as the model's)
  int64_t forward_peak = 0;      // the profiling forward pass over max_num_batched_tokens tokens
  int64_t sampler_peak = 0;      // the sampler pass over max_num_seqs rows of logits (last stage)
  int64_t activation_peak = 0;   // "PyTorch activation peak memory": the larger of the two
  int64_t non_torch = 0;         // "non_torch_memory" (measured median, VllmGeneration)
  int64_t kv_available = 0;      // "Available KV cache memory": requested - weights - peak - non_torch
  int64_t kv_page_bytes = 0;     // one block of one layer
  int64_t blocks = 0;            // blocks this rank could hold (of each layer in a KV group)
  int64_t layers_per_group = 0;  // KV cache groups (hybrid models: one attention type each, padded to this size)
  int64_t full_groups = 0, sliding_groups = 0;
  int64_t cuda_graphs = 0;       // CUDA graphs, captured after the KV cache, outside the budget (measured median)
  int64_t outside_budget = 0;    // CUDA context and CUDA graphs: memory vLLM uses beyond `requested`
  bool starts = false;           // this rank's worker passes vLLM's checks (init_device, the KV cache's)
  bool beyond_total = false;     // it starts, but the budget and what is used beyond it exceed the GPU (a warning)
  int64_t uses() const { return requested + outside_budget; }  // what vLLM holds on the GPU once started
  int64_t non_kv() const { return weights + activation_peak + non_torch; }
};

struct VllmMemory {
  std::vector<VllmRank> ranks;     // tp x pp, pipeline stage by stage
  int64_t max_model_len = 0;
  int64_t max_num_seqs = 0;
  int64_t max_num_batched_tokens = 0;
  int64_t sampler_rows = 0;        // min(max_num_seqs, max_num_batched_tokens)
  int64_t num_gpu_blocks = 0;      // the fewest blocks any rank holds (every rank keeps the same blocks)
  int64_t kv_tokens = 0;           // "GPU KV cache size: N tokens" = num_gpu_blocks x block_size
  double max_concurrency = 0;      // "Maximum concurrency for L tokens per request: Yx"
  int64_t longest_model_len = 0;   // the longest --max-model-len one request could have in this pool
  double min_utilization = 0;      // the smallest --gpu-memory-utilization that serves one max_model_len request
  VllmGeneration generation;
  bool fits = false;               // vLLM starts: a request of max_model_len fits and nothing is over a GPU
  std::string refusal;             // why not, in vLLM's words where it has them
  std::string warning;             // a risk that rests on assumed sizes (CUDA graphs beyond the budget)
};

// The draft model of --speculative-config's draft_model method (vllm/v1/spec_decode/draft_model.py
// DraftModelProposer.load_model: get_model with the draft's config, inside the same
// DeviceMemoryProfiler as the model; its Attention layers join the static forward context, so the
// KV cache gives them blocks beside the model's). Sharded over the same tensor-parallel ranks.
struct VllmDraft {
  const ModelSpec* model = nullptr;      // nullptr: no draft model
  const WeightFormat* format = nullptr;
  int64_t group_size = 0;
  double weights_scale = 1.0;            // a file's own bytes over the format's
};

// gpu_total_bytes: the CUDA-visible total of each GPU, rank order (tp ranks of stage 0, then
// stage 1, ...); its size must be tp x pp. weights_scale: 1, or the ratio of a file's own
// bytes to what the format gives (weights read from a checkpoint).
// outside_bytes: the CUDA context and library memory taken before vLLM's first snapshot.
// gpu_names: for vLLM's batch defaults (the A100 is an exception).
VllmMemory vllm_memory(const FormatTables& tables, const ModelSpec& model, const WeightFormat& format, int64_t group_size,
                       int64_t activation_bytes, const VllmSettings& settings, const std::vector<int64_t>& gpu_total_bytes,
                       const std::vector<std::string>& gpu_names, double weights_scale, int64_t outside_bytes,
                       const VllmDraft& draft = {});

// The weights one tensor-parallel rank loads, as vLLM's parallel layers split them
// (vllm/model_executor/layers/linear.py, vocab_parallel_embedding.py: the vocabulary padded to
// 64 and split, column- and row-parallel linears split, K and V heads split or replicated, the
// rest whole). SGLang's layers are the same code (python/sglang/srt/layers/linear.py,
// vocab_parallel_embedding.py), so its ranks load the same shard.
int64_t tensor_parallel_rank_weights(const FormatTables& tables, const ModelSpec& model, const WeightFormat& format,
                                     int64_t group_size, int64_t tensor_parallel_size);

// An upper bound on decode speed for one sequence: each rank reads its weights and KV cache
// once per token at its bandwidth; tensor-parallel ranks read in parallel, pipeline stages in
// turn. No run decodes faster.
struct VllmDecodeBound {
  double tokens_per_second_empty = 0;
  double tokens_per_second_full = 0;  // with max_model_len tokens of KV to read
};
VllmDecodeBound vllm_decode_bound(const ModelSpec& model, const VllmMemory& memory, const VllmSettings& settings,
                                  const std::vector<double>& gpu_bandwidth_gbs);

// An upper bound on prompt processing speed for one prompt of max_model_len tokens: each
// token costs its layers' FLOPs (prefill_flops_per_token), split evenly over a stage's
// tensor-parallel ranks at the slowest rank's dense BF16 throughput, the stages in turn.
// 0 when a rank's throughput is not in the catalog.
double vllm_prefill_bound(const ModelSpec& model, const VllmMemory& memory, const VllmSettings& settings,
                          const std::vector<double>& gpu_bf16_tflops);

// The lines vLLM prints, to compare with a log.
std::vector<std::string> vllm_log_lines(const VllmMemory& memory, const VllmSettings& settings);

}  // namespace vramfit
