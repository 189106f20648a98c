#include "ui_language.hpp"

extern bool GImGuiRightToLeft;  // Dear ImGui's layout direction (cmake/imgui.cmake)

namespace vramfit {

namespace {
LanguageSupport g_arabic;
Language g_language = Language::english;
}  // namespace

void set_language_support(Language language, const LanguageSupport& support) {
  if (language == Language::arabic) g_arabic = support;
}

bool language_available(Language language) { return language == Language::english || g_arabic.use != nullptr; }

bool use_ui_language(Language language, bool arabic_indic_digits) {
  if (!language_available(language)) return false;
  if (g_arabic.use) g_arabic.use(language, arabic_indic_digits);
  g_language = language;
  return true;
}

Language ui_language() { return g_language; }
// Set by the language's module with its drawing (Dear ImGui's flag, cmake/imgui.cmake): where no
// right-to-left module is linked (the page's first) nothing sets it, and the compiler leaves
// every mirrored layout out.
[[gnu::noinline]] bool ui_right_to_left() { return GImGuiRightToLeft; }
void order_table_columns() {
  if (g_arabic.order_table_columns) g_arabic.order_table_columns();  // where Arabic is linked, in either language
}

const LanguageSupport* ui_language_support() { return g_language == Language::arabic ? &g_arabic : nullptr; }
std::string ui_text(const std::string& english) {
  return g_language != Language::english && g_arabic.translate_text ? g_arabic.translate_text(english) : english;
}
std::string ui_language_glyphs() { return g_language == Language::arabic ? g_arabic.glyphs : kArabicNameDrawn; }

// Out of line: called from some hundred places (the page's size).
[[gnu::noinline]] const char* tr(const char* english) {
  return g_language != Language::english && g_arabic.translate ? g_arabic.translate(english) : english;
}

}  // namespace vramfit
