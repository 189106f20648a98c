// The fit map: memory over two workload axes (inference: context length x concurrent
// sequences; training: micro-batch x sequence length), as a fraction of one GPU's capacity.
// The app colours it with shaders/fit_map.frag and draws the capacity contour (fraction 1).
#pragma once
#include <cstdint>
#include <vector>

#include "inference.hpp"
#include "training.hpp"

namespace vramfit {

struct FitMapAxis {
  int64_t min = 1, max = 1;  // inclusive; cells are spaced evenly in log2 between them
  int cells = 64;
  int64_t value(int cell) const noexcept;     // the integer workload at a cell's centre
  int64_t value_at(double t) const noexcept;  // ... at a fraction t of the axis (0: min, 1: max)
  double exact_at(double t) const noexcept;   // the log-spaced value there, before rounding to a count
  double position(double value) const noexcept;  // where a workload lies on the axis (0 to 1 between min and max)
};

struct FitMap {
  FitMapAxis x, y;
  int64_t capacity_bytes = 0;
  std::vector<float> fraction;   // row-major, y rows of x cells: total / capacity
  float at(int col, int row) const { return fraction[static_cast<size_t>(row) * static_cast<size_t>(x.cells) + static_cast<size_t>(col)]; }
};

// x: context tokens, y: concurrent sequences. Uses the arithmetic-only inference_memory().
FitMap inference_fit_map(const PreparedInference& prepared, const InferenceSettings& settings, int64_t capacity_bytes,
                         FitMapAxis context, FitMapAxis sequences);

// x: sequence length, y: micro-batch. Recomputes only the items that depend on them.
FitMap training_fit_map(const ModelSpec& model, const TrainingSettings& settings, const TrainingMemory& base,
                        int64_t capacity_bytes, FitMapAxis sequence, FitMapAxis micro_batch);

}  // namespace vramfit
