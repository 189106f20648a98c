// The largest value that fits, for the frameworks' fit searches (report/framework_*.cpp).
#pragma once
#include <cstdint>

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

}  // namespace vramfit
