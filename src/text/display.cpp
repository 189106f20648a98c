#include "display.hpp"

#include "utf8.hpp"

namespace vramfit {

namespace {

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }
bool is_latin_letter(char32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7); }
bool is_arabic_letter(char32_t c) { return (c >= 0x0620 && c <= 0x064A) || (c >= 0x066E && c <= 0x06D3) || (c >= 0xFB50 && c <= 0xFEFC); }

// Arabic-Indic digits for the numbers of a text that reads as Arabic or as a figure ("16.06 GB",
// "62.4%"), not for digits that belong to a name or a formula: a text with a Latin word of four
// letters or more and no Arabic ("Llama 3.1 8B"), a formula ("= 10% x 17,730,368,512 B"), digits touching a Latin
// letter ("BF16", "8B"), or digits after a Latin word and a space ("RTX 4090"). A number after a
// Latin word and punctuation is a value ("وحدات GPU: 1", "-ngl: 33").
void arabic_indic_digits(std::u32string& text) {
  bool arabic = false, latin_word = false;
  for (size_t i = 0, run = 0; i < text.size(); ++i) {
    arabic |= is_arabic_letter(text[i]);
    run = is_latin_letter(text[i]) ? run + 1 : 0;
    latin_word |= run >= 4;
  }
  if ((latin_word && !arabic) || (text.size() > 1 && text[0] == '=' && text[1] == ' ')) return;  // a name, a formula
  for (size_t i = 0; i < text.size();) {
    if (!is_digit(text[i])) { ++i; continue; }
    size_t end = i;  // the number: digits and the separators between them
    while (end < text.size() && (is_digit(text[end]) || ((text[end] == '.' || text[end] == ',') && end + 1 < text.size() && is_digit(text[end + 1])))) ++end;
    size_t before = i;  // the character before the number and its spaces
    while (before > 0 && text[before - 1] == U' ') --before;
    const bool after_latin = before > 0 && before < i && is_latin_letter(text[before - 1]);
    const bool touches_latin = (i > 0 && is_latin_letter(text[i - 1])) || (end < text.size() && is_latin_letter(text[end]));
    if (!after_latin && !touches_latin) {
      for (size_t k = i; k < end; ++k) {
        if (is_digit(text[k])) text[k] = 0x0660 + (text[k] - '0');
      }
    }
    i = end;
  }
}

}  // namespace

DisplayParagraph::DisplayParagraph(const std::string& logical_utf8, const DisplayOptions& options)
    : logical_(utf8_to_u32(logical_utf8)) {
  if (options.arabic_indic_digits) arabic_indic_digits(logical_);
  paragraph_ = resolve_paragraph(logical_, options.base);
}

std::string DisplayParagraph::visual(size_t begin, size_t end) const {
  std::u32string line = visual_line(paragraph_, begin, end);
  std::u32string drawn;
  drawn.reserve(line.size());
  for (char32_t c : line) {
    // The ligatures' removed alefs, and the invisible direction marks (LRM, RLM, ALM): they
    // order text, a font has nothing to draw for them.
    if (c != kRemovedByShaping && c != 0x200E && c != 0x200F && c != 0x061C) drawn.push_back(c);
  }
  return u32_to_utf8(drawn);
}

std::string display_text(const std::string& logical_utf8, const DisplayOptions& options) {
  return each_paragraph(logical_utf8, [&](const std::string& paragraph) { return DisplayParagraph(paragraph, options).visual(); });
}

char32_t typed_as_western(char32_t c) {
  if (c >= 0x0660 && c <= 0x0669) return U'0' + (c - 0x0660);
  if (c >= 0x06F0 && c <= 0x06F9) return U'0' + (c - 0x06F0);
  if (c == 0x066B) return U'.';
  if (c == 0x066C) return U',';
  return c;
}

}  // namespace vramfit
