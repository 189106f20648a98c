// The fit map tab: memory over context x concurrent sequences (training: sequence length x
// micro-batch), drawn by FitMapRenderer, with axes, a hover tooltip of exact numbers, and a
// click that takes that workload.
#pragma once
#include <optional>

#include "core/fit_map.hpp"
#include "fit_map_renderer.hpp"
#include "report/estimate.hpp"

namespace vramfit {

class FitMapView {
 public:
  explicit FitMapView(FitMapRenderer* renderer = nullptr) : renderer_(renderer) {}
  void set_renderer(FitMapRenderer* renderer) { renderer_ = renderer; }
  void invalidate() { valid_ = false; }  // the report changed: recompute on the next draw

  struct Workload {
    int64_t x = 0, y = 0;  // context and sequences, or sequence length and micro-batch
  };
  // The workload a click chose, if any. height: the map with its axes and legend, in pixels;
  // 0 fills what is left of the window.
  std::optional<Workload> draw(const Request& request, const Report& report, float height = 0.0f);

 private:
  FitMapRenderer* renderer_ = nullptr;
  FitMap map_;
  bool valid_ = false;
};

// Puts a workload chosen on the map into the request (context and sequences, or sequence
// length and micro-batch).
void apply_workload(Request& request, const FitMapView::Workload& workload);

}  // namespace vramfit
