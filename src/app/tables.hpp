// The results' tables, each a Dear ImGui table (resizable columns, a frozen header, sortable
// by every column; with no sort chosen the rows keep the report's order):
//   Breakdown       every item of the estimate; each row opens to its formula and children
//   Which GPUs fit  every catalog GPU's verdict, with a filter box; a click chooses the GPU
//   Layers          the layer list's rows (name, type, output shape, parameters, activations)
#pragma once
#include <optional>
#include <string>

#include "report/estimate.hpp"

namespace vramfit {

// height: the table's height in pixels; 0 fills what is left of the window.
void draw_breakdown_table(const Request& request, const Report& report, float height = 0.0f);

class GpuTable {
 public:
  // The id of the GPU a click chose, if any.
  std::optional<std::string> draw(const Request& request, const Report& report, float height = 0.0f);

 private:
  std::string filter_;
};

void draw_layer_table(const Request& request, const Report& report, float height = 0.0f);

}  // namespace vramfit
