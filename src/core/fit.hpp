// Will it fit? Verdict and headroom for one GPU type and count, the longest context and the
// most concurrent sequences that fit, and the fewest GPUs (tensor parallel) that hold it.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "inference.hpp"

namespace vramfit {

struct Gpu {
  std::string id;            // "rtx-4090"
  std::string name;          // "GeForce RTX 4090"
  std::string vendor, segment, basis, source;
  int64_t total_bytes = 0;   // as the driver reports it
  int64_t cuda_total_bytes = 0;  // as CUDA reports it (cudaMemGetInfo total; vLLM's total_gpu_memory), 0: not known
  // Dense tensor throughputs (datasheets, no sparsity), 0: not known.
  double bf16_tflops = 0;        // BF16/FP16 with FP32 accumulation (PyTorch's GEMMs)
  double fp16_acc_tflops = 0;    // FP16 with FP16 accumulation (llama.cpp's F16 GEMMs)
  double fp8_tflops = 0;
  double int8_tops = 0;          // llama.cpp's quantized (MMQ) kernels, INT8 weights and activations
  double usable_fraction = 1.0;  // unified memory: the share the GPU may wire
  double bandwidth_gbs = 0;
  // A unified-memory share is a whole number of 16 KiB pages (Apple silicon's page): Metal's
  // recommendedMaxWorkingSetSize for 2/3 of 32 GB prints as 21845.34 MiB, which only the page
  // count rounded up gives (validation/devices/metal_working_set.json).
  int64_t usable_bytes() const {
    if (usable_fraction >= 1.0) return total_bytes;
    constexpr int64_t kPage = 16384;
    const auto pages = static_cast<int64_t>(std::ceil(static_cast<double>(total_bytes) * usable_fraction / kPage));
    return pages * kPage;
  }
  // What CUDA reports as the total (cuda_total_bytes) where the catalog has it, else the usable total.
  int64_t cuda_visible_bytes() const { return cuda_total_bytes > 0 ? cuda_total_bytes : usable_bytes(); }
};

// The device an engine's headroom is said for: the one with the least memory left, left(i) for
// i in [0, count) (std::nullopt: not counted, e.g. the host); the first of equals; count when
// none is counted.
template <class Left>
size_t fullest_device(size_t count, Left left) {
  size_t fullest = count;
  int64_t least = 0;
  for (size_t i = 0; i < count; ++i) {
    const std::optional<int64_t> l = left(i);
    if (l && (fullest == count || *l < least)) {
      fullest = i;
      least = *l;
    }
  }
  return fullest;
}

struct FitResult {
  bool fits = false;
  int64_t capacity_bytes = 0;     // per GPU, usable
  int64_t required_bytes = 0;     // per GPU
  int64_t headroom_bytes = 0;     // capacity - required (negative: short by that much)
  int64_t max_context_tokens = 0; // 0: not even one token fits
  bool context_limited_by_model = false;  // the model's trained context is the limit, not memory
  int64_t max_concurrent_sequences = 0;
  int64_t min_gpus = 0;           // fewest GPUs (tensor parallel) that fit; 0: none up to the limit
};

constexpr int64_t kMaxGpuCount = 64;
// Search limits, also the request's limits: with them no byte count can overflow int64.
constexpr int64_t kMaxSequences = int64_t(1) << 16;
constexpr int64_t kMaxContextTokens = int64_t(1) << 24;

// Largest x in [lo, hi] with fits(x), given fits is monotone (true then false) and fits(lo).
// Tries the affine interpolation first (exact in one step when memory is linear in x) and
// bisects otherwise; used for context and sequences.
template <class Fits, class Memory>
int64_t largest_fitting(int64_t lo, int64_t hi, int64_t capacity, Fits fits, Memory memory);

// A GPU count is usable for tensor parallelism when it divides the attention heads.
bool valid_tensor_parallel(const ModelSpec& model, int64_t gpus);

FitResult fit_inference(const PreparedInference& prepared, const InferenceSettings& settings,
                        int64_t capacity_bytes);

// ---- implementation of the template ----
template <class Fits, class Memory>
int64_t largest_fitting(int64_t lo, int64_t hi, int64_t capacity, Fits fits, Memory memory) {
  // Invariant: fits(lo), !fits(hi + 1) is not known; check hi first.
  if (fits(hi)) return hi;
  int64_t bad = hi;  // !fits(bad)
  for (int step = 0; bad - lo > 1; ++step) {
    int64_t guess;
    const int64_t m_lo = memory(lo), m_bad = memory(bad);
    if (step < 4 && m_bad > m_lo) {
      // Affine interpolation: where memory(x) reaches capacity.
      const double slope = static_cast<double>(m_bad - m_lo) / static_cast<double>(bad - lo);
      guess = lo + static_cast<int64_t>(static_cast<double>(capacity - m_lo) / slope);
      guess = std::min(std::max(guess, lo + 1), bad - 1);
      // Probe the guess and its neighbour: one step settles an affine memory curve.
      if (fits(guess)) {
        lo = guess;
        if (guess + 1 < bad && !fits(guess + 1)) return guess;
      } else {
        bad = guess;
      }
      continue;
    }
    guess = lo + (bad - lo) / 2;
    if (fits(guess)) lo = guess; else bad = guess;
  }
  return lo;
}

}  // namespace vramfit
