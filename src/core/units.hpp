// Byte counts and how they are shown. Bytes are always int64_t (the web build is 32-bit).
#pragma once
#include <cstdint>
#include <string>

namespace vramfit {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024 * kMiB;
constexpr int64_t kGB = 1000 * 1000 * 1000;

enum class DisplayUnits { gb, gib };  // GB = 10^9 bytes, GiB = 2^30 bytes

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// "1,073,741,824"
std::string with_thousands(int64_t value);
// "1.07 GB" / "1.00 GiB"; below 1 MB/MiB shows MB/KB for readability.
std::string format_bytes(int64_t bytes, DisplayUnits units, int decimals = 2);
// "0.10" -> "10%"
std::string format_percent(double fraction);
// Parses "GB" / "GiB" (case-insensitive); false if neither.
bool parse_units(const std::string& text, DisplayUnits& units);
const char* units_name(DisplayUnits units);

}  // namespace vramfit
