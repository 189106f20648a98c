#include <catch2/catch.hpp>

#include "core/units.hpp"

using namespace vramfit;

TEST_CASE("thousands separators", "[units]") {
  CHECK(with_thousands(0) == "0");
  CHECK(with_thousands(999) == "999");
  CHECK(with_thousands(1000) == "1,000");
  CHECK(with_thousands(1073741824) == "1,073,741,824");
  CHECK(with_thousands(-1234567) == "-1,234,567");
  CHECK(with_thousands(INT64_MAX) == "9,223,372,036,854,775,807");
}

TEST_CASE("GB is 10^9 bytes and GiB 2^30", "[units]") {
  CHECK(format_bytes(16000000000, DisplayUnits::gb) == "16.00 GB");
  CHECK(format_bytes(kGiB, DisplayUnits::gib) == "1.00 GiB");
  CHECK(format_bytes(kGiB, DisplayUnits::gb) == "1.07 GB");
  CHECK(format_bytes(131072, DisplayUnits::gb) == "131.07 KB");
  CHECK(format_bytes(512, DisplayUnits::gib) == "512 B");
  CHECK(format_bytes(-2 * kGB, DisplayUnits::gb) == "-2.00 GB");
}

TEST_CASE("units names parse both ways", "[units]") {
  DisplayUnits u = DisplayUnits::gb;
  CHECK(parse_units("GiB", u));
  CHECK(u == DisplayUnits::gib);
  CHECK(parse_units("gb", u));
  CHECK(u == DisplayUnits::gb);
  CHECK_FALSE(parse_units("MB", u));
  CHECK(format_percent(0.10) == "10%");
  CHECK(format_percent(0.125) == "12.5%");
}
