#include "networks.hpp"

#include "core/fit.hpp"
#include "core/network.hpp"

namespace vramfit {

namespace {

TrainingFit fit_network(const Network& net, const NetworkSettings& settings, int64_t capacity) {
  TrainingFit f;
  f.capacity_bytes = capacity;
  auto total = [&](int64_t batch) {
    NetworkSettings s = settings;
    s.batch = batch;
    auto m = network_memory(net, s);
    return m ? m->total : kByteCeiling;
  };
  f.required_bytes = total(settings.batch);
  f.headroom_bytes = capacity - f.required_bytes;
  f.fits = f.headroom_bytes >= 0;
  auto fits = [&](int64_t b) { return total(b) <= capacity; };
  f.max_batch = fits(1) ? largest_fitting(1, kMaxNetworkBatch, capacity, fits, total) : 0;
  f.min_gpus = f.fits ? 1 : 0;
  return f;
}

}  // namespace

Result<Report> estimate_network_training(Report report, const Catalog& catalog) {
  const Request& request = report.request;
  auto memory = network_memory(request.network, request.network_settings);
  if (!memory) return memory.error();
  report.model_id = "network";
  report.model_name = request.network.name.empty() ? "Network" : request.network.name;
  report.network = *memory;
  report.breakdown = explain_network(request.network, request.network_settings, report.network);
  report.training_fit = fit_network(request.network, request.network_settings, report.gpu.usable_bytes());
  if (request.compare_gpus) {
    for (const Gpu& gpu : catalog.gpus) {
      GpuVerdict v{&gpu, {}, fit_network(request.network, request.network_settings, gpu.usable_bytes())};
      report.gpus.push_back(v);
    }
  }
  return report;
}

}  // namespace vramfit
