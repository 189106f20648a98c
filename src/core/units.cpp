#include "units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>

namespace vramfit {

int64_t safety_margin_bytes(int64_t uses, double fraction) { return std::llround(static_cast<double>(uses) * fraction); }

std::string with_thousands(int64_t value) {
  const bool negative = value < 0;
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  std::string digits = std::to_string(magnitude);
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

namespace {
// base^exponent by multiplication: exact for 1000^k and 1024^k (k <= 4), and it keeps libm's
// pow and its tables (some 2 KB gzip) out of the page.
double power(double base, int exponent) {
  double result = 1.0;
  while (exponent-- > 0) result *= base;
  return result;
}
}  // namespace

std::string format_bytes(int64_t bytes, DisplayUnits units, int decimals) {
  const bool binary = units == DisplayUnits::gib;
  const double base = binary ? 1024.0 : 1000.0;
  const char* names_decimal[] = {"B", "KB", "MB", "GB", "TB"};
  const char* names_binary[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 3;  // GB / GiB from 1 GB (GiB) on, MB/KB below, TB when huge
  double scaled = value / power(base, 3);
  if (std::fabs(scaled) < 1.0) {
    unit = std::fabs(value) < base ? 0 : (std::fabs(value) < base * base ? 1 : 2);
    scaled = value / power(base, unit);
  } else if (std::fabs(scaled) >= 100000.0) {
    unit = 4;
    scaled = value / power(base, 4);
  }
  char buffer[64];
  if (unit == 0) {
    std::snprintf(buffer, sizeof buffer, "%lld B", static_cast<long long>(bytes));
  } else {
    std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, scaled,
                  binary ? names_binary[unit] : names_decimal[unit]);
  }
  return buffer;
}

std::string format_percent(double fraction) {
  char buffer[32];
  const double percent = fraction * 100.0;
  if (std::fabs(percent - std::round(percent)) < 1e-9) {
    std::snprintf(buffer, sizeof buffer, "%.0f%%", percent);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f%%", percent);
  }
  return buffer;
}

bool parse_units(const std::string& text, DisplayUnits& units) {
  std::string lower;
  for (char c : text) lower += static_cast<char>((c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c);
  if (lower == "gb") { units = DisplayUnits::gb; return true; }
  if (lower == "gib") { units = DisplayUnits::gib; return true; }
  return false;
}

const char* units_name(DisplayUnits units) { return units == DisplayUnits::gib ? "GiB" : "GB"; }

namespace {
// A decimal number as people write it: digits with optional group separators (',', ' ', '_')
// and one '.'; up to six decimals are kept. Reads from text[i], leaves i after the number and
// the spaces behind it. The number is whole + fraction / fraction_scale.
struct Decimal {
  int64_t whole = 0, fraction = 0, fraction_scale = 1;
};
bool read_decimal(const std::string& text, size_t& i, Decimal& number, std::string& why) {
  bool digits = false, in_fraction = false;
  while (i < text.size() && text[i] == ' ') ++i;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits = true;
      if (in_fraction) {
        if (number.fraction_scale >= 1000000) continue;  // more decimals than any figure needs
        number.fraction = number.fraction * 10 + (c - '0');
        number.fraction_scale *= 10;
      } else {
        if (number.whole > (int64_t(1) << 53) / 10) { why = "too large"; return false; }
        number.whole = number.whole * 10 + (c - '0');
      }
    } else if ((c == ',' || c == '_' || (c == ' ' && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '9')) &&
               digits && !in_fraction) {
      continue;
    } else if (c == '.' && !in_fraction) {
      in_fraction = true;
    } else {
      break;
    }
  }
  if (!digits) {
    why = text.empty() ? "empty" : "not a number";
    return false;
  }
  while (i < text.size() && text[i] == ' ') ++i;
  return true;
}

bool same_letters(const std::string& a, const char* b) {
  size_t i = 0;
  for (; i < a.size() && b[i] != '\0'; ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return i == a.size() && b[i] == '\0';
}
}  // namespace

bool parse_count(const std::string& text, int64_t& count, std::string& why) {
  size_t i = 0;
  Decimal number;
  if (!read_decimal(text, i, number, why)) return false;
  int64_t multiplier = 1;
  if (i < text.size()) {
    const char s = text[i];
    if (s == 'k' || s == 'K') multiplier = kKiB;
    else if (s == 'm' || s == 'M') multiplier = kMiB;
    else { why = "unknown suffix '" + text.substr(i) + "' (use k = 1,024 or M = 1,048,576)"; return false; }
    ++i;
    while (i < text.size() && text[i] == ' ') ++i;
    if (i < text.size()) { why = "unexpected '" + text.substr(i) + "'"; return false; }
  }
  if (number.whole > ((int64_t(1) << 53) / multiplier)) { why = "too large"; return false; }
  const int64_t scaled_fraction = number.fraction * multiplier;
  if (scaled_fraction % number.fraction_scale != 0) {
    why = "not a whole number";
    return false;
  }
  count = number.whole * multiplier + scaled_fraction / number.fraction_scale;
  return true;
}

bool parse_memory_size(const std::string& text, int64_t& bytes, std::string& why) {
  size_t i = 0;
  Decimal number;
  if (!read_decimal(text, i, number, why)) return false;
  std::string unit = text.substr(i);
  while (!unit.empty() && unit.back() == ' ') unit.pop_back();
  static const std::pair<const char*, int64_t> units[] = {
      {"", kGiB},      {"GiB", kGiB},  {"GB", kGB}, {"MiB", kMiB}, {"MB", 1000 * 1000},
      {"TiB", kGiB * 1024}, {"TB", kGB * 1000}, {"G", kGiB}, {"M", kMiB}, {"T", kGiB * 1024}};
  int64_t multiplier = 0;
  for (const auto& [name, size] : units) {
    if (same_letters(unit, name)) multiplier = size;
  }
  if (multiplier == 0) {
    why = "unknown unit '" + unit + "' (use GiB, GB, MiB, MB, TiB or TB)";
    return false;
  }
  if (number.whole > (kByteCeiling / multiplier)) { why = "too large"; return false; }
  // multiplier <= 2^40 and fraction < 10^6 < 2^20: the product fits in 64 bits.
  const int64_t fraction_bytes = (number.fraction * multiplier + number.fraction_scale / 2) / number.fraction_scale;
  bytes = number.whole * multiplier + fraction_bytes;
  return true;
}

}  // namespace vramfit
