#include "breakdown.hpp"

namespace vramfit {

namespace {
const BreakdownItem* find_in(const std::vector<BreakdownItem>& items, const std::string& id) {
  for (const BreakdownItem& item : items) {
    if (item.id == id) return &item;
    if (const BreakdownItem* child = find_in(item.children, id)) return child;
  }
  return nullptr;
}
}  // namespace

const BreakdownItem* find_item(const Breakdown& breakdown, const std::string& id) {
  return find_in(breakdown.items, id);
}

}  // namespace vramfit
