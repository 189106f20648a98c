// strtod for the page's modules: the browser's own number parser reads the number.
//
// musl's strtod converts decimal to binary in 128-bit long double (__floatscan's decfloat),
// which links the soft-float routines (__divtf3, __multf3, __addtf3, fmodl, scalbnl, ...) into
// the page: about 7.7 KB of code, for the numbers nlohmann/json's lexer and Dear ImGui's ImAtof
// hand to strtod. JavaScript's Number() reads a decimal string to the nearest double too
// (ECMAScript's StringToNumber rounds correctly), so the page asks the browser instead. This
// file only finds where the number ends, as strtod's contract asks: optional white space and
// sign, digits with at most one '.', an exponent only when digits follow it, or inf, infinity
// and nan in any case. Hexadecimal floats (C99's "0x1p3") are read as the "0" before the 'x';
// nothing in the page writes them. The desktop app, the CLI and the JavaScript API keep the C
// library's strtod.
#include <emscripten.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <locale.h>

namespace {

EM_JS(double, browser_number, (const char* text, int length), { return Number(UTF8ToString(text, length)); });

bool starts_with_word(const char* p, const char* word) {
  for (; *word; ++p, ++word) if (std::tolower(static_cast<unsigned char>(*p)) != *word) return false;
  return true;
}

int digits_at(const char* p) {
  int n = 0;
  while (std::isdigit(static_cast<unsigned char>(p[n]))) ++n;
  return n;
}

}  // namespace

extern "C" double strtod(const char* text, char** end) {
  const char* p = text;
  while (std::isspace(static_cast<unsigned char>(*p))) ++p;
  const char* start = p;
  if (*p == '+' || *p == '-') ++p;
  const char* stop = nullptr;
  if (starts_with_word(p, "infinity")) stop = p + 8;
  else if (starts_with_word(p, "inf") || starts_with_word(p, "nan")) stop = p + 3;
  if (stop) {
    const double value = std::tolower(static_cast<unsigned char>(*p)) == 'n' ? __builtin_nan("") : __builtin_inf();
    if (end) *end = const_cast<char*>(stop);
    return *start == '-' ? -value : value;
  }
  const int whole = digits_at(p);
  p += whole;
  int fraction = 0;
  if (*p == '.') {
    fraction = digits_at(p + 1);
    if (whole + fraction > 0) p += 1 + fraction;
  }
  if (whole + fraction == 0) {  // no number: nothing read
    if (end) *end = const_cast<char*>(text);
    return 0.0;
  }
  if (*p == 'e' || *p == 'E') {
    const char* exponent = p + 1;
    if (*exponent == '+' || *exponent == '-') ++exponent;
    const int exponent_digits = digits_at(exponent);
    if (exponent_digits > 0) p = exponent + exponent_digits;
  }
  if (end) *end = const_cast<char*>(p);
  return browser_number(start, static_cast<int>(p - start));
}

// The other functions of musl's strtod.o (it defines the six together, so one of them used from
// elsewhere would link it beside this strtod): libc++ refers to strtof and strtold (std::stof,
// std::stold; the page calls neither) and, in its streams, to the _l forms (the C locale is the
// only one). Through double: not correctly rounded to float in every case, nor longer than a
// double; nothing in the page reads a float or a long double.
extern "C" {
float strtof(const char* text, char** end) { return static_cast<float>(strtod(text, end)); }
long double strtold(const char* text, char** end) { return strtod(text, end); }
double strtod_l(const char* text, char** end, locale_t) { return strtod(text, end); }
float strtof_l(const char* text, char** end, locale_t) { return strtof(text, end); }
long double strtold_l(const char* text, char** end, locale_t) { return strtold(text, end); }
}
