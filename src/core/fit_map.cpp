#include "fit_map.hpp"

#include <algorithm>
#include <cmath>

namespace vramfit {

int64_t FitMapAxis::value(int cell) const noexcept {
  if (cells <= 1 || max <= min) return min;
  const double t = (static_cast<double>(cell) + 0.5) / static_cast<double>(cells);
  const double v = std::exp2(std::log2(static_cast<double>(min)) +
                             t * (std::log2(static_cast<double>(max)) - std::log2(static_cast<double>(min))));
  return std::min(max, std::max(min, static_cast<int64_t>(std::llround(v))));
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
