#include "arabic_shaping.hpp"

#include <array>

namespace vramfit {

namespace {

// Unicode joining types (ArabicShaping.txt): U non-joining, R right-joining (joins the letter
// before it only), D dual-joining, C join-causing (tatweel), T transparent (marks).
enum class Joining { none, right, dual, causing, transparent };

struct Letter {
  char32_t code;
  Joining joining;
  // Presentation forms: isolated, final, initial, medial (0: none).
  std::array<char32_t, 4> forms;
};

// The presentation forms of Unicode's Arabic Presentation Forms-A/B blocks (the <isolated>,
// <final>, <initial>, <medial> decompositions in UnicodeData.txt).
constexpr Letter kLetters[] = {
    {0x0621, Joining::none, {0xFE80, 0, 0, 0}},
    {0x0622, Joining::right, {0xFE81, 0xFE82, 0, 0}},
    {0x0623, Joining::right, {0xFE83, 0xFE84, 0, 0}},
    {0x0624, Joining::right, {0xFE85, 0xFE86, 0, 0}},
    {0x0625, Joining::right, {0xFE87, 0xFE88, 0, 0}},
    {0x0626, Joining::dual, {0xFE89, 0xFE8A, 0xFE8B, 0xFE8C}},
    {0x0627, Joining::right, {0xFE8D, 0xFE8E, 0, 0}},
    {0x0628, Joining::dual, {0xFE8F, 0xFE90, 0xFE91, 0xFE92}},
    {0x0629, Joining::right, {0xFE93, 0xFE94, 0, 0}},
    {0x062A, Joining::dual, {0xFE95, 0xFE96, 0xFE97, 0xFE98}},
    {0x062B, Joining::dual, {0xFE99, 0xFE9A, 0xFE9B, 0xFE9C}},
    {0x062C, Joining::dual, {0xFE9D, 0xFE9E, 0xFE9F, 0xFEA0}},
    {0x062D, Joining::dual, {0xFEA1, 0xFEA2, 0xFEA3, 0xFEA4}},
    {0x062E, Joining::dual, {0xFEA5, 0xFEA6, 0xFEA7, 0xFEA8}},
    {0x062F, Joining::right, {0xFEA9, 0xFEAA, 0, 0}},
    {0x0630, Joining::right, {0xFEAB, 0xFEAC, 0, 0}},
    {0x0631, Joining::right, {0xFEAD, 0xFEAE, 0, 0}},
    {0x0632, Joining::right, {0xFEAF, 0xFEB0, 0, 0}},
    {0x0633, Joining::dual, {0xFEB1, 0xFEB2, 0xFEB3, 0xFEB4}},
    {0x0634, Joining::dual, {0xFEB5, 0xFEB6, 0xFEB7, 0xFEB8}},
    {0x0635, Joining::dual, {0xFEB9, 0xFEBA, 0xFEBB, 0xFEBC}},
    {0x0636, Joining::dual, {0xFEBD, 0xFEBE, 0xFEBF, 0xFEC0}},
    {0x0637, Joining::dual, {0xFEC1, 0xFEC2, 0xFEC3, 0xFEC4}},
    {0x0638, Joining::dual, {0xFEC5, 0xFEC6, 0xFEC7, 0xFEC8}},
    {0x0639, Joining::dual, {0xFEC9, 0xFECA, 0xFECB, 0xFECC}},
    {0x063A, Joining::dual, {0xFECD, 0xFECE, 0xFECF, 0xFED0}},
    {0x0640, Joining::causing, {0, 0, 0, 0}},
    {0x0641, Joining::dual, {0xFED1, 0xFED2, 0xFED3, 0xFED4}},
    {0x0642, Joining::dual, {0xFED5, 0xFED6, 0xFED7, 0xFED8}},
    {0x0643, Joining::dual, {0xFED9, 0xFEDA, 0xFEDB, 0xFEDC}},
    {0x0644, Joining::dual, {0xFEDD, 0xFEDE, 0xFEDF, 0xFEE0}},
    {0x0645, Joining::dual, {0xFEE1, 0xFEE2, 0xFEE3, 0xFEE4}},
    {0x0646, Joining::dual, {0xFEE5, 0xFEE6, 0xFEE7, 0xFEE8}},
    {0x0647, Joining::dual, {0xFEE9, 0xFEEA, 0xFEEB, 0xFEEC}},
    {0x0648, Joining::right, {0xFEED, 0xFEEE, 0, 0}},
    {0x0649, Joining::dual, {0xFEEF, 0xFEF0, 0xFBE8, 0xFBE9}},
    {0x064A, Joining::dual, {0xFEF1, 0xFEF2, 0xFEF3, 0xFEF4}},
    {0x0671, Joining::right, {0xFB50, 0xFB51, 0, 0}},
    {0x067E, Joining::dual, {0xFB56, 0xFB57, 0xFB58, 0xFB59}},
    {0x0686, Joining::dual, {0xFB7A, 0xFB7B, 0xFB7C, 0xFB7D}},
    {0x0698, Joining::right, {0xFB8A, 0xFB8B, 0, 0}},
    {0x06A9, Joining::dual, {0xFB8E, 0xFB8F, 0xFB90, 0xFB91}},
    {0x06AF, Joining::dual, {0xFB92, 0xFB93, 0xFB94, 0xFB95}},
    {0x06CC, Joining::dual, {0xFBFC, 0xFBFD, 0xFBFE, 0xFBFF}},
};

const Letter* find_letter(char32_t c) {
  for (const Letter& letter : kLetters) {
    if (letter.code == c) return &letter;
  }
  return nullptr;
}

Joining joining_of(char32_t c) {
  if (const Letter* letter = find_letter(c)) return letter->joining;
  // Marks that do not break a join: the harakat, superscript alef, Quranic marks, and the
  // zero-width joiner (join-causing).
  if ((c >= 0x064B && c <= 0x065F) || c == 0x0670 || (c >= 0x06D6 && c <= 0x06DC) || (c >= 0x06DF && c <= 0x06E4) ||
      c == 0x06E7 || c == 0x06E8 || (c >= 0x06EA && c <= 0x06ED) || (c >= 0x0300 && c <= 0x036F)) {
    return Joining::transparent;
  }
  if (c == 0x200D) return Joining::causing;
  return Joining::none;
}

// Does this joining type connect to the letter after it (in logical order)?
bool joins_forward(Joining j) { return j == Joining::dual || j == Joining::causing; }
// ... to the letter before it?
bool joins_backward(Joining j) { return j == Joining::dual || j == Joining::right || j == Joining::causing; }

// The lam-alef ligatures (isolated, final) for lam followed by this alef, or 0.
std::array<char32_t, 2> lam_alef(char32_t alef) {
  switch (alef) {
    case 0x0622: return {0xFEF5, 0xFEF6};
    case 0x0623: return {0xFEF7, 0xFEF8};
    case 0x0625: return {0xFEF9, 0xFEFA};
    case 0x0627: return {0xFEFB, 0xFEFC};
    default: return {0, 0};
  }
}

}  // namespace

bool is_shaped_arabic_letter(char32_t c) { return find_letter(c) != nullptr; }

std::u32string arabic_glyphs() {
  std::u32string glyphs;
  for (const Letter& letter : kLetters) {
    if (letter.joining == Joining::none || letter.joining == Joining::causing) glyphs.push_back(letter.code);
    for (char32_t form : letter.forms) {
      if (form) glyphs.push_back(form);
    }
  }
  for (char32_t c = 0xFEF5; c <= 0xFEFC; ++c) glyphs.push_back(c);  // lam-alef
  for (char32_t c = 0x064B; c <= 0x0652; ++c) glyphs.push_back(c);  // harakat
  for (char32_t c = 0x0660; c <= 0x066C; ++c) glyphs.push_back(c);  // digits, percent, separators
  glyphs += U"\u060C\u061B\u061F";                                  // comma, semicolon, question mark
  return glyphs;
}

std::u32string shape_arabic(const std::u32string& logical) {
  const size_t n = logical.size();
  std::u32string out = logical;
  // The nearest non-transparent neighbour's joining type on each side.
  auto neighbour = [&](size_t i, int step) {
    for (size_t j = i; step < 0 ? j-- > 0 : ++j < n;) {
      const Joining joining = joining_of(logical[j]);
      if (joining != Joining::transparent) return std::pair<Joining, size_t>{joining, j};
    }
    return std::pair<Joining, size_t>{Joining::none, n};
  };
  for (size_t i = 0; i < n; ++i) {
    const Letter* letter = find_letter(logical[i]);
    // Letters that join nothing (hamza) keep their code point, as FriBidi leaves them.
    if (!letter || letter->joining == Joining::causing || letter->joining == Joining::none) continue;
    const bool before = joins_forward(neighbour(i, -1).first);
    const Joining next_joining = neighbour(i, +1).first;
    const bool after = letter->joining == Joining::dual && joins_backward(next_joining);
    // Lam directly followed by alef: one ligature in the lam's place (a mark between them
    // keeps the two letters, as FriBidi does).
    if (logical[i] == 0x0644 && i + 1 < n && lam_alef(logical[i + 1])[0] != 0) {
      out[i] = lam_alef(logical[i + 1])[before ? 1 : 0];
      out[i + 1] = kRemovedByShaping;
      ++i;
      continue;
    }
    const int form = before ? (after ? 3 : 1) : (after ? 2 : 0);
    out[i] = letter->forms[static_cast<size_t>(form)] ? letter->forms[static_cast<size_t>(form)] : letter->forms[0];
  }
  return out;
}

}  // namespace vramfit
