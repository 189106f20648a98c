// The largest value that fits, for the frameworks' fit searches (report/framework_*.cpp).
#pragma once
#include <cstdint>

#include "core/training.hpp"
#include "report/estimate.hpp"

namespace vramfit {

// Largest multiple of `step` in [step, limit] for which `fits` holds, 0 if none; `fits` must be
// monotone (more micro-batch or sequence: more memory).
template <class Fits>
int64_t largest_fitting(int64_t step, int64_t limit, Fits fits) {
  int64_t lo = 0, hi = limit / step;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid * step)) lo = mid;
    else hi = mid - 1;
  }
  return lo * step;
}

// A framework's peak with the runtime and the margin added, as every training verdict has them.
inline int64_t with_runtime(int64_t peak, const TrainingSettings& t) {
  return with_training_margin(sat_add(peak, t.runtime_bytes), t.margin_fraction);
}

// The fit of a framework whose every GPU holds the same (a single-device recipe, DDP): `required`
// against `capacity`, and the largest batch and sequence whose peak fits. peak_with_batch(b) and
// peak_with_sequence(n) give the peak in bytes, or a negative number where there is no answer.
template <class PeakWithBatch, class PeakWithSequence>
TrainingFit one_gpu_training_fit(const TrainingSettings& t, int64_t required, int64_t capacity, PeakWithBatch peak_with_batch,
                                 PeakWithSequence peak_with_sequence) {
  TrainingFit fit;
  fit.capacity_bytes = capacity;
  fit.required_bytes = required;
  fit.headroom_bytes = capacity - required;
  fit.fits = required <= capacity;
  auto fits = [&](int64_t peak) { return peak >= 0 && with_runtime(peak, t) <= capacity; };
  fit.max_batch = largest_fitting(1, kMaxMicroBatch, [&](int64_t b) { return fits(peak_with_batch(b)); });
  fit.max_sequence_length = largest_fitting(1, kMaxTrainingSequence, [&](int64_t n) { return fits(peak_with_sequence(n)); });
  fit.min_gpus = fit.fits ? 1 : 0;
  return fit;
}

}  // namespace vramfit
