#include "web_input.hpp"

#include <emscripten.h>
#include <emscripten/html5.h>

#include <imgui.h>
#include <imgui_internal.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "app/layout_hook.hpp"

namespace vramfit {

namespace {

EM_JS(void, js_place_text_field, (int active, float x, float y, float w, float h), {
  if (typeof window["vramfitTextField"] === "function") window["vramfitTextField"](!!active, x, y, w, h);
});
EM_JS(void, js_write_clipboard, (const char* text), {
  const value = UTF8ToString(text);
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(value).catch(() => {});
  if (typeof window["vramfitCopied"] === "function") window["vramfitCopied"](value);
});

ImVec2 g_touch_scroll(0, 0);  // CSS pixels a finger moved since the last frame (content follows it)
// The windows a swipe scrolls, per axis, chosen under the finger when it starts moving: a swipe
// that brings the page to its end stops there, rather than carrying on into a table that has
// come under the finger (0: choose at the next move).
ImGuiID g_swipe_window[2] = {0, 0};
bool g_swipe_starts = false;

// A press that comes with a new position (a tap; a click without a move before it) waits one
// frame: Dear ImGui hovers tabs and table rows (AllowOverlap items) only from the frame after
// the pointer arrives over them, so a press in the same frame would miss them.
struct HeldButton {
  int button = 0;  // -1: the pointer left
  bool down = false;
  ImGuiMouseSource source = ImGuiMouseSource_Mouse;
};
std::vector<HeldButton> g_held;
int g_frame = 0;           // frames begun; events between frame k and k+1 arrive "in gap k"
int g_position_gap = -1;   // the gap in which the last position arrived
int g_held_gap = -1;       // the gap in which the first held button arrived
ImGuiID g_text_field_id = 0;
std::string g_clipboard;  // the last text pasted in the page or copied by the app
ImRect g_text_field_rect;

ImGuiMouseSource mouse_source(int source) {
  return source == 1 ? ImGuiMouseSource_TouchScreen : source == 2 ? ImGuiMouseSource_Pen : ImGuiMouseSource_Mouse;
}

// The nearest window at or above `window` that can scroll along the axis.
ImGuiWindow* scrollable(ImGuiWindow* window, int axis) {
  for (; window; window = window->ParentWindow) {
    if (window->ScrollMax[axis] > 0.0f && !(window->Flags & ImGuiWindowFlags_NoScrollWithMouse)) return window;
  }
  return nullptr;
}

}  // namespace

void install_web_input() {
  // The wheel comes from the page's own handler (web/shell.js -> vramfit_wheel): the GLFW
  // backend's handler on the document (imgui_impl_glfw.cpp, ImGui_ImplGlfw_Init) is removed.
  emscripten_set_wheel_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, nullptr, false, nullptr);
  ImGuiIO& io = ImGui::GetIO();
  // Copy goes to the browser's clipboard (and is kept here); the browser's paste event hands
  // its text over before Dear ImGui sees the Ctrl+V or Shift+Insert that caused it, so ImGui's
  // own paste reads it (web/shell.js; a paste from the context menu arrives as typed text).
  io.SetClipboardTextFn = [](void*, const char* text) {
    g_clipboard = text;
    js_write_clipboard(text);
  };
  io.GetClipboardTextFn = [](void*) -> const char* { return g_clipboard.c_str(); };
}

bool release_held_presses() {
  ++g_frame;
  if (g_held.empty()) return false;
  if (g_frame - g_held_gap < 2) return true;  // the frame that shows the position comes first
  ImGuiIO& io = ImGui::GetIO();
  for (const HeldButton& b : g_held) {
    io.AddMouseSourceEvent(b.source);
    if (b.button < 0) io.AddMousePosEvent(-FLT_MAX, -FLT_MAX);  // the pointer left after these presses
    else io.AddMouseButtonEvent(b.button, b.down);
  }
  g_held.clear();
  return false;
}

void apply_touch_scroll() {
  if (g_touch_scroll.x == 0.0f && g_touch_scroll.y == 0.0f) return;
  ImGuiContext& g = *GImGui;
  for (int axis = 0; axis < 2; ++axis) {
    const float delta = axis == 0 ? g_touch_scroll.x : g_touch_scroll.y;
    if (delta == 0.0f) continue;
    if (g_swipe_starts) {
      const ImGuiWindow* under = scrollable(g.HoveredWindow, axis);
      g_swipe_window[axis] = under ? under->ID : 0;
    }
    if (ImGuiWindow* window = g_swipe_window[axis] ? ImGui::FindWindowByID(g_swipe_window[axis]) : nullptr) {
      const float target = ImClamp(window->Scroll[axis] + delta, 0.0f, window->ScrollMax[axis]);
      if (axis == 0) ImGui::SetScrollX(window, target);
      else ImGui::SetScrollY(window, target);
    }
  }
  g_touch_scroll = ImVec2(0, 0);
  g_swipe_starts = false;
}

void place_text_field() {
  const ImGuiContext& g = *GImGui;
  const ImGuiID id = ImGui::GetIO().WantTextInput ? g.ActiveId : 0;
  float r[4] = {0, 0, 0, 0};
  const bool found = id != 0 && drawn_item_rect(id, r);
  const ImRect rect(r[0], r[1], r[2], r[3]);
  const ImGuiID shown = found ? id : 0;
  if (shown == g_text_field_id && (!found || (rect.Min.x == g_text_field_rect.Min.x && rect.Min.y == g_text_field_rect.Min.y &&
                                              rect.Max.x == g_text_field_rect.Max.x && rect.Max.y == g_text_field_rect.Max.y))) {
    return;
  }
  g_text_field_id = shown;
  g_text_field_rect = rect;
  js_place_text_field(found ? 1 : 0, rect.Min.x, rect.Min.y, rect.GetWidth(), rect.GetHeight());
}

}  // namespace vramfit

// The browser's events, from web/shell.js (CSS pixels).
extern "C" {

EMSCRIPTEN_KEEPALIVE void vramfit_pointer(double x, double y, int source) {
  ImGuiIO& io = ImGui::GetIO();
  io.AddMouseSourceEvent(vramfit::mouse_source(source));
  io.AddMousePosEvent(static_cast<float>(x), static_cast<float>(y));
  vramfit::g_position_gap = vramfit::g_frame;
}

// The pointer leaves (a mouse off the canvas, a finger lifted): after any presses still held.
EMSCRIPTEN_KEEPALIVE void vramfit_pointer_left() {
  if (vramfit::g_held.empty()) ImGui::GetIO().AddMousePosEvent(-FLT_MAX, -FLT_MAX);
  else vramfit::g_held.push_back({-1, false, vramfit::g_held.back().source});
}

EMSCRIPTEN_KEEPALIVE void vramfit_button(int button, int down, int source) {
  using namespace vramfit;
  if (!g_held.empty() || g_position_gap == g_frame) {  // keep the order; wait for the position's frame
    if (g_held.empty()) g_held_gap = g_frame;
    g_held.push_back({button, down != 0, mouse_source(source)});
    return;
  }
  ImGuiIO& io = ImGui::GetIO();
  io.AddMouseSourceEvent(mouse_source(source));
  io.AddMouseButtonEvent(button, down != 0);
}

EMSCRIPTEN_KEEPALIVE void vramfit_wheel(double dx, double dy) {
  ImGui::GetIO().AddMouseWheelEvent(static_cast<float>(dx), static_cast<float>(dy));
}

// Whether the app would use this wheel: the window Dear ImGui's UpdateMouseWheel scrolls (the one
// a wheel under way is locked to, else the one under the pointer or above it) can still move that way. A wheel it
// cannot use (nothing to scroll there, or at its end) is left to the browser, so the page that
// embeds the app scrolls (web/shell.js).
EMSCRIPTEN_KEEPALIVE int vramfit_wheel_used(double dx, double dy) {
  ImGuiContext& g = *ImGui::GetCurrentContext();
  if (g.OpenPopupStack.Size > 0 || g.ActiveId != 0) return 1;  // a list or a drag has the wheel
  for (int axis = 0; axis < 2; ++axis) {
    const double delta = axis == 0 ? dx : dy;
    if (delta == 0.0) continue;
    // While a wheel goes on, Dear ImGui keeps it on the window it began in (LockWheelingWindow).
    ImGuiWindow* window = vramfit::scrollable(g.WheelingWindow ? g.WheelingWindow : g.HoveredWindow, axis);
    if (!window) continue;
    // A positive wheel moves the content down (towards the start). Dear ImGui rounds the scroll
    // to whole pixels, so a ScrollMax with a fraction is never reached: its end is within a pixel.
    if (delta > 0.0 ? window->Scroll[axis] >= 1.0f : window->Scroll[axis] <= window->ScrollMax[axis] - 1.0f) return 1;
  }
  return 0;
}

// starts: the swipe's first move (a new finger).
EMSCRIPTEN_KEEPALIVE void vramfit_touch_scroll(double dx, double dy, int starts) {
  if (starts) vramfit::g_swipe_starts = true;
  vramfit::g_touch_scroll.x += static_cast<float>(dx);
  vramfit::g_touch_scroll.y += static_cast<float>(dy);
}

EMSCRIPTEN_KEEPALIVE void vramfit_text(const char* utf8) { ImGui::GetIO().AddInputCharactersUTF8(utf8); }

EMSCRIPTEN_KEEPALIVE void vramfit_clipboard(const char* utf8) { vramfit::g_clipboard = utf8 ? utf8 : ""; }

EMSCRIPTEN_KEEPALIVE void vramfit_backspace() {
  ImGuiIO& io = ImGui::GetIO();
  io.AddKeyEvent(ImGuiKey_Backspace, true);
  io.AddKeyEvent(ImGuiKey_Backspace, false);
}

}  // extern "C"
