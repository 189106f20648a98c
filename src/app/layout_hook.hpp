// The app's layout by name, for tests that use the page as a person does: every labelled
// widget Dear ImGui drew in the last frame (buttons, checkboxes, sliders, combos, tabs, tree
// rows, selectable rows) with its rectangle in the UI's pixels (on the page: CSS pixels) and
// whether any of it is inside its window's visible area. Dear ImGui reports each one through
// its test-engine hook (IMGUI_ENABLE_TEST_ENGINE, ImGuiTestEngineHook_ItemInfo).
#pragma once
#include <string>

namespace vramfit {

void enable_layout_hook();   // after ImGui::CreateContext()
void layout_frame_begins();  // before ImGui::NewFrame(): the last frame's list is kept
// [{"label": "Flash attention", "x": .., "y": .., "w": .., "h": .., "visible": true}, ...]
// for the last finished frame; the label is the widget's whole label, "##id" part included
// (the GPU list's filter box is "##gpu_filter").
std::string layout_json();

}  // namespace vramfit
