// The desktop app: the same App as the web page in a GLFW window with OpenGL 3.3. Waits for
// events (no redraw when idle), opens files given on the command line or dropped on the
// window, remembers the last configuration and theme, and can render one frame to a PNG:
//   vramfit_desktop [--screenshot FILE.png] [--size WxH] [--light] [--hash r=...] [--panel NAME]
//                   [--open-dialog FOLDER] [files...]
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/app.hpp"
#include "app/gl.hpp"
#include "file_dialog.hpp"
#include "files.hpp"
#include "png_writer.hpp"

using namespace vramfit;

namespace {

struct DesktopPlatform : Platform {
  GLFWwindow* window = nullptr;
  FileDialog dialog;
  std::string last_folder = ".";  // the Open dialog starts where the last file came from
  void copy_text(const std::string& text) override { glfwSetClipboardString(window, text.c_str()); }
  bool can_open_files() const override { return true; }
  void open_files() override { dialog.open(last_folder); }
};

std::string settings_path() {
  const char* config = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (config && *config) return std::string(config) + "/vramfit.state";
  if (home && *home) return std::string(home) + "/.config/vramfit.state";
  return "";
}

// Remembered settings: line 1 the request hash, line 2 "dark" or "light".
void load_settings(std::string& hash, bool& dark) {
  std::ifstream in(settings_path());
  std::string theme;
  if (std::getline(in, hash) && std::getline(in, theme)) dark = theme != "light";
}

void save_settings(const std::string& hash, bool dark) {
  const std::string path = settings_path();
  if (path.empty()) return;
  std::ofstream(path) << hash << "\n" << (dark ? "dark" : "light") << "\n";
}

App* g_app = nullptr;
int g_frames_left = 3;

// The UI font: a system sans-serif like the page's (which the browser draws), from the usual
// places on Linux, macOS and Windows; Dear ImGui's built-in ProggyClean when none is there.
void add_ui_font(ImFontAtlas* atlas, float line_height_px) {
  static const char* const candidates[] = {
      "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf",
      "/usr/share/fonts/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
      "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", "/System/Library/Fonts/Supplemental/Arial.ttf",
      "/Library/Fonts/Arial.ttf", "C:\\Windows\\Fonts\\segoeui.ttf"};
  for (const char* path : candidates) {
    if (std::FILE* f = std::fopen(path, "rb")) {  // probed first: ImGui asserts on a file it cannot open
      std::fclose(f);
      ImFontConfig config;
      config.PixelSnapH = true;
      if (atlas->AddFontFromFileTTF(path, line_height_px, &config)) return;
    }
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * line_height_px / kFontLineHeight;  // ProggyClean is drawn for 13 px
  atlas->AddFontDefault(&config);
}

void wake(GLFWwindow*) { g_frames_left = 3; }

void on_drop(GLFWwindow* window, int count, const char** paths) {
  if (count > 0 && g_app) g_app->apply_file_fragment(read_model_file(paths[0]));
  wake(window);
}

}  // namespace

int main(int argc, char** argv) {
  std::string screenshot, hash, panel, dialog_folder;
  int width = 1280, height = 800;
  bool dark = true, light_forced = false, hash_given = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--screenshot" && i + 1 < argc) screenshot = argv[++i];
    else if (arg == "--size" && i + 1 < argc) std::sscanf(argv[++i], "%dx%d", &width, &height);
    else if (arg == "--light") light_forced = true;
    else if (arg == "--panel" && i + 1 < argc) panel = argv[++i];
    else if (arg == "--open-dialog" && i + 1 < argc) dialog_folder = argv[++i];
    else if (arg == "--hash" && i + 1 < argc) { hash = argv[++i]; hash_given = true; }
    else if (arg == "--help" || arg == "-h") {
      std::printf("usage: vramfit_desktop [--screenshot FILE.png] [--size WxH] [--light] [--hash r=...]\n"
                  "                       [--panel breakdown|gpus|fit_map|layers] [--open-dialog FOLDER]\n"
                  "                       [model files]\n"
                  "Open model files with Ctrl+O (or the Open file... button), or drop them on the window.\n");
      return 0;
    } else if (!arg.empty() && arg[0] != '-') files.push_back(arg);
    else { std::fprintf(stderr, "error: unknown option %s (try --help)\n", arg.c_str()); return 2; }
  }
  if (width < 320 || height < 240 || width > 8192 || height > 8192) { std::fprintf(stderr, "error: --size out of range\n"); return 2; }
  const bool remember = screenshot.empty();
  if (remember && !hash_given) load_settings(hash, dark);
  if (light_forced) dark = false;

  if (!glfwInit()) { std::fprintf(stderr, "error: cannot initialise GLFW (no display?)\n"); return 1; }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  if (!screenshot.empty()) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(width, height, "vramfit", nullptr, nullptr);
  if (!window) { std::fprintf(stderr, "error: cannot create an OpenGL 3.3 window\n"); glfwTerminate(); return 1; }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  float xscale = 1.0f, yscale = 1.0f;
  glfwGetWindowContentScale(window, &xscale, &yscale);
  add_ui_font(io.Fonts, kFontLineHeight * xscale);
  io.FontGlobalScale = 1.0f / xscale;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");

  App app;
  g_app = &app;
  FitMapRenderer renderer;
  const bool map_ok = renderer.init();
  app.set_dark(dark);
  app.init(hash, false, map_ok ? &renderer : nullptr);
  if (!map_ok) app.set_notice("Fit map unavailable: " + renderer.error());
  for (const std::string& f : files) app.apply_file_fragment(read_model_file(f));
  if (panel == "gpus") app.select_panel(Panel::gpus);
  else if (panel == "fit_map") app.select_panel(Panel::fit_map);
  else if (panel == "layers") app.select_panel(Panel::layers);
  DesktopPlatform platform;
  platform.window = window;
  if (!dialog_folder.empty()) platform.dialog.open(dialog_folder);
  glfwSetDropCallback(window, on_drop);
  // Any input draws a few frames; otherwise the loop sleeps in glfwWaitEvents().
  glfwSetWindowRefreshCallback(window, wake);

  int frames = 0;
  while (!glfwWindowShouldClose(window)) {
    if (g_frames_left <= 0 && screenshot.empty()) {
      glfwWaitEvents();   // sleeps until input, resize or a drop: an idle window uses no CPU
      g_frames_left = 3;  // ImGui settles hover and focus states over a few frames
    } else {
      glfwPollEvents();
    }
    --g_frames_left;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    app.frame(platform);
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_O, false) && !platform.dialog.is_open()) platform.open_files();
    if (auto path = platform.dialog.draw()) {
      app.apply_file_fragment(read_model_file(*path));
      platform.last_folder = platform.dialog.folder();
    }
    ImGui::Render();
    int fb_w = 0, fb_h = 0;
    glfwGetFramebufferSize(window, &fb_w, &fb_h);
    glViewport(0, 0, fb_w, fb_h);
    const float shade = app.dark() ? 0.08f : 0.94f;
    glClearColor(shade, shade, shade + 0.01f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (ImGui::IsAnyMouseDown() || ImGui::IsAnyItemActive()) g_frames_left = std::max(g_frames_left, 2);
    ++frames;
    if (!screenshot.empty() && frames == 4) {  // ImGui settles its layout in a few frames
      std::vector<uint8_t> pixels(static_cast<size_t>(fb_w) * static_cast<size_t>(fb_h) * 3);
      glPixelStorei(GL_PACK_ALIGNMENT, 1);
      glReadBuffer(GL_BACK);
      glReadPixels(0, 0, fb_w, fb_h, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
      std::vector<uint8_t> flipped(pixels.size());
      const size_t row = static_cast<size_t>(fb_w) * 3;
      for (int y = 0; y < fb_h; ++y) {
        std::copy_n(pixels.data() + static_cast<size_t>(fb_h - 1 - y) * row, row, flipped.data() + static_cast<size_t>(y) * row);
      }
      const bool ok = write_png(screenshot, fb_w, fb_h, flipped);
      std::printf("%s %s (%dx%d)\n", ok ? "wrote" : "could not write", screenshot.c_str(), fb_w, fb_h);
      glfwSetWindowShouldClose(window, GLFW_TRUE);
      if (!ok) return 1;
    }
    glfwSwapBuffers(window);
  }
  if (remember) save_settings(app.hash(), app.dark());
  renderer.shutdown();
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return 0;
}
