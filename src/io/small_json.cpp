#include "small_json.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

// nlohmann/json's double formatting (Grisu2 and its exponent rules), taken alone from the
// library's multi-header layout so that dump() writes every double as nlohmann does.
#include <nlohmann/detail/conversions/to_chars.hpp>
#include <nlohmann/detail/macro_unscope.hpp>

#include "decimal.hpp"

namespace vramfit {

// ---- failures --------------------------------------------------------------------------

// The message is put together only where it can be thrown: without exceptions (the page)
// misuse aborts, as nlohmann's does with JSON_NOEXCEPTION, and no text is built.
void SmallJson::fail(const char* what, std::string_view detail) {
#if defined(__cpp_exceptions)
  throw std::runtime_error(std::string("json: ") + what + std::string(detail));
#else
  (void)what;
  (void)detail;
  std::abort();
#endif
}

void SmallJson::type_error(const char* wanted) const {
#if defined(__cpp_exceptions)
  fail("type must be ", std::string(wanted) + ", but is " + type_name());
#else
  (void)wanted;
  std::abort();
#endif
}

// ---- construction ----------------------------------------------------------------------

SmallJson::SmallJson(std::initializer_list<SmallJson> items) {
  bool pairs = true;
  for (const SmallJson& item : items) {
    pairs = pairs && item.is_array() && item.value_.array->size() == 2 && (*item.value_.array)[0].is_string();
  }
  if (pairs) {
    type_ = value_t::object;
    value_.object = new object_t();
    for (const SmallJson& item : items) {
      const array_t& pair = *item.value_.array;
      value_.object->emplace(*pair[0].value_.string, pair[1]);  // the first of equal keys stays, as in nlohmann
    }
  } else {
    type_ = value_t::array;
    value_.array = new array_t(items.begin(), items.end());
  }
}

SmallJson::SmallJson(const SmallJson& other) : type_(other.type_), value_(other.value_) {
  switch (type_) {
    case value_t::string: value_.string = new std::string(*other.value_.string); break;
    case value_t::array: value_.array = new array_t(*other.value_.array); break;
    case value_t::object: value_.object = new object_t(*other.value_.object); break;
    default: break;
  }
}

void SmallJson::destroy() noexcept {
  switch (type_) {
    case value_t::string: delete value_.string; break;
    case value_t::array: delete value_.array; break;
    case value_t::object: delete value_.object; break;
    default: break;
  }
  type_ = value_t::null;
}

SmallJson SmallJson::array(std::initializer_list<SmallJson> items) {
  SmallJson j;
  j.type_ = value_t::array;
  j.value_.array = new array_t(items.begin(), items.end());
  return j;
}

SmallJson SmallJson::object() {
  SmallJson j;
  j.type_ = value_t::object;
  j.value_.object = new object_t();
  return j;
}

const char* SmallJson::type_name() const noexcept {
  switch (type_) {
    case value_t::null: return "null";
    case value_t::object: return "object";
    case value_t::array: return "array";
    case value_t::string: return "string";
    case value_t::boolean: return "boolean";
    case value_t::discarded: return "discarded";
    default: return "number";
  }
}

// ---- objects and arrays ----------------------------------------------------------------

const SmallJson* SmallJson::find_value(std::string_view key) const {
  if (!is_object()) return nullptr;
  const auto it = value_.object->find(key);
  return it == value_.object->end() ? nullptr : &it->second;
}

SmallJson& SmallJson::operator[](std::string_view key) {
  if (is_null()) *this = object();
  if (!is_object()) fail("cannot use operator[] with a string argument with ", type_name());
  auto it = value_.object->find(key);
  if (it == value_.object->end()) it = value_.object->emplace(std::string(key), SmallJson()).first;
  return it->second;
}

const SmallJson& SmallJson::operator[](std::string_view key) const {
  static const SmallJson null_value;
  const SmallJson* v = find_value(key);
  return v ? *v : null_value;
}

SmallJson& SmallJson::at(std::string_view key) {
  return const_cast<SmallJson&>(static_cast<const SmallJson&>(*this).at(key));
}

const SmallJson& SmallJson::at(std::string_view key) const {
  if (!is_object()) fail("cannot use at() with ", type_name());
  const SmallJson* v = find_value(key);
  if (!v) fail("no such key: ", key);
  return *v;
}

size_t SmallJson::erase(std::string_view key) {
  if (!is_object()) fail("cannot use erase() with ", type_name());
  const auto it = value_.object->find(key);
  if (it == value_.object->end()) return 0;
  value_.object->erase(it);
  return 1;
}

SmallJson& SmallJson::operator[](size_t index) {
  if (is_null()) *this = array();
  if (!is_array()) fail("cannot use operator[] with a numeric argument with ", type_name());
  if (index >= value_.array->size()) value_.array->resize(index + 1);
  return (*value_.array)[index];
}

const SmallJson& SmallJson::operator[](size_t index) const { return at(index); }

SmallJson& SmallJson::at(size_t index) {
  return const_cast<SmallJson&>(static_cast<const SmallJson&>(*this).at(index));
}

const SmallJson& SmallJson::at(size_t index) const {
  if (!is_array()) fail("cannot use at() with ", type_name());
  if (index >= value_.array->size()) fail("array index out of range", "");
  return (*value_.array)[index];
}

void SmallJson::push_back(SmallJson item) {
  if (is_null()) *this = array();
  if (!is_array()) fail("cannot use push_back() with ", type_name());
  value_.array->push_back(std::move(item));
}

size_t SmallJson::size() const noexcept {
  switch (type_) {
    case value_t::null: return 0;
    case value_t::array: return value_.array->size();
    case value_t::object: return value_.object->size();
    default: return 1;
  }
}

bool SmallJson::empty() const noexcept { return size() == 0; }

void SmallJson::clear() noexcept {
  switch (type_) {
    case value_t::string: value_.string->clear(); break;
    case value_t::array: value_.array->clear(); break;
    case value_t::object: value_.object->clear(); break;
    case value_t::boolean: value_.boolean = false; break;
    case value_t::number_integer: value_.integer = 0; break;
    case value_t::number_unsigned: value_.unsigned_integer = 0; break;
    case value_t::number_float: value_.number = 0; break;
    default: break;
  }
}

SmallJson::iterator SmallJson::begin() {
  if (is_object()) return iterator(value_.object->begin());
  if (is_array()) return iterator(value_.array->begin());
  return iterator();
}
SmallJson::iterator SmallJson::end() {
  if (is_object()) return iterator(value_.object->end());
  if (is_array()) return iterator(value_.array->end());
  return iterator();
}
SmallJson::const_iterator SmallJson::begin() const {
  if (is_object()) return const_iterator(static_cast<const object_t*>(value_.object)->begin());
  if (is_array()) return const_iterator(static_cast<const array_t*>(value_.array)->begin());
  return const_iterator();
}
SmallJson::const_iterator SmallJson::end() const {
  if (is_object()) return const_iterator(static_cast<const object_t*>(value_.object)->end());
  if (is_array()) return const_iterator(static_cast<const array_t*>(value_.array)->end());
  return const_iterator();
}
SmallJson::iterator SmallJson::find(std::string_view key) {
  if (!is_object()) return end();
  return iterator(value_.object->find(key));
}
SmallJson::const_iterator SmallJson::find(std::string_view key) const {
  if (!is_object()) return end();
  return const_iterator(static_cast<const object_t*>(value_.object)->find(key));
}

// Numbers compare by value across their kinds (1 == 1u == 1.0), as in nlohmann.
bool operator==(const SmallJson& a, const SmallJson& b) noexcept {
  using T = SmallJson::value_t;
  if (a.is_number() && b.is_number() && a.type_ != b.type_) {
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    // one signed, one unsigned
    const int64_t s = a.type_ == T::number_integer ? a.value_.integer : b.value_.integer;
    const uint64_t u = a.type_ == T::number_unsigned ? a.value_.unsigned_integer : b.value_.unsigned_integer;
    return s >= 0 && static_cast<uint64_t>(s) == u;
  }
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case T::null: return true;
    case T::boolean: return a.value_.boolean == b.value_.boolean;
    case T::number_integer: return a.value_.integer == b.value_.integer;
    case T::number_unsigned: return a.value_.unsigned_integer == b.value_.unsigned_integer;
    case T::number_float: return a.value_.number == b.value_.number;
    case T::string: return *a.value_.string == *b.value_.string;
    case T::array: return *a.value_.array == *b.value_.array;
    case T::object: return *a.value_.object == *b.value_.object;
    default: return false;  // discarded equals nothing
  }
}

// ---- the reader ------------------------------------------------------------------------

// The one-letter escapes of JSON strings: \" \\ \/ \b \f \n \r \t and what they stand for.
constexpr char kEscapeLetters[] = "\"\\/bfnrt";
constexpr char kEscapedChars[] = "\"\\/\b\f\n\r\t";

// Recursive descent over RFC 8259, accepting and rejecting what nlohmann's lexer does.
class SmallJsonReader {
 public:
  SmallJsonReader(const char* begin, const char* end) : p_(begin), end_(end) {}

  bool document(SmallJson& out) {
    // nlohmann skips a UTF-8 byte-order mark at the start (and rejects a partial one).
    if (end_ - p_ >= 3 && static_cast<unsigned char>(p_[0]) == 0xEF && static_cast<unsigned char>(p_[1]) == 0xBB &&
        static_cast<unsigned char>(p_[2]) == 0xBF) {
      p_ += 3;
    }
    if (!value(out, 0)) return false;
    skip_space();
    return p_ == end_ || *p_ == '\0';  // nlohmann's lexer takes a NUL byte for the end of input
  }

 private:
  void skip_space() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool literal(const char* word, size_t length) {
    if (static_cast<size_t>(end_ - p_) < length || std::string_view(p_, length) != std::string_view(word, length)) return false;
    p_ += length;
    return true;
  }

  bool value(SmallJson& out, int depth) {
    skip_space();
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': return object(out, depth + 1);
      case '[': return array(out, depth + 1);
      case '"': {
        std::string text;
        if (!string(text)) return false;
        out = SmallJson(std::move(text));
        return true;
      }
      case 't': out = true; return literal("true", 4);
      case 'f': out = false; return literal("false", 5);
      case 'n': out = nullptr; return literal("null", 4);
      default: return number(out);
    }
  }

  bool object(SmallJson& out, int depth) {
    if (depth > SmallJson::kMaxDepth) return false;
    ++p_;  // {
    out = SmallJson::object();
    skip_space();
    if (p_ < end_ && *p_ == '}') { ++p_; return true; }
    for (;;) {
      skip_space();
      std::string key;
      if (p_ == end_ || *p_ != '"' || !string(key)) return false;
      skip_space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      SmallJson item;
      if (!value(item, depth)) return false;
      (*out.value_.object)[std::move(key)] = std::move(item);  // the last of equal keys wins, as in nlohmann
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ',') { ++p_; continue; }
      if (*p_ == '}') { ++p_; return true; }
      return false;
    }
  }

  bool array(SmallJson& out, int depth) {
    if (depth > SmallJson::kMaxDepth) return false;
    ++p_;  // [
    out = SmallJson::array();
    skip_space();
    if (p_ < end_ && *p_ == ']') { ++p_; return true; }
    for (;;) {
      SmallJson item;
      if (!value(item, depth)) return false;
      out.value_.array->push_back(std::move(item));
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ',') { ++p_; continue; }
      if (*p_ == ']') { ++p_; return true; }
      return false;
    }
  }

  static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool hex4(uint32_t& code) {
    if (end_ - p_ < 4) return false;
    code = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hex_digit(p_[i]);
      if (d < 0) return false;
      code = code * 16 + static_cast<uint32_t>(d);
    }
    p_ += 4;
    return true;
  }
  static void append_utf8(std::string& out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  // One well-formed UTF-8 sequence of two to four bytes (Unicode's table 3-7), copied to out.
  bool utf8_sequence(std::string& out) {
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(p_[i]); };
    const unsigned char lead = byte(0);
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) length = 2;
    else if (lead == 0xE0) { length = 3; low = 0xA0; }
    else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF) length = 3;
    else if (lead == 0xED) { length = 3; high = 0x9F; }
    else if (lead == 0xF0) { length = 4; low = 0x90; }
    else if (lead >= 0xF1 && lead <= 0xF3) length = 4;
    else if (lead == 0xF4) { length = 4; high = 0x8F; }
    else return false;
    if (static_cast<size_t>(end_ - p_) < length) return false;
    if (byte(1) < low || byte(1) > high) return false;
    for (size_t i = 2; i < length; ++i) {
      if (byte(i) < 0x80 || byte(i) > 0xBF) return false;
    }
    out.append(p_, length);
    p_ += length;
    return true;
  }

  bool string(std::string& out) {
    ++p_;  // "
    for (;;) {
      if (p_ == end_) return false;
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') { ++p_; return true; }
      if (c < 0x20) return false;  // control characters must be escaped
      if (c >= 0x80) {
        if (!utf8_sequence(out)) return false;
        continue;
      }
      if (c != '\\') { out += static_cast<char>(c); ++p_; continue; }
      ++p_;
      if (p_ == end_) return false;
      const char e = *p_++;
      if (const char* simple = std::strchr(kEscapeLetters, e); simple && e != '\0') {
        out += kEscapedChars[simple - kEscapeLetters];
        continue;
      }
      switch (e) {
        case 'u': {
          uint32_t code = 0;
          if (!hex4(code)) return false;
          if (code >= 0xDC00 && code <= 0xDFFF) return false;  // a low surrogate alone
          if (code >= 0xD800 && code <= 0xDBFF) {  // a high surrogate needs its low one
            uint32_t low = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
            p_ += 2;
            if (!hex4(low) || low < 0xDC00 || low > 0xDFFF) return false;
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, code);
          break;
        }
        default: return false;
      }
    }
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?  Integers in 64-bit range stay integers
  // (unsigned when not negative); the rest are doubles, rejected when they overflow.
  bool number(SmallJson& out) {
    const char* start = p_;
    const auto digit = [&] { return p_ < end_ && *p_ >= '0' && *p_ <= '9'; };
    const bool negative = p_ < end_ && *p_ == '-';
    if (negative) ++p_;
    if (!digit()) return false;
    if (*p_ == '0') ++p_;
    else while (digit()) ++p_;
    bool integer = true;
    if (p_ < end_ && *p_ == '.') {
      ++p_;
      if (!digit()) return false;
      while (digit()) ++p_;
      integer = false;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digit()) return false;
      while (digit()) ++p_;
      integer = false;
    }
    if (integer) {
      uint64_t magnitude = 0;
      bool fits = true;
      for (const char* d = start + (negative ? 1 : 0); d < p_; ++d) {
        const uint64_t digit_value = static_cast<uint64_t>(*d - '0');
        if (magnitude > (UINT64_MAX - digit_value) / 10) { fits = false; break; }
        magnitude = magnitude * 10 + digit_value;
      }
      if (fits && !negative) { out = magnitude; return true; }
      if (fits && magnitude <= uint64_t(1) << 63) {
        out = magnitude == uint64_t(1) << 63 ? INT64_MIN : -static_cast<int64_t>(magnitude);
        return true;
      }
    }
    double value = 0;
    parse_decimal(start, p_, value);
    if (!std::isfinite(value)) return false;  // nlohmann: "number overflow"
    out = value;
    return true;
  }

  const char* p_;
  const char* end_;
};

SmallJson SmallJson::parse(std::string_view text, std::nullptr_t, bool allow_exceptions, bool ignore_comments) {
  SmallJson result;
  SmallJsonReader reader(text.data(), text.data() + text.size());
  if (ignore_comments || !reader.document(result)) {
    if (allow_exceptions) fail(ignore_comments ? "comments are not supported" : "parse error", "");
    result = SmallJson();
    result.type_ = value_t::discarded;
  }
  return result;
}

// ---- the writer ------------------------------------------------------------------------

namespace {

// nlohmann's escapes with ensure_ascii off: quote, backslash and control characters; other
// bytes as they are. (Strings here are valid UTF-8: parsed, or made by vramfit.)
void write_string(std::string& out, const std::string& s) {
  static const char hex[] = "0123456789abcdef";
  out += '"';
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    const char* simple = c == '/' || c == 0 ? nullptr : std::strchr(kEscapedChars, ch);  // '/' is written as it is
    if (simple) {
      out += '\\';
      out += kEscapeLetters[simple - kEscapedChars];
    } else if (c < 0x20) {
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  out += '"';
}

void write_value(std::string& out, const SmallJson& j, int indent, char indent_char, int level);

void new_line(std::string& out, int indent, char indent_char, int level) {
  if (indent < 0) return;
  out += '\n';
  out.append(static_cast<size_t>(indent) * static_cast<size_t>(level), indent_char);
}

void write_value(std::string& out, const SmallJson& j, int indent, char indent_char, int level) {
  using T = SmallJson::value_t;
  switch (j.type()) {
    case T::null: out += "null"; return;
    case T::discarded: out += "<discarded>"; return;
    case T::boolean: out += j.get<bool>() ? "true" : "false"; return;
    case T::number_integer: out += std::to_string(j.get<int64_t>()); return;
    case T::number_unsigned: out += std::to_string(j.get<uint64_t>()); return;
    case T::number_float: {
      const double v = j.get<double>();
      if (!std::isfinite(v)) { out += "null"; return; }
      char buffer[64];
      const char* end = nlohmann::detail::to_chars(buffer, buffer + sizeof buffer, v);
      out.append(buffer, static_cast<size_t>(end - buffer));
      return;
    }
    case T::string: write_string(out, j.get<std::string>()); return;
    case T::array:
    case T::object: {
      const bool object = j.is_object();
      if (j.empty()) { out += object ? "{}" : "[]"; return; }
      out += object ? '{' : '[';
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += ',';
        first = false;
        new_line(out, indent, indent_char, level + 1);
        if (object) {
          write_string(out, it.key());
          out += indent >= 0 ? ": " : ":";
        }
        write_value(out, *it, indent, indent_char, level + 1);
      }
      new_line(out, indent, indent_char, level);
      out += object ? '}' : ']';
      return;
    }
  }
}

}  // namespace

std::string SmallJson::dump(int indent, char indent_char) const {
  std::string out;
  write_value(out, *this, indent, indent_char, 0);
  return out;
}

}  // namespace vramfit
