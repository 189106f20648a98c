// SmallJson (the web build's JSON) against nlohmann::json (the native build's), and
// parse_decimal against strtod: the same text must give the same values and the same
// dump(), in both builds of the suite. fuzz/fuzz_small_json.cpp does the same on fuzzed input.
#include <catch2/catch.hpp>
#include <dirent.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/decimal.hpp"
#include "io/small_json.hpp"

using vramfit::SmallJson;

namespace {

// Both libraries on one text: accepted by both with the same dump, or rejected by both.
// (SmallJson also rejects nesting deeper than SmallJson::kMaxDepth; nothing here is that deep.)
void same_as_nlohmann(const std::string& text) {
  INFO("text: " << text.substr(0, 200));
  const nlohmann::json theirs = nlohmann::json::parse(text, nullptr, false);
  const SmallJson ours = SmallJson::parse(text, nullptr, false);
  REQUIRE(ours.is_discarded() == theirs.is_discarded());
  if (theirs.is_discarded()) return;
  CHECK(ours.dump() == theirs.dump());
  CHECK(ours.dump(2) == theirs.dump(2));
  CHECK(std::string(ours.type_name()) == theirs.type_name());
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> json_files(const std::string& folder) {
  std::vector<std::string> files;
  if (DIR* dir = opendir(folder.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".json") files.push_back(folder + "/" + name);
    }
    closedir(dir);
  }
  return files;
}

void same_as_strtod(const std::string& text) {
  double ours = 0;
  const size_t used = vramfit::parse_decimal(text.data(), text.data() + text.size(), ours);
  char* stop = nullptr;
  const double theirs = std::strtod(text.c_str(), &stop);
  INFO("text: " << text);
  REQUIRE(used == static_cast<size_t>(stop - text.c_str()));
  REQUIRE(std::memcmp(&ours, &theirs, sizeof ours) == 0);  // the same bits: -0, subnormals, infinities
}

}  // namespace

TEST_CASE("parse_decimal gives strtod's double for every decimal", "[text]") {
  for (const char* text : {
           "0", "-0", "1", "0.1", "5.", ".5", "-.5e1", "1e", "1e+", "e5", "", "-", "abc", "00012", "1e308",
           "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "2e308", "1e400", "-1e400",
           "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-400",
           "2.2250738585072011e-308", "2.2250738585072014e-308", "9007199254740993", "9007199254740992.5",
           "0.30000000000000004", "123456789012345678901234567890", "1.00000000000000011102230246251565404236316680908203125",
           "1.00000000000000011102230246251565404236316680908203124", "1.00000000000000011102230246251565404236316680908203126",
           "7.0e-10", "1e22", "1e23", "8.589973e9", "0.000000000000000000000000000000000000000000001e45"}) {
    same_as_strtod(text);
  }
  // The exact halfway point between the two smallest subnormals, written out in full (751 digits).
  same_as_strtod("2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324");
  std::mt19937_64 random(20261201);
  for (int i = 0; i < 100000; ++i) {  // random digit strings, with and without a point and an exponent
    std::string text = random() % 2 ? "-" : "";
    const int digits = 1 + static_cast<int>(random() % (i % 10 == 0 ? 60 : 20));
    for (int d = 0; d < digits; ++d) text += static_cast<char>('0' + random() % 10);
    if (random() % 2) text.insert(text.size() - random() % static_cast<unsigned>(digits), ".");
    if (random() % 2) text += "e" + std::to_string(static_cast<int>(random() % 700) - 350);
    same_as_strtod(text);
  }
  for (int i = 0; i < 50000; ++i) {  // random doubles printed at every precision
    const uint64_t bits = random();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    char text[64];
    std::snprintf(text, sizeof text, "%.*e", static_cast<int>(random() % 20), v);
    same_as_strtod(text);
  }
}

TEST_CASE("SmallJson reads and writes every JSON file of the project as nlohmann does", "[text]") {
  std::vector<std::string> files;
  for (const std::string folder : {VRAMFIT_GOLDEN_DIR, VRAMFIT_FIXTURES_DIR "/configs", VRAMFIT_FIXTURES_DIR "/autograd",
                                   VRAMFIT_SOURCE_DIR "/data", VRAMFIT_SOURCE_DIR "/validation/networks"}) {
    for (const std::string& file : json_files(folder)) files.push_back(file);
  }
  REQUIRE(files.size() >= 40);
  std::mt19937_64 random(7);
  for (const std::string& file : files) {
    INFO(file);
    const std::string text = read_file(file);
    same_as_nlohmann(text);
    // The same file with a few bytes changed, inserted or cut: accepted and written alike, or
    // rejected by both.
    for (int i = 0; i < 60; ++i) {
      std::string changed = text;
      for (int edits = 1 + static_cast<int>(random() % 3); edits > 0 && !changed.empty(); --edits) {
        const size_t at = random() % changed.size();
        static const char kBytes[] = "{}[],:\"\\-+.eE0123456789 tfnul\x01\x7f\xc3\xa9\xed\xa0\x80\xff";
        const char byte = kBytes[random() % (sizeof kBytes - 1)];
        switch (random() % 3) {
          case 0: changed[at] = byte; break;
          case 1: changed.insert(changed.begin() + static_cast<std::ptrdiff_t>(at), byte); break;
          default: changed.erase(at, 1 + random() % 4); break;
        }
      }
      same_as_nlohmann(changed);
    }
  }
}

TEST_CASE("SmallJson accepts and rejects the edge cases nlohmann does", "[text]") {
  for (const std::string& text : std::vector<std::string>{
           "", " ", "null", "true", "false", "tru", "nul", "truex", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{1:2}",
           "{\"a\":1} x", "\"abc", "01", "-", "-01", "1.", ".5", "1e", "1E+2", "1e-2", "+1", "NaN", "Infinity", "-0",
           "-0.0", "0.0", "1.0", "1e400", "-1e400", "1e-400", "18446744073709551615", "18446744073709551616",
           "-9223372036854775808", "-9223372036854775809", "9223372036854775808", "123456789012345678901234567890",
           "0.1", "1e21", "1e-5", "1.5e-7", "123456789012345680", "5e-324", "[]", "{}", "[[],{}]",
           "  {\"b\":1,\"a\":[true,false,null]}  ", "{\"a\":1,\"a\":2}", "\"\\u0000\"", "\"\\x\"", "\"\\ud800\"",
           "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ud83d\\ude00\"", "\"\\u00e9\\u20ac\"", "\"\\/\\b\\f\\n\\r\\t\"",
           "\"\x01\"", "\"\x7f\"", "\"\xc3\xa9\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"",
           "\"\xf0\x9f\x98\x80\"", "\"\xe2\x82\"", "\xef\xbb\xbf{}", "\xef\xbb{}", "{}\xef\xbb\xbf", "/* c */ 1",
           "[1]\n", "\t\r\n[1]", std::string("[1]\0", 4), std::string("\"a\0b\"", 5)}) {
    same_as_nlohmann(text);
  }
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "[{\"k\":";
  deep += "1";
  for (int i = 0; i < 200; ++i) deep += "}]";
  same_as_nlohmann(deep);
  // Past the nesting limit SmallJson says no (nlohmann has none).
  CHECK(SmallJson::parse(std::string(SmallJson::kMaxDepth + 1, '[') + std::string(SmallJson::kMaxDepth + 1, ']'),
                         nullptr, false).is_discarded());
}

TEST_CASE("SmallJson writes numbers digit for digit as nlohmann does", "[text]") {
  std::mt19937_64 random(11);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t bits = random();
    double d = 0;
    std::memcpy(&d, &bits, sizeof d);
    if (i % 2) d = std::ldexp(static_cast<double>(random() >> 11), -static_cast<int>(random() % 80));
    CHECK(SmallJson(d).dump() == nlohmann::json(d).dump());  // non-finite: null in both
    const int64_t s = static_cast<int64_t>(bits);
    CHECK(SmallJson(s).dump() == nlohmann::json(s).dump());
    CHECK(SmallJson(bits).dump() == nlohmann::json(bits).dump());
  }
  for (double d : {0.0, -0.0, 1.0, 0.1, 100.0, 1e15, 1e16, 1e17, 1e21, 1e-4, 1e-5, 5e-324, 1.7976931348623157e308,
                   std::nan(""), HUGE_VAL}) {
    CHECK(SmallJson(d).dump() == nlohmann::json(d).dump());
  }
}

TEST_CASE("SmallJson builds, reads and changes values as nlohmann does", "[text]") {
#define BOTH(...) CHECK(SmallJson(__VA_ARGS__).dump(2) == nlohmann::json(__VA_ARGS__).dump(2))
  BOTH({{"mode", "training"}, {"model", {{"preset", "llama-3.1-8b"}}}, {"gpu_count", 2}});
  BOTH({{"a", 1}, {"a", 2}});              // the first of equal keys
  BOTH({1, "two", nullptr, true, 2.5});   // not all pairs: an array
  CHECK(SmallJson({{"input", {4}}, {"layers", SmallJson::array()}}).dump() ==
        nlohmann::json({{"input", {4}}, {"layers", nlohmann::json::array()}}).dump());
  BOTH(std::vector<std::string>{"q", "v"});
  BOTH(std::vector<int64_t>{1, -2, 3});
  BOTH("text with \"quotes\", a \\ and a \n and a \x01");
#undef BOTH
  SmallJson ours;
  nlohmann::json theirs;
  ours["b"]["c"] = 3u;
  theirs["b"]["c"] = 3u;
  ours["a"].push_back(1.5);
  theirs["a"].push_back(1.5);
  ours["a"].emplace_back("x");
  theirs["a"].emplace_back("x");
  ours["z"] = nullptr;
  theirs["z"] = nullptr;
  CHECK(ours.erase("z") == theirs.erase("z"));
  CHECK(ours.erase("missing") == theirs.erase("missing"));
  CHECK(ours.dump() == theirs.dump());
  CHECK(ours.size() == theirs.size());
  CHECK(ours["a"].size() == theirs["a"].size());
  CHECK(ours["a"][0].get<double>() == theirs["a"][0].get<double>());
  CHECK(ours.at("b").at("c").get<int64_t>() == 3);
  CHECK(ours.contains("b"));
  CHECK_FALSE(ours.contains("nothing"));
  CHECK_FALSE(ours["a"].contains("b"));  // an array contains no keys
  CHECK(ours.value("b", 0) == 0);        // an object, not a number: the fallback
  CHECK(ours["b"].value("c", 0) == 3);
  CHECK(ours["b"].value("d", std::string("none")) == "none");
  std::vector<std::string> keys;
  for (auto it = ours.begin(); it != ours.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"a", "b"});
  CHECK(SmallJson(1) == SmallJson(1u));
  CHECK(SmallJson(1) == SmallJson(1.0));
  CHECK(SmallJson(-1) != SmallJson(UINT64_MAX));
  CHECK(SmallJson("x") == "x");
  CHECK(SmallJson::parse("{\"a\":[1,2]}") == SmallJson{{"a", {1, 2}}});
  CHECK(SmallJson::parse("[1,2]") != SmallJson::parse("[2,1]"));
  CHECK(SmallJson().empty());
  CHECK(SmallJson(5).size() == 1);
  CHECK(SmallJson::parse("5").is_number_unsigned());
  CHECK(SmallJson::parse("-5").is_number_integer());
  CHECK_FALSE(SmallJson::parse("-5").is_number_unsigned());
  CHECK(SmallJson::parse("5.0").is_number_float());
  // Misuse is an exception here (exceptions on), as nlohmann's type_error / out_of_range.
  CHECK_THROWS(SmallJson(5).get<std::string>());
  CHECK_THROWS(SmallJson::object().at("missing"));
  CHECK_THROWS(SmallJson::parse("{oops"));
}
