// The language the app is drawn in. English is Dear ImGui's own drawing; Arabic is drawn
// through the text transform cmake/imgui.cmake adds to Dear ImGui (every label, text and
// tooltip translated by the message catalog, shaped and put in visual order as it is measured
// and drawn: arabic_ui.cpp).
#pragma once
#include <string>

#include "core/request.hpp"
#include "text/messages.hpp"

namespace vramfit {

// What a language other than English provides: installing its drawing (or removing it, for English), its
// catalog's translation (the English where it has none), the characters its text needs, and
// its settings in the top bar (Arabic: the digits: one small button of settings_label).
struct LanguageSupport {
  void (*use)(Language language, bool arabic_indic_digits) = nullptr;
  const char* (*translate)(const char* english) = nullptr;
  // Run-time text of any length (the spoken summary, Copy Markdown's report): line by line, a
  // table row cell by cell, code blocks left as they are.
  std::string (*translate_text)(const std::string& english) = nullptr;
  bool (*draw_settings)(Request& request) = nullptr;  // true: changed
  void (*order_table_columns)() = nullptr;             // the current table's columns for the direction
  const char* settings_label = "";
  std::string glyphs;  // UTF-8: every character its text may need in the font
};

// Draws the interface in this language from the next frame.
void use_ui_language(Language language, bool arabic_indic_digits);
Language ui_language();
bool ui_right_to_left();
std::string ui_language_glyphs();  // English: the language switch's "العربية"
const LanguageSupport* ui_language_support();  // the language drawn now (nullptr: English)
// Text composed at run time, whole reports included (what is copied, what screen readers hear),
// in the interface's language: LanguageSupport::translate_text, or the English as it is.
std::string ui_text(const std::string& english);
// The current table's columns in the reading order: right to left in Arabic (its first column
// rightmost), as set up in English. Call after TableSetupColumn, before the first row.
void order_table_columns();

// Text the app composes before drawing, in the interface's language (logical order; the
// transform shapes and orders it when drawn). Format strings passed to ImGui::Text and
// SetTooltip are translated by the transform itself.
// The text lives as long as the catalog (the program) or the English given.
const char* tr(const char* english);

// The language switch's label in each language's own script: "العربية" (the transform shapes it
// in either interface; kArabicNameDrawn is what it draws, the glyphs the English interface
// needs from the start: the test of src/text checks it), "English".
inline constexpr const char* kArabicNameDrawn = "\xEF\xBA\x94\xEF\xBB\xB4\xEF\xBA\x91\xEF\xBA\xAE\xEF\xBB\x8C\xEF\xBB\x9F\xEF\xBA\x8D";
inline constexpr const char* kArabicSwitchLabel = "\u0627\u0644\u0639\u0631\u0628\u064A\u0629###language";  // the name, then its id

}  // namespace vramfit
