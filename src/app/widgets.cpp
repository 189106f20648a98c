#include "widgets.hpp"

#include <imgui_internal.h>
#include <misc/cpp/imgui_stdlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <map>

#include "core/units.hpp"
#include "ui_language.hpp"

namespace vramfit {

namespace {
std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// A closed list's text that fits its box rather than running under the arrow: too wide, it drops
// a parenthesised tail ("GeForce RTX 3060 12 GB  (12.0 GiB)": "GeForce RTX 3060 12 GB"), then
// words from its end, with "..." ("GeForce RTX 3060...").
std::string fitting_preview(const std::string& preview) {
  const float room = ImGui::CalcItemWidth() - ImGui::GetFrameHeight() - ImGui::GetStyle().FramePadding.x * 2.0f;
  const auto fits = [room](const std::string& text) { return ImGui::CalcTextSize(text.c_str()).x <= room; };
  if (fits(preview)) return preview;
  std::string shown = preview;
  const size_t open = shown.rfind(" (");
  if (open != std::string::npos && open > 0 && shown.back() == ')') {
    shown = shown.substr(0, shown.find_last_not_of(' ', open) + 1);
    if (fits(shown)) return shown;
  }
  for (size_t space = shown.rfind(' '); space != std::string::npos && space > 0; space = shown.rfind(' ', space - 1)) {
    const std::string cut = shown.substr(0, shown.find_last_not_of(' ', space) + 1) + "...";
    if (fits(cut)) return cut;
  }
  return shown;
}
}  // namespace

bool FilteredCombo::begin(const char* label, const std::string& preview, std::string& filter) {
  if (!ImGui::BeginCombo(label, fitting_preview(preview).c_str(), ImGuiComboFlags_HeightLarge)) return false;
  if (ImGui::IsWindowAppearing()) {
    ImGui::SetKeyboardFocusHere();
    filter.clear();
  }
  ImGui::SetNextItemWidth(-1);
  const bool enter = ImGui::InputTextWithHint("##filter", "search", &filter, ImGuiInputTextFlags_EnterReturnsTrue);
  // Escape in the search box closes the list at once (Dear ImGui's text box would only let go
  // of the keyboard, and a second Escape close the list).
  if ((ImGui::IsItemActive() || ImGui::IsItemDeactivated()) && ImGui::IsKeyPressed(ImGuiKey_Escape, false)) {
    ImGui::CloseCurrentPopup();
  }
  lower_filter_ = lower(filter);
  count_id_ = ImGui::GetID("##matches");
  const int matched = ImGui::GetStateStorage()->GetInt(count_id_, 0);
  take_only_ = enter && !filter.empty() && matched == 1;
  matches_ = 0;
  // The list scrolls under the search box, which stays in place: as tall as the matches of the
  // last frame, at most 20 rows (Dear ImGui's large combo) and 60% of the screen.
  const float row = ImGui::GetTextLineHeightWithSpacing();
  const float rows = static_cast<float>(std::clamp(matched, 1, 20));
  const float height = std::min(rows * row + ImGui::GetStyle().WindowPadding.y, ImGui::GetMainViewport()->WorkSize.y * 0.6f);
  ImGui::BeginChild("##list", ImVec2(0.0f, height), ImGuiChildFlags_None, ImGuiWindowFlags_NavFlattened);
  return true;
}

bool FilteredCombo::item(const std::string& name, const std::string& id, bool selected) {
  if (!lower_filter_.empty() && lower(name + " " + id).find(lower_filter_) == std::string::npos) return false;
  ++matches_;
  bool chosen = ImGui::Selectable(name.c_str(), selected);
  if (selected) ImGui::SetItemDefaultFocus();
  chosen |= take_only_;
  // The list is a child of the popup, where a Selectable does not close it by itself.
  if (chosen) ImGui::CloseCurrentPopup();
  return chosen;
}

void FilteredCombo::end() {
  ImGui::EndChild();
  ImGui::GetStateStorage()->SetInt(count_id_, matches_);
  ImGui::EndCombo();
}

namespace {
// A dragged count lands on a value people type: a whole number below 8, then quarter steps of
// its power of two (8, 10, 12, 14, 16, 20, 24, 28, 32, ... 1,024, 1,280, 1,536, 1,792, 2,048,
// ... 131,072 = 128K, 163,840 = 160K), never 1,951,069.
int64_t round_for_people(double value) {
  if (value < 8.0) return std::llround(value);
  const double step = std::exp2(std::floor(std::log2(value))) / 4.0;
  return static_cast<int64_t>(std::llround(value / step) * static_cast<long long>(step));
}

// A number field's state between frames: the text being typed, what was wrong with the last
// settled text, and where a drag started.
struct NumberFieldState {
  std::string text, error;
  int64_t drag_start = 0;
  float drag_dx = 0.0f;
};
std::map<ImGuiID, NumberFieldState> g_number_fields;

// The text box of a typed field: it shows the value (`shown`) while not being edited; when an
// edit settles, the text is read (`parse`) and taken if within [min, max], else the old value
// stays and state.error says why. `field` is its ImGui label ("##Context").
using ShowValue = std::string (*)(int64_t);
using ParseValue = bool (*)(const std::string&, int64_t&, std::string&);
void typed_text_box(const std::string& field, NumberFieldState& state, int64_t& value, int64_t min, int64_t max,
                    ShowValue shown, ParseValue parse, const char* tooltip) {
  if (ImGui::GetActiveID() != ImGui::GetID(field.c_str())) state.text = shown(value);
  ImGui::InputText(field.c_str(), &state.text, ImGuiInputTextFlags_AutoSelectAll);
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    int64_t typed = 0;
    std::string why;
    if (!parse(state.text, typed, why)) {
      state.error = "\"" + state.text + "\": " + why + "; kept " + shown(value) + ".";
    } else if (typed < min || typed > max) {
      state.error = "\"" + state.text + "\": outside " + shown(min) + " .. " + shown(max) + "; kept " + shown(value) + ".";
    } else {
      state.error.clear();
      value = typed;
    }
  }
  if (ImGui::IsItemHovered() && !ImGui::IsItemActive()) ImGui::SetTooltip("%s", tooltip);
}

// A typed field's label after its controls, and what was wrong with the last text under it.
void field_label_and_error(const char* label, const NumberFieldState& state) {
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::TextUnformatted(label, ImGui::FindRenderedTextEnd(label));
  if (!state.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(240, 170, 60, 255));
    text_wrapped_at_spaces(state.error);
    ImGui::PopStyleColor();
  }
}

// In GiB, as the field's label says, 0 included ("0 GiB", not format_bytes' "0 B").
std::string in_gib(int64_t bytes) { return bytes == 0 ? "0 GiB" : format_bytes(bytes, DisplayUnits::gib, 2); }
}  // namespace

bool number_field(const char* label, int64_t& value, int64_t min, int64_t max, Steps steps) {
  ImGui::PushID(label);
  NumberFieldState& state = g_number_fields[ImGui::GetID("##state")];
  const ImGuiStyle& style = ImGui::GetStyle();
  const float button = ImGui::GetFrameHeight();
  // The drag handle is as wide as its label needs ("<>" is wider than a square button on phones).
  const float drag_button = std::max(button, ImGui::CalcTextSize("<>").x + 2.0f * style.FramePadding.x);
  const float buttons = 2.0f * (button + style.ItemInnerSpacing.x) +
                        (steps == Steps::doubling ? drag_button + style.ItemInnerSpacing.x : 0.0f);
  const float total = ImGui::CalcItemWidth();
  const int64_t before = value;
  ImGui::SetNextItemWidth(std::max(total - buttons, em(3.0f)));
  // The layout hook's name for the text box: "##Context".
  typed_text_box(std::string("##") + label, state, value, min, max, with_thousands, parse_count,
                 "Type a number: 32768, 32,768, 32k, 128K or 1M (k = 1,024)");
  ImGui::PushButtonRepeat(true);
  ImGui::SameLine(0, style.ItemInnerSpacing.x);
  if (ImGui::Button("-", ImVec2(button, button))) {
    value = std::max(min, steps == Steps::doubling ? value / 2 : value - 1);
    state.error.clear();
  }
  ImGui::SameLine(0, style.ItemInnerSpacing.x);
  if (ImGui::Button("+", ImVec2(button, button))) {
    value = std::min(max, steps == Steps::doubling && value <= max / 2 ? value * 2 : value + 1);
    state.error.clear();
  }
  ImGui::PopButtonRepeat();
  if (steps == Steps::doubling) {
    ImGui::SameLine(0, style.ItemInnerSpacing.x);
    ImGui::Button("<>", ImVec2(drag_button, button));
    if (ImGui::IsItemActivated()) {
      state.drag_start = value;
      state.drag_dx = 0.0f;
    }
    if (ImGui::IsItemHovered() || ImGui::IsItemActive()) ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
    if (ImGui::IsItemActive()) {
      state.drag_dx += ImGui::GetIO().MouseDelta.x;
      const double scaled = static_cast<double>(state.drag_start) * std::exp2(state.drag_dx / em(3.0f));
      value = std::clamp(round_for_people(std::min(scaled, 9.0e15)), min, max);
    } else if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("Drag sideways: x2 every %.0f pixels", em(3.0f));
    }
  }
  field_label_and_error(label, state);
  ImGui::PopID();
  return value != before;
}

bool memory_field(const char* label, int64_t& bytes, int64_t min, int64_t max) {
  ImGui::PushID(label);
  NumberFieldState& state = g_number_fields[ImGui::GetID("##state")];
  const int64_t before = bytes;
  typed_text_box(std::string("##") + label, state, bytes, min, max, in_gib, parse_memory_size,
                 "Type a size: 48, 48.5 or 23.65 GiB; 24 GB; 81,920 MiB (no unit = GiB)");
  field_label_and_error(label, state);
  ImGui::PopID();
  return bytes != before;
}

namespace {

// A fraction in hundredths, as vLLM's flags write it: 90 -> "0.90".
std::string as_fraction(int64_t hundredths) {
  char text[32];
  std::snprintf(text, sizeof text, "%lld.%02lld", static_cast<long long>(hundredths / 100), static_cast<long long>(hundredths % 100));
  return text;
}

// "0.95" (the flag's own fraction), "95%" or "95" (a percent) -> 95 hundredths.
bool parse_fraction(const std::string& text, int64_t& hundredths, std::string& why) {
  std::string t = text;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  const bool percent = !t.empty() && t.back() == '%';
  if (percent) t.pop_back();
  char* end = nullptr;
  const double value = std::strtod(t.c_str(), &end);
  if (t.empty() || end == t.c_str() || *end != '\0' || !std::isfinite(value)) {
    why = "not a number: a fraction (0.9) or a percent (90%)";
    return false;
  }
  hundredths = std::llround(percent || value > 1.0 ? value : value * 100.0);
  return true;
}

}  // namespace

bool fraction_field(const char* label, double& fraction, double min, double max) {
  ImGui::PushID(label);
  NumberFieldState& state = g_number_fields[ImGui::GetID("##state")];
  int64_t hundredths = std::llround(fraction * 100.0);
  const int64_t before = hundredths;
  typed_text_box(std::string("##") + label, state, hundredths, std::llround(min * 100.0), std::llround(max * 100.0), as_fraction,
                 parse_fraction, "Type a fraction or a percent: 0.95 or 95%");
  field_label_and_error(label, state);
  ImGui::PopID();
  if (hundredths == before) return false;
  fraction = static_cast<double>(hundredths) / 100.0;
  return true;
}

bool choice_combo(const char* label, int& value, const Choice* choices, size_t count) {
  const char* preview = "";
  for (size_t i = 0; i < count; ++i) {
    if (choices[i].value == value) preview = choices[i].label;
  }
  bool changed = false;
  if (ImGui::BeginCombo(label, fitting_preview(preview).c_str())) {
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
  int64_t percent = std::llround(fraction * 100.0);
  if (!number_field("Margin (%)", percent, 0, 30, Steps::by_one)) return false;
  fraction = static_cast<double>(percent) / 100.0;
  return true;
}

void text_wrapped_at_spaces(const std::string& text, float width) {
  if (ui_right_to_left()) {  // the text transform translates, wraps and right-aligns the whole text
    ImGui::TextWrapped("%s", text.c_str());
    return;
  }
  width = std::max(width > 0.0f ? width : ImGui::GetContentRegionAvail().x, em(4.0f));
  const size_t n = text.size();
  const auto word_end = [&](size_t from) { return std::min(text.find(' ', from), n); };
  size_t start = 0;
  while (start < n) {
    while (start < n && text[start] == ' ') ++start;  // a line starts with a word
    if (start == n) break;
    size_t end = word_end(start);  // at least one word, however long
    for (;;) {
      size_t next = end;
      while (next < n && text[next] == ' ') ++next;
      if (next == n) break;
      const size_t next_end = word_end(next);
      if (ImGui::CalcTextSize(text.data() + start, text.data() + next_end).x > width) break;
      end = next_end;
    }
    ImGui::TextUnformatted(text.data() + start, text.data() + end);
    start = end;
  }
}

void textf_wrapped_at_spaces(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  if (ui_right_to_left()) {
    ImGui::TextWrappedV(fmt, args);
  } else {
    const char* text;
    const char* text_end;
    ImFormatStringToTempBufferV(&text, &text_end, fmt, args);
    text_wrapped_at_spaces(std::string(text, text_end));
  }
  va_end(args);
}

void text_wrapped_at_spaces_disabled(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  text_wrapped_at_spaces(text);
  ImGui::PopStyleColor();
}

void section(const char* title) {
  ImGui::Spacing();
  align_line_end(title);
  ImGui::TextDisabled("%s", title);
  ImGui::Separator();
}

bool tooltip_wanted() {
  // The tooltip a tap pinned: its item (by window and place: a text has no id) and the last
  // frame it was drawn in; an item scrolled away or gone lets it go.
  static ImGuiID pinned = 0;
  static int pinned_seen = -1;
  ImGuiContext& g = *ImGui::GetCurrentContext();
  const ImGuiIO& io = ImGui::GetIO();
  const ImRect rect = g.LastItemData.Rect;
  const ImGuiID id = ImHashData(&rect, sizeof rect, g.CurrentWindow ? g.CurrentWindow->ID : 0);
  if (pinned != 0 && pinned_seen < g.FrameCount - 1) pinned = 0;
  const bool hovered = ImGui::IsItemHovered();
  if (io.MouseSource != ImGuiMouseSource_TouchScreen) return hovered;
  // A finger's tap (no drag) that did not press the item's own control (a combo's box, a
  // field): on this item it pins its tooltip or, pinned already, unpins it; anywhere else it
  // unpins this item's.
  const bool tap = ImGui::IsMouseReleased(0) && io.MouseDragMaxDistanceSqr[0] < io.MouseDragThreshold * io.MouseDragThreshold;
  if (tap && hovered && !ImGui::IsItemDeactivated() && !ImGui::IsItemActive()) {
    pinned = pinned == id ? 0 : id;
  } else if (tap && pinned == id) {
    pinned = 0;
  }
  if (pinned == id) pinned_seen = g.FrameCount;
  return pinned == id;
}

void help_marker(const char* text) {
  ImGui::SameLine();
  // Right to left, an item put at the line's right edge (a checkbox alone on its line) has its
  // "(?)" on its left.
  if (ui_right_to_left() && ImGui::GetItemRectMin().x > ImGui::GetCursorScreenPos().x) {
    ImGui::SetCursorScreenPos(ImVec2(ImGui::GetItemRectMin().x - ImGui::GetStyle().ItemSpacing.x - ImGui::CalcTextSize("(?)").x,
                                     ImGui::GetCursorScreenPos().y));
  }
  ImGui::TextDisabled("(?)");
  if (tooltip_wanted()) wrapped_tooltip(text);
}

void wrapped_tooltip(const char* text) {
  // At most 28 em wide, and on a phone no wider than the screen less a margin each side, so that
  // Dear ImGui can place it whole on the screen.
  ImGui::BeginTooltip();
  const float width = std::min(em(28.0f), ImGui::GetMainViewport()->WorkSize.x - em(3.0f));
  ImGui::PushTextWrapPos(width);
  for (const char* line = text; *line != '\0';) {  // its paragraphs, each wrapped at spaces
    const char* end = std::strchr(line, '\n');
    if (end == nullptr) end = line + std::strlen(line);
    text_wrapped_at_spaces(std::string(line, end), width);
    line = *end == '\n' ? end + 1 : end;
  }
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void ItemRow::start() {
  start_ = ImGui::GetCursorScreenPos().x;
  end_ = start_ + ImGui::GetContentRegionAvail().x;
  used_ = 0.0f;
}

// Out of line: called from some ten places (the page's size). An item that would pass the
// edge starts the next line, as place(width, spacing) does.
[[gnu::noinline]] void ItemRow::place(const char* label, RowItem kind) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float width = ImGui::CalcTextSize(label, nullptr, true).x +
                      (kind == RowItem::radio ? ImGui::GetFrameHeight() + style.ItemInnerSpacing.x : style.FramePadding.x * 2.0f);
  place(width, style.ItemSpacing.x);
}

void ItemRow::place(float width, float spacing) {
  if (used_ < 0.0f) {
    start();
  } else {
    ImGui::SameLine(0.0f, spacing);
    if (start_ + used_ + width > end_) {
      ImGui::NewLine();
      used_ = 0.0f;
    }
  }
  if (ui_right_to_left()) ImGui::SetCursorScreenPos(ImVec2(end_ - used_ - width, ImGui::GetCursorScreenPos().y));
  used_ += width + spacing;
}

void align_line_end(const char* text) {
  if (ui_right_to_left()) align_line_end(ImGui::CalcTextSize(text).x);
}

void align_line_end(float width) {
  if (ui_right_to_left()) ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - width));
}

void legend_entry(ItemRow& row, ImU32 colour, const char* name) {
  const float h = ImGui::GetTextLineHeight(), swatch = h * 0.75f, gap = ImGui::GetStyle().ItemSpacing.x;
  const float name_width = ImGui::CalcTextSize(name).x;
  row.place(swatch + gap + name_width, em(0.9f));
  const ImVec2 q = ImGui::GetCursorScreenPos();
  const float x = ui_right_to_left() ? q.x + name_width + gap : q.x;
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(x, q.y + h * 0.2f), ImVec2(x + h * 0.6f, q.y + h * 0.8f), colour);
  ImGui::SetCursorScreenPos(ImVec2(ui_right_to_left() ? q.x : q.x + swatch + gap, q.y));
  ImGui::TextUnformatted(name);
}

}  // namespace vramfit
