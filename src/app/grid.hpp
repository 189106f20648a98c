#pragma once
// Grid: the app's tables (breakdown, GPUs, layers) — a header row that stays while the rows
// scroll under it, a first column that stretches and fixed-width columns after it, rows in
// alternating shades and, if asked, a line under each. That is all the app used of Dear
// ImGui's tables, whose code (imgui_tables.cpp) was 14 KB of the page's gzip size; this is a
// few hundred bytes. Colours and padding are ImGui's table ones (ImGuiCol_Table*,
// style.CellPadding), so it looks the same.
//
//   Grid grid;
//   if (grid.begin("gpus", {{"GPU", 0}, {"Memory", 90}}, false)) {
//     for (...) { grid.row(); grid.cell(0); ...; grid.cell(1); ...; }
//     grid.end();
//   }
#include <imgui.h>

#include <initializer_list>
#include <vector>

namespace vramfit {

class Grid {
 public:
  struct Column {
    const char* label;
    float width;  // logical pixels; 0 = the first column, which takes what the others leave
  };
  // Draws the header and opens the scrolling region (the rest of the window's height).
  // Returns false when nothing is visible; then end() is not called.
  bool begin(const char* id, std::initializer_list<Column> columns, bool row_lines);
  void row();           // starts a row, ending the one before
  void cell(int column);  // moves to a column of the current row
  // A Selectable under the whole row (GPU list: click a row to choose it); call after row().
  bool row_selectable(const char* id, bool selected);
  // The local x at which text in `column` should wrap (for ImGui::PushTextWrapPos).
  float wrap_x(int column) const;
  void end();

 private:
  static float line_row_height();  // a row of one line of text: the header, a selectable row
  void layout(float left, float width);
  void end_cell();
  void end_row();

  std::vector<Column> columns_;
  std::vector<float> x_;  // each column's left edge (screen)
  float right_ = 0;       // the grid's right edge (screen)
  bool row_lines_ = false, in_row_ = false, in_cell_ = false, shade_ = false;
  float row_top_ = 0, row_left_ = 0;
  ImGuiStorage* storage_ = nullptr;  // the parent window's: the rows' width, for the next header
  ImGuiID width_key_ = 0;
};

}  // namespace vramfit
