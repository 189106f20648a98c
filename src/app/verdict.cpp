#include "verdict.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "active_fit.hpp"
#include "report/device_limit.hpp"
#include "ui_language.hpp"
#include "widgets.hpp"

namespace vramfit {

namespace {

// One colour per kind of item, the same in every mode: a legend means the same thing in
// inference, training and a layer list.
ImU32 item_colour(const std::string& id) {
  struct Entry { const char* id; ImU32 colour; };
  static const Entry kColours[] = {
      {"weights", IM_COL32(76, 139, 245, 255)},       {"parameters", IM_COL32(76, 139, 245, 255)},
      {"weights.frozen", IM_COL32(60, 100, 190, 255)}, {"master", IM_COL32(120, 160, 250, 255)},
      {"kv_cache", IM_COL32(46, 184, 138, 255)},       {"gradients", IM_COL32(140, 110, 230, 255)},
      {"optimizer", IM_COL32(80, 190, 210, 255)},      {"optimizer.foreach", IM_COL32(60, 150, 170, 255)},
      {"activations", IM_COL32(46, 184, 138, 255)},    {"recompute", IM_COL32(30, 140, 105, 255)},
      {"logits", IM_COL32(170, 200, 90, 255)},         {"input", IM_COL32(170, 200, 90, 255)},
      {"buffers", IM_COL32(180, 140, 110, 255)},       {"autocast", IM_COL32(110, 120, 200, 255)},
      {"gathered", IM_COL32(200, 110, 180, 255)},      {"overhead", IM_COL32(242, 171, 60, 255)},
      {"runtime", IM_COL32(242, 171, 60, 255)},        {"margin", IM_COL32(206, 93, 151, 255)},
  };
  for (const Entry& e : kColours) {
    if (id == e.id) return e.colour;
  }
  return IM_COL32(150, 150, 150, 255);
}

void draw_stacked_bar(const Request& request, const Report& r, const ActiveFit& fit) {
  const double scale_bytes = static_cast<double>(std::max(fit.capacity_bytes, r.breakdown.total_bytes));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x, height = em(1.4f);
  dl->AddRectFilled(p, ImVec2(p.x + width, p.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
  // Right to left, the bar fills from the right edge: positions along it are mirrored.
  const bool mirrored = ui_right_to_left();
  float x = 0.0f;
  std::string hovered;
  for (const BreakdownItem& item : r.breakdown.items) {
    const float w = static_cast<float>(static_cast<double>(item.bytes) / scale_bytes * width);
    const ImVec2 lo(mirrored ? p.x + width - x - w : p.x + x, p.y), hi(lo.x + w, p.y + height);
    if (w > 0.5f) dl->AddRectFilled(lo, hi, item_colour(item.id));
    if (ImGui::IsMouseHoveringRect(lo, hi)) hovered = std::string(tr(item.label.c_str())) + ": " + format_bytes(item.bytes, request.units);
    x += w;
  }
  const float capacity = static_cast<float>(static_cast<double>(fit.capacity_bytes) / scale_bytes * width);
  const float cap_x = mirrored ? p.x + width - capacity : p.x + capacity;
  dl->AddLine(ImVec2(cap_x, p.y - 3), ImVec2(cap_x, p.y + height + 3), ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
  ImGui::Dummy(ImVec2(width, height));
  if (!hovered.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hovered.c_str());
  // Legend, wrapping onto more lines when the panel is narrow.
  ItemRow row;
  for (const BreakdownItem& item : r.breakdown.items) legend_entry(row, item_colour(item.id), item.label.c_str());
  row.place(ImGui::CalcTextSize("| = GPU capacity").x, em(0.9f));
  ImGui::TextDisabled("| = GPU capacity");
}

// "1 GPU" / "2 GPUs" / "> 64"
std::string gpus_text(int64_t count) {
  if (count <= 0) return tr("more than 64");
  return std::to_string(count) + tr(count == 1 ? " GPU" : " GPUs");
}

void draw_limits(const Request& request, const Report& r, const ActiveFit& fit) {
  switch (app_mode(request)) {
    case AppMode::inference:
      if (r.fit.max_context_tokens == 0) {
        textf_wrapped_at_spaces("Not even one token of context fits: the weights and buffers alone need %s of %s per GPU. "
                           "Fewest GPUs that fit: %s.",
                           format_bytes(r.memory.weights + r.memory.runtime, request.units).c_str(),
                           format_bytes(fit.capacity_bytes, request.units).c_str(), gpus_text(r.fit.min_gpus).c_str());
      } else {
        const std::string context = r.prepared.model.is_recurrent() ? tr("any (a fixed state)")
                                                                    : with_thousands(r.fit.max_context_tokens) + tr(" tokens");
        const char* gpus = r.fit.min_gpus > 0 ? nullptr : tr("more than 64");
        const std::string fewest = gpus ? gpus : std::to_string(r.fit.min_gpus);
        if (r.fit.max_concurrent_sequences == 0) {
          // Not "Most sequences: 0": the context asked for does not fit, and the longest that does is beside it.
          textf_wrapped_at_spaces("Longest context: %s   Most sequences: none at %s tokens (that context does not fit)   Fewest GPUs: %s",
                             context.c_str(), with_thousands(request.settings.context_tokens).c_str(), fewest.c_str());
        } else {
          textf_wrapped_at_spaces("Longest context: %s   Most sequences: %s   Fewest GPUs: %s", context.c_str(),
                             with_thousands(r.fit.max_concurrent_sequences).c_str(), fewest.c_str());
        }
      }
      break;
    case AppMode::layer_list:
      if (r.training_fit.max_batch == 0) {
        textf_wrapped_at_spaces("Not even a batch of 1 fits. Parameters: %s", with_thousands(r.network.parameters).c_str());
      } else {
        textf_wrapped_at_spaces("Largest batch: %s   Parameters: %s", with_thousands(r.training_fit.max_batch).c_str(),
                           with_thousands(r.network.parameters).c_str());
      }
      break;
    case AppMode::training: {
      std::string gpus;
      if (request.training.sharding == Sharding::none) {
        gpus = fit.fits ? tr("1 per replica (DDP: every GPU holds everything)")
               : fit.min_gpus_zero3 > 0
                   ? tr("none with DDP (every GPU holds everything); with ZeRO-3, ") + gpus_text(fit.min_gpus_zero3)
                   : tr("none with DDP, nor with ZeRO-3 up to 64 GPUs");
      } else {
        gpus = gpus_text(fit.min_gpus) + tr(" with this sharding");
      }
      if (r.training_fit.max_batch == 0) {
        textf_wrapped_at_spaces("Not even a micro-batch of 1 fits. Fewest GPUs: %s. Trainable: %s of %s",
                           gpus.c_str(), with_thousands(r.training.trainable_parameters).c_str(),
                           with_thousands(r.training.parameters).c_str());
      } else {
        textf_wrapped_at_spaces("Largest micro-batch: %s   Longest sequence: %s   Fewest GPUs: %s   Trainable: %s of %s",
                           with_thousands(r.training_fit.max_batch).c_str(),
                           with_thousands(r.training_fit.max_sequence_length).c_str(), gpus.c_str(),
                           with_thousands(r.training.trainable_parameters).c_str(),
                           with_thousands(r.training.parameters).c_str());
      }
      break;
    }
  }
}

}  // namespace

void draw_verdict(const Request& request, const Report& r) {
  const DisplayUnits u = request.units;
  const ActiveFit fit = active_fit(request, r);
  if (ui_right_to_left()) {  // the model's name, then the GPUs, from the right edge
    char on[160];
    if (fit.gpu_count > 1) std::snprintf(on, sizeof on, tr("on %lld x %s"), static_cast<long long>(fit.gpu_count), r.gpu.name.c_str());
    else std::snprintf(on, sizeof on, tr("on %s"), r.gpu.name.c_str());
    align_line_end(ImGui::CalcTextSize(on).x + ImGui::GetStyle().ItemSpacing.x + ImGui::CalcTextSize(r.model_name.c_str()).x);
    ImGui::TextDisabled("%s", on);
    ImGui::SameLine();
  }
  const float line = ImGui::GetContentRegionAvail().x, name_width = ImGui::CalcTextSize(r.model_name.c_str()).x;
  ImGui::TextUnformatted(r.model_name.c_str());
  if (!ui_right_to_left()) {  // beside the name, or under it when the line has no room (a phone)
    char on[160];
    if (fit.gpu_count > 1) std::snprintf(on, sizeof on, "on %lld x %s", static_cast<long long>(fit.gpu_count), r.gpu.name.c_str());
    else std::snprintf(on, sizeof on, "on %s", r.gpu.name.c_str());
    if (ImGui::CalcTextSize(on).x <= line - name_width - ImGui::GetStyle().ItemSpacing.x) ImGui::SameLine();
    ImGui::TextDisabled("%s", on);
  }
  ImGui::PushStyleColor(ImGuiCol_Text, fit.fits ? IM_COL32(70, 200, 120, 255) : IM_COL32(235, 90, 80, 255));
  ImGui::SetWindowFontScale(1.35f);
  textf_wrapped_at_spaces("%s  %s%s of %s", tr(fit.fits ? "FITS" : "DOES NOT FIT"), fit.gpu_count > 1 ? tr("per GPU ") : "",
                     format_bytes(r.breakdown.total_bytes, u).c_str(), format_bytes(fit.capacity_bytes, u).c_str());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::PopStyleColor();
  if (request.mode == Mode::inference) {
    text_wrapped_at_spaces_disabled(tr("vramfit's own engine-neutral model answers; Engine, in the inputs, picks llama.cpp, vLLM or Transformers."));
  }
  const char* headroom = fit.fits ? "headroom %s%s" : "short by %s%s";
  const std::string amount = format_bytes(std::llabs(fit.headroom_bytes), u);
  const char* per_gpu = fit.gpu_count > 1 ? tr(" per GPU") : "";
  if (ui_right_to_left()) {  // at the right edge
    char line[160];
    std::snprintf(line, sizeof line, tr(headroom), amount.c_str(), per_gpu);
    align_line_end(line);
  }
  ImGui::TextDisabled(headroom, amount.c_str(), per_gpu);
  draw_warnings(r);
  draw_stacked_bar(request, r, fit);
  draw_limits(request, r, fit);
}

// Warnings stand beside the verdict they qualify, never below the fold; so does a
// unified-memory device's limit (report/device_limit), which the verdict's capacity is.
void draw_warnings(const Report& r) {
  if (const std::string note = unified_memory_note(r); !note.empty()) text_wrapped_at_spaces_disabled(note.c_str());
  for (const std::string& warning : r.breakdown.warnings) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(240, 170, 60, 255));
    textf_wrapped_at_spaces("warning: %s", tr(warning.c_str()));
    ImGui::PopStyleColor();
  }
}

}  // namespace vramfit
