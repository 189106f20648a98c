#include "fit_map_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "active_fit.hpp"
#include "ui_language.hpp"
#include "widgets.hpp"

namespace vramfit {

void apply_workload(Request& request, const FitMapView::Workload& workload) {
  if (request.mode == Mode::training) {
    request.training.sequence_length = workload.x;
    request.training.micro_batch = workload.y;
  } else {
    request.settings.context_tokens = workload.x;
    request.settings.concurrent_sequences = workload.y;
  }
}

namespace {

// The map's colours for the legend: the same stops as shaders/fit_map.frag's ramp().
ImU32 ramp_colour(float f) {
  const float low[3] = {0.80f, 0.92f, 0.89f}, mid[3] = {0.38f, 0.67f, 0.80f}, high[3] = {0.10f, 0.29f, 0.60f};
  const float* a = f < 0.5f ? low : mid;
  const float* b = f < 0.5f ? mid : high;
  const float t = f < 0.5f ? f / 0.5f : (f - 0.5f) / 0.5f;
  return ImGui::GetColorU32(ImVec4(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t, 1.0f));
}

// The legend under the map: the colour scale, the hatched "does not fit", and what the lines mean.
void draw_legend() {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float scale_w = em(10.0f);
  const int steps = 32;
  for (int i = 0; i < steps; ++i) {
    const float x0 = p.x + scale_w * static_cast<float>(i) / steps, x1 = p.x + scale_w * static_cast<float>(i + 1) / steps;
    dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1 + 0.5f, p.y + h), ramp_colour((static_cast<float>(i) + 0.5f) / steps));
  }
  ImGui::Dummy(ImVec2(scale_w, h));
  ImGui::SameLine();
  ImGui::TextUnformatted("0 to 100% of the GPU: fits");
  ImGui::SameLine(0, em(1.0f));
  if (ImGui::GetContentRegionAvail().x < em(3.0f) + ImGui::CalcTextSize("over 100%: does not fit").x) ImGui::NewLine();
  const ImVec2 q = ImGui::GetCursorScreenPos();
  dl->AddRectFilled(q, ImVec2(q.x + em(2.0f), q.y + h), IM_COL32(107, 107, 115, 255));
  for (float x = -h; x < em(2.0f); x += 6.0f) {
    dl->AddLine(ImVec2(q.x + std::max(x, 0.0f), q.y + h - std::max(-x, 0.0f)),
                ImVec2(q.x + std::min(x + h, em(2.0f)), q.y + h - std::min(h, em(2.0f) - x)), IM_COL32(77, 77, 84, 255), 2.0f);
  }
  ImGui::Dummy(ImVec2(em(2.0f), h));
  ImGui::SameLine();
  ImGui::TextUnformatted("over 100%: does not fit");
  text_wrapped_at_spaces_disabled("Dark line in a light halo: memory = the GPU's usable memory. Thin darker lines: 25%, 50% "
                                  "and 75% of it. Ring: the workload chosen now. Hover for the numbers; tap or click to use one.");
}

// The map's rows hold whole counts (sequences 1, 1, 1, 2, 2, 3, ... at the bottom of a log
// axis): a step wherever the count changes, which the GPU's linear filtering draws as notches in
// the contours. For drawing, each row is taken at its exact log-spaced value, between the rows of
// the whole counts around it (the memory is linear in the count between them).
FitMap rows_at_exact_values(const FitMap& map) {
  FitMap drawn = map;
  const int rows = map.y.cells, cols = map.x.cells;
  std::vector<int64_t> counts(static_cast<size_t>(rows));
  for (int row = 0; row < rows; ++row) counts[static_cast<size_t>(row)] = map.y.value(row);
  for (int row = 0; row < rows; ++row) {
    const double exact = map.y.exact_at((row + 0.5) / rows);
    int below = row, above = row;  // rows whose counts are the nearest at or under, at or over, the exact value
    while (below > 0 && static_cast<double>(counts[static_cast<size_t>(below)]) > exact) --below;
    while (above + 1 < rows && static_cast<double>(counts[static_cast<size_t>(above)]) < exact) ++above;
    const double lo = static_cast<double>(counts[static_cast<size_t>(below)]), hi = static_cast<double>(counts[static_cast<size_t>(above)]);
    if (hi <= lo || exact <= lo || exact >= hi) continue;
    const float w = static_cast<float>((exact - lo) / (hi - lo));
    for (int col = 0; col < cols; ++col) {
      drawn.fraction[static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(col)] =
          map.at(col, below) + w * (map.at(col, above) - map.at(col, below));
    }
  }
  return drawn;
}

}  // namespace

std::optional<FitMapView::Workload> FitMapView::draw(const Request& request, const Report& r, float height) {
  const bool training = request.mode == Mode::training;
  const int64_t trained_context = r.prepared.model.max_context_tokens;
  FitMapAxis x, y;
  if (training) {
    x = {128, std::min<int64_t>(std::max<int64_t>(trained_context > 0 ? trained_context : 32768, 1024), 131072), 128};
    y = {1, 256, 64};
  } else {
    x = {256, std::min(std::max<int64_t>(trained_context > 0 ? trained_context : 131072, 4096), kMaxContextTokens), 192};
    y = {1, 256, 96};
  }
  const int64_t capacity = active_fit(request, r).capacity_bytes;
  if (!valid_) {
    map_ = training ? training_fit_map(r.prepared.model, request.training, r.training, capacity, x, y)
                    : inference_fit_map(r.prepared, request.settings, capacity, x, y);
    if (renderer_) renderer_->upload(rows_at_exact_values(map_));
    valid_ = true;
  }
  const float legend_h = ImGui::GetTextLineHeightWithSpacing() * 4.0f;
  const ImVec2 avail(ImGui::GetContentRegionAvail().x, height > 0.0f ? height : ImGui::GetContentRegionAvail().y);
  const float axis_w = em(3.2f), axis_h = em(2.4f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // The y axis's title on a line of its own above the map, clear of its top tick's label.
  const float title_h = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 p0(origin.x + axis_w, origin.y + title_h + em(0.5f));
  const ImVec2 p1(origin.x + std::max(avail.x, axis_w + em(6.0f)) - em(0.5f),
                  origin.y + std::max(avail.y - axis_h - legend_h, em(7.5f)));
  const int64_t cur_x = training ? request.training.sequence_length : request.settings.context_tokens;
  const int64_t cur_y = training ? request.training.micro_batch : request.settings.concurrent_sequences;
  float mu = static_cast<float>(x.position(static_cast<double>(cur_x)));
  float mv = static_cast<float>(y.position(static_cast<double>(cur_y)));
  if (mu < 0 || mu > 1 || mv < 0 || mv > 1) mu = mv = -1.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (renderer_) renderer_->draw(dl, p0.x, p0.y, p1.x, p1.y, mu, mv);
  else dl->AddRectFilled(p0, p1, IM_COL32(60, 60, 60, 255));
  // Axes: a tick at every power of two, labelled where the label has room.
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float tick = em(0.25f);
  float next_free_x = -1e9f;
  for (int64_t v = 1; v <= x.max; v *= 2) {
    if (v < x.min) continue;
    const float px = p0.x + static_cast<float>(x.position(static_cast<double>(v))) * (p1.x - p0.x);
    dl->AddLine(ImVec2(px, p1.y), ImVec2(px, p1.y + tick), text);
    const std::string label = v >= 1048576 ? std::to_string(v / 1048576) + "M" : v >= 1024 ? std::to_string(v / 1024) + "K" : std::to_string(v);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    if (px - w * 0.5f >= next_free_x && px + w * 0.5f <= p1.x + em(0.5f)) {
      dl->AddText(ImVec2(px - w * 0.5f, p1.y + tick), text, label.c_str());
      next_free_x = px + w * 0.5f + em(0.4f);
    }
  }
  float next_free_y = 1e9f;
  for (int64_t v = 1; v <= y.max; v *= 2) {
    if (v < y.min) continue;
    const float py = p1.y - static_cast<float>(y.position(static_cast<double>(v))) * (p1.y - p0.y);
    dl->AddLine(ImVec2(p0.x - tick, py), ImVec2(p0.x, py), text);
    if (py + ImGui::GetFontSize() * 0.5f <= next_free_y) {
      const std::string label = std::to_string(v);
      dl->AddText(ImVec2(p0.x - tick * 2 - ImGui::CalcTextSize(label.c_str()).x, py - ImGui::GetFontSize() * 0.5f), text,
                  label.c_str());
      next_free_y = py - ImGui::GetFontSize() * 0.5f - 2.0f;
    }
  }
  const char* x_title = training ? "sequence length (tokens)" : "context (tokens per sequence)";
  dl->AddText(ImVec2((p0.x + p1.x - ImGui::CalcTextSize(x_title).x) * 0.5f, p1.y + tick + ImGui::GetFontSize()), text, x_title);
  ImGui::SetCursorScreenPos(origin);
  ImGui::TextUnformatted(training ? "batch" : "seqs");
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton("fit map", ImVec2(p1.x - p0.x, p1.y - p0.y));
  std::optional<Workload> chosen;
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetMousePos();
    const Workload at{x.value_at(std::clamp((m.x - p0.x) / (p1.x - p0.x), 0.0f, 1.0f)),
                      y.value_at(std::clamp((p1.y - m.y) / (p1.y - p0.y), 0.0f, 1.0f))};
    Request probe = request;
    apply_workload(probe, at);
    const int64_t total = training ? retotal_training_bytes(r.prepared.model, probe.training, r.training)
                                   : inference_memory(r.prepared, probe.settings).total;
    ImGui::SetTooltip("%s %s tokens x %s %s\n%s of %s (%.0f%%): %s\nclick to use this workload", tr(training ? "sequence" : "context"),
                      with_thousands(at.x).c_str(), with_thousands(at.y).c_str(), tr(training ? "micro-batch" : "sequences"),
                      format_bytes(total, request.units).c_str(), format_bytes(capacity, request.units).c_str(),
                      100.0 * static_cast<double>(total) / static_cast<double>(std::max<int64_t>(capacity, 1)),
                      tr(total <= capacity ? "fits" : "does not fit"));
    if (ImGui::IsItemClicked()) chosen = at;
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, p1.y + axis_h));
  draw_legend();
  return chosen;
}

}  // namespace vramfit
