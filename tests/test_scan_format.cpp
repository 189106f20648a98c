// scan_format (the page's sscanf for Dear ImGui) against the C library's sscanf, on the
// formats ImGui passes: number fields, and its .ini settings lines.
#include <catch2/catch.hpp>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "io/scan_format.hpp"

namespace {

int scan(const char* input, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vramfit::scan_format(input, format, args);
  va_end(args);
  return n;
}

}  // namespace

TEST_CASE("scan_format reads ImGui's number fields as sscanf does", "[text]") {
  const std::vector<std::string> inputs = {"", " ", "0", "42", "-17", "+5", "  12  ", "12abc", "abc", "3.75", "-0.5", "1e3",
                                           "2.5e-3", ".5", "5.", "0x1F", "017", "4294967295", "18446744073709551615",
                                           "-9223372036854775808", "99999999999", "1,5", "7 8"};
  for (const std::string& input : inputs) {
    INFO("input '" << input << "'");
    // A number out of the target type's range is undefined behaviour for sscanf (glibc
    // saturates, musl wraps): only the counts are compared then.
    const bool out_of_int_range = input == "4294967295" || input == "18446744073709551615" ||
                                  input == "-9223372036854775808" || input == "99999999999";
    {
      int ours = -1234, theirs = -1234;
      CHECK(scan(input.c_str(), "%d", &ours) == std::sscanf(input.c_str(), "%d", &theirs));
      if (!out_of_int_range) CHECK(ours == theirs);
    }
    {
      unsigned ours = 7, theirs = 7;
      CHECK(scan(input.c_str(), "%u", &ours) == std::sscanf(input.c_str(), "%u", &theirs));
      if (!out_of_int_range) CHECK(ours == theirs);
    }
    {
      long long ours = 7, theirs = 7;
      unsigned long long uours = 7, utheirs = 7;
      CHECK(scan(input.c_str(), "%lld", &ours) == std::sscanf(input.c_str(), "%lld", &theirs));
      CHECK(scan(input.c_str(), "%llu", &uours) == std::sscanf(input.c_str(), "%llu", &utheirs));
      if (input != "18446744073709551615") CHECK(ours == theirs);
      CHECK(uours == utheirs);
    }
    if (input == "0x1F") continue;  // a hexadecimal float: the C library reads it, scan_format does not
    {
      float ours = 1.25f, theirs = 1.25f;
      CHECK(scan(input.c_str(), "%f", &ours) == std::sscanf(input.c_str(), "%f", &theirs));
      CHECK(ours == theirs);
    }
    {
      double ours = 1.25, theirs = 1.25;
      CHECK(scan(input.c_str(), "%lf", &ours) == std::sscanf(input.c_str(), "%lf", &theirs));
      CHECK(ours == theirs);
    }
  }
}

TEST_CASE("scan_format reads ImGui's settings lines as sscanf does", "[text]") {
  int x = 0, y = 0, n = 0, r = 0, ox = 0, oy = 0, on = 0, or_ = 0;
  CHECK(scan("Pos=60,-7", "Pos=%i,%i", &x, &y) == std::sscanf("Pos=60,-7", "Pos=%i,%i", &ox, &oy));
  CHECK((x == ox && y == oy));
  CHECK(scan("Size=12", "Size=%i,%i", &x, &y) == std::sscanf("Size=12", "Size=%i,%i", &ox, &oy));
  CHECK(scan("Collapsed=1", "Pos=%i,%i", &x, &y) == std::sscanf("Collapsed=1", "Pos=%i,%i", &ox, &oy));
  unsigned id = 0, oid = 0;
  CHECK(scan("0x0000ABCD,5", "0x%08X,%d", &id, &n) == std::sscanf("0x0000ABCD,5", "0x%08X,%d", &oid, &on));
  CHECK((id == oid && n == on));
  CHECK(scan("Column 3 Width=120", "Column %d%n", &n, &r) == std::sscanf("Column 3 Width=120", "Column %d%n", &on, &or_));
  CHECK((n == on && r == or_));
  char c = 0, oc = 0;
  CHECK(scan("Sort=2^ rest", "Sort=%d%c%n", &n, &c, &r) == std::sscanf("Sort=2^ rest", "Sort=%d%c%n", &on, &oc, &or_));
  CHECK((n == on && c == oc && r == or_));
  float f = 0, of = 0;
  CHECK(scan("Weight=0.3333%", "Weight=%f%n", &f, &r) == std::sscanf("Weight=0.3333%", "Weight=%f%n", &of, &or_));
  CHECK((f == of && r == or_));
  CHECK(scan("50%", "%d%%", &n) == std::sscanf("50%", "%d%%", &on));
  CHECK(scan("", "Pos=%i,%i", &x, &y) == std::sscanf("", "Pos=%i,%i", &ox, &oy));  // EOF
}
