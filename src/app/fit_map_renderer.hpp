// Draws a FitMap with the shaders in shaders/ (embedded at build time). The map is uploaded
// as an R16F texture; drawing happens inside Dear ImGui's render pass through a draw-list
// callback, so the map sits in the UI like any widget.
#pragma once
#include <string>

#include "core/fit_map.hpp"

struct ImDrawList;
struct ImDrawCmd;

namespace vramfit {

class FitMapRenderer {
 public:
  // Compiles the shaders; false (with error()) if the GL driver refuses them.
  bool init();
  void shutdown();
  void upload(const FitMap& map);
  // Adds the map to `draw_list` at the screen rectangle; marker in map coordinates (< 0: none).
  void draw(ImDrawList* draw_list, float x0, float y0, float x1, float y1, float marker_u, float marker_v);
  const std::string& error() const { return error_; }

 private:
  static void render_callback(const ImDrawList* list, const ImDrawCmd* cmd);
  unsigned program_ = 0, texture_ = 0, vertex_array_ = 0;
  int u_fraction_ = -1, u_line_px_ = -1, u_marker_ = -1;
  float rect_[4] = {0, 0, 0, 0}, marker_[2] = {-1, -1};
  std::string error_;
};

}  // namespace vramfit
