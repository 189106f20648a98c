#include "arabic_ui.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <cfloat>
#include <string>
#include <unordered_map>

#include "text/bidi.hpp"
#include "text/display.hpp"
#include "text/utf8.hpp"
#include "layout_hook.hpp"
#include "ui_language.hpp"

// Dear ImGui's text transform and format translation (cmake/imgui.cmake's patches).
typedef bool (*ImGuiTextTransform)(const ImFont* font, float size, const char** text_begin, const char** text_end,
                                   float* wrap_width, float* align_width);
extern ImGuiTextTransform GImGuiTextTransform;
extern bool GImGuiTextTransformBusy;
extern const char* (*GImGuiFormatTranslate)(const char* fmt);
extern bool GImGuiRightToLeft;  // a checkbox's box right of its label, tabs from the right
extern unsigned int (*GImGuiTypedCharacter)(unsigned int c);

namespace vramfit {

namespace {

DisplayOptions g_options{BaseDirection::rtl_if_any_rtl, false};
// Text as drawn, by the text, the wrap width and the font it was measured in. Recomputed
// when a font gains glyphs (their count is in the key) and emptied when it grows large.
struct Drawn {
  bool changed = false;
  bool wrapped = false;
  std::string text;
};
std::unordered_map<std::string, Drawn> g_drawn;

// Bytes that start right-to-left characters: U+0580..U+07FF (Hebrew, Arabic, Syriac...)
// and U+FB1D..U+FEFF (presentation forms).
bool needs_ordering(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0xD6 && c <= 0xDF) return true;
    if (c == 0xEF && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0xAC &&
        static_cast<unsigned char>(text[i + 1]) <= 0xBB)
      return true;
    if (g_options.arabic_indic_digits && c >= '0' && c <= '9') return true;
  }
  return false;
}

float drawn_width(const ImFont* font, float size, const std::string& text) {
  GImGuiTextTransformBusy = true;
  const float width = font->CalcTextSizeA(size, FLT_MAX, 0.0f, text.data(), text.data() + text.size()).x;
  GImGuiTextTransformBusy = false;
  return width;
}

// A paragraph broken into lines of at most `wrap_width` in logical order (at spaces; a word
// longer than a line stands alone), each line then put in visual order.
std::string wrapped(const ImFont* font, float size, const std::string& logical, float wrap_width) {
  return each_paragraph(logical, [&](const std::string& text_of_paragraph) {
    const DisplayParagraph paragraph(text_of_paragraph, g_options);
    const std::u32string& text = paragraph.logical();
    std::string out;
    size_t line = 0;
    while (line < text.size()) {
      size_t fits = 0;  // the end of the longest line that fits, 0 for none yet
      for (size_t end = line; end <= text.size(); ++end) {
        if (end < text.size() && text[end] != U' ') continue;
        if (end > line && drawn_width(font, size, paragraph.visual(line, end)) > wrap_width && fits != 0) break;
        fits = end;
        if (end == text.size()) break;
      }
      if (fits <= line) fits = text.size();
      out += paragraph.visual(line, fits);
      line = fits;
      while (line < text.size() && text[line] == U' ') ++line;
      if (line < text.size()) out += '\n';
    }
    return out;
  });
}

bool g_translate = false;  // the Arabic interface; the English one only orders and shapes right-to-left runs

bool transform(const ImFont* font, float size, const char** text_begin, const char** text_end, float* wrap_width,
               float* align_width) {
  const std::string_view text(*text_begin, static_cast<size_t>(*text_end - *text_begin));
  if (text.empty()) return false;
  // English: most texts have no right-to-left letter and are drawn as they are, unlooked-up.
  if (!g_translate && !needs_ordering(text)) return false;
  const bool wrap = *wrap_width > 0.0f;
  std::string key(text);
  if (wrap) key += '\x1F' + std::to_string(static_cast<int>(*wrap_width)) + '\x1F' + std::to_string(static_cast<int>(size)) + '\x1F' +
                   std::to_string(font->Glyphs.Size);
  auto found = g_drawn.find(key);
  if (found == g_drawn.end()) {
    if (g_drawn.size() > 8192) g_drawn.clear();
    Drawn drawn;
    const std::string logical = g_translate ? translate_text(Language::arabic, text) : std::string(text);
    // Wrapped text is always laid out here, so that every paragraph aligns to the right.
    drawn.changed = wrap || logical != text || needs_ordering(logical);
    if (drawn.changed) {
      drawn.wrapped = wrap;
      drawn.text = wrap ? wrapped(font, size, logical, *wrap_width) : display_text(logical, g_options);
    }
    found = g_drawn.emplace(std::move(key), std::move(drawn)).first;
  }
  const Drawn& drawn = found->second;
  if (!drawn.changed) return false;
  *text_begin = drawn.text.data();
  *text_end = drawn.text.data() + drawn.text.size();
  if (drawn.wrapped) {
    *align_width = g_translate ? *wrap_width : 0.0f;  // right-aligned in the Arabic interface only
    *wrap_width = 0.0f;
  }
  return true;
}

const char* translate_format(const char* format) { return translate(Language::arabic, format).data(); }

// One line of a report, its "**" marks taken out for the catalog and put around the whole again.
std::string translated_line(std::string_view line) {
  std::string plain;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line.compare(i, 2, "**") == 0) { ++i; continue; }
    plain += line[i];
  }
  const std::string arabic = translate_text(Language::arabic, plain);
  if (arabic == plain) return std::string(line);
  return plain.size() == line.size() ? arabic : "**" + arabic + "**";
}

// A report of many lines (Copy Markdown's, the spoken summary): line by line; a table row cell
// by cell ("| --- |" as it is); a list item after its "- "; a code block (what an engine will
// print) as it is.
std::string translate_report(const std::string& english) {
  std::string out;
  bool code = false;
  for (size_t start = 0; start <= english.size();) {
    size_t end = english.find('\n', start);
    if (end == std::string::npos) end = english.size();
    const std::string_view line(english.data() + start, end - start);
    if (line.substr(0, 3) == "```") code = !code;
    if (code || line.substr(0, 3) == "```" || line.find_first_not_of(" |-:") == std::string_view::npos) {
      out += line;
    } else if (line[0] == '|') {
      for (size_t cell = 1; cell < line.size();) {
        const size_t bar = line.find('|', cell);
        if (bar == std::string_view::npos) break;
        const std::string_view text = line.substr(cell, bar - cell);
        const size_t first = text.find_first_not_of(' '), last = text.find_last_not_of(' ');
        out += first == std::string_view::npos ? "|" + std::string(text) : "| " + translated_line(text.substr(first, last - first + 1)) + " ";
        cell = bar + 1;
      }
      out += "|";
    } else if (line.substr(0, 2) == "- ") {
      out += "- " + translated_line(line.substr(2));
    } else {
      out += translated_line(line);
    }
    if (end < english.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

// The digits switch, beside the language's.
constexpr const char* kDigitsLabel = "Digits: 123###digits";  // drawn with the digits in use
bool draw_digits_setting(Request& request) {
  const bool pressed = ImGui::SmallButton(kDigitsLabel);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Digits: Western (123) or Arabic-Indic (click to switch)");
  if (pressed) request.language = request.language == "ar" ? "ar-u-nu-arab" : "ar";
  return pressed;
}

// The layout's items with the words shown in Arabic ("shown"): the catalog's text for a label
// (its id part left out) or a text, before shaping.
// A text the transform changed (shaped and put in visual order: a name in Arabic, in either
// interface) has "drawn", the characters it drew.
void annotate_layout(json& items) {
  for (json& item : items) {
    const std::string& label = item["label"].get_ref<const std::string&>();
    if (const auto drawn = g_drawn.find(label); drawn != g_drawn.end() && drawn->second.changed && !drawn->second.wrapped) {
      item["drawn"] = drawn->second.text;
    }
    if (ui_language() == Language::arabic) item["shown"] = translate_text(Language::arabic, label.substr(0, label.find("##")));
  }
}

// Right to left, a table's first column is its rightmost: Dear ImGui's own column order
// (DisplayOrder, what a person's drag of a header would change) set for the direction.
void order_columns() {
  ImGuiTable* table = ImGui::GetCurrentTable();
  if (!table) return;
  const bool mirrored = ui_right_to_left();
  const int n = table->ColumnsCount;
  for (int i = 0; i < n; ++i) {
    const auto order = static_cast<ImGuiTableColumnIdx>(mirrored ? n - 1 - i : i);
    table->Columns[i].DisplayOrder = order;
    table->DisplayOrderToIndex[order] = static_cast<ImGuiTableColumnIdx>(i);
  }
  table->IsDefaultDisplayOrder = !mirrored;
}

void use(Language language, bool arabic_indic_digits) {
  g_drawn.clear();
  g_options.arabic_indic_digits = arabic_indic_digits;
  const bool arabic = language == Language::arabic;
  // An Arabic name in the English interface (a model's, a file's) is shaped and ordered too,
  // in a left-to-right paragraph.
  g_translate = arabic;
  g_options.base = arabic ? BaseDirection::rtl_if_any_rtl : BaseDirection::left_to_right;
  GImGuiTextTransform = transform;
  GImGuiFormatTranslate = arabic ? translate_format : nullptr;
  GImGuiRightToLeft = arabic;
}

}  // namespace

void annotate_arabic_layout(json& items) { annotate_layout(items); }

void read_typed_digits_as_western() {
  GImGuiTypedCharacter = [](unsigned int c) { return static_cast<unsigned int>(typed_as_western(c)); };
}

const LanguageSupport& arabic_language_support() {
  static const LanguageSupport support = [] {
    LanguageSupport s;
    s.use = use;
    s.translate = translate_format;  // a catalog entry, or the English
    s.translate_text = translate_report;
    s.draw_settings = draw_digits_setting;
    s.settings_label = kDigitsLabel;
    s.order_table_columns = order_columns;
    s.glyphs = u32_to_utf8(arabic_glyphs());
    return s;
  }();
  return support;
}

}  // namespace vramfit
