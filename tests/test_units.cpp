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

TEST_CASE("counts are read as people write them: 32k, 128K, 1M, 32,768", "[units]") {
  auto count = [](const std::string& text) {
    int64_t value = -1;
    std::string why;
    const bool read = parse_count(text, value, why);
    INFO(text << ": " << why);  // after the reading, so a refusal shows its reason
    REQUIRE(read);
    return value;
  };
  auto refused = [](const std::string& text) {
    int64_t value = -1;
    std::string why;
    const bool ok = parse_count(text, value, why);
    INFO(text);
    CHECK_FALSE(ok);
    CHECK(value == -1);  // untouched
    return why;
  };
  CHECK(count("32768") == 32768);
  CHECK(count("32,768") == 32768);
  CHECK(count("32 768") == 32768);
  CHECK(count("32_768") == 32768);
  CHECK(count("32k") == 32768);
  CHECK(count("32K") == 32768);
  CHECK(count("128K") == 131072);
  CHECK(count(" 1M ") == 1048576);
  CHECK(count("1.5k") == 1536);
  CHECK(count("0.5M") == 524288);
  CHECK(count("8192.0") == 8192);
  CHECK(refused("") == "empty");
  CHECK(refused("abc") == "not a number");
  CHECK(refused("-5") == "not a number");
  CHECK(refused("1.3") == "not a whole number");
  CHECK(refused("1.0001k") == "not a whole number");
  CHECK(refused("32q").find("unknown suffix 'q'") != std::string::npos);
  CHECK(refused("32k tokens") == "unexpected 'tokens'");
  CHECK(refused("99999999999999999999") == "too large");
  CHECK(refused("9000000000000M") == "too large");
}

TEST_CASE("memory sizes are read as people write them: 48, 48.5, 24 GB, 81,920 MiB", "[units]") {
  auto bytes = [](const std::string& text) {
    int64_t value = -1;
    std::string why;
    const bool read = parse_memory_size(text, value, why);
    INFO(text << ": " << why);  // after the reading, so a refusal shows its reason
    REQUIRE(read);
    return value;
  };
  auto refused = [](const std::string& text) {
    int64_t value = -1;
    std::string why;
    const bool ok = parse_memory_size(text, value, why);
    INFO(text);
    CHECK_FALSE(ok);
    CHECK(value == -1);
    return why;
  };
  CHECK(bytes("48") == 48 * kGiB);
  CHECK(bytes("48.5") == 48 * kGiB + kGiB / 2);  // the figure once read as 48 by ImGui's InputDouble
  CHECK(bytes(" 23.65 GiB ") == 23 * kGiB + (65 * kGiB + 50) / 100);
  CHECK(bytes("24 GB") == 24 * kGB);
  CHECK(bytes("24gb") == 24 * kGB);
  CHECK(bytes("81,920 MiB") == 80 * kGiB);
  CHECK(bytes("1.5T") == 1536 * kGiB);
  CHECK(bytes("0.333333333") == (333333 * kGiB + 500000) / 1000000);  // six decimals kept
  CHECK(refused("") == "empty");
  CHECK(refused("-4") == "not a number");
  CHECK(refused("48 parsecs").find("unknown unit 'parsecs'") != std::string::npos);
  CHECK(refused("9999999999 TB") == "too large");
}
