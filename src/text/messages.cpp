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
}  // namespace

void set_message_table(Language language, const MessageTable* table) {
  if (language == Language::arabic) g_arabic = table;
}

const char* language_code(Language language) { return language == Language::arabic ? "ar" : "en"; }

std::optional<Language> parse_language(std::string_view code) {
  const std::string_view primary = code.substr(0, code.find_first_of("-_"));
  if (primary == "en") return Language::english;
  if (primary == "ar") return Language::arabic;
  return std::nullopt;
}

bool right_to_left(Language language) { return language == Language::arabic; }

const MessageTable* message_table(Language language) { return language == Language::arabic ? g_arabic : nullptr; }

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

bool is_pattern(std::string_view key) {
  const std::vector<std::string> found = conversions(key);
  size_t fixed = key.size();
  for (const std::string& c : found) {
    if (c != "%s") return false;
    fixed -= 2;
  }
  return !found.empty() && fixed >= kMinimumPatternText;
}

// One sentence (or the whole text): its entry, or a pattern's with the parts put in, each part
// itself translated where the catalog has it (one level: "transformers %s: %s; %s ..." with its
// "generate keeps a DynamicCache ..." part).
std::optional<std::string> translate_piece(const MessageTable& table, std::string_view text, bool nested = false) {
  if (const auto found = table.find(text); found != table.end()) return found->second;
  for (const auto& [key, value] : table) {
    if (!is_pattern(key)) continue;
    const auto parts = match_pattern(text, key);
    if (!parts) continue;
    std::string out;
    size_t next = 0;
    for (size_t i = 0; i < value.size(); ++i) {
      if (value.compare(i, 2, "%s") == 0 && next < parts->size()) {
        const std::string_view part = (*parts)[next++];
        const auto translated = nested ? std::nullopt : translate_piece(table, part, true);
        out += translated ? *translated : std::string(part);
        ++i;
      } else {
        out += value[i];
      }
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace

std::string translate_text(Language language, std::string_view english) {
  const MessageTable* table = message_table(language);
  if (!table) return std::string(english);
  if (auto whole = translate_piece(*table, english)) return *whole;
  std::string out;
  bool any = false;
  for (size_t start = 0; start < english.size();) {
    size_t end = english.find(". ", start);
    end = end == std::string_view::npos ? english.size() : end + 1;
    const std::string_view sentence = english.substr(start, end - start);
    auto translated = translate_piece(*table, sentence);
    // "Label: value." with a label the catalog has ("Weights: 16.06 GB.", "warning: ...").
    const size_t colon = sentence.find(": ");
    if (!translated && colon != std::string_view::npos) {
      if (const auto label = table->find(sentence.substr(0, colon)); label != table->end()) {
        translated = label->second + std::string(sentence.substr(colon));
      }
    }
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
