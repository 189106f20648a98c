// The app's layout by name, for tests that use the page as a person does: every labelled
// widget Dear ImGui drew in the last frame (buttons, checkboxes, sliders, combos, tabs, tree
// rows, selectable rows) and every text, with its rectangle in the UI's pixels (on the page:
// CSS pixels) and its window's visible area. Dear ImGui reports widgets through its
// test-engine hooks (IMGUI_ENABLE_TEST_ENGINE) and texts through the hook cmake/imgui.cmake
// adds to TextEx().
#pragma once
#include <string>

#include "io/json.hpp"

namespace vramfit {

void enable_layout_hook();   // after ImGui::CreateContext()
void layout_frame_begins();  // before ImGui::NewFrame(): the last frame's list is kept
// [{"label": "Flash attention", "kind": "widget", "inputable": false, "x": .., "y": .., "w": ..,
//   "h": .., "clip": [x0, y0, x1, y1], "visible": true}, ...] for the last finished frame
// (inputable: the widget takes typed text; focused: it has the keyboard focus, shown;
// scrolls_sideways: its window scrolls horizontally, so its edge may cut items on purpose; shown,
// in Arabic: the words drawn, from its catalog, before shaping; drawn: the characters drawn, shaped
// and in visual order, for a text the text transform changed: annotate_arabic_layout). A widget's
// label is its whole label, "##id" part included (the GPU list's filter box is
// "##gpu_filter"); a text's is its characters (kind "text").
std::string layout_json();
// The rectangle of the widget with this Dear ImGui id in the frame being drawn (false: none);
// the page places its text field over the active text box with it.
bool drawn_item_rect(unsigned id, float rect[4]);

}  // namespace vramfit
