// SGLang's memory per GPU, the way its server sizes it: each tensor-parallel rank loads its
// shard of the weights, and the KV pool gets what is free after loading less the share of the
// memory free before loading that --mem-fraction-static leaves out
// (python/sglang/srt/model_executor/model_runner.py, profile_max_num_token; since 2026
// mem_cache/kv_cache_configurator.py, KVCacheConfigurator._profile_available_bytes):
//
//   rest = available_after_loading - available_before_loading x (1 - mem_fraction_static)
//   max_total_num_tokens = rest / cell_size, rounded down to whole pages
//
// Every term names its source; settings carry SGLang's own flag names and meanings. The CLI's
// engine for now (vramfit infer --engine sglang): the page's module has no room for it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "formats.hpp"
#include "model_spec.hpp"

namespace vramfit {

// --kv-cache-dtype (server_args.py): auto is the model's dtype; fp8_e4m3 and fp8_e5m2 one byte.
enum class SglangKvCacheDtype : uint8_t { auto_dtype, bfloat16, float16, fp8_e4m3, fp8_e5m2 };
bool parse_sglang_kv_cache_dtype(const std::string& name, SglangKvCacheDtype& out);
const char* sglang_kv_cache_dtype_name(SglangKvCacheDtype dtype);

struct SglangSettings {
  double mem_fraction_static = 0;      // --mem-fraction-static (0: SGLang's default, sglang_default_mem_fraction)
  int64_t context_length = 0;          // --context-length (0: the model's max_position_embeddings)
  int64_t max_running_requests = 0;    // --max-running-requests (0: from the pool)
  int64_t max_total_tokens = 0;        // --max-total-tokens: a cap on the pool (0: none)
  int64_t chunked_prefill_size = 0;    // --chunked-prefill-size (0: SGLang's default for the GPU; -1: off)
  int64_t max_prefill_tokens = 16384;  // --max-prefill-tokens
  int64_t cuda_graph_max_bs = 0;       // --cuda-graph-max-bs (0: SGLang's default for the GPU)
  int64_t tp_size = 1;                 // --tp-size / --tp
  int64_t dp_size = 1;                 // --dp-size / --dp: replicas, each on its own tp_size GPUs
  int64_t page_size = 1;               // --page-size: tokens per KV page
  SglangKvCacheDtype kv_cache_dtype = SglangKvCacheDtype::auto_dtype;
  // Not a flag: the release (`python -m sglang.version`). The default --mem-fraction-static
  // changed with it (sglang_default_mem_fraction).
  int version_major = 0, version_minor = 5, version_patch = 16;
};

// "0.5.16", "0.4.3.post2": false when not major.minor[.patch][suffix].
bool parse_sglang_version(const std::string& text, SglangSettings& out);
std::string sglang_version_text(const SglangSettings& settings);
// A fraction as Python prints a float: "0.88", "0.836".
std::string sglang_fraction_text(double fraction);

// SGLang's defaults for the GPU (server_args.py ServerArgs._handle_gpu_memory_settings, from PR
// #10975): gpu_mem is the device's total in MiB (get_device_memory_capacity).
struct SglangDefaults {
  int64_t chunked_prefill_size = 0, cuda_graph_max_bs = 0;
  double reserved_mib = 0;           // the memory SGLang keeps out of the static pool (0 before the heuristic)
  double mem_fraction_static = 0;    // the default fraction
  bool heuristic = true;             // false: the older table by tensor-parallel size
};
SglangDefaults sglang_defaults(const SglangSettings& settings, int64_t gpu_total_bytes);

// One GPU (one tensor-parallel rank): what SGLang logs for it.
struct SglangRank {
  int64_t total = 0;              // the device's total
  int64_t before_loading = 0;     // "Load weight begin. avail mem=": total less the CUDA context and the distributed setup
  int64_t weights = 0;            // "Load weight end. ... mem usage=": this rank's shard
  int64_t after_loading = 0;      // "Load weight end. ... avail mem="
};

struct SglangMemory {
  std::vector<SglangRank> ranks;          // every GPU, rank order: tp_size per replica (--dp replicas hold the same)
  SglangDefaults defaults;                // SGLang's defaults for the smallest GPU
  double mem_fraction_static = 0;         // the fraction used (given or default)
  int64_t context_length = 0;
  int64_t cell_bytes = 0;                 // one token's K and V over all layers on one rank
  int64_t rest = 0;                       // the KV pool's budget (the smallest over the ranks, as SGLang's all-reduce MIN)
  int64_t profiled_tokens = 0;            // rest / cell_bytes
  int64_t max_total_num_tokens = 0;       // page-aligned and capped (--max-total-tokens): "KV Cache is allocated. #tokens"
  int64_t kv_bytes = 0;                   // K and V of the pool on one rank
  int64_t max_running_requests = 0;       // per replica
  int64_t req_to_token_bytes = 0;         // ReqToTokenPool: requests x (context_len + 4) int32
  int64_t reserve = 0;                    // what --mem-fraction-static leaves out: before_loading x (1 - fraction)
  int64_t max_req_input_len = 0;          // the longest prompt the scheduler admits
  double min_fraction_for_context = 0;    // the smallest --mem-fraction-static whose pool holds context_len tokens (0: none does)
  bool fits = false;                      // SGLang starts: the pool holds at least one token
  std::string refusal;                    // why not, in SGLang's words
  std::string warning;                    // a risk (a reserve below SGLang's own estimate)
};

// gpu_total_bytes: each rank's device total, tp_size of them. weights_per_rank: the shard each
// rank loads. overhead_before_loading / overhead_distributed: the CUDA context and the
// distributed setup taken before "Load weight begin" (measured, see the engine's report).
SglangMemory sglang_memory(const ModelSpec& model, int64_t dtype_bytes, const SglangSettings& settings,
                           const std::vector<int64_t>& gpu_total_bytes, int64_t weights_per_rank, int64_t overhead_before_loading,
                           int64_t overhead_distributed);

// The lines SGLang prints, to compare with a log ("Load weight end...", "KV Cache is
// allocated...", "max_total_num_tokens=...").
std::vector<std::string> sglang_log_lines(const SglangMemory& memory, const SglangSettings& settings, bool mla);

}  // namespace vramfit
