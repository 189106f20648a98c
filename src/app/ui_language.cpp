#include "ui_language.hpp"

#include "arabic_ui.hpp"

extern bool GImGuiRightToLeft;  // Dear ImGui's layout direction (cmake/imgui.cmake)

namespace vramfit {

namespace {
Language g_language = Language::english;
}  // namespace

void use_ui_language(Language language, bool arabic_indic_digits) {
  arabic_language_support().use(language, arabic_indic_digits);
  g_language = language;
}

Language ui_language() { return g_language; }
// Set with the language's drawing (Dear ImGui's flag, cmake/imgui.cmake).
bool ui_right_to_left() { return GImGuiRightToLeft; }
void order_table_columns() { arabic_language_support().order_table_columns(); }  // in either language

const LanguageSupport* ui_language_support() { return g_language == Language::arabic ? &arabic_language_support() : nullptr; }
std::string ui_text(const std::string& english) {
  return g_language != Language::english ? arabic_language_support().translate_text(english) : english;
}
std::string ui_language_glyphs() { return g_language == Language::arabic ? arabic_language_support().glyphs : kArabicNameDrawn; }

const char* tr(const char* english) {
  return g_language != Language::english ? arabic_language_support().translate(english) : english;
}

}  // namespace vramfit
