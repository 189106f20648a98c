#include "grid.hpp"

namespace vramfit {

float Grid::line_row_height() { return ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y; }

void Grid::layout(float left, float width) {
  float fixed = 0;
  for (const Column& c : columns_) fixed += c.width;
  x_.assign(columns_.size(), left);
  float x = left + (width - fixed > 0 ? width - fixed : 0);  // the first column stretches
  for (size_t i = 1; i < columns_.size(); ++i) {
    x_[i] = x;
    x += columns_[i].width;
  }
  right_ = left + width;
}

bool Grid::begin(const char* id, std::initializer_list<Column> columns, bool row_lines) {
  columns_.assign(columns.begin(), columns.end());
  row_lines_ = row_lines;
  in_row_ = in_cell_ = shade_ = false;
  const ImGuiStyle& style = ImGui::GetStyle();
  // The header lies outside the scrolling rows; it takes their width from the last frame
  // (a scrollbar narrows them), so the columns line up.
  storage_ = ImGui::GetStateStorage();
  width_key_ = ImGui::GetID(id);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float available = ImGui::GetContentRegionAvail().x;
  layout(origin.x, storage_->GetFloat(width_key_, available));
  const float header_height = line_row_height();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(origin, ImVec2(origin.x + available, origin.y + header_height), ImGui::GetColorU32(ImGuiCol_TableHeaderBg));
  for (size_t i = 0; i < columns_.size(); ++i) {
    draw->AddText(ImVec2(x_[i] + style.CellPadding.x, origin.y + style.CellPadding.y), ImGui::GetColorU32(ImGuiCol_Text),
                  columns_[i].label);
  }
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(style.ItemSpacing.x, 0));
  ImGui::Dummy(ImVec2(available, header_height));
  ImGui::PopStyleVar();
  if (!ImGui::BeginChild(id, ImVec2(0, 0), false)) {
    ImGui::EndChild();
    return false;
  }
  const float rows_width = ImGui::GetContentRegionAvail().x;
  storage_->SetFloat(width_key_, rows_width);
  layout(ImGui::GetCursorScreenPos().x, rows_width);
  ImGui::GetWindowDrawList()->ChannelsSplit(2);  // 0: row shades and lines, 1: the cells
  ImGui::GetWindowDrawList()->ChannelsSetCurrent(1);
  return true;
}

void Grid::end_cell() {
  if (in_cell_) ImGui::EndGroup();
  in_cell_ = false;
}

void Grid::end_row() {
  if (!in_row_) return;
  end_cell();
  const ImGuiStyle& style = ImGui::GetStyle();
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(style.ItemSpacing.x, 0));
  ImGui::EndGroup();
  ImGui::PopStyleVar();
  const float bottom = ImGui::GetItemRectMax().y + style.CellPadding.y;
  ImGui::SetCursorPosY(ImGui::GetCursorPosY() + style.CellPadding.y);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->ChannelsSetCurrent(0);
  const ImVec2 left(x_[0], row_top_), right(right_, bottom);
  draw->AddRectFilled(left, right, ImGui::GetColorU32(shade_ ? ImGuiCol_TableRowBgAlt : ImGuiCol_TableRowBg));
  if (row_lines_) draw->AddLine(ImVec2(x_[0], bottom), ImVec2(right_, bottom), ImGui::GetColorU32(ImGuiCol_TableBorderLight));
  draw->ChannelsSetCurrent(1);
  shade_ = !shade_;
  in_row_ = false;
}

void Grid::row() {
  end_row();
  const ImVec2 at = ImGui::GetCursorScreenPos();  // the line's start: indentation (tree depth) included
  row_top_ = at.y;
  row_left_ = at.x;
  ImGui::BeginGroup();
  in_row_ = true;
}

void Grid::cell(int column) {
  end_cell();
  const ImGuiStyle& style = ImGui::GetStyle();
  const float x = column == 0 ? row_left_ : x_[static_cast<size_t>(column)];
  ImGui::SetCursorScreenPos(ImVec2(x + style.CellPadding.x, row_top_ + style.CellPadding.y));
  ImGui::BeginGroup();
  in_cell_ = true;
}

bool Grid::row_selectable(const char* id, bool selected) {
  ImGui::SetCursorScreenPos(ImVec2(x_[0], row_top_));
  // The cells are drawn over it; they are text, not items that take the mouse.
  return ImGui::Selectable(id, selected, 0, ImVec2(right_ - x_[0], line_row_height()));
}

float Grid::wrap_x(int column) const {
  const size_t next = static_cast<size_t>(column) + 1;
  const float edge = next < x_.size() ? x_[next] : right_;
  return edge - ImGui::GetStyle().CellPadding.x - ImGui::GetWindowPos().x;
}

void Grid::end() {
  end_row();
  ImGui::GetWindowDrawList()->ChannelsMerge();
  ImGui::EndChild();
}

}  // namespace vramfit
