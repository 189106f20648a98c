// strtod as the page reads numbers: in the web build the browser's Number() behind
// src/platform/web/browser_number.cpp (this suite links it under Node), natively the C
// library's. Each text must give the double the compiler reads from the same literal, and stop
// where strtod's contract says.
#include "helpers.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

using namespace vramfit;
using namespace vramfit::test;

namespace {
struct Parsed { double value; size_t used; };
Parsed read(const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  return {value, static_cast<size_t>(end - text)};
}
}  // namespace

TEST_CASE("strtod reads each number to the nearest double, as the compiler reads the literal", "[units]") {
  const struct { const char* text; double expected; } cases[] = {
      {"0.1", 0.1}, {"1e-05", 1e-05}, {"500000.0", 500000.0}, {"0.30000000000000004", 0.30000000000000004},
      {"1e23", 1e23}, {"8.589973e9", 8.589973e9}, {"9007199254740993", 9007199254740993.0},
      {"2.2250738585072011e-308", 2.2250738585072011e-308}, {"4.9406564584124654e-324", 4.9406564584124654e-324},
      {"1.7976931348623157e308", 1.7976931348623157e308}, {"123.456e-3", 123.456e-3}, {"-0.0", -0.0},
      {"+7.", 7.0}, {".5", 0.5}, {"00012", 12.0}, {"1E+2", 1e2},
      {"0.1000000000000000055511151231257827021181583404541015625", 0.1},
      {"1.00000000000000011102230246251565404236316680908203125", 1.0},  // 1 + 2^-53, a tie: to even
      {"3.14159265358979323846264338327950288", 3.14159265358979323846264338327950288}};
  for (const auto& c : cases) {
    INFO(c.text);
    const Parsed p = read(c.text);
    CHECK(p.value == c.expected);
    CHECK(std::signbit(p.value) == std::signbit(c.expected));
    CHECK(p.used == std::strlen(c.text));
  }
  CHECK(std::isinf(read("1e400").value));
  CHECK(read("1e-400").value == 0.0);
  CHECK(std::isinf(read("-Infinity").value));
  CHECK(read("-Infinity").value < 0);
  CHECK(std::isnan(read("nan").value));
}

TEST_CASE("strtod stops where the number ends and reads nothing from a text that is no number", "[units]") {
  const struct { const char* text; double value; size_t used; } cases[] = {
      {"  -1.5e+2x", -150.0, 9}, {"12abc", 12.0, 2}, {"1e", 1.0, 1}, {"1e+", 1.0, 1}, {"2.5.1", 2.5, 3},
      {"inference", std::numeric_limits<double>::infinity(), 3}, {".", 0.0, 0}, {"-", 0.0, 0},
      {"abc", 0.0, 0}, {"", 0.0, 0}, {" +.e1", 0.0, 0}};
  for (const auto& c : cases) {
    INFO(c.text);
    const Parsed p = read(c.text);
    CHECK(p.value == c.value);
    CHECK(p.used == c.used);
  }
}
