// A fingerprint of a frame's draw data. The page and the desktop draw only when something
// happens; Dear ImGui sometimes needs a few frames to settle after an event (a popup sizes
// itself in a hidden first frame, a tab switches a frame after the click), so both keep
// drawing while this changes from one frame to the next, and sleep once it holds still.
#pragma once
#include <cstdint>

struct ImDrawData;

namespace vramfit {

// Of the current frame: `data` (after ImGui::Render()) and Dear ImGui's windows.
uint64_t draw_signature(const ImDrawData* data);
// Frames Dear ImGui still needs after this one, whatever the picture: 2 while a button is held or
// a drag runs (a text field being typed in needs none between keystrokes: its cursor does not
// blink), 1 while its input queue holds events (it takes one change per frame:
// io.ConfigInputTrickleEventQueue), else 0.
int frames_dear_imgui_still_needs();

}  // namespace vramfit
