#include "layout_hook.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdarg>
#include <map>
#include <vector>

#include "arabic_ui.hpp"
#include "io/json.hpp"

namespace vramfit {

namespace {
struct LayoutItem {
  ImGuiID id = 0;      // widgets; 0 for texts
  std::string label;   // a widget's label (from ItemInfo), or a text's characters
  bool is_text = false;
  bool inputable = false;  // a widget that takes typed text (ImGuiItemStatusFlags_Inputable)
  ImRect rect, clip;   // the item, and its window's visible area when it was drawn
  bool scrolls_sideways = false;  // its window scrolls horizontally (a wide table)
};
// This frame's items as Dear ImGui adds them, and the widgets' labels as it reports them (a
// tab's label comes before the tab is added, a button's after: they meet by id).
std::vector<LayoutItem> g_adding;
struct Label {
  std::string text;
  bool inputable = false;
};
std::map<ImGuiID, Label> g_labels;
std::vector<LayoutItem> g_drawn;  // the last finished frame
ImGuiID g_focused = 0;            // its keyboard focus (Dear ImGui's nav item), 0 when not shown
ImGuiID g_active = 0;             // the item being used (a text box being edited), 0 when none

void add(ImGuiContext* ctx, ImGuiID id, std::string label, bool is_text, const ImRect& rect) {
  LayoutItem item;
  item.id = id;
  item.label = std::move(label);
  item.is_text = is_text;
  item.rect = rect;
  item.clip = ctx->CurrentWindow ? ctx->CurrentWindow->ClipRect : ImRect();
  item.scrolls_sideways = ctx->CurrentWindow && ctx->CurrentWindow->ScrollMax.x > 0.0f;
  g_adding.push_back(std::move(item));
}
}  // namespace

void enable_layout_hook() { GImGui->TestEngineHookItems = true; }

void layout_frame_begins() {
  g_drawn.clear();
  g_focused = GImGui->NavDisableHighlight ? 0 : GImGui->NavId;
  g_active = GImGui->ActiveId;
  for (LayoutItem& item : g_adding) {
    if (!item.is_text) {
      const auto label = g_labels.find(item.id);
      if (label == g_labels.end()) continue;  // an item without a label (a child window, a drag area)
      item.label = label->second.text;
      item.inputable = label->second.inputable;
    }
    g_drawn.push_back(std::move(item));
  }
  g_adding.clear();
  g_labels.clear();
}

bool drawn_item_rect(unsigned id, float rect[4]) {
  for (const LayoutItem& item : g_adding) {
    if (item.id == id && id != 0) {
      rect[0] = item.rect.Min.x;
      rect[1] = item.rect.Min.y;
      rect[2] = item.rect.Max.x;
      rect[3] = item.rect.Max.y;
      return true;
    }
  }
  return false;
}

std::string layout_json() {
  json items = json::array();
  for (const LayoutItem& item : g_drawn) {
    items.push_back({{"label", item.label},
                     {"kind", item.is_text ? "text" : "widget"},
                     {"inputable", item.inputable},
                     {"focused", item.id != 0 && item.id == g_focused},
                     {"active", item.id != 0 && item.id == g_active},
                     {"x", item.rect.Min.x},
                     {"y", item.rect.Min.y},
                     {"w", item.rect.GetWidth()},
                     {"h", item.rect.GetHeight()},
                     {"clip", {item.clip.Min.x, item.clip.Min.y, item.clip.Max.x, item.clip.Max.y}},
                     {"visible", item.rect.Overlaps(item.clip)},
                     {"scrolls_sideways", item.scrolls_sideways}});
  }
  annotate_arabic_layout(items);
  return items.dump();
}

}  // namespace vramfit

// Dear ImGui's test-engine hooks (imgui_internal.h), and the text hook cmake/imgui.cmake adds
// to TextEx(): ItemAdd gives a widget's rectangle, ItemInfo its label, Text a text's both.
void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, ImGuiID id, const ImRect& bb, const ImGuiLastItemData*) {
  if (ctx->CurrentWindow && id == ctx->CurrentWindow->ID) return;  // a window itself, not what is in it
  vramfit::add(ctx, id, {}, false, bb);
}

void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID id, const char* label, ImGuiItemStatusFlags flags) {
  if (label) vramfit::g_labels[id] = {label, (flags & ImGuiItemStatusFlags_Inputable) != 0};
}

void ImGuiTestEngineHook_Text(ImGuiContext* ctx, const ImRect& bb, const char* text, const char* text_end) {
  vramfit::add(ctx, 0, std::string(text, text_end), true, bb);
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}

const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }
