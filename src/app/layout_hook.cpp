#include "layout_hook.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdarg>
#include <unordered_map>
#include <vector>

#include "io/json.hpp"

namespace vramfit {

namespace {
struct AddedItem {
  ImGuiID id = 0;
  ImRect rect;
  bool visible = false;
};
// This frame's items as Dear ImGui adds them, and their labels as it reports them (a tab's
// label comes before the tab is added, a button's after: they meet by id).
std::vector<AddedItem> g_added;
std::unordered_map<ImGuiID, std::string> g_labels;
struct LayoutItem {
  std::string label;
  ImRect rect;
  bool visible = false;
};
std::vector<LayoutItem> g_drawn;  // the last finished frame
}  // namespace

void enable_layout_hook() { GImGui->TestEngineHookItems = true; }

void layout_frame_begins() {
  g_drawn.clear();
  for (const AddedItem& item : g_added) {
    const auto label = g_labels.find(item.id);
    if (label != g_labels.end()) g_drawn.push_back({label->second, item.rect, item.visible});
  }
  g_added.clear();
  g_labels.clear();
}

std::string layout_json() {
  json items = json::array();
  for (const LayoutItem& item : g_drawn) {
    items.push_back({{"label", item.label},
                     {"x", item.rect.Min.x},
                     {"y", item.rect.Min.y},
                     {"w", item.rect.GetWidth()},
                     {"h", item.rect.GetHeight()},
                     {"visible", item.visible}});
  }
  return items.dump();
}

}  // namespace vramfit

// Dear ImGui's test-engine hooks (imgui_internal.h): ItemAdd gives an item's rectangle,
// ItemInfo its label.
void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, const ImRect& bb, ImGuiID id) {
  const bool visible = ctx->CurrentWindow && ctx->CurrentWindow->ClipRect.Overlaps(bb);
  vramfit::g_added.push_back({id, bb, visible});
}

void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
  if (label) vramfit::g_labels[id] = label;
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}

const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }
