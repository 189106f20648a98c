// The page's input for Dear ImGui, from the browser's own events (web/shell.js calls the
// vramfit_* exports below): the mouse and pen as a mouse, a finger's tap as a click where it
// is, a finger's swipe as scrolling of what is under it, the wheel in the browser's
// direction, and typed, composed and pasted text through an invisible text field that
// follows the app's active text box. Emscripten's GLFW port still gives the keys.
#pragma once

namespace vramfit {

// After ImGui_ImplGlfw_InitForOpenGL: remove the backend's own wheel handler, set the
// clipboard functions (copy through the browser; paste arrives as text input).
void install_web_input();
// Before ImGui::NewFrame(): hand Dear ImGui the presses that waited a frame for their
// position (see vramfit_button). True while some still wait: draw another frame.
bool release_held_presses();
// After ImGui::NewFrame(): scroll what a swipe moved over.
void apply_touch_scroll();
// After the app's frame: place the page's text field over the active text box, or park it.
void place_text_field();

}  // namespace vramfit
