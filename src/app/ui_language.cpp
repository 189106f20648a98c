#include "ui_language.hpp"

namespace vramfit {

namespace {
LanguageSupport g_arabic;
Language g_language = Language::english;
const std::string kNoGlyphs;
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
bool ui_right_to_left() { return right_to_left(g_language); }
const std::string& ui_language_glyphs() { return g_language == Language::arabic ? g_arabic.glyphs : kNoGlyphs; }

std::string tr(const char* english) { return std::string(translate(g_language, english)); }

}  // namespace vramfit
