// The interface's words in each language: message catalogs keyed by the English text (as
// gettext keys them), data files compiled in (data/messages/<code>.json). English is the
// text itself and the fallback for a key a catalog lacks.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace vramfit {

enum class Language { english, arabic };

const char* language_code(Language language);                 // "en", "ar"
std::optional<Language> parse_language(std::string_view code);  // "en", "ar" (and "ar-EG", "en-US"...)
bool right_to_left(Language language);

using MessageTable = std::map<std::string, std::string, std::less<>>;

// Arabic's catalog as compiled in (src/text/messages_ar.cpp, data/messages/ar.json); empty in
// the page's build, which fetches the file and sets it (src/platform/web/main.cpp).
const MessageTable& compiled_arabic_table();
// Replaces the catalog a language uses (the page's fetched one, a test's own); nullptr: the
// compiled-in one again.
void set_message_table(Language language, const MessageTable* table);
// The catalog of a language (English has none: nullptr).
const MessageTable* message_table(Language language);
// The text in this language: the catalog's entry, else the English.
std::string_view translate(Language language, std::string_view english);

// Text composed at run time (the core's notes and warnings, error messages, with numbers and
// names in them), in this language: the catalog's entry for the whole text; else, sentence by
// sentence (at ". "), each sentence's entry, or the pattern entry with the most fixed text
// that matches it (its only conversions %s: "%s B per token of context (all layers)." for
// "131,072 B per token of context (all layers)."), the parts put into the translation, each
// itself translated where it can be; else "Label: value" with the label's entry; else
// "name: text" with the text's (a field, file or flag name stays: "gpu.id: no GPU 'X' ...").
// A sentence none of these translate stays English. A pattern needs at least
// kMinimumPatternText characters of fixed text (so that "on %s" matches no sentence that merely
// starts with "on ").
inline constexpr size_t kMinimumPatternText = 12;
std::string translate_text(Language language, std::string_view english);

// Reads a catalog file: {"English": "translation", ...}; keys starting with "_" are notes.
// A value that is not a string, or a translation whose printf conversions (%s, %d, %.1f...)
// differ from its key's, is an error naming the key.
struct MessageReadError {
  std::string key, message;
};
std::optional<MessageReadError> read_message_table(const std::string& json_text, MessageTable& out);

}  // namespace vramfit
