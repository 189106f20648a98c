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

// A combo box whose popup starts with a filter field: type to narrow a long list; Enter
// takes the only item left.
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
  unsigned count_id_ = 0;    // where the number of matches is kept for the next frame
  bool take_only_ = false;   // Enter was pressed and one item matched on the last frame
  int matches_ = 0;
};

// How a number field steps and drags.
enum class Steps {
  by_one,    // - and + add 1
  doubling,  // - and + halve and double; the drag handle doubles every 3 font widths (log scale)
};

// A whole number in [min, max] the way people enter it: click (or tap) and type — "32k",
// "128K", "1M", "32,768" are read (core/units parse_count) —, or step with - and +, or (for
// doubling quantities) drag the <> handle sideways. Typed text counts when the edit settles
// (Enter, or leaving the field); text that is no number, or out of range, keeps the old value
// and says why under the field. True when the value changed.
bool number_field(const char* label, int64_t& value, int64_t min, int64_t max, Steps steps);

// A memory size in [min, max] bytes, typed as people write it (core/units parse_memory_size:
// "48", "48.5", "24 GB", "81,920 MiB"; no unit = GiB) and shown in GiB. Same rules as
// number_field: counts when the edit settles; bad text keeps the old value and says why.
bool memory_field(const char* label, int64_t& bytes, int64_t min, int64_t max);

// A fraction in [min, max] in hundredths, shown as the flag writes it ("0.90") and typed either
// way: "0.95" or "95%" (a number above 1 is read as a percent). Same rules as number_field.
bool fraction_field(const char* label, double& fraction, double min, double max);

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

// The safety margin as a whole percent (0-30) over a fraction; true when it changed.
bool margin_input(double& fraction);

// Text wrapped to the available width at spaces only: Dear ImGui's own wrapping also breaks
// after commas and full stops, which splits "1,073,741,824 B" in two.
// width: the line's width, 0 for the space available.
void text_wrapped_at_spaces(const std::string& text, float width = 0.0f);
void text_wrapped_at_spaces_disabled(const std::string& text);  // in the dimmed text colour
// The same, printf-style, in place of ImGui::TextWrapped (right to left, Dear ImGui's own, whose
// format the text transform translates).
void textf_wrapped_at_spaces(const char* fmt, ...) IM_FMTARGS(1);

// Items one after another on a line; right to left (an Arabic interface) the line runs from
// the right edge of the space left. Place each item before it is drawn:
//   ItemRow row;
//   row.place("Inference", RowItem::radio); ImGui::RadioButton("Inference", ...);
//   row.place("Training", RowItem::radio);  ImGui::RadioButton("Training", ...);
// or, for a line that wraps at the edge, with its width: row.place(width, spacing).
enum class RowItem { radio, button };  // a radio button or a checkbox; a button or a small button
class ItemRow {
 public:
  void place(const char* label, RowItem kind);  // on this line, after the item before
  void place(float width, float spacing);       // on this line `spacing` after it, or on the next when it would pass the edge

 private:
  void start();        // the line's extent, at its first item
  float start_, end_;  // set by start()
  float used_ = -1.0f;  // how much of the line the items so far take (-1: none yet)
};
// Right to left, the next item (a line of `text`, or of `width`) starts so that it ends at the
// right edge.
void align_line_end(const char* text);
void align_line_end(float width);
// A legend's entry: a swatch of `colour` and its name, placed by `row` (the swatch on the
// reading side: left, or right of the name right to left).
void legend_entry(ItemRow& row, ImU32 colour, const char* name);  // em(0.9) apart

// A titled divider between groups of inputs.
void section(const char* title);
// Whether the last item's tooltip shows: hovered by a mouse or a pen, or tapped by a finger (a
// tap shows it until a second tap on it or a tap elsewhere: a touch screen has no hover).
bool tooltip_wanted();
// A tooltip whose text wraps to fit the screen.
void wrapped_tooltip(const char* text);
// "(?)" after the last item, with `text` as its tooltip.
void help_marker(const char* text);

}  // namespace vramfit
