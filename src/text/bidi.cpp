#include "bidi.hpp"

#include <fribidi.h>

namespace vramfit {

namespace {

// The flags fribidi_log2vis uses (lib/fribidi.c): mirroring, marks reordered after their
// base, Arabic presentation forms and the lam-alef ligatures.
constexpr FriBidiFlags kFlags = FRIBIDI_FLAGS_DEFAULT | FRIBIDI_FLAGS_ARABIC;

FriBidiParType paragraph_direction(BaseDirection base, const std::vector<FriBidiCharType>& types) {
  switch (base) {
    case BaseDirection::left_to_right: return FRIBIDI_PAR_LTR;
    case BaseDirection::right_to_left: return FRIBIDI_PAR_RTL;
    case BaseDirection::from_text_else_rtl: return FRIBIDI_PAR_WRTL;
    case BaseDirection::rtl_if_any_rtl: break;
  }
  for (FriBidiCharType type : types) {
    if (FRIBIDI_IS_LETTER(type) && FRIBIDI_IS_RTL(type)) return FRIBIDI_PAR_RTL;
  }
  return FRIBIDI_PAR_LTR;
}

}  // namespace

// The steps of fribidi_log2vis (lib/fribidi.c) up to the reordering, which visual_line does
// per line: bidi and bracket types, embedding levels, Arabic joining, then shaping (which
// needs the levels: mirroring and joining apply within runs of one level).
BidiParagraph resolve_paragraph(const std::u32string& logical, BaseDirection base) {
  BidiParagraph p;
  const auto n = static_cast<FriBidiStrIndex>(logical.size());
  std::vector<FriBidiChar> text(logical.begin(), logical.end());
  p.types.resize(logical.size());
  std::vector<FriBidiBracketType> brackets(logical.size());
  std::vector<FriBidiLevel> levels(logical.size());
  std::vector<FriBidiArabicProp> joining(logical.size());
  fribidi_get_bidi_types(text.data(), n, p.types.data());
  fribidi_get_bracket_types(text.data(), n, p.types.data(), brackets.data());
  FriBidiParType direction = paragraph_direction(base, p.types);
  // 0 only when FriBidi cannot allocate; the levels then stay at 0 (left to right).
  if (n > 0 && fribidi_get_par_embedding_levels_ex(p.types.data(), brackets.data(), n, &direction, levels.data()) == 0) {
    direction = FRIBIDI_PAR_LTR;
  }
  p.base_level = static_cast<std::uint8_t>(FRIBIDI_DIR_TO_LEVEL(direction));
  fribidi_get_joining_types(text.data(), n, joining.data());
  fribidi_join_arabic(p.types.data(), n, levels.data(), joining.data());
  fribidi_shape(kFlags, levels.data(), n, joining.data(), text.data());
  p.shaped.assign(text.begin(), text.end());
  p.levels.assign(levels.begin(), levels.end());
  return p;
}

std::u32string visual_line(const BidiParagraph& paragraph, size_t begin, size_t end) {
  // fribidi_reorder_line works on the whole paragraph's arrays and changes the levels (L1).
  std::vector<FriBidiChar> text(paragraph.shaped.begin(), paragraph.shaped.end());
  std::vector<FriBidiLevel> levels(paragraph.levels.begin(), paragraph.levels.end());
  const FriBidiParType direction = paragraph.base_level % 2 ? FRIBIDI_PAR_RTL : FRIBIDI_PAR_LTR;
  // FriBidi returns 0 only when it cannot allocate: the line is then drawn in logical order.
  if (end > begin && fribidi_reorder_line(kFlags, paragraph.types.data(), static_cast<FriBidiStrIndex>(end - begin),
                                          static_cast<FriBidiStrIndex>(begin), direction, levels.data(), text.data(), nullptr) == 0) {
    return paragraph.shaped.substr(begin, end - begin);
  }
  return std::u32string(text.begin() + static_cast<std::ptrdiff_t>(begin), text.begin() + static_cast<std::ptrdiff_t>(end));
}

std::u32string arabic_glyphs() {
  std::u32string letters;
  for (char32_t c = 0x0621; c <= 0x064A; ++c) letters.push_back(c);
  letters += U"\u0671\u067E\u0686\u0698\u06A9\u06AF\u06CC";
  std::u32string glyphs;
  auto add_shaped = [&](const std::u32string& text) {
    for (char32_t c : resolve_paragraph(text, BaseDirection::right_to_left).shaped) {
      if (c != kRemovedByShaping && glyphs.find(c) == std::u32string::npos) glyphs.push_back(c);
    }
  };
  // Each letter alone, after a tatweel (U+0640, join-causing), before one and between two:
  // its isolated, final, initial and medial forms where it has them.
  for (char32_t letter : letters) {
    for (const std::u32string& context : {std::u32string{letter}, std::u32string{0x0640, letter},
                                          std::u32string{letter, 0x0640}, std::u32string{0x0640, letter, 0x0640}}) {
      add_shaped(context);
    }
  }
  for (char32_t alef : {0x0622, 0x0623, 0x0625, 0x0627}) {  // lam-alef, alone and after a tatweel
    add_shaped(std::u32string{0x0644, alef});
    add_shaped(std::u32string{0x0640, 0x0644, alef});
  }
  for (char32_t c = 0x064B; c <= 0x0652; ++c) glyphs.push_back(c);  // harakat
  for (char32_t c = 0x0660; c <= 0x066C; ++c) glyphs.push_back(c);  // digits, percent, separators
  glyphs += U"\u060C\u061B\u061F";                                  // comma, semicolon, question mark
  return glyphs;
}

}  // namespace vramfit
