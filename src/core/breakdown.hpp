// The answer's shape: a tree of memory items, each with the formula that produced it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vramfit {

struct BreakdownItem {
  std::string id;        // stable: "weights", "kv_cache", "overhead.runtime", ...
  std::string label;     // for people: "KV cache"
  int64_t bytes = 0;
  std::string formula;   // numbers substituted: "2 x 32 layers x ... = 1,073,741,824 B"
  std::string note;      // why / where the rule comes from
  std::vector<BreakdownItem> children;
};

struct Breakdown {
  std::string mode;                     // "inference"
  std::vector<BreakdownItem> items;     // top level: weights, kv_cache, overhead, margin
  int64_t total_bytes = 0;              // per GPU
  int64_t gpu_count = 1;
  std::vector<std::string> warnings;    // things the user should look at
  std::vector<std::string> assumptions; // what was assumed where the input was silent
};

const BreakdownItem* find_item(const Breakdown& breakdown, const std::string& id);

}  // namespace vramfit
