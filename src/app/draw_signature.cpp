#include "draw_signature.hpp"

#include <imgui.h>
#include <imgui_internal.h>

namespace vramfit {

int frames_dear_imgui_still_needs() {
  if (ImGui::IsAnyMouseDown() || (ImGui::IsAnyItemActive() && !ImGui::GetIO().WantTextInput)) return 2;
  return GImGui->InputEventsQueue.empty() ? 0 : 1;
}

uint64_t draw_signature(const ImDrawData* data) {
  // FNV-1a over every vertex and index: a few hundred kilobytes at most, well under a
  // millisecond, and only on frames that are drawn anyway.
  uint64_t hash = 1469598103934665603ull;
  auto mix = [&hash](const void* bytes, size_t size) {
    const unsigned char* p = static_cast<const unsigned char*>(bytes);
    for (size_t i = 0; i < size; ++i) hash = (hash ^ p[i]) * 1099511628211ull;
  };
  // And every window's place, size and state: a popup sizes itself in a hidden first frame
  // that draws nothing, and must not be mistaken for a picture that holds still.
  for (const ImGuiWindow* window : GImGui->Windows) {
    const int state[4] = {window->Active, window->HiddenFramesCanSkipItems, window->HiddenFramesCannotSkipItems,
                          window->HiddenFramesForRenderOnly};
    mix(&window->ID, sizeof(window->ID));
    mix(&window->Pos, sizeof(window->Pos));
    mix(&window->Size, sizeof(window->Size));
    mix(state, sizeof(state));
  }
  if (!data) return hash;
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    mix(list->VtxBuffer.Data, static_cast<size_t>(list->VtxBuffer.Size) * sizeof(ImDrawVert));
    mix(list->IdxBuffer.Data, static_cast<size_t>(list->IdxBuffer.Size) * sizeof(ImDrawIdx));
  }
  return hash;
}

}  // namespace vramfit
