// Small widgets the panels share, over Dear ImGui: a searchable combo, integer and enum
// inputs, section titles, help markers. Sizes are in font units (em), never fixed pixels.
#pragma once
#include <imgui.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace vramfit {

// `count` times the font's height, in the UI's pixels.
inline float em(float count) { return ImGui::GetFontSize() * count; }

// A combo box whose popup starts with a filter field: type to narrow a long list.
//   FilteredCombo combo;
//   if (combo.begin("GPU", preview, filter)) { for (...) if (combo.item(name, id, selected)) ...; combo.end(); }
class FilteredCombo {
 public:
  bool begin(const char* label, const std::string& preview, std::string& filter);
  // Listed when its name or id contains the filter (any case); true when chosen.
  bool item(const std::string& name, const std::string& id, bool selected);
  void end();

 private:
  std::string lower_filter_;
};

// A slider over [min, max] (logarithmic unless told otherwise); true when the value changed.
bool int_input(const char* label, int64_t& value, int64_t min, int64_t max, bool logarithmic = true);

// A combo over labelled values; enum_combo() gives it an enum's.
struct Choice {
  int value;
  const char* label;
};
bool choice_combo(const char* label, int& value, const Choice* choices, size_t count);

template <class E, size_t N>
bool enum_combo(const char* label, E& value, const std::pair<E, const char*> (&options)[N]) {
  Choice choices[N];
  for (size_t i = 0; i < N; ++i) choices[i] = {static_cast<int>(options[i].first), options[i].second};
  int chosen = static_cast<int>(value);
  if (!choice_combo(label, chosen, choices, N)) return false;
  value = static_cast<E>(chosen);
  return true;
}

// A margin slider in percent (0-30) over a fraction; true when it changed.
bool margin_input(double& fraction);

// A titled divider between groups of inputs.
void section(const char* title);
// "(?)" after the last item, with `text` as its tooltip.
void help_marker(const char* text);

}  // namespace vramfit
