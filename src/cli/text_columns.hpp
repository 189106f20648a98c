// The CLI tables' columns, counted in characters, not bytes (a name or a label in Arabic takes two
// bytes a letter): shared by the reports of text_report*.cpp.
#pragma once
#include <string>

namespace vramfit {

inline size_t characters(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

// Left-aligned in `width` characters; a longer text keeps one space after it.
inline std::string pad(const std::string& text, size_t width) {
  const size_t n = characters(text);
  return n >= width ? text + " " : text + std::string(width - n, ' ');
}

// Right-aligned in `width` characters; a longer text as it is.
inline std::string pad_left(const std::string& text, size_t width) {
  const size_t n = characters(text);
  return n >= width ? text : std::string(width - n, ' ') + text;
}

// Right-aligned in `width` characters with at least one space before it: a table's column.
inline std::string column(const std::string& text, size_t width) {
  std::string cell = pad_left(text, width - 1);
  cell.insert(cell.begin(), ' ');
  return cell;
}

}  // namespace vramfit
