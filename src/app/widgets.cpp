#include "widgets.hpp"

#include <misc/cpp/imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace vramfit {

namespace {
std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}
}  // namespace

bool FilteredCombo::begin(const char* label, const std::string& preview, std::string& filter) {
  if (!ImGui::BeginCombo(label, preview.c_str(), ImGuiComboFlags_HeightLarge)) return false;
  if (ImGui::IsWindowAppearing()) {
    ImGui::SetKeyboardFocusHere();
    filter.clear();
  }
  ImGui::SetNextItemWidth(-1);
  ImGui::InputTextWithHint("##filter", "search", &filter);
  lower_filter_ = lower(filter);
  return true;
}

bool FilteredCombo::item(const std::string& name, const std::string& id, bool selected) {
  if (!lower_filter_.empty() && lower(name + " " + id).find(lower_filter_) == std::string::npos) return false;
  const bool chosen = ImGui::Selectable(name.c_str(), selected);
  if (selected) ImGui::SetItemDefaultFocus();
  return chosen;
}

void FilteredCombo::end() { ImGui::EndCombo(); }

bool int_input(const char* label, int64_t& value, int64_t min, int64_t max, bool logarithmic) {
  int64_t v = value;
  const ImGuiSliderFlags flags = ImGuiSliderFlags_AlwaysClamp | (logarithmic ? ImGuiSliderFlags_Logarithmic : 0);
  const bool changed = ImGui::SliderScalar(label, ImGuiDataType_S64, &v, &min, &max, "%lld", flags);
  if (changed && v != value) {
    value = v;
    return true;
  }
  return false;
}

bool choice_combo(const char* label, int& value, const Choice* choices, size_t count) {
  const char* preview = "";
  for (size_t i = 0; i < count; ++i) {
    if (choices[i].value == value) preview = choices[i].label;
  }
  bool changed = false;
  if (ImGui::BeginCombo(label, preview)) {
    for (size_t i = 0; i < count; ++i) {
      if (ImGui::Selectable(choices[i].label, choices[i].value == value)) {
        value = choices[i].value;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

bool margin_input(double& fraction) {
  float percent = static_cast<float>(fraction * 100.0);
  if (!ImGui::SliderFloat("Margin", &percent, 0.0f, 30.0f, "%.0f%%")) return false;
  fraction = std::round(percent) / 100.0;
  return true;
}

void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextDisabled("%s", title);
  ImGui::Separator();
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(em(28.0f));
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

}  // namespace vramfit
