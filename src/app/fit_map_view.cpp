#include "fit_map_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "active_fit.hpp"
#include "widgets.hpp"

namespace vramfit {

namespace {

double axis_position(const FitMapAxis& axis, double value) {
  if (axis.max <= axis.min) return 0.0;
  return (std::log2(value) - std::log2(static_cast<double>(axis.min))) /
         (std::log2(static_cast<double>(axis.max)) - std::log2(static_cast<double>(axis.min)));
}

int64_t axis_value_at(const FitMapAxis& axis, double t) {
  const double v = std::exp2(std::log2(static_cast<double>(axis.min)) +
                             t * (std::log2(static_cast<double>(axis.max)) - std::log2(static_cast<double>(axis.min))));
  return std::min(axis.max, std::max(axis.min, static_cast<int64_t>(std::llround(v))));
}

}  // namespace

void apply_workload(Request& request, const FitMapView::Workload& workload) {
  if (request.mode == Mode::training) {
    request.training.sequence_length = workload.x;
    request.training.micro_batch = workload.y;
  } else {
    request.settings.context_tokens = workload.x;
    request.settings.concurrent_sequences = workload.y;
  }
}

std::optional<FitMapView::Workload> FitMapView::draw(const Request& request, const Report& r, bool dark) {
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
    if (renderer_) renderer_->upload(map_);
    valid_ = true;
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float axis_w = em(4.4f), axis_h = em(2.2f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 p0(origin.x + axis_w, origin.y + em(0.25f));
  const ImVec2 p1(origin.x + std::max(avail.x, axis_w + em(6.0f)) - em(0.5f), origin.y + std::max(avail.y - axis_h, em(7.5f)));
  const int64_t cur_x = training ? request.training.sequence_length : request.settings.context_tokens;
  const int64_t cur_y = training ? request.training.micro_batch : request.settings.concurrent_sequences;
  float mu = static_cast<float>(axis_position(x, static_cast<double>(cur_x)));
  float mv = static_cast<float>(axis_position(y, static_cast<double>(cur_y)));
  if (mu < 0 || mu > 1 || mv < 0 || mv > 1) mu = mv = -1.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (renderer_) renderer_->draw(dl, p0.x, p0.y, p1.x, p1.y, mu, mv, dark);
  else dl->AddRectFilled(p0, p1, IM_COL32(60, 60, 60, 255));
  // Axes: ticks at powers of two.
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const float tick = em(0.25f);
  for (int64_t v = 1; v <= x.max; v *= 2) {
    if (v < x.min) continue;
    const float px = p0.x + static_cast<float>(axis_position(x, static_cast<double>(v))) * (p1.x - p0.x);
    dl->AddLine(ImVec2(px, p1.y), ImVec2(px, p1.y + tick), text);
    const int step = (x.max / x.min) > 256 ? 4 : 2;
    int log = 0;
    for (int64_t w = v; w > 1; w /= 2) ++log;
    if (log % step == 0) {
      const std::string label = v >= 1024 ? std::to_string(v / 1024) + "K" : std::to_string(v);
      dl->AddText(ImVec2(px - ImGui::CalcTextSize(label.c_str()).x * 0.5f, p1.y + tick), text, label.c_str());
    }
  }
  for (int64_t v = 1; v <= y.max; v *= 2) {
    if (v < y.min) continue;
    const float py = p1.y - static_cast<float>(axis_position(y, static_cast<double>(v))) * (p1.y - p0.y);
    dl->AddLine(ImVec2(p0.x - tick, py), ImVec2(p0.x, py), text);
    const std::string label = std::to_string(v);
    dl->AddText(ImVec2(p0.x - tick * 2 - ImGui::CalcTextSize(label.c_str()).x, py - ImGui::GetFontSize() * 0.5f), text, label.c_str());
  }
  const char* x_title = training ? "sequence length (tokens)" : "context (tokens)";
  dl->AddText(ImVec2((p0.x + p1.x - ImGui::CalcTextSize(x_title).x) * 0.5f, p1.y + tick + ImGui::GetFontSize()), text, x_title);
  dl->AddText(ImVec2(origin.x, p0.y), text, training ? "batch" : "seqs");
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton("fit map", ImVec2(p1.x - p0.x, p1.y - p0.y));
  if (!ImGui::IsItemHovered()) return std::nullopt;
  const ImVec2 m = ImGui::GetMousePos();
  const Workload at{axis_value_at(x, std::clamp((m.x - p0.x) / (p1.x - p0.x), 0.0f, 1.0f)),
                    axis_value_at(y, std::clamp((p1.y - m.y) / (p1.y - p0.y), 0.0f, 1.0f))};
  Request probe = request;
  apply_workload(probe, at);
  const int64_t total = training ? retotal_training_bytes(r.prepared.model, probe.training, r.training)
                                 : inference_memory(r.prepared, probe.settings).total;
  ImGui::SetTooltip("%s %s tokens x %s %s\n%s of %s (%.0f%%): %s\nclick to use this workload", training ? "sequence" : "context",
                    with_thousands(at.x).c_str(), with_thousands(at.y).c_str(), training ? "micro-batch" : "sequences",
                    format_bytes(total, request.units).c_str(), format_bytes(capacity, request.units).c_str(),
                    100.0 * static_cast<double>(total) / static_cast<double>(std::max<int64_t>(capacity, 1)),
                    total <= capacity ? "fits" : "does not fit");
  if (ImGui::IsItemClicked()) return at;
  return std::nullopt;
}

}  // namespace vramfit
