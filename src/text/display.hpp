// Text as a renderer without shaping or bidi draws it (Dear ImGui: one glyph per code point,
// left to right): Arabic letters in their contextual forms, each line in visual order.
#pragma once
#include <string>

#include "bidi.hpp"

namespace vramfit {

struct DisplayOptions {
  BaseDirection base = BaseDirection::from_text_else_rtl;
  // 0-9 drawn as U+0660..U+0669 in the numbers of Arabic text and of figures, not in names
  // ("RTX 4090", "Llama 3.1 8B", "BF16") nor in formulas.
  bool arabic_indic_digits = false;
};

// One paragraph shaped and resolved once, drawn as one or more lines (the app wraps it).
class DisplayParagraph {
 public:
  DisplayParagraph(const std::string& logical_utf8, const DisplayOptions& options);
  size_t size() const { return paragraph_.shaped.size(); }
  const std::u32string& logical() const { return logical_; }  // after the digit setting
  bool right_to_left() const { return paragraph_.base_level % 2 == 1; }
  // The code points [begin, end) of the logical text as drawn, left to right, in UTF-8 (the
  // direction marks U+200E, U+200F and U+061C order the text and are not drawn).
  std::string visual(size_t begin, size_t end) const;
  std::string visual() const { return visual(0, size()); }

 private:
  std::u32string logical_;
  BidiParagraph paragraph_;
};

// A character typed into a number as vramfit reads it: the Arabic-Indic digits (U+0660..U+0669,
// and the extended ones of Persian and Urdu keyboards, U+06F0..U+06F9) as 0-9, the Arabic
// decimal separator (U+066B) as '.', the Arabic thousands separator (U+066C) as ','; any other
// character as it is.
char32_t typed_as_western(char32_t c);

// Each paragraph of a text (the lines between '\n') through `each` (std::string(const
// std::string&)), joined again with '\n'.
template <class Each>
std::string each_paragraph(const std::string& text, Each each) {
  std::string out;
  for (size_t start = 0;;) {
    const size_t newline = text.find('\n', start);
    out += each(text.substr(start, newline == std::string::npos ? std::string::npos : newline - start));
    if (newline == std::string::npos) return out;
    out += '\n';
    start = newline + 1;
  }
}

// A one-line text (a label, a table cell) as drawn. Text with several lines ('\n') is drawn
// paragraph by paragraph.
std::string display_text(const std::string& logical_utf8, const DisplayOptions& options);

}  // namespace vramfit
