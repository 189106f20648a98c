// libFuzzer, differential: the web build's SmallJson against nlohmann::json (the native
// build's) on the same bytes. Both accept with the same dump() (compact and indented) or both
// reject; the one allowed difference is SmallJson's nesting limit.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "io/small_json.hpp"

namespace {

// Deeper nesting than SmallJson::kMaxDepth, counted roughly (brackets inside strings count too:
// an overestimate, so such inputs are only compared when they are shallow for sure).
bool may_nest_too_deep(const std::string& text) {
  int depth = 0, deepest = 0;
  for (char c : text) {
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest > vramfit::SmallJson::kMaxDepth;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using vramfit::fuzz::require;
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (may_nest_too_deep(text)) return 0;
  const nlohmann::json theirs = nlohmann::json::parse(text, nullptr, false);
  const vramfit::SmallJson ours = vramfit::SmallJson::parse(text, nullptr, false);
  require(ours.is_discarded() == theirs.is_discarded(), "SmallJson and nlohmann disagree on whether the text is JSON");
  if (theirs.is_discarded()) return 0;
  require(ours.dump() == theirs.dump(), "SmallJson's dump() differs from nlohmann's");
  require(ours.dump(2) == theirs.dump(2), "SmallJson's dump(2) differs from nlohmann's");
  require(vramfit::SmallJson::parse(ours.dump()) == ours, "SmallJson's dump() does not read back to the same value");
  return 0;
}
