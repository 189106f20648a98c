// The baseline of the page's first-frame benchmark (bench/web_perf.mjs): a bare Dear ImGui
// window over GLFW and WebGL 2, built with the page's toolchain, flags and font builder
// (the browser draws the glyphs), drawing one window of text and no more. The page's first
// frame is measured as a ratio to this one's, loads interleaved, so the shared machine's
// speed of the day cancels out.
#include <emscripten.h>
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <imgui_internal.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include "browser_font.hpp"
#include "platform_gl.hpp"

namespace {

GLFWwindow* g_window = nullptr;
bool g_first = true;

EM_JS(void, js_first_frame, (), {
  if (typeof window["bareFirstFrame"] === "function") window["bareFirstFrame"]();
});

void frame() {
  int width = 0, height = 0;
  glfwGetFramebufferSize(g_window, &width, &height);
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
  ImGui::Begin("bare", nullptr, ImGuiWindowFlags_NoDecoration);
  ImGui::TextUnformatted("Dear ImGui, GLFW and WebGL 2, nothing else.");
  ImGui::End();
  ImGui::Render();
  glViewport(0, 0, width, height);
  glClearColor(0.08f, 0.08f, 0.09f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (g_first) {
    g_first = false;
    js_first_frame();
    emscripten_cancel_main_loop();  // one frame is what is measured
  }
}

}  // namespace

// The Dear ImGui target is built with its test-engine hooks (the app's layout hook); the bare
// page leaves them off (TestEngineHookItems stays false) and only defines them.
struct ImGuiLastItemData;
void ImGuiTestEngineHook_ItemAdd(ImGuiContext*, ImGuiID, const ImRect&, const ImGuiLastItemData*) {}
void ImGuiTestEngineHook_ItemInfo(ImGuiContext*, ImGuiID, const char*, int) {}
void ImGuiTestEngineHook_Text(ImGuiContext*, const ImRect&, const char*, const char*) {}
void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }

int main() {
  if (!glfwInit()) return 1;
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  g_window = glfwCreateWindow(1280, 800, "bare", nullptr, nullptr);
  if (!g_window) return 1;
  glfwMakeContextCurrent(g_window);
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  vramfit::add_browser_font(ImGui::GetIO().Fonts, vramfit::kBrowserFontFamily, 16.0f);
  ImGui_ImplGlfw_InitForOpenGL(g_window, true);
  ImGui_ImplOpenGL3_Init(vramfit::kGlslVersionLine);
  emscripten_set_main_loop(frame, 0, false);
  return 0;
}
