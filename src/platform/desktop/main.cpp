// The desktop app: the same App as the web page in a GLFW window with OpenGL 3.3. Waits for
// events (no redraw when idle), opens files given on the command line or dropped on the
// window, remembers the last configuration and theme, and can render one frame to a PNG:
//   vramfit_desktop [--screenshot FILE.png] [--size WxH] [--light] [--hash r=...] [--panel NAME]
//                   [--open-dialog FOLDER] [--hf ID] [files...]
// Models by Hugging Face id through the Hub field (hub_worker.hpp: libcurl on a worker thread).
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/app.hpp"
#include "app/draw_signature.hpp"
#include "app/glyphs.hpp"
#include "app/layout_hook.hpp"
#include "platform_gl.hpp"
#include "file_dialog.hpp"
#include "files.hpp"
#include "hub_worker.hpp"
#include "screenshot.hpp"

using namespace vramfit;

namespace {

struct DesktopPlatform : Platform {
  GLFWwindow* window = nullptr;
  FileDialog dialog;
  std::string last_folder = ".";  // the Open dialog starts where the last file came from
  bool copy_text(const std::string& text) override {
    glfwSetClipboardString(window, text.c_str());
    return true;
  }
  bool can_open_files() const override { return true; }
  void open_files() override { dialog.open(last_folder); }
  const char* open_files_hint() const override {
    return "A .gguf, .safetensors or config.json (Ctrl+O); dropping one on the window works too";
  }
  void need_glyphs_for(const std::string& utf8) override;
  HubWorker hub{[] { glfwPostEmptyEvent(); }};  // wakes glfwWaitEvents when the reading has news
  bool can_read_hub() const override { return true; }
  void read_hub_model(const std::string& id, const std::string& endpoint, const std::string& token) override {
    hub.start(id, endpoint, token);
  }
  void cancel_hub_read() override { hub.cancel(); }
  std::string remembered_hub_token() const override { return desktop_hub_token(); }
  void remember_hub_token(const std::string& token) override { keep_desktop_hub_token(token); }
  std::string default_hub_endpoint() const override { return desktop_hub_endpoint(); }
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

// "1280x800" -> {1280, 800}; nothing when malformed or outside 320x240 .. 8192x8192.
std::optional<std::pair<int, int>> parse_window_size(const std::string& text) {
  const size_t x = text.find('x');
  if (x == std::string::npos) return std::nullopt;
  int width = 0, height = 0;
  try {
    size_t used_w = 0, used_h = 0;
    width = std::stoi(text.substr(0, x), &used_w);
    height = std::stoi(text.substr(x + 1), &used_h);
    if (used_w != x || used_h != text.size() - x - 1) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (width < 320 || height < 240 || width > 8192 || height > 8192) return std::nullopt;
  return std::pair{width, height};
}

App* g_app = nullptr;
int g_frames_left = 3;

// Glyphs beyond Latin-1 that the app's text needs (DesktopPlatform::need_glyphs_for).
std::vector<unsigned short> g_extra_glyphs;
bool g_fonts_stale = false;

bool readable(const char* path) {  // probed first: ImGui asserts on a file it cannot open
  std::FILE* f = std::fopen(path, "rb");
  if (f) std::fclose(f);
  return f != nullptr;
}

// The UI font: a system sans-serif like the page's (which the browser draws), from the usual
// places on Linux, macOS and Windows; Dear ImGui's built-in ProggyClean when none is there.
// Characters it lacks (CJK, say) come from the first fallback font found, merged in.
void add_ui_font(ImFontAtlas* atlas, float line_height_px) {
  static const char* const candidates[] = {
      "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf",
      "/usr/share/fonts/dejavu/DejaVuSans.ttf", "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
      "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf", "/System/Library/Fonts/Supplemental/Arial.ttf",
      "/Library/Fonts/Arial.ttf", "C:\\Windows\\Fonts\\segoeui.ttf"};
  static const char* const fallbacks[] = {
      "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
      "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", "/System/Library/Fonts/PingFang.ttc",
      "C:\\Windows\\Fonts\\msyh.ttc"};
  // The ranges must outlive the atlas's build: kept here until the next call.
  static std::vector<ImWchar> ranges;
  ranges = {0x0020, 0x00FF, 0x2026, 0x2026};
  for (unsigned short c : g_extra_glyphs) ranges.insert(ranges.end(), {static_cast<ImWchar>(c), static_cast<ImWchar>(c)});
  ranges.push_back(0);
  for (const char* path : candidates) {
    if (!readable(path)) continue;
    ImFontConfig config;
    config.PixelSnapH = true;
    if (!atlas->AddFontFromFileTTF(path, line_height_px, &config, ranges.data())) continue;
    if (g_extra_glyphs.empty()) return;
    for (const char* fallback : fallbacks) {
      if (!readable(fallback)) continue;
      ImFontConfig merge;
      merge.MergeMode = true;  // only glyphs the first font lacks are taken
      merge.PixelSnapH = true;
      atlas->AddFontFromFileTTF(fallback, line_height_px, &merge, ranges.data());
      return;
    }
    return;
  }
  ImFontConfig config;
  config.SizePixels = 13.0f * line_height_px / kFontLineHeight;  // ProggyClean is drawn for 13 px
  atlas->AddFontDefault(&config);
}

void wake(GLFWwindow*) { g_frames_left = 3; }

// The atlas is rebuilt before the next frame (never during one).
void DesktopPlatform::need_glyphs_for(const std::string& utf8) {
  if (!add_needed_glyphs(utf8, g_extra_glyphs)) return;
  g_fonts_stale = true;
  g_frames_left = std::max(g_frames_left, 2);
}

void on_drop(GLFWwindow* window, int count, const char** paths) {
  if (count > 0 && g_app) g_app->apply_file_fragment(read_model_file(paths[0]));
  wake(window);
}

// The command line's options.
struct DesktopOptions {
  std::string screenshot, hash, panel, dialog_folder, size = "1280x800", language, layout_file, hub_id, state_file;
  bool light_forced = false;
  std::vector<std::string> files;
};

// Parses argv; an exit status when the program should stop here (help, a bad option).
std::optional<int> parse_options(int argc, char** argv, DesktopOptions& o) {
  CLI::App cli{"vramfit_desktop: will this model fit on this GPU, and why?\n"
               "Open model files with Ctrl+O (or the Open file... button), or drop them on the window."};
  cli.add_option("files", o.files, "model files to open (.gguf, .safetensors, config.json)");
  cli.add_option("--screenshot", o.screenshot, "render a few frames, write them to this PNG and exit");
  cli.add_option("--size", o.size, "window size in pixels, WxH (320x240 .. 8192x8192)")
      ->check([](const std::string& text) -> std::string { return parse_window_size(text) ? "" : "expected WxH, 320x240 .. 8192x8192"; });
  cli.add_flag("--light", o.light_forced, "light theme");
  cli.add_option("--hash", o.hash, "the configuration as a page link's hash (r=...)");
  cli.add_option("--panel", o.panel, "the results tab to show")->check(CLI::IsMember({"breakdown", "gpus", "fit_map", "layers"}));
  cli.add_option("--open-dialog", o.dialog_folder, "show the Open dialog on this folder");
  cli.add_option("--lang", o.language, "the interface's language: en or ar (Arabic)")->check(CLI::IsMember({"en", "ar"}));
  cli.add_option("--hf", o.hub_id, "read a model by its Hugging Face id or URL (org/name, org/name@rev, org/name:Q4_K_M) "
                 "through the Hub field, as if typed there (HF_ENDPOINT, HF_TOKEN as for the CLI)");
  cli.add_option("--layout", o.layout_file, "with --screenshot: also write the app's layout by name (JSON) to this file");
  cli.add_option("--state", o.state_file, "with --screenshot: also write the configuration (a page link's hash, r=...) to this file");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

// An OpenGL 3.3 window (hidden for a screenshot), or null with the reason printed.
GLFWwindow* open_window(int width, int height, bool hidden) {
  if (!glfwInit()) { std::fprintf(stderr, "error: cannot initialise GLFW (no display?)\n"); return nullptr; }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  if (hidden) glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(width, height, "vramfit", nullptr, nullptr);
  if (!window) { std::fprintf(stderr, "error: cannot create an OpenGL 3.3 window\n"); glfwTerminate(); return nullptr; }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(1);
  return window;
}

// Dear ImGui over GLFW and OpenGL 3, its font at the window's content scale. Returns the scale.
float start_imgui(GLFWwindow* window) {
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  enable_layout_hook();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.ConfigInputTextCursorBlink = false;  // a blinking cursor would keep an idle window drawing
  float xscale = 1.0f, yscale = 1.0f;
  glfwGetWindowContentScale(window, &xscale, &yscale);
  add_ui_font(io.Fonts, kFontLineHeight * xscale);
  io.FontGlobalScale = 1.0f / xscale;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init(kGlslVersionLine);
  return xscale;
}

// The app as the options open it: theme, link, files, tab, language, Hub id, Open dialog.
void open_app(App& app, DesktopPlatform& platform, FitMapRenderer& renderer, const DesktopOptions& o, const std::string& hash,
              bool dark) {
  const bool map_ok = renderer.init();
  app.set_dark(dark);
  app.init(hash, false, map_ok ? &renderer : nullptr);
  if (!map_ok) app.set_notice("Fit map unavailable: " + renderer.error());
  if (!o.language.empty()) app.set_language(o.language);
  for (const std::string& f : o.files) app.apply_file_fragment(read_model_file(f));
  if (o.panel == "gpus") app.select_panel(Panel::gpus);
  else if (o.panel == "fit_map") app.select_panel(Panel::fit_map);
  else if (o.panel == "layers") app.select_panel(Panel::layers);
  if (!o.hub_id.empty()) app.read_hub(o.hub_id);
  if (!o.dialog_folder.empty()) platform.dialog.open(o.dialog_folder);
}

// --screenshot: the picture, and with --layout and --state the layout and the link. False on a failed write.
bool write_outputs(const DesktopOptions& o, const App& app, int fb_w, int fb_h) {
  bool ok = write_screenshot(o.screenshot, fb_w, fb_h);
  if (!o.layout_file.empty()) {  // the layout of the frame drawn before this one (layout_frame_begins)
    std::FILE* out = std::fopen(o.layout_file.c_str(), "wb");
    const std::string text = layout_json();
    ok = ok && out && std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if (out) std::fclose(out);
  }
  if (!o.state_file.empty()) ok = ok && static_cast<bool>(std::ofstream(o.state_file) << app.hash() << "\n");
  std::printf("%s %s (%dx%d)\n", ok ? "wrote" : "could not write", o.screenshot.c_str(), fb_w, fb_h);
  return ok;
}

// One frame: the Hub's progress, the fonts if stale, the app, Ctrl+O and the Open dialog, the
// drawing. Returns the framebuffer's size.
std::pair<int, int> draw_frame(GLFWwindow* window, App& app, DesktopPlatform& platform, float xscale) {
  ImGuiIO& io = ImGui::GetIO();
  platform.hub.deliver(app);  // the Hub reading's progress and answer, between frames
  if (g_fonts_stale) {
    io.Fonts->Clear();
    add_ui_font(io.Fonts, kFontLineHeight * xscale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    g_fonts_stale = false;
  }
  layout_frame_begins();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  app.frame(platform);
  if (io.KeyCtrl && ImGui::IsKeyPressed(ImGuiKey_O, false) && !platform.dialog.is_open()) platform.open_files();
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
  // Keep drawing until the picture holds still (src/app/draw_signature.hpp).
  static uint64_t last_signature = 0;
  const uint64_t signature = draw_signature(ImGui::GetDrawData());
  if (signature != last_signature) g_frames_left = std::max(g_frames_left, 1);
  last_signature = signature;
  // Keep drawing while a button is held or a drag runs, and until Dear ImGui's input queue is empty.
  g_frames_left = std::max(g_frames_left, frames_dear_imgui_still_needs());
  return {fb_w, fb_h};
}

}  // namespace

int main(int argc, char** argv) {
  DesktopOptions o;
  if (auto status = parse_options(argc, argv, o)) return *status;
  const auto [width, height] = *parse_window_size(o.size);
  std::string hash = o.hash;
  bool dark = true;
  const bool remember = o.screenshot.empty();
  if (remember && hash.empty()) load_settings(hash, dark);
  if (o.light_forced) dark = false;

  GLFWwindow* window = open_window(width, height, !o.screenshot.empty());
  if (!window) return 1;
  const float xscale = start_imgui(window);
  App app;
  g_app = &app;
  FitMapRenderer renderer;
  DesktopPlatform platform;
  platform.window = window;
  open_app(app, platform, renderer, o, hash, dark);
  glfwSetDropCallback(window, on_drop);
  // Any input draws a few frames; otherwise the loop sleeps in glfwWaitEvents().
  glfwSetWindowRefreshCallback(window, wake);

  int frames = 0, settled = 0;
  while (!glfwWindowShouldClose(window)) {
    if (g_frames_left <= 0 && o.screenshot.empty()) {
      glfwWaitEvents();   // sleeps until input, resize or a drop: an idle window uses no CPU
      g_frames_left = 3;  // ImGui settles hover and focus states over a few frames
    } else {
      glfwPollEvents();
    }
    --g_frames_left;
    const auto [fb_w, fb_h] = draw_frame(window, app, platform, xscale);
    ++frames;
    // With --hf the picture waits for the reading (and its answer's frames) before it is taken.
    settled = app.hub_busy() ? 0 : settled + 1;
    if (!o.screenshot.empty() && frames >= 4 && settled == 4) {  // ImGui settles its layout in a few frames
      const bool ok = write_outputs(o, app, fb_w, fb_h);
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
