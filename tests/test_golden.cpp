// Golden cases as data: tests/golden/*.json hold a request and the figures it must give
// (or, for *_fail.json, the error). Add a case by adding a file.
#include "helpers.hpp"
#include "report/engine_requests.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

TEST_CASE("golden cases", "[golden]") {
  const auto files = files_in(VRAMFIT_GOLDEN_DIR, ".json");
  REQUIRE(files.size() >= 8);
  for (const std::string& path : files) {
    const std::string name = std::filesystem::path(path).filename().string();
    INFO(name);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const json golden = json::parse(text.str(), nullptr, false);
    REQUIRE_FALSE(golden.is_discarded());
    // A golden file is itself a request (so `vramfit infer --request FILE` runs it), with
    // the expectations under "_expect" taken off before it is read.
    json request = golden;
    const json expect = request["_expect"];
    request.erase("_expect");
    request.erase("_about");
    const json reply = json::parse(estimate_any_engine_json(request.dump()));
    if (name.find("_fail") != std::string::npos) {
      REQUIRE(reply.contains("error"));
      CHECK(reply["error"]["id"] == expect["error_id"]);
      CHECK(reply["error"]["field"] == expect["field"]);
      continue;
    }
    REQUIRE_FALSE(reply.contains("error"));
    for (auto it = expect.begin(); it != expect.end(); ++it) {
      INFO(it.key());
      const json::json_pointer pointer(it.key());  // "/fit/max_context_tokens", "/breakdown/items/0/bytes"
      REQUIRE(reply.contains(pointer));
      CHECK(reply.at(pointer) == it.value());
    }
  }
}
