#include "active_fit.hpp"

#include "core/workload.hpp"

namespace vramfit {

namespace {
int64_t gpu_count(const Request& r) { return r.has_network ? 1 : r.settings.gpu_count; }
ActiveFit from_fit(const FitResult& f, int64_t gpus) {
  return {f.fits, f.capacity_bytes, f.required_bytes, f.headroom_bytes, f.min_gpus, 0, gpus};
}
ActiveFit from_fit(const TrainingFit& f, int64_t gpus) {
  return {f.fits, f.capacity_bytes, f.required_bytes, f.headroom_bytes, f.min_gpus, f.min_gpus_zero3, gpus};
}
}  // namespace

AppMode app_mode(const Request& request) {
  if (request.mode == Mode::inference) return AppMode::inference;
  return request.has_network ? AppMode::layer_list : AppMode::training;
}

void set_app_mode(Request& request, AppMode mode) {
  // The workload (tokens per sequence, sequences at once) carries into the mode picked.
  const Workload workload = workload_of(request);
  request.mode = mode == AppMode::inference ? Mode::inference : Mode::training;
  request.has_network = mode == AppMode::layer_list;
  carry_workload(request, workload);
}

ActiveFit active_fit(const Request& request, const Report& report) {
  return request.mode == Mode::training ? from_fit(report.training_fit, gpu_count(request))
                                        : from_fit(report.fit, gpu_count(request));
}

ActiveFit active_fit(const Request& request, const GpuVerdict& verdict) {
  return request.mode == Mode::training ? from_fit(verdict.training_fit, gpu_count(request))
                                        : from_fit(verdict.fit, gpu_count(request));
}

}  // namespace vramfit
