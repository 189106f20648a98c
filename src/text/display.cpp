#include "display.hpp"

#include "arabic_shaping.hpp"
#include "utf8.hpp"

namespace vramfit {

DisplayParagraph::DisplayParagraph(const std::string& logical_utf8, const DisplayOptions& options)
    : logical_(utf8_to_u32(logical_utf8)) {
  if (options.arabic_indic_digits) {
    for (char32_t& c : logical_) {
      if (c >= '0' && c <= '9') c = 0x0660 + (c - '0');
    }
  }
  shaped_ = shape_arabic(logical_);
  bidi_ = bidi_levels(logical_, options.base);
}

std::string DisplayParagraph::visual(size_t begin, size_t end) const {
  std::u32string line = visual_line(shaped_, bidi_, begin, end);
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
  std::string out;
  size_t start = 0;
  while (true) {
    const size_t newline = logical_utf8.find('\n', start);
    const DisplayParagraph paragraph(logical_utf8.substr(start, newline == std::string::npos ? std::string::npos : newline - start), options);
    out += paragraph.visual();
    if (newline == std::string::npos) break;
    out += '\n';
    start = newline + 1;
  }
  return out;
}

}  // namespace vramfit
