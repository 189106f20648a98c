#include "units.hpp"

#include <cmath>
#include <cstdio>

namespace vramfit {

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

std::string format_bytes(int64_t bytes, DisplayUnits units, int decimals) {
  const bool binary = units == DisplayUnits::gib;
  const double base = binary ? 1024.0 : 1000.0;
  const char* names_decimal[] = {"B", "KB", "MB", "GB", "TB"};
  const char* names_binary[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 3;  // GB / GiB from 1 GB (GiB) on, MB/KB below, TB when huge
  double scaled = value / std::pow(base, 3);
  if (std::fabs(scaled) < 1.0) {
    unit = std::fabs(value) < base ? 0 : (std::fabs(value) < base * base ? 1 : 2);
    scaled = value / std::pow(base, unit);
  } else if (std::fabs(scaled) >= 100000.0) {
    unit = 4;
    scaled = value / std::pow(base, 4);
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

}  // namespace vramfit
