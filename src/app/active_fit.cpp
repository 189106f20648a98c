#include "active_fit.hpp"

namespace vramfit {

namespace {
ActiveFit from_fit(const FitResult& f) { return {f.fits, f.capacity_bytes, f.required_bytes, f.headroom_bytes, f.min_gpus}; }
ActiveFit from_fit(const TrainingFit& f) { return {f.fits, f.capacity_bytes, f.required_bytes, f.headroom_bytes, f.min_gpus}; }
}  // namespace

AppMode app_mode(const Request& request) {
  if (request.mode == Mode::inference) return AppMode::inference;
  return request.has_network ? AppMode::layer_list : AppMode::training;
}

void set_app_mode(Request& request, AppMode mode) {
  request.mode = mode == AppMode::inference ? Mode::inference : Mode::training;
  request.has_network = mode == AppMode::layer_list;
}

ActiveFit active_fit(const Request& request, const Report& report) {
  return request.mode == Mode::training ? from_fit(report.training_fit) : from_fit(report.fit);
}

ActiveFit active_fit(const Request& request, const GpuVerdict& verdict) {
  return request.mode == Mode::training ? from_fit(verdict.training_fit) : from_fit(verdict.fit);
}

}  // namespace vramfit
