#pragma once
// The part of sscanf() Dear ImGui uses, with parse_decimal for the floating-point
// conversions: the page routes ImGui's sscanf calls here (cmake/imgui.cmake), so the C
// library's scanner and its long-double arithmetic stay out of the page.
// Conversions: %d %i %u %x %X (with h, hh, l, ll; an optional width), %f %e %g (float*; with l
// double*; decimal only: no inf, nan or hex floats), %c, %n and %%. A space in the format matches any run of white space. Returns the
// number of assignments, or EOF when the input ends before the first conversion.
// tests/test_small_json.cpp compares it with the C library's sscanf on ImGui's formats.
#include <cstdarg>

namespace vramfit {

int scan_format(const char* input, const char* format, va_list args);

}  // namespace vramfit
