#include "scan_format.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "decimal.hpp"

namespace vramfit {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// An integer as strtoll (is_signed) or strtoull read it (base 0: 0x.. hex, 0.. octal), at
// most `width` characters; out of range it saturates as they do. Returns the characters used
// (0: no number).
size_t scan_integer(const char* s, size_t width, int base, bool is_signed, uint64_t& value) {
  size_t i = 0;
  bool negative = false;
  if (i < width && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if ((base == 0 || base == 16) && i + 1 < width && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
      digit_value(s[i + 2]) < 16 && i + 2 < width) {
    i += 2;
    base = 16;
  } else if (base == 0) {
    base = s[i] == '0' ? 8 : 10;
  }
  const size_t first = i;
  uint64_t v = 0;
  bool overflow = false;
  for (; i < width && digit_value(s[i]) < base; ++i) {
    const uint64_t d = static_cast<uint64_t>(digit_value(s[i]));
    if (v > (UINT64_MAX - d) / static_cast<uint64_t>(base)) overflow = true;
    v = v * static_cast<uint64_t>(base) + d;
  }
  if (i == first) return 0;
  if (is_signed) {
    const uint64_t limit = negative ? uint64_t(1) << 63 : (uint64_t(1) << 63) - 1;
    if (overflow || v > limit) v = limit;
  } else if (overflow) {
    v = UINT64_MAX;
    negative = false;
  }
  value = negative ? 0 - v : v;
  return i;
}

}  // namespace

int scan_format(const char* input, const char* format, va_list args) {
  const char* s = input;
  int assigned = 0;
  bool converted = false;  // a conversion was tried (EOF only before the first)
  for (const char* f = format; *f; ++f) {
    if (is_space(*f)) {
      while (is_space(*s)) ++s;
      continue;
    }
    if (*f != '%' || f[1] == '%') {
      if (*f == '%') ++f;
      if (*s != *f) return *s == '\0' && !converted && !assigned ? EOF : assigned;
      ++s;
      continue;
    }
    ++f;  // past %
    size_t width = SIZE_MAX;
    if (*f >= '0' && *f <= '9') {
      width = 0;
      while (*f >= '0' && *f <= '9') width = width * 10 + static_cast<size_t>(*f++ - '0');
    }
    int longs = 0, shorts = 0;
    for (; *f == 'l' || *f == 'h'; ++f) (*f == 'l' ? longs : shorts)++;
    const char conversion = *f;
    if (conversion == 'n') {
      *va_arg(args, int*) = static_cast<int>(s - input);
      continue;
    }
    if (conversion != 'c') while (is_space(*s)) ++s;
    if (*s == '\0') return converted || assigned ? assigned : EOF;
    converted = true;
    const size_t available = std::strlen(s) < width ? std::strlen(s) : width;
    switch (conversion) {
      case 'c':
        *va_arg(args, char*) = *s++;
        break;
      case 'd': case 'i': case 'u': case 'x': case 'X': {
        uint64_t value = 0;
        const int base = conversion == 'i' ? 0 : (conversion == 'x' || conversion == 'X') ? 16 : 10;
        const size_t used = scan_integer(s, available, base, conversion == 'd' || conversion == 'i', value);
        if (!used) return assigned;
        s += used;
        if (longs >= 2) *va_arg(args, unsigned long long*) = value;
        else if (longs == 1) *va_arg(args, unsigned long*) = static_cast<unsigned long>(value);
        else if (shorts >= 2) *va_arg(args, unsigned char*) = static_cast<unsigned char>(value);
        else if (shorts == 1) *va_arg(args, unsigned short*) = static_cast<unsigned short>(value);
        else *va_arg(args, unsigned*) = static_cast<unsigned>(value);
        break;
      }
      case 'f': case 'e': case 'g': case 'E': case 'G': case 'F': {
        double value = 0;
        const size_t used = parse_decimal(s, s + available, value);
        if (!used) return assigned;
        s += used;
        // float* gets the double rounded to float: off from strtof only at exact float ties.
        if (longs) *va_arg(args, double*) = value;
        else *va_arg(args, float*) = static_cast<float>(value);
        break;
      }
      default:
        return assigned;  // a conversion ImGui does not use
    }
    ++assigned;
  }
  return assigned;
}

}  // namespace vramfit
