#pragma once
// Decimal text to the nearest double, ties to even — what strtod() does for decimal input —
// without the C library's long-double scanner (musl's __floatscan and its 128-bit float
// helpers, ~8 KB of the page). Used by SmallJson's parser and, in the page, by Dear ImGui's
// number fields. Exact: the common case by Clinger's fast path (an exact integer times or
// over an exact power of ten, one rounding), the rest with big integers.
// tests/test_small_json.cpp compares it with strtod() on millions of inputs.
#include <cstddef>

namespace vramfit {

// Reads `[+-]digits[.digits][(e|E)[+-]digits]` (or `.digits`) at the start of
// [begin, end): returns how many characters it used (0 when there is no number there) and
// sets `value`. Out of range: ±infinity above DBL_MAX, ±0 or a subnormal below, as strtod.
size_t parse_decimal(const char* begin, const char* end, double& value);

}  // namespace vramfit
