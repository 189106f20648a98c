// Arabic shaping for a renderer that draws one glyph per code point (Dear ImGui): each letter
// becomes its contextual form from Unicode's Arabic Presentation Forms-B (isolated, final,
// initial, medial) by its neighbours' joining types (Unicode's ArabicShaping.txt, chapter 9.2
// of the standard), and lam followed by an alef becomes one of the four lam-alef ligatures.
// GNU FriBidi's fribidi_shape_arabic (FRIBIDI_FLAGS_ARABIC) gives the same output; the tests
// compare the two.
#pragma once
#include <string>

namespace vramfit {

// Contextual forms, in logical order (shape before reordering). The output has the input's
// length: the alef of a lam-alef ligature becomes kRemovedByShaping, which display code drops
// after ordering (so bidi levels computed on the input still line up).
inline constexpr char32_t kRemovedByShaping = 0xFEFF;
std::u32string shape_arabic(const std::u32string& logical);

// Whether a code point is an Arabic letter this shaper knows (U+0621..U+064A, U+0671, the
// Persian letters peh, tcheh, jeh, keheh, gaf and farsi yeh).
bool is_shaped_arabic_letter(char32_t c);

// Every code point shape_arabic() can put out for Arabic text (the presentation forms, the
// lam-alef ligatures, letters that keep their code point, harakat, Arabic punctuation and
// digits): what a font atlas needs for the Arabic interface.
std::u32string arabic_glyphs();

}  // namespace vramfit
