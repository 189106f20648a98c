// The Unicode Bidirectional Algorithm (UAX #9) for the app's text: one paragraph at a time,
// implicit levels only (rules P2-P3, W1-W7, N1-N2, I1-I2, L1-L2 and L4's mirrored brackets).
// The app's strings carry no explicit embeddings or isolates: those controls (U+202A..U+202E,
// U+2066..U+2069) are treated as boundary neutrals, which UAX #9 removes (X9) before the rules.
// GNU FriBidi's fribidi_log2vis gives the same visual order for such text; the tests compare.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vramfit {

// The paragraph's direction: given; the first strong character's (UAX #9's P2-P3), right to
// left without one; or right to left when the text has any right-to-left letter (an interface
// in Arabic: a translated string is Arabic whatever it starts with, "bf16 مختلطة").
enum class BaseDirection { left_to_right, right_to_left, from_text_else_rtl, rtl_if_any_rtl };

// A paragraph's resolved embedding levels (even: left-to-right, odd: right-to-left), one per
// code point, and the paragraph's own level.
struct BidiParagraph {
  std::vector<std::uint8_t> levels;
  std::uint8_t base_level = 0;
};
BidiParagraph bidi_levels(const std::u32string& logical, BaseDirection base);

// One line of a paragraph, [begin, end) of its logical text, in visual order (left to right
// as drawn): L1 resets trailing whitespace to the paragraph's level, L2 reverses runs from the
// highest level down to the lowest odd one, and L4 mirrors brackets in right-to-left runs.
std::u32string visual_line(const std::u32string& logical, const BidiParagraph& paragraph, size_t begin, size_t end);

}  // namespace vramfit
