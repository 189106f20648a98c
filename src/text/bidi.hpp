// Arabic shaping and the bidi order of the app's text, by GNU FriBidi (cmake/fribidi.cmake:
// Debian's libfribidi natively, the same release compiled from its source for the page): the
// Unicode Bidirectional Algorithm (UAX #9) one paragraph at a time, Arabic letters in their
// contextual forms from Unicode's Presentation Forms-B and the lam-alef ligatures, brackets
// mirrored in right-to-left runs. Dear ImGui draws one glyph per code point, left to right;
// these calls give it the code points in that order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vramfit {

// The paragraph's direction: given; the first strong character's (UAX #9's P2-P3), right to
// left without one (FriBidi's FRIBIDI_PAR_WRTL); or right to left when the text has any
// right-to-left letter (an interface in Arabic: a translated string is Arabic whatever it
// starts with, "bf16 مختلطة").
enum class BaseDirection { left_to_right, right_to_left, from_text_else_rtl, rtl_if_any_rtl };

// What FriBidi's shaping puts in place of the alef of a lam-alef ligature (FRIBIDI_CHAR_FILL):
// the text keeps its length, so the levels still line up; display code drops it after ordering.
inline constexpr char32_t kRemovedByShaping = 0xFEFF;

// A paragraph resolved once and drawn as one or more lines (the app wraps it).
struct BidiParagraph {
  std::u32string shaped;              // logical order: contextual forms, ligatures, mirrored brackets
  std::vector<std::uint32_t> types;   // FriBidi's bidi type of each code point
  std::vector<std::uint8_t> levels;   // resolved embedding levels (odd: right to left)
  std::uint8_t base_level = 0;
};
BidiParagraph resolve_paragraph(const std::u32string& logical, BaseDirection base);

// The code points [begin, end) of a resolved paragraph as one line, in visual order (left to
// right as drawn): fribidi_reorder_line (L1's trailing whitespace, L2's reversals, marks kept
// after their base).
std::u32string visual_line(const BidiParagraph& paragraph, size_t begin, size_t end);

// Every code point FriBidi's shaping can put out for the Arabic letters the interface uses
// (U+0621..U+064A, alef wasla and the Persian letters peh, tcheh, jeh, keheh, gaf, farsi yeh)
// in each of their positions, the lam-alef ligatures, and the harakat, Arabic-Indic digits
// and punctuation: what a font atlas needs for the Arabic interface.
std::u32string arabic_glyphs();

}  // namespace vramfit
