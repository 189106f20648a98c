#include "vllm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "units.hpp"

namespace vramfit {

namespace {

int64_t gib_hundredths(int64_t hundredths) { return hundredths * kGiB / 100; }
const char* const kKvCacheDtypes[] = {"auto", "bfloat16", "float16", "fp8", "fp8_e4m3", "fp8_e5m2"};
}  // namespace

const char* const kSpeculativeMethods[] = {"none", "draft_model", "ngram", "suffix", "eagle", "eagle3", "mtp"};
const char* vllm_speculative_method_name(VllmSpeculativeMethod method) { return kSpeculativeMethods[static_cast<int>(method)]; }
bool parse_vllm_speculative_method(const std::string& name, VllmSpeculativeMethod& out) {
  for (int i = 0; i < 7; ++i) {
    if (name == kSpeculativeMethods[i]) { out = static_cast<VllmSpeculativeMethod>(i); return true; }
  }
  // The MTP modules of each family (MTPModelTypes) are one method here.
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "_mtp") == 0) { out = VllmSpeculativeMethod::mtp; return true; }
  return false;
}

const char* const kLoraDtypes[] = {"auto", "float16", "bfloat16", "float32"};
const char* vllm_lora_dtype_name(VllmLoraDtype dtype) { return kLoraDtypes[static_cast<int>(dtype)]; }
bool parse_vllm_lora_dtype(const std::string& name, VllmLoraDtype& out) {
  for (int i = 0; i < 4; ++i) {
    if (name == kLoraDtypes[i]) { out = static_cast<VllmLoraDtype>(i); return true; }
  }
  return false;
}

const char* vllm_kv_cache_dtype_name(VllmKvCacheDtype dtype) { return kKvCacheDtypes[static_cast<int>(dtype)]; }

bool parse_vllm_kv_cache_dtype(const std::string& name, VllmKvCacheDtype& out) {
  for (int i = 0; i < 6; ++i) {
    if (name == kKvCacheDtypes[i]) {
      out = static_cast<VllmKvCacheDtype>(i);
      return true;
    }
  }
  return false;
}

bool parse_vllm_version(const std::string& version, VllmSettings& s) {
  int parts[3] = {0, 0, 0};
  size_t i = 0;
  int count = 0;
  while (count < 3) {
    const size_t start = i;
    int value = 0;
    while (i < version.size() && version[i] >= '0' && version[i] <= '9' && i - start < 4) value = value * 10 + (version[i++] - '0');
    if (i == start) break;
    parts[count++] = value;
    if (i < version.size() && version[i] == '.' && i + 1 < version.size() && version[i + 1] >= '0' && version[i + 1] <= '9') ++i;
    else break;
  }
  // major.minor at least; then the end, or a suffix such as .post1, rc1, +cu124, .dev3
  if (count < 2 || (i < version.size() && version[i] != '.' && version[i] != 'r' && version[i] != '+')) return false;
  s.version_major = parts[0];
  s.version_minor = parts[1];
  s.version_patch = parts[2];
  return true;
}

std::string vllm_version_text(const VllmSettings& s) {
  return std::to_string(s.version_major) + "." + std::to_string(s.version_minor) + "." + std::to_string(s.version_patch);
}

VllmGeneration vllm_generation(int major, int minor) {
  VllmGeneration g;
  const bool at_least_0_11 = major > 0 || minor >= 11;
  g.v0 = major == 0 && minor < 8;
  g.sorting_sampler = !at_least_0_11;
  g.hybrid_kv = major > 0 || minor >= 10;
  // Non-torch memory growing during profiling, CUDA graphs, and what TP adds before vLLM's
  // first snapshot: not derivable from vLLM's code (CUDA modules, NCCL, cuBLAS, drivers), so
  // the medians of the public logs. 0.11 and later: the 59 runs of vLLM 0.19.0 on H100 in
  // llm-d-incubation/llm-d-planner (accuracy/results/v0.19.0/results_raw.csv): non-torch
  // 0.25 GiB on one GPU (42 runs, 0.24-0.46), 2.09 GiB with TP (15 runs, 2.06-2.21: NCCL and
  // the all-reduce buffers vLLM pre-allocates in the profiling run), 0.07 GiB with PP only
  // (2 runs); CUDA graphs 0.91 GiB (0.51-1.85); the first snapshot 1.51 GiB with TP or PP
  // against 0.51 GiB alone. Before 0.11: the V0-era logs in validation/engines/vllm.json,
  // non-torch 0.05 GiB (0.01-0.12), CUDA graphs 0.15 GiB (0.13-0.17).
  if (at_least_0_11) {
    g.non_torch = gib_hundredths(25);
    g.non_torch_tp = gib_hundredths(209);
    g.non_torch_pp = gib_hundredths(7);
    g.cuda_graphs = gib_hundredths(91);
    g.context_tp_extra = gib_hundredths(100);
  } else {
    g.non_torch = g.non_torch_tp = g.non_torch_pp = gib_hundredths(5);
    g.cuda_graphs = gib_hundredths(15);
    g.context_tp_extra = 0;
  }
  return g;
}

namespace {
bool large_gpu(int64_t gpu_total_bytes, const std::string& gpu_name) {
  std::string lower = gpu_name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return gpu_total_bytes >= 70 * kGiB && lower.find("a100") == std::string::npos;
}
}  // namespace

int64_t vllm_default_max_num_batched_tokens(const VllmGeneration& g, int64_t gpu_total_bytes, const std::string& gpu_name,
                                            int64_t max_model_len) {
  if (g.v0) return max_model_len > 32768 ? 2048 : std::max<int64_t>(max_model_len, 2048);
  return large_gpu(gpu_total_bytes, gpu_name) ? 8192 : 2048;
}

int64_t vllm_default_max_num_seqs(const VllmGeneration& g, int64_t gpu_total_bytes, const std::string& gpu_name) {
  if (g.v0) return 256;
  return large_gpu(gpu_total_bytes, gpu_name) ? 1024 : 256;
}

VllmDecodeBound vllm_decode_bound(const ModelSpec& m, const VllmMemory& memory, const VllmSettings& s,
                                  const std::vector<double>& bandwidth) {
  VllmDecodeBound d;
  const int64_t all = count_parameters(m);
  const double active = all > 0 ? static_cast<double>(count_active_parameters(m)) / static_cast<double>(all) : 1.0;
  double empty = 0, full = 0;  // seconds per token: the stages in turn, each as slow as its slowest rank
  for (int64_t st = 0; st < std::max<int64_t>(1, s.pipeline_parallel_size); ++st) {
    double stage_empty = 0, stage_full = 0;
    for (size_t i = 0; i < memory.ranks.size(); ++i) {
      const VllmRank& k = memory.ranks[i];
      if (k.pp_rank != st) continue;
      const double bw = (i < bandwidth.size() ? bandwidth[i] : 0.0) * 1e9;
      if (bw <= 0) return d;
      const double weights = static_cast<double>(k.weights) * active;
      const double kv = static_cast<double>(k.kv_page_bytes) *
                        static_cast<double>(k.full_groups * ceil_div(memory.max_model_len, s.block_size) +
                                            k.sliding_groups * ceil_div(std::min(m.sliding_window, memory.max_model_len), s.block_size)) *
                        static_cast<double>(k.layers_per_group);
      stage_empty = std::max(stage_empty, weights / bw);
      stage_full = std::max(stage_full, (weights + kv) / bw);
    }
    empty += stage_empty;
    full += stage_full;
  }
  d.tokens_per_second_empty = empty > 0 ? 1.0 / empty : 0;
  d.tokens_per_second_full = full > 0 ? 1.0 / full : 0;
  return d;
}

double vllm_prefill_bound(const ModelSpec& m, const VllmMemory& memory, const VllmSettings& s,
                          const std::vector<double>& tflops) {
  const std::vector<int64_t> active = active_parameters_per_layer(m);
  const int64_t tp = std::max<int64_t>(1, s.tensor_parallel_size);
  double seconds = 0;
  int64_t layer = 0;
  for (size_t i = 0; i < memory.ranks.size(); i += static_cast<size_t>(tp)) {  // the first rank of each stage
    const double flops = prefill_flops_per_token(m, active, layer, memory.ranks[i].layers, memory.max_model_len);
    layer += memory.ranks[i].layers;
    double slowest = 0;
    for (size_t r = i; r < i + static_cast<size_t>(tp) && r < memory.ranks.size(); ++r) {
      const double t = r < tflops.size() ? tflops[r] : 0.0;
      if (t <= 0) return 0;
      slowest = slowest == 0 ? t : std::min(slowest, t);
    }
    seconds += flops / static_cast<double>(tp) / (slowest * 1e12);
  }
  return seconds > 0 ? 1.0 / seconds : 0;
}

std::vector<std::string> vllm_log_lines(const VllmMemory& r, const VllmSettings& s) {
  std::vector<std::string> lines;
  if (r.ranks.empty()) return lines;
  const double gib = static_cast<double>(kGiB);
  char line[512];
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const VllmRank& k = r.ranks[i];
    const std::string who = r.ranks.size() > 1 ? "(rank " + std::to_string(i) + ") " : "";
    std::snprintf(line, sizeof line, "%sModel loading took %.4f GiB memory", who.c_str(), static_cast<double>(k.weights) / gib);
    lines.push_back(line);
    std::snprintf(line, sizeof line,
                  "%sthe current vLLM instance can use total_gpu_memory (%.2fGiB) x gpu_memory_utilization (%.2f) = %.2fGiB",
                  who.c_str(), static_cast<double>(k.total) / gib, s.gpu_memory_utilization, static_cast<double>(k.requested) / gib);
    lines.push_back(line);
    std::snprintf(line, sizeof line,
                  "%smodel weights take %.2fGiB; non_torch_memory takes %.2fGiB; PyTorch activation peak memory takes %.2fGiB; "
                  "the rest of the memory reserved for KV Cache is %.2fGiB.",
                  who.c_str(), static_cast<double>(k.weights) / gib, static_cast<double>(k.non_torch) / gib,
                  static_cast<double>(k.activation_peak) / gib, static_cast<double>(k.kv_available) / gib);
    lines.push_back(line);
    std::snprintf(line, sizeof line, "%sAvailable KV cache memory: %.2f GiB", who.c_str(), static_cast<double>(k.kv_available) / gib);
    lines.push_back(line);
  }
  lines.push_back("GPU KV cache size: " + with_thousands(r.kv_tokens) + " tokens");
  std::snprintf(line, sizeof line, "Maximum concurrency for %s tokens per request: %.2fx", with_thousands(r.max_model_len).c_str(),
                r.max_concurrency);
  lines.push_back(line);
  return lines;
}

}  // namespace vramfit
