// Golden cases as data: tests/golden/*.json hold a request and the figures it must give
// (or, for *_fail.json, the error). Add a case by adding a file.
#include "helpers.hpp"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

namespace {
std::vector<std::string> golden_files() {
  std::vector<std::string> files;
  if (DIR* dir = opendir(VRAMFIT_GOLDEN_DIR)) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".json") files.push_back(name);
    }
    closedir(dir);
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The value at a JSON pointer ("/fit/max_context_tokens", "/breakdown/items/0/bytes"), or
// null when there is none; written here so the test reads the same with either JSON library.
const json* at_pointer(const json& root, const std::string& pointer) {
  const json* at = &root;
  for (size_t start = 1; start <= pointer.size() && at;) {
    const size_t end = std::min(pointer.find('/', start), pointer.size());
    const std::string token = pointer.substr(start, end - start);
    if (at->is_object()) at = at->contains(token) ? &(*at)[token] : nullptr;
    else if (at->is_array() && !token.empty() && token.find_first_not_of("0123456789") == std::string::npos &&
             std::stoul(token) < at->size()) at = &(*at)[std::stoul(token)];
    else at = nullptr;
    start = end + 1;
  }
  return at;
}
}  // namespace

TEST_CASE("golden cases", "[golden]") {
  const auto files = golden_files();
  REQUIRE(files.size() >= 8);
  for (const std::string& name : files) {
    INFO(name);
    std::ifstream in(std::string(VRAMFIT_GOLDEN_DIR) + "/" + name);
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
    const json reply = json::parse(estimate_json(request.dump()));
    if (name.find("_fail") != std::string::npos) {
      REQUIRE(reply.contains("error"));
      CHECK(reply["error"]["id"] == expect["error_id"]);
      CHECK(reply["error"]["field"] == expect["field"]);
      continue;
    }
    REQUIRE_FALSE(reply.contains("error"));
    for (auto it = expect.begin(); it != expect.end(); ++it) {
      INFO(it.key());
      const json* value = at_pointer(reply, it.key());
      REQUIRE(value != nullptr);
      CHECK(*value == it.value());
    }
  }
}
