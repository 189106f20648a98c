// SGLang's memory per rank (python/sglang/srt/model_executor/model_runner.py and, since 2026,
// mem_cache/kv_cache_configurator.py): the weights each tensor-parallel rank loads, the pool's
// budget and cell size, the request table, and the defaults server_args.py picks for the GPU.
#include "sglang.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "units.hpp"

namespace vramfit {

namespace {

constexpr double kMiBd = 1048576.0;
constexpr double kGiBd = 1073741824.0;

struct KvDtypeName {
  SglangKvCacheDtype dtype;
  const char* name;
};
constexpr KvDtypeName kKvDtypes[] = {{SglangKvCacheDtype::auto_dtype, "auto"},
                                     {SglangKvCacheDtype::bfloat16, "bfloat16"},
                                     {SglangKvCacheDtype::bfloat16, "bf16"},
                                     {SglangKvCacheDtype::float16, "float16"},
                                     {SglangKvCacheDtype::float16, "fp16"},
                                     {SglangKvCacheDtype::fp8_e4m3, "fp8_e4m3"},
                                     {SglangKvCacheDtype::fp8_e5m2, "fp8_e5m2"}};

// "%.2f" of bytes in GiB, as SGLang's log lines print memory (labelled GB).
std::string gib2(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(bytes) / kGiBd);
  return text;
}

bool version_at_least(const SglangSettings& s, int major, int minor, int patch) {
  if (s.version_major != major) return s.version_major > major;
  if (s.version_minor != minor) return s.version_minor > minor;
  return s.version_patch >= patch;
}

// The KV heads one rank holds (model_config.py ModelConfig.get_num_kv_heads: max(1, total // tp),
// replicated when there are fewer heads than ranks).
int64_t kv_heads_per_rank(const ModelSpec& m, int64_t tp) { return std::max<int64_t>(1, m.kv_heads / tp); }

// One token of the pool on one rank (pool_configurator.py DefaultPoolConfigurator._compute_cell_size;
// model_runner.py profile_max_num_token before it): MHA keeps K and V of each head,
// num_kv_heads x head_dim x layers x 2 x the dtype; MLA one latent of kv_lora_rank +
// qk_rope_head_dim per layer, whole on every rank.
int64_t cell_bytes(const ModelSpec& m, int64_t tp, int64_t kv_bytes) {
  if (m.uses_mla()) return (m.kv_lora_rank + m.qk_rope_head_dim) * m.cached_layers() * kv_bytes;
  return kv_heads_per_rank(m, tp) * m.head_dim * m.cached_layers() * 2 * kv_bytes;
}

}  // namespace

bool parse_sglang_kv_cache_dtype(const std::string& name, SglangKvCacheDtype& out) {
  for (const KvDtypeName& k : kKvDtypes) {
    if (name == k.name) { out = k.dtype; return true; }
  }
  return false;
}

const char* sglang_kv_cache_dtype_name(SglangKvCacheDtype dtype) {
  for (const KvDtypeName& k : kKvDtypes) {
    if (k.dtype == dtype) return k.name;
  }
  return "auto";
}

bool parse_sglang_version(const std::string& text, SglangSettings& out) {
  int parts[3] = {0, 0, 0};
  size_t i = 0;
  int count = 0;
  while (count < 3 && i < text.size() && text[i] >= '0' && text[i] <= '9') {
    int value = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && value < 100000) value = value * 10 + (text[i++] - '0');
    parts[count++] = value;
    if (i < text.size() && text[i] == '.' && count < 3) ++i;
    else break;
  }
  if (count < 2) return false;
  out.version_major = parts[0];
  out.version_minor = parts[1];
  out.version_patch = parts[2];
  return true;
}

std::string sglang_fraction_text(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", fraction);
  return text;
}

std::string sglang_version_text(const SglangSettings& s) {
  return std::to_string(s.version_major) + "." + std::to_string(s.version_minor) + "." + std::to_string(s.version_patch);
}

SglangDefaults sglang_defaults(const SglangSettings& s, int64_t gpu_total_bytes) {
  SglangDefaults d;
  const double gpu_mem = static_cast<double>(gpu_total_bytes) / kMiBd;  // MiB, as get_device_memory_capacity
  const bool small_tp = s.tp_size < 4;
  // server_args.py _handle_gpu_memory_settings: chunked_prefill_size and cuda_graph_max_bs by the
  // GPU's memory (T4/4080 under 20 GB, A10/4090/5090 under 35, A100 40GB/L40 under 60,
  // H100/A100 80GB under 90, H20/H200 under 160, B200/MI300 above).
  int64_t chunk = 16384, graphs = 512;
  if (gpu_mem < 20 * 1024) chunk = 2048, graphs = 8;
  else if (gpu_mem < 35 * 1024) chunk = 2048, graphs = small_tp ? 24 : 80;
  else if (gpu_mem < 60 * 1024) chunk = 4096, graphs = small_tp ? 32 : 160;
  else if (gpu_mem < 160 * 1024) chunk = 8192, graphs = small_tp ? 256 : 512;
  d.chunked_prefill_size = s.chunked_prefill_size != 0 ? s.chunked_prefill_size : chunk;
  d.cuda_graph_max_bs = s.cuda_graph_max_bs > 0 ? s.cuda_graph_max_bs : graphs;
  // The default fraction. Before PR #10975 (merged October 2025; vramfit takes 0.5.4 as the first
  // release with it) a table by tensor-parallel size (server_args.py __post_init__: 0.88 on one
  // GPU, 0.87 from 2, 0.85 from 4, 0.81 from 8, 0.79 from 16). From it, the memory kept out in
  // MiB: 512 of constant metadata, 1.5 per token of the larger of the chunk and 2048 (the
  // prefill's activations), 2 per CUDA-graph batch size, 1024 per 8 ranks; at least 10 GiB on a
  // GPU over 60 GiB; the fraction is what is left, rounded to three decimals.
  d.heuristic = version_at_least(s, 0, 5, 4);
  if (!d.heuristic) {
    d.mem_fraction_static = s.tp_size >= 16 ? 0.79 : s.tp_size >= 8 ? 0.81 : s.tp_size >= 4 ? 0.85 : s.tp_size >= 2 ? 0.87 : 0.88;
    return d;
  }
  const int64_t chunk_tokens = d.chunked_prefill_size > 0 ? d.chunked_prefill_size : s.max_prefill_tokens;
  double reserved = 512 + static_cast<double>(std::max<int64_t>(chunk_tokens, 2048)) * 1.5 +
                    static_cast<double>(d.cuda_graph_max_bs) * 2 + static_cast<double>(s.tp_size) / 8 * 1024;
  if (gpu_mem > 60 * 1024) reserved = std::max(reserved, 10.0 * 1024);
  d.reserved_mib = reserved;
  d.mem_fraction_static = std::round((gpu_mem - reserved) / gpu_mem * 1000) / 1000;
  return d;
}

SglangMemory sglang_memory(const ModelSpec& m, int64_t dtype_bytes, const SglangSettings& s,
                           const std::vector<int64_t>& gpu_total_bytes, int64_t weights_per_rank, int64_t overhead_before_loading,
                           int64_t overhead_distributed) {
  SglangMemory r;
  const int64_t smallest = *std::min_element(gpu_total_bytes.begin(), gpu_total_bytes.end());
  r.defaults = sglang_defaults(s, smallest);
  r.mem_fraction_static = s.mem_fraction_static > 0 ? s.mem_fraction_static : r.defaults.mem_fraction_static;
  r.context_length = s.context_length > 0 ? s.context_length : m.usable_context_tokens();
  const int64_t kv_bytes = s.kv_cache_dtype == SglangKvCacheDtype::auto_dtype ? dtype_bytes
                           : s.kv_cache_dtype == SglangKvCacheDtype::bfloat16 || s.kv_cache_dtype == SglangKvCacheDtype::float16 ? 2
                                                                                                                                 : 1;
  r.cell_bytes = cell_bytes(m, s.tp_size, kv_bytes);
  // Each rank: the free memory before loading (min_per_gpu_memory: the CUDA context and, with
  // several ranks, NCCL's and the custom all-reduce's buffers gone), its shard, what is left.
  // With several ranks get_available_gpu_memory(distributed=True) takes the smallest of each.
  int64_t before = INT64_MAX, after = INT64_MAX;
  for (int64_t total : gpu_total_bytes) {
    SglangRank k;
    k.total = total;
    k.before_loading = total - overhead_before_loading - (s.tp_size > 1 ? overhead_distributed : 0);
    k.weights = weights_per_rank;
    k.after_loading = k.before_loading - weights_per_rank;
    before = std::min(before, k.before_loading);
    after = std::min(after, k.after_loading);
    r.ranks.push_back(k);
  }
  // KVCacheConfigurator._profile_available_bytes: rest = available - pre_model_load x (1 - fraction).
  r.reserve = static_cast<int64_t>(static_cast<double>(before) * (1.0 - r.mem_fraction_static));
  r.rest = after - r.reserve;
  r.profiled_tokens = r.rest > 0 && r.cell_bytes > 0 ? r.rest / r.cell_bytes : 0;
  // _apply_token_constraints and the configurator: whole pages, at most --max-total-tokens.
  int64_t tokens = r.profiled_tokens / s.page_size * s.page_size;
  if (s.max_total_tokens > 0) tokens = std::min(tokens, s.max_total_tokens);
  r.max_total_num_tokens = tokens;
  r.kv_bytes = tokens * r.cell_bytes;
  // _resolve_max_num_reqs: per dp worker, min(max(min(tokens / context_len x 512, 4096), 2048),
  // tokens / 2), or the one given (divided over the replicas), at most tokens / 2.
  if (r.context_length > 0) {
    const int64_t estimated = std::max<int64_t>(std::min<int64_t>(static_cast<int64_t>(static_cast<double>(tokens) / static_cast<double>(r.context_length) * 512), 4096), 2048);
    r.max_running_requests = s.max_running_requests > 0 ? std::min(s.max_running_requests / s.dp_size, tokens / 2)
                                                        : std::min(estimated, tokens / 2);
  }
  // ReqToTokenPool (mem_cache/memory_pool.py): an int32 row of context_len + 4 slots per request.
  r.req_to_token_bytes = r.max_running_requests * (r.context_length + 4) * 4;
  // scheduler.py: max_req_input_len = min(context_len - 1, max_total_num_tokens - 1).
  r.max_req_input_len = std::max<int64_t>(0, std::min(r.context_length, tokens) - 1);
  // The smallest fraction whose pool holds one request of context_len tokens: rest >= context_len
  // x cell, so before x fraction >= weights + context_len x cell; rounded up to three decimals.
  const double needed = static_cast<double>(before - after) + static_cast<double>(r.context_length) * static_cast<double>(r.cell_bytes);
  const double fraction = std::ceil(needed / static_cast<double>(before) * 1000) / 1000;
  r.min_fraction_for_context = fraction <= 1.0 ? fraction : 0.0;
  r.fits = r.rest > 0 && tokens > 0;
  if (after < 0) {
    // The shard itself does not fit: loading stops with torch's out-of-memory error.
    r.refusal = "CUDA out of memory while loading the weights: this rank's shard (" + gib2(weights_per_rank) +
                " GiB) is larger than the memory free before loading (" + gib2(before) + " GiB)";
  } else if (r.rest <= 0) {
    // kv_cache_configurator.py _profile_available_bytes: the smallest fraction that leaves the
    // pool a byte, rounded up to three decimals, and to four as SGLang computes it.
    const double minimum = 1.0 - static_cast<double>(after) / static_cast<double>(before);
    char suggested[32], viable[32];
    std::snprintf(suggested, sizeof suggested, "%.3f", std::ceil(minimum * 1000) / 1000);
    std::snprintf(viable, sizeof viable, "%.4f", minimum);
    r.refusal = "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=" +
                sglang_fraction_text(r.mem_fraction_static) + ". Raise --mem-fraction-static above " + suggested +
                " (minimum viable = 1 - available/pre = " + viable + ")";
  } else if (tokens <= 0) {
    r.refusal = "Not enough memory. Please try to increase --mem-fraction-static.";
  } else if (s.mem_fraction_static > r.defaults.mem_fraction_static) {
    // Above SGLang's own default the reserve is smaller than the one SGLang sizes for the prefill's
    // activations and the CUDA graphs on this GPU (server_args.py _handle_gpu_memory_settings).
    r.warning = "--mem-fraction-static " + sglang_fraction_text(r.mem_fraction_static) + " is above SGLang's default " +
                sglang_fraction_text(r.defaults.mem_fraction_static) + " for this GPU: " + gib2(r.reserve - r.req_to_token_bytes) +
                " GiB is left beside the pool and the request table for the prefill's activations and the CUDA graphs, "
                "less than SGLang keeps out by default; a long prefill or the graph capture may run out of memory";
  }
  return r;
}

std::vector<std::string> sglang_log_lines(const SglangMemory& r, const SglangSettings& s, bool mla) {
  std::vector<std::string> lines;
  const SglangRank& k = r.ranks.front();
  lines.push_back("Load weight begin. avail mem=" + gib2(k.before_loading) + " GB");
  lines.push_back("Load weight end. avail mem=" + gib2(k.after_loading) + " GB, mem usage=" + gib2(k.weights) + " GB.");
  if (!r.fits) return lines;
  lines.push_back("KV Cache is allocated. #tokens: " + std::to_string(r.max_total_num_tokens) +
                  (mla ? ", KV size: " + gib2(r.kv_bytes) + " GB" : ", K size: " + gib2(r.kv_bytes / 2) + " GB, V size: " + gib2(r.kv_bytes / 2) + " GB"));
  lines.push_back("max_total_num_tokens=" + std::to_string(r.max_total_num_tokens) +
                  ", chunked_prefill_size=" + std::to_string(r.defaults.chunked_prefill_size) +
                  ", max_prefill_tokens=" + std::to_string(s.max_prefill_tokens) +
                  ", max_running_requests=" + std::to_string(r.max_running_requests) + ", context_len=" + std::to_string(r.context_length));
  return lines;
}

}  // namespace vramfit
