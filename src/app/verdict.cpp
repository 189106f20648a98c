#include "verdict.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "active_fit.hpp"
#include "widgets.hpp"

namespace vramfit {

namespace {

const ImU32 kSegmentColours[] = {IM_COL32(76, 139, 245, 255), IM_COL32(46, 184, 138, 255), IM_COL32(242, 171, 60, 255),
                                 IM_COL32(206, 93, 151, 255), IM_COL32(140, 110, 230, 255), IM_COL32(80, 190, 210, 255),
                                 IM_COL32(220, 120, 80, 255), IM_COL32(150, 150, 150, 255)};

void draw_stacked_bar(const Request& request, const Report& r, const ActiveFit& fit) {
  const double scale_bytes = static_cast<double>(std::max(fit.capacity_bytes, r.breakdown.total_bytes));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x, height = em(1.4f);
  dl->AddRectFilled(p, ImVec2(p.x + width, p.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
  float x = p.x;
  int index = 0;
  std::string hovered;
  for (const BreakdownItem& item : r.breakdown.items) {
    const float w = static_cast<float>(static_cast<double>(item.bytes) / scale_bytes * width);
    const ImU32 colour = kSegmentColours[index++ % 8];
    if (w > 0.5f) dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + w, p.y + height), colour);
    if (ImGui::IsMouseHoveringRect(ImVec2(x, p.y), ImVec2(x + w, p.y + height))) {
      hovered = item.label + ": " + format_bytes(item.bytes, request.units);
    }
    x += w;
  }
  const float cap_x = p.x + static_cast<float>(static_cast<double>(fit.capacity_bytes) / scale_bytes * width);
  dl->AddLine(ImVec2(cap_x, p.y - 3), ImVec2(cap_x, p.y + height + 3), ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
  ImGui::Dummy(ImVec2(width, height));
  if (!hovered.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hovered.c_str());
  // Legend, wrapping onto more lines when the panel is narrow.
  index = 0;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  const float h = ImGui::GetTextLineHeight();
  for (const BreakdownItem& item : r.breakdown.items) {
    if (index > 0 && ImGui::GetCursorScreenPos().x + h + ImGui::CalcTextSize(item.label.c_str()).x > right) ImGui::NewLine();
    const ImVec2 q = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(q.x, q.y + h * 0.2f), ImVec2(q.x + h * 0.6f, q.y + h * 0.8f),
                                              kSegmentColours[index++ % 8]);
    ImGui::Dummy(ImVec2(h * 0.75f, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(item.label.c_str());
    ImGui::SameLine(0, em(0.9f));
  }
  if (ImGui::GetCursorScreenPos().x + ImGui::CalcTextSize("| = GPU capacity").x > right) ImGui::NewLine();
  ImGui::TextDisabled("| = GPU capacity");
}

void draw_limits(const Request& request, const Report& r) {
  switch (app_mode(request)) {
    case AppMode::inference:
      ImGui::Text("Longest context: %s tokens   Most sequences: %s   Fewest GPUs: %s",
                  with_thousands(r.fit.max_context_tokens).c_str(), with_thousands(r.fit.max_concurrent_sequences).c_str(),
                  r.fit.min_gpus > 0 ? std::to_string(r.fit.min_gpus).c_str() : "> 64");
      break;
    case AppMode::layer_list:
      ImGui::Text("Largest batch: %s   Parameters: %s", with_thousands(r.training_fit.max_batch).c_str(),
                  with_thousands(r.network.parameters).c_str());
      break;
    case AppMode::training:
      ImGui::Text("Largest micro-batch: %s   Longest sequence: %s   Trainable: %s of %s",
                  with_thousands(r.training_fit.max_batch).c_str(), with_thousands(r.training_fit.max_sequence_length).c_str(),
                  with_thousands(r.training.trainable_parameters).c_str(), with_thousands(r.training.parameters).c_str());
      break;
  }
}

}  // namespace

void draw_verdict(const Request& request, const Report& r) {
  const DisplayUnits u = request.units;
  const ActiveFit fit = active_fit(request, r);
  ImGui::Text("%s", r.model_name.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("on %s", r.gpu.name.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, fit.fits ? IM_COL32(70, 200, 120, 255) : IM_COL32(235, 90, 80, 255));
  ImGui::SetWindowFontScale(1.35f);
  ImGui::Text("%s  %s of %s", fit.fits ? "FITS" : "DOES NOT FIT", format_bytes(r.breakdown.total_bytes, u).c_str(),
              format_bytes(fit.capacity_bytes, u).c_str());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::PopStyleColor();
  ImGui::SameLine();
  ImGui::TextDisabled(fit.fits ? "headroom %s" : "short by %s", format_bytes(std::llabs(fit.headroom_bytes), u).c_str());
  draw_stacked_bar(request, r, fit);
  draw_limits(request, r);
}

}  // namespace vramfit
