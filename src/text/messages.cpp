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
