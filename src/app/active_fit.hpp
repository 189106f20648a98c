// What the screen is about, and its verdict in one shape: the app's three modes, and the fit
// of inference or of training seen through one view, so no panel asks which it is.
#pragma once
#include <cstdint>

#include "report/estimate.hpp"

namespace vramfit {

// The three things a person can ask, as the mode buttons name them.
enum class AppMode { inference, training, layer_list };

AppMode app_mode(const Request& request);
// Switches the request to `mode` (a layer list keeps its network; see InputsPanel).
void set_app_mode(Request& request, AppMode mode);

// The verdict of the request's mode on one GPU: inference's FitResult or training's TrainingFit.
struct ActiveFit {
  bool fits = false;
  int64_t capacity_bytes = 0;  // per GPU, usable
  int64_t required_bytes = 0;  // per GPU
  int64_t headroom_bytes = 0;  // negative: short by that much
  int64_t min_gpus = 0;        // fewest GPUs that fit; 0: none up to the limit
  int64_t min_gpus_zero3 = 0;  // training without sharding that does not fit: fewest GPUs with ZeRO-3
  int64_t gpu_count = 1;       // the request's GPUs (tensor parallel, or data parallel)
};

ActiveFit active_fit(const Request& request, const Report& report);      // the chosen GPU
ActiveFit active_fit(const Request& request, const GpuVerdict& verdict);  // one row of Which GPUs fit

}  // namespace vramfit
