#include "bidi.hpp"

#include <algorithm>

namespace vramfit {

namespace {

// Bidi classes (UnicodeData.txt field 4) of the characters the app's text holds.
enum class Bidi { L, R, AL, EN, ES, ET, AN, CS, NSM, BN, B, S, WS, ON };

bool in(char32_t c, char32_t lo, char32_t hi) { return c >= lo && c <= hi; }

Bidi bidi_class(char32_t c) {
  if (in(c, '0', '9') || c == 0xB2 || c == 0xB3 || c == 0xB9 || in(c, 0x06F0, 0x06F9) || in(c, 0x2070, 0x2079) ||
      in(c, 0x2080, 0x2089) || in(c, 0xFF10, 0xFF19))
    return Bidi::EN;
  if (c == '+' || c == '-' || c == 0x207A || c == 0x207B || c == 0x208A || c == 0x208B || c == 0x2212 || c == 0xFB29)
    return Bidi::ES;
  if (in(c, '#', '%') || in(c, 0xA2, 0xA5) || c == 0xB0 || c == 0xB1 || c == 0x066A || in(c, 0x2030, 0x2034) ||
      in(c, 0x20A0, 0x20CF) || c == 0x212E || c == 0x2213)
    return Bidi::ET;
  if (c == ',' || c == '.' || c == '/' || c == ':' || c == 0xA0 || c == 0x060C || c == 0x202F || c == 0x2044 ||
      c == 0xFE50 || c == 0xFE52 || c == 0xFE55)
    return Bidi::CS;
  if (in(c, 0x0660, 0x0669) || c == 0x066B || c == 0x066C || in(c, 0x0600, 0x0605) || c == 0x06DD || c == 0x08E2)
    return Bidi::AN;
  if (in(c, 0x0300, 0x036F) || in(c, 0x0591, 0x05BD) || c == 0x05BF || c == 0x05C1 || c == 0x05C2 || c == 0x05C4 ||
      c == 0x05C5 || c == 0x05C7 || in(c, 0x0610, 0x061A) || in(c, 0x064B, 0x065F) || c == 0x0670 ||
      in(c, 0x06D6, 0x06DC) || in(c, 0x06DF, 0x06E4) || c == 0x06E7 || c == 0x06E8 || in(c, 0x06EA, 0x06ED) ||
      in(c, 0xFE00, 0xFE0F) || in(c, 0xFE20, 0xFE2F) || in(c, 0x20D0, 0x20F0))
    return Bidi::NSM;
  if (c == '\n' || c == '\r' || c == 0x1C || c == 0x1D || c == 0x1E || c == 0x85 || c == 0x2029) return Bidi::B;
  if (c == '\t' || c == 0x0B || c == 0x1F) return Bidi::S;
  if (c == ' ' || c == 0x0C || c == 0x1680 || in(c, 0x2000, 0x200A) || c == 0x2028 || c == 0x205F || c == 0x3000)
    return Bidi::WS;
  if (c < 0x20 || in(c, 0x7F, 0x84) || in(c, 0x86, 0x9F) || c == 0xAD || in(c, 0x200B, 0x200D) || c == 0x2060 ||
      in(c, 0x202A, 0x202E) || in(c, 0x2066, 0x2069) || c == 0xFEFF)
    return Bidi::BN;
  if (c == 0x200F) return Bidi::R;
  if (c == 0x200E) return Bidi::L;
  if (c == 0x061C) return Bidi::AL;
  if (in(c, 0x0590, 0x05FF) || in(c, 0x07C0, 0x085F) || in(c, 0xFB1D, 0xFB4F)) return Bidi::R;
  if (in(c, 0x0600, 0x07BF) || in(c, 0x0860, 0x08FF) || in(c, 0xFB50, 0xFDCF) || in(c, 0xFDF0, 0xFDFF) ||
      in(c, 0xFE70, 0xFEFE))
    return Bidi::AL;
  // Neutrals: ASCII and Latin-1 punctuation and symbols, general punctuation, arrows,
  // mathematical operators, box drawing, shapes.
  if (in(c, 0x21, 0x2F) || in(c, 0x3A, 0x40) || in(c, 0x5B, 0x60) || in(c, 0x7B, 0x7E) || in(c, 0xA1, 0xBF) ||
      c == 0xD7 || c == 0xF7 || in(c, 0x2010, 0x2027) || in(c, 0x2035, 0x205E) || in(c, 0x2100, 0x2101) ||
      in(c, 0x2190, 0x23FF) || in(c, 0x2500, 0x27FF) || in(c, 0x2900, 0x2BFF) || c == 0x061B || c == 0x061F ||
      c == 0x06D4 || in(c, 0xFD3E, 0xFD3F))
    return Bidi::ON;
  return Bidi::L;
}

bool is_strong_rtl(Bidi b) { return b == Bidi::R || b == Bidi::AL; }

// Bidi_Mirroring_Glyph for the paired brackets and signs the app's text uses.
char32_t mirrored(char32_t c) {
  static constexpr char32_t kPairs[][2] = {{'(', ')'}, {'[', ']'}, {'{', '}'}, {'<', '>'}, {0xAB, 0xBB},
                                           {0x2039, 0x203A}, {0x2264, 0x2265}, {0x2045, 0x2046}, {0x2208, 0x220B}};
  for (const auto& pair : kPairs) {
    if (c == pair[0]) return pair[1];
    if (c == pair[1]) return pair[0];
  }
  return c;
}

// The characters the rules see (X9: boundary neutrals set aside), by their position in the text.
struct KeptTypes {
  std::vector<Bidi>& types;
  std::vector<size_t> kept;
  Bidi& operator()(size_t k) { return types[kept[k]]; }
  size_t size() const { return kept.size(); }
};

// P2-P3: the first strong character's direction (or the given one).
std::uint8_t paragraph_level(const std::vector<Bidi>& types, BaseDirection base) {
  if (base == BaseDirection::from_text_else_rtl) {
    for (Bidi t : types) {
      if (t == Bidi::L || is_strong_rtl(t)) return t == Bidi::L ? 0 : 1;
    }
    return 1;
  }
  if (base == BaseDirection::rtl_if_any_rtl) return std::any_of(types.begin(), types.end(), is_strong_rtl) ? 1 : 0;
  return base == BaseDirection::right_to_left ? 1 : 0;
}

// W1-W7: marks, numbers, separators and terminators resolved.
void resolve_weak_types(KeptTypes& at, Bidi embedding) {
  const size_t m = at.size();
  // W1: a mark takes the class of what it follows (a neutral after a paragraph start).
  for (size_t k = 0; k < m; ++k) {
    if (at(k) == Bidi::NSM) at(k) = k == 0 ? embedding : at(k - 1);
  }
  // W2 and W3: European digits after Arabic letters are Arabic numbers; AL becomes R.
  Bidi last_strong = embedding;
  for (size_t k = 0; k < m; ++k) {
    const Bidi t = at(k);
    if (t == Bidi::L || t == Bidi::R || t == Bidi::AL) last_strong = t;
    if (t == Bidi::EN && last_strong == Bidi::AL) at(k) = Bidi::AN;
  }
  for (size_t k = 0; k < m; ++k) {
    if (at(k) == Bidi::AL) at(k) = Bidi::R;
  }
  // W4: one separator between two numbers of the same kind joins them.
  for (size_t k = 1; k + 1 < m; ++k) {
    const Bidi before = at(k - 1), after = at(k + 1);
    if (at(k) == Bidi::ES && before == Bidi::EN && after == Bidi::EN) at(k) = Bidi::EN;
    else if (at(k) == Bidi::CS && before == after && (before == Bidi::EN || before == Bidi::AN)) at(k) = before;
  }
  // W5: terminators next to European digits are digits.
  for (size_t k = 0; k < m; ++k) {
    if (at(k) != Bidi::ET) continue;
    size_t end = k;
    while (end < m && at(end) == Bidi::ET) ++end;
    const bool touches = (k > 0 && at(k - 1) == Bidi::EN) || (end < m && at(end) == Bidi::EN);
    if (touches) for (size_t j = k; j < end; ++j) at(j) = Bidi::EN;
    k = end - 1;
  }
  // W6: the remaining separators and terminators are neutrals.
  for (size_t k = 0; k < m; ++k) {
    if (at(k) == Bidi::ES || at(k) == Bidi::ET || at(k) == Bidi::CS) at(k) = Bidi::ON;
  }
  // W7: European digits after left-to-right text are left-to-right.
  last_strong = embedding;
  for (size_t k = 0; k < m; ++k) {
    if (at(k) == Bidi::L || at(k) == Bidi::R) last_strong = at(k);
    if (at(k) == Bidi::EN && last_strong == Bidi::L) at(k) = Bidi::L;
  }
}

// N0: a pair of brackets takes the paragraph's direction when it encloses text of that
// direction, else the other direction when it encloses that and follows it (BD16's pairs:
// a stack of 63 openers; a closer matches the nearest opener of its kind).
void resolve_brackets(KeptTypes& at, const std::u32string& logical, Bidi embedding) {
  const size_t m = at.size();
  const Bidi opposite = embedding == Bidi::L ? Bidi::R : Bidi::L;
  auto strong_direction = [](Bidi t) {
    return t == Bidi::L ? Bidi::L : (t == Bidi::R || t == Bidi::EN || t == Bidi::AN) ? Bidi::R : Bidi::ON;
  };
  std::vector<std::pair<size_t, size_t>> pairs;
  std::vector<std::pair<char32_t, size_t>> openers;  // the closer each waits for, its position
  for (size_t k = 0; k < m; ++k) {
    if (at(k) != Bidi::ON) continue;
    const char32_t c = logical[at.kept[k]];
    if (c == '(' || c == '[' || c == '{') {
      if (openers.size() == 63) break;
      openers.push_back({c == '(' ? U')' : c == '[' ? U']' : U'}', k});
    } else if (c == ')' || c == ']' || c == '}') {
      for (size_t s = openers.size(); s-- > 0;) {
        if (openers[s].first != c) continue;
        pairs.push_back({openers[s].second, k});
        openers.resize(s);
        break;
      }
    }
  }
  std::sort(pairs.begin(), pairs.end());
  for (const auto& [open, close] : pairs) {
    bool same = false, other = false;
    for (size_t k = open + 1; k < close; ++k) {
      same |= strong_direction(at(k)) == embedding;
      other |= strong_direction(at(k)) == opposite;
    }
    if (!same && !other) continue;
    Bidi resolved = embedding;
    if (!same) {
      Bidi before = embedding;  // sos
      for (size_t k = open; k-- > 0;) {
        if (strong_direction(at(k)) != Bidi::ON) { before = strong_direction(at(k)); break; }
      }
      resolved = before == opposite ? opposite : embedding;
    }
    at(open) = at(close) = resolved;
  }
}

// N1-N2: a run of neutrals between two of one direction takes it (numbers count as
// right-to-left); other neutrals take the paragraph's.
void resolve_neutrals(KeptTypes& at, Bidi embedding) {
  const size_t m = at.size();
  auto direction = [](Bidi t) { return t == Bidi::L ? Bidi::L : Bidi::R; };
  auto neutral = [](Bidi t) { return t == Bidi::B || t == Bidi::S || t == Bidi::WS || t == Bidi::ON; };
  for (size_t k = 0; k < m; ++k) {
    if (!neutral(at(k))) continue;
    size_t end = k;
    while (end < m && neutral(at(end))) ++end;
    const Bidi before = k == 0 ? embedding : direction(at(k - 1));
    const Bidi after = end == m ? embedding : direction(at(end));
    const Bidi resolved = before == after ? before : embedding;
    for (size_t j = k; j < end; ++j) at(j) = resolved;
    k = end - 1;
  }
}

}  // namespace

BidiParagraph bidi_levels(const std::u32string& logical, BaseDirection base) {
  const size_t n = logical.size();
  std::vector<Bidi> types(n);
  for (size_t i = 0; i < n; ++i) types[i] = bidi_class(logical[i]);
  BidiParagraph paragraph;
  paragraph.base_level = paragraph_level(types, base);
  const Bidi embedding = paragraph.base_level ? Bidi::R : Bidi::L;  // sos and eos
  // X9: boundary neutrals are set aside; the rules below see only the other characters.
  KeptTypes at{types, {}};
  for (size_t i = 0; i < n; ++i) {
    if (types[i] != Bidi::BN) at.kept.push_back(i);
  }
  const size_t m = at.size();
  resolve_weak_types(at, embedding);
  resolve_brackets(at, logical, embedding);
  resolve_neutrals(at, embedding);
  // I1-I2: the implicit levels.
  paragraph.levels.assign(n, paragraph.base_level);
  for (size_t k = 0; k < m; ++k) {
    const Bidi t = at(k);
    std::uint8_t level = paragraph.base_level;
    if (level % 2 == 0) level += t == Bidi::R ? 1 : (t == Bidi::AN || t == Bidi::EN) ? 2 : 0;
    else level += t == Bidi::L || t == Bidi::EN || t == Bidi::AN ? 1 : 0;
    paragraph.levels[at.kept[k]] = level;
  }
  // A boundary neutral takes the level of what it follows (X9's removed characters), so it
  // stays with its neighbour when the line is reversed.
  for (size_t i = 0; i < n; ++i) {
    if (bidi_class(logical[i]) == Bidi::BN && i > 0) paragraph.levels[i] = paragraph.levels[i - 1];
  }
  return paragraph;
}

std::u32string visual_line(const std::u32string& logical, const BidiParagraph& paragraph, size_t begin, size_t end) {
  end = std::min(end, logical.size());
  if (begin >= end) return {};
  std::vector<std::uint8_t> levels(paragraph.levels.begin() + static_cast<std::ptrdiff_t>(begin),
                                   paragraph.levels.begin() + static_cast<std::ptrdiff_t>(end));
  // L1: separators, and whitespace before them or at the line's end, take the paragraph's level.
  bool trailing = true;
  for (size_t i = end - begin; i-- > 0;) {
    const Bidi t = bidi_class(logical[begin + i]);
    if (t == Bidi::S || t == Bidi::B) {
      levels[i] = paragraph.base_level;
      trailing = true;
    } else if (trailing && (t == Bidi::WS || t == Bidi::BN)) {
      levels[i] = paragraph.base_level;
    } else {
      trailing = false;
    }
  }
  std::u32string line(logical.begin() + static_cast<std::ptrdiff_t>(begin), logical.begin() + static_cast<std::ptrdiff_t>(end));
  // L4: brackets in right-to-left runs are drawn mirrored.
  for (size_t i = 0; i < line.size(); ++i) {
    if (levels[i] % 2 == 1) line[i] = mirrored(line[i]);
  }
  // L3 as FriBidi does it (FRIBIDI_FLAG_REORDER_NSM): in a right-to-left run a letter and the
  // marks after it are reversed here, so that the reversal below leaves the marks after their
  // letter, where a renderer that draws glyph by glyph puts them over it.
  for (size_t i = 0; i < line.size(); ++i) {
    if (levels[i] % 2 == 0 || bidi_class(logical[begin + i]) != Bidi::NSM) continue;
    size_t end_of_marks = i;
    while (end_of_marks < line.size() && levels[end_of_marks] == levels[i] &&
           bidi_class(logical[begin + end_of_marks]) == Bidi::NSM)
      ++end_of_marks;
    size_t base = i;  // the letter the marks sit on (past a ligature's removed alef)
    while (base > 0 && levels[base - 1] == levels[i] && bidi_class(logical[begin + base - 1]) == Bidi::BN) --base;
    if (base > 0 && levels[base - 1] == levels[i]) {
      std::reverse(line.begin() + static_cast<std::ptrdiff_t>(base - 1), line.begin() + static_cast<std::ptrdiff_t>(end_of_marks));
    }
    i = end_of_marks - 1;
  }
  // L2: from the highest level down to the lowest odd level, reverse every run at or above it.
  const std::uint8_t highest = *std::max_element(levels.begin(), levels.end());
  std::uint8_t lowest_odd = 255;
  for (std::uint8_t level : levels) {
    if (level % 2 == 1) lowest_odd = std::min(lowest_odd, level);
  }
  for (int level = highest; level >= lowest_odd && lowest_odd != 255; --level) {
    for (size_t i = 0; i < line.size();) {
      if (levels[i] < level) { ++i; continue; }
      size_t j = i;
      while (j < line.size() && levels[j] >= level) ++j;
      std::reverse(line.begin() + static_cast<std::ptrdiff_t>(i), line.begin() + static_cast<std::ptrdiff_t>(j));
      std::reverse(levels.begin() + static_cast<std::ptrdiff_t>(i), levels.begin() + static_cast<std::ptrdiff_t>(j));
      i = j;
    }
  }
  return line;
}

}  // namespace vramfit
