#include "fit_map.hpp"

#include <algorithm>
#include <cmath>

namespace vramfit {

// The axis is log-spaced: min x (max / min)^t. In float (log2f, exp2f): a workload is a whole
// count rounded from it, and the page's module then carries none of double exp2's and log2's
// tables (3.4 KB of its gzip size). Values up to 2^24 convert to float exactly.
double FitMapAxis::exact_at(double t) const noexcept {
  if (max <= min) return static_cast<double>(min);
  const float lo = std::log2(static_cast<float>(min)), hi = std::log2(static_cast<float>(max));
  return std::exp2(lo + static_cast<float>(t) * (hi - lo));
}

int64_t FitMapAxis::value_at(double t) const noexcept {
  const double v = exact_at(t);
  return std::min(max, std::max(min, static_cast<int64_t>(std::llround(v))));
}

int64_t FitMapAxis::value(int cell) const noexcept {
  if (cells <= 1) return min;
  return value_at((static_cast<double>(cell) + 0.5) / static_cast<double>(cells));
}

double FitMapAxis::position(double value) const noexcept {
  if (max <= min) return 0.0;
  const float lo = std::log2(static_cast<float>(min)), hi = std::log2(static_cast<float>(max));
  return (std::log2(static_cast<float>(value)) - lo) / (hi - lo);
}

namespace {
// total(column, x, y) -> bytes for one cell.
template <class Total>
FitMap fill(FitMapAxis x, FitMapAxis y, int64_t capacity, Total total) {
  FitMap map;
  map.x = x;
  map.y = y;
  map.capacity_bytes = capacity;
  map.fraction.resize(static_cast<size_t>(x.cells) * static_cast<size_t>(y.cells));
  const double cap = static_cast<double>(std::max<int64_t>(capacity, 1));
  std::vector<int64_t> xs(static_cast<size_t>(x.cells));  // the axis values once, not per cell
  for (int col = 0; col < x.cells; ++col) xs[static_cast<size_t>(col)] = x.value(col);
  float* out = map.fraction.data();
  for (int row = 0; row < y.cells; ++row) {
    const int64_t yv = y.value(row);
    for (int col = 0; col < x.cells; ++col) *out++ = static_cast<float>(static_cast<double>(total(col, xs[static_cast<size_t>(col)], yv)) / cap);
  }
  return map;
}
}  // namespace

FitMap inference_fit_map(const PreparedInference& prepared, const InferenceSettings& settings, int64_t capacity,
                         FitMapAxis context, FitMapAxis sequences) {
  return fill(context, sequences, capacity, [&](int, int64_t tokens, int64_t seqs) noexcept {
    InferenceSettings s = settings;
    s.context_tokens = tokens;
    s.concurrent_sequences = seqs;
    return inference_memory(prepared, s).total;
  });
}

FitMap training_fit_map(const ModelSpec& model, const TrainingSettings& settings, const TrainingMemory& base,
                        int64_t capacity, FitMapAxis sequence, FitMapAxis micro_batch) {
  // The workload is linear in the micro-batch (training.hpp), so each sequence length's
  // bytes for one sample are computed once and a cell is fixed + batch x that: the same
  // number retotal_training_bytes() gives (tests/test_fit.cpp compares every cell).
  const int64_t fixed = training_fixed_bytes(base);
  std::vector<int64_t> per_sample(static_cast<size_t>(sequence.cells));
  for (int col = 0; col < sequence.cells; ++col) {
    TrainingSettings s = settings;
    s.sequence_length = sequence.value(col);
    s.micro_batch = 1;
    per_sample[static_cast<size_t>(col)] = training_workload_bytes(model, s, base);
  }
  return fill(sequence, micro_batch, capacity, [&](int col, int64_t, int64_t batch) noexcept {
    return with_training_margin(sat_add(fixed, sat_mul(batch, per_sample[static_cast<size_t>(col)])), settings.margin_fraction);
  });
}

}  // namespace vramfit
