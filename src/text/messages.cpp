#include "messages.hpp"

#include <vector>

#include "io/json.hpp"

namespace vramfit {

namespace {
const MessageTable* g_arabic = nullptr;

// The printf conversions of a format, in order: '%', flags, width, precision, length, and a
// conversion letter ("%%" is none; a '%' followed by anything else, as in "10-30% and", is
// text). The space flag is not read: "100% of" is text, not "% o".
std::vector<std::string> conversions(std::string_view text) {
  std::vector<std::string> found;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') continue;
    if (i + 1 < text.size() && text[i + 1] == '%') { ++i; continue; }
    size_t j = i + 1;
    while (j < text.size() && std::string_view("-+#0123456789.*lhz").find(text[j]) != std::string_view::npos) ++j;
    if (j < text.size() && std::string_view("diouxXeEfFgGcsp").find(text[j]) != std::string_view::npos) {
      found.emplace_back(text.substr(i, j - i + 1));
      i = j;
    }
  }
  return found;
}

// Lists the pattern entries of the catalog just set (defined below with the patterns).
void list_patterns(const MessageTable* table);
}  // namespace

void set_message_table(Language language, const MessageTable* table) {
  if (language != Language::arabic) return;
  g_arabic = table ? table : &compiled_arabic_table();
  list_patterns(g_arabic);
}

const char* language_code(Language language) { return language == Language::arabic ? "ar" : "en"; }

std::optional<Language> parse_language(std::string_view code) {
  const std::string_view primary = code.substr(0, code.find_first_of("-_"));
  if (primary == "en") return Language::english;
  if (primary == "ar") return Language::arabic;
  return std::nullopt;
}

bool right_to_left(Language language) { return language == Language::arabic; }

const MessageTable* message_table(Language language) {
  if (language != Language::arabic) return nullptr;
  if (!g_arabic) set_message_table(language, nullptr);  // the compiled-in catalog, on first use
  return g_arabic;
}

std::string_view translate(Language language, std::string_view english) {
  const MessageTable* table = message_table(language);
  if (!table) return english;
  const auto found = table->find(english);
  return found == table->end() ? english : std::string_view(found->second);
}

namespace {

// The parts of `text` that the %s of `pattern` stand for, or nothing when it does not match
// (each part non-empty, the shortest that lets the next fixed piece follow).
std::optional<std::vector<std::string_view>> match_pattern(std::string_view text, std::string_view pattern) {
  std::vector<std::string_view> pieces;
  for (size_t start = 0;;) {
    const size_t at = pattern.find("%s", start);
    pieces.push_back(pattern.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) break;
    start = at + 2;
  }
  if (pieces.size() < 2 || text.substr(0, pieces[0].size()) != pieces[0]) return std::nullopt;
  std::vector<std::string_view> parts;
  size_t position = pieces[0].size();
  for (size_t k = 1; k < pieces.size(); ++k) {
    const bool last = k + 1 == pieces.size();
    size_t end;
    if (last) {
      if (text.size() < position + 1 + pieces[k].size() || text.substr(text.size() - pieces[k].size()) != pieces[k]) return std::nullopt;
      end = text.size() - pieces[k].size();
    } else {
      end = pieces[k].empty() ? std::string_view::npos : text.find(pieces[k], position + 1);
    }
    if (end == std::string_view::npos || end <= position) return std::nullopt;
    parts.push_back(text.substr(position, end - position));
    position = end + pieces[k].size();
  }
  return parts;
}

// The fixed text of a pattern entry (its only conversions %s), or nothing for another entry.
std::optional<size_t> pattern_fixed_text(std::string_view key) {
  const std::vector<std::string> found = conversions(key);
  size_t fixed = key.size();
  for (const std::string& c : found) {
    if (c != "%s") return std::nullopt;
    fixed -= 2;
  }
  if (found.empty() || fixed < kMinimumPatternText) return std::nullopt;
  return fixed;
}

// A catalog's pattern entries with the length of their fixed text, listed once when the catalog
// is set: translate_piece asks for them at every level of every sentence.
struct PatternEntry {
  const std::string* key;
  const std::string* translation;
  size_t fixed;
};
std::vector<PatternEntry> pattern_entries(const MessageTable& table) {
  std::vector<PatternEntry> entries;
  for (const auto& [key, value] : table) {
    if (const auto fixed = pattern_fixed_text(key)) entries.push_back({&key, &value, *fixed});
  }
  return entries;
}
std::vector<PatternEntry> g_arabic_patterns;

void list_patterns(const MessageTable* table) { g_arabic_patterns = table ? pattern_entries(*table) : std::vector<PatternEntry>(); }

// How deep a part of a part is still translated ("%s (at byte offset %s)" around
// "model.gguf: tensor %s has %s dimensions (1 to 4 allowed)").
constexpr int kDeepestPart = 5;

// The best pattern entry for `text`: the one with the most fixed text, among those that start
// with fixed text (`leading_part` false) or with a part (true).
struct PatternMatch {
  const std::string* translation = nullptr;
  std::vector<std::string_view> parts;
};
PatternMatch best_pattern(const MessageTable& table, std::string_view text, bool leading_part) {
  const bool listed = &table == g_arabic;
  const std::vector<PatternEntry> unlisted = listed ? std::vector<PatternEntry>() : pattern_entries(table);
  PatternMatch best;
  size_t best_fixed = 0;
  for (const PatternEntry& entry : listed ? g_arabic_patterns : unlisted) {
    if ((entry.key->compare(0, 2, "%s") == 0) != leading_part || entry.fixed <= best_fixed) continue;
    if (auto parts = match_pattern(text, *entry.key)) {
      best = {entry.translation, std::move(*parts)};
      best_fixed = entry.fixed;
    }
  }
  return best;
}

std::optional<std::string> translate_piece(const MessageTable& table, std::string_view text, int depth, bool names);

std::string fill_pattern(const MessageTable& table, const PatternMatch& match, int depth) {
  std::string out;
  size_t next = 0;
  const std::string& value = *match.translation;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value.compare(i, 2, "%s") == 0 && next < match.parts.size()) {
      const std::string_view part = match.parts[next++];
      const auto translated = translate_piece(table, part, depth + 1, true);
      out += translated ? *translated : std::string(part);
      ++i;
    } else {
      out += value[i];
    }
  }
  return out;
}

size_t latin_letters(std::string_view text) {
  size_t n = 0;
  for (const char c : text) n += (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  return n;
}

// One sentence (or the whole text): its entry; else the best of (the one that leaves the fewest
// Latin letters, the first on a tie): the pattern that starts with fixed text ("no GPU '%s'
// (vramfit gpus lists them)"); with `names`, "Label: value" with the label's entry, or
// "name: text" with the text translated (a field, file or flag name stays as it is: "gpu.id:
// no GPU 'X' ..."); the pattern that starts with a part ("%s (at byte offset %s)"). Among
// patterns, the one with the most fixed text; each part itself translated where it can be.
std::optional<std::string> translate_piece(const MessageTable& table, std::string_view text, int depth, bool names) {
  if (const auto found = table.find(text); found != table.end()) return found->second;
  if (depth >= kDeepestPart) return std::nullopt;
  std::optional<std::string> best;
  size_t best_latin = 0;
  const auto consider = [&](std::optional<std::string> candidate) {
    if (!candidate) return;
    const size_t latin = latin_letters(*candidate);
    if (!best || latin < best_latin) {
      best = std::move(candidate);
      best_latin = latin;
    }
  };
  if (const PatternMatch match = best_pattern(table, text, false); match.translation) consider(fill_pattern(table, match, depth));
  if (const size_t colon = names ? text.find(": ") : std::string_view::npos; colon != std::string_view::npos) {
    const std::string_view name = text.substr(0, colon), rest = text.substr(colon + 2);
    const auto rest_translated = translate_piece(table, rest, depth + 1, true);
    if (const auto label = table.find(name); label != table.end()) {
      consider(label->second + ": " + (rest_translated ? *rest_translated : std::string(rest)));
    } else if (rest_translated) {
      consider(std::string(name) + ": " + *rest_translated);
    }
  }
  if (const PatternMatch match = best_pattern(table, text, true); match.translation) consider(fill_pattern(table, match, depth));
  return best;
}

// Where a sentence ends: at ". ", but not after "e.g" or "i.e".
size_t sentence_end(std::string_view text, size_t start) {
  for (size_t at = text.find(". ", start); at != std::string_view::npos; at = text.find(". ", at + 1)) {
    const std::string_view before = text.substr(start, at - start);
    if (before.ends_with("e.g") || before.ends_with("i.e")) continue;
    return at + 1;
  }
  return text.size();
}

}  // namespace

std::string translate_text(Language language, std::string_view english) {
  const MessageTable* table = message_table(language);
  if (!table) return std::string(english);
  // The whole text; names and labels only in a text of one sentence.
  if (auto whole = translate_piece(*table, english, 0, sentence_end(english, 0) == english.size())) return *whole;
  std::string out;
  bool any = false;
  for (size_t start = 0; start < english.size();) {
    const size_t end = sentence_end(english, start);
    const std::string_view sentence = english.substr(start, end - start);
    const auto translated = translate_piece(*table, sentence, 0, true);
    any |= translated.has_value();
    out += translated ? *translated : std::string(sentence);
    start = end;
    while (start < english.size() && english[start] == ' ') out += english[start++];
  }
  return any ? out : std::string(english);
}

std::optional<MessageReadError> read_message_table(const std::string& json_text, MessageTable& out) {
  const json j = json::parse(json_text, nullptr, false);
  if (!j.is_object()) return MessageReadError{"", "a message catalog must be a JSON object"};
  for (const auto& [key, value] : j.items()) {
    if (!key.empty() && key[0] == '_') continue;
    if (!value.is_string()) return MessageReadError{key, "the translation must be a string"};
    const std::string& text = value.get_ref<const std::string&>();
    if (conversions(key) != conversions(text)) {
      return MessageReadError{key, "the translation's printf conversions differ from the key's"};
    }
    out[key] = text;
  }
  return std::nullopt;
}

}  // namespace vramfit
