// Dear ImGui's sscanf and atof in the page: cmake/imgui.cmake compiles ImGui with
// -Dsscanf=vramfit_sscanf -Datof=vramfit_atof, so its number fields and settings lines are
// read by io/scan_format and io/decimal (exact decimals) instead of the C library's scanner.
#include <cstdarg>
#include <cstring>

#include "io/decimal.hpp"
#include "io/scan_format.hpp"

extern "C" int vramfit_sscanf(const char* input, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int assigned = vramfit::scan_format(input, format, args);
  va_end(args);
  return assigned;
}

extern "C" double vramfit_atof(const char* text) {
  while (*text == ' ' || (*text >= '\t' && *text <= '\r')) ++text;
  double value = 0;
  vramfit::parse_decimal(text, text + std::strlen(text), value);  // 0 when there is no number, as atof
  return value;
}
