// The web page: the app in a full-window canvas, WebGL 2 through Emscripten's GLFW port.
// Renders only when something happens (input, resize, hash change, a dropped file): the
// main loop pauses itself after a few frames and the page's JavaScript wakes it
// (web/index.html calls _vramfit_wake), so an idle page uses no CPU.
#include <emscripten.h>
#include <emscripten/html5.h>
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app/app.hpp"
#include "app/draw_signature.hpp"
#include "app/glyphs.hpp"
#include "app/layout_hook.hpp"
#include "app/ui_language.hpp"
#include "browser_font.hpp"
#include "platform_gl.hpp"
#include "web_input.hpp"

using namespace vramfit;

// ---- JavaScript side -------------------------------------------------------------------
// Closure Compiler minifies this code with the module: page globals and Module fields are
// written quoted (window["name"]) so their names survive.
EM_JS(void, js_set_hash, (const char* hash, int replace), {
  const next = "#" + UTF8ToString(hash);
  if (location.hash === next) return;
  if (replace) history.replaceState(null, "", next);
  else history.pushState(null, "", next);
});
// The page's address, malloc'ed: the hash without "#" (page_url false) or origin + path.
EM_JS(char*, js_location, (int page_url), {
  const text = page_url ? location.href.split("#")[0].split("?")[0] : location.hash.substring(1);
  const size = lengthBytesUTF8(text) + 1;
  const pointer = _malloc(size);
  stringToUTF8(text, pointer, size);
  return pointer;
});
// The clipboard answers later: _vramfit_copied(1) when it took the text, (0) when the browser
// refused it (no clipboard, no permission: an embed's iframe without allow="clipboard-write").
EM_JS(void, js_copy, (const char* text), {
  const value = UTF8ToString(text);
  const answer = ok => Module["_vramfit_copied"](ok ? 1 : 0);
  if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(value).then(() => answer(true), () => answer(false));
  else setTimeout(() => answer(false), 0);
  if (typeof window["vramfitCopied"] === "function") window["vramfitCopied"](value);
});
EM_JS(void, js_open_link, (const char* url), {
  window.open(UTF8ToString(url), "_blank", "noopener");
});
EM_JS(void, js_announce, (const char* text), {
  const live = document.getElementById("live");
  if (!live) return;
  live.textContent = UTF8ToString(text);
  live.lang = /[\u0600-\u06FF]/.test(live.textContent) ? "ar" : "en";  // read in the language it is in
});
EM_JS(int, js_embed_mode, (), {
  return (window["VRAMFIT_EMBED"] || new URLSearchParams(location.search).has("embed")) ? 1 : 0;
});
EM_JS(double, js_device_pixel_ratio, (), { return window.devicePixelRatio || 1; });
EM_JS(int, js_prefers_dark, (), {
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: light)").matches ? 0 : 1;
});
EM_JS(void, js_set_cursor, (const char* name), { Module["canvas"].style.cursor = UTF8ToString(name); });
EM_JS(void, js_fail, (const char* what), {
  if (typeof window["vramfitFail"] === "function") window["vramfitFail"](UTF8ToString(what));
});
// The browser's file picker (web/shell.js), for devices where nothing can be dropped.
EM_JS(void, js_open_file_picker, (), {
  if (typeof window["vramfitOpenFile"] === "function") window["vramfitOpenFile"]();
});
// The Open button's box for web/shell.js, which opens the picker in the release over it.
EM_JS(void, js_open_file_box, (float x0, float y0, float x1, float y1, int reachable), {
  window["vramfitOpenFileBox"] = reachable ? [x0, y0, x1, y1] : null;
});
// A model by its Hugging Face id: web/shell.js reads it with fetch() through the JavaScript API
// and answers _vramfit_hub_progress / _vramfit_hub_done; the token it may keep in localStorage.
EM_JS(void, js_read_hub, (const char* id, const char* endpoint, const char* token), {
  window["vramfitReadHub"](UTF8ToString(id), UTF8ToString(endpoint), UTF8ToString(token));
});
EM_JS(void, js_cancel_hub, (), { window["vramfitCancelHub"](); });
EM_JS(char*, js_remembered_hub_token, (), {
  let token = "";
  try { token = window["localStorage"].getItem("vramfit.hf_token") || ""; } catch (e) {}
  const size = lengthBytesUTF8(token) + 1, pointer = _malloc(size);
  stringToUTF8(token, pointer, size);
  return pointer;
});
EM_JS(void, js_remember_hub_token, (const char* token), {
  try {
    const text = UTF8ToString(token);
    const store = window["localStorage"];
    if (text) store.setItem("vramfit.hf_token", text); else store.removeItem("vramfit.hf_token");
  } catch (e) {}
});
// A language's catalog (web/shell.js fetches messages/<code>.json, or reads the single file's
// copy): its text, malloc'ed, and in *state 0 (here), 1 (still coming: the page wakes the app
// when it comes) or 2 (failed: the text says why).
EM_JS(char*, js_catalog, (const char* code, int* state), {
  const entry = window["vramfitCatalog"](UTF8ToString(code));
  HEAP32[state >> 2] = entry["state"] === "ready" ? 0 : entry["state"] === "loading" ? 1 : 2;
  const text = entry["text"], size = lengthBytesUTF8(text) + 1, pointer = _malloc(size);
  stringToUTF8(text, pointer, size);
  return pointer;
});
// window.vramfitPaused: the app has stopped drawing until the next event (tests wait for it).
EM_JS(void, js_set_paused, (int paused), { window["vramfitPaused"] = !!paused; });
// The time App::frame took (the recompute after a change, the fit map, the widgets; not the
// drawing), kept in window.vramfitFrameTimes when a benchmark asks (bench/web_perf.mjs).
EM_JS(void, js_frame_built, (double ms), {
  if (window["vramfitFrameTimes"]) window["vramfitFrameTimes"].push(ms);
});
EM_JS(void, js_first_frame, (), {
  if (typeof window["vramfitFirstFrame"] === "function") window["vramfitFirstFrame"]();
});

namespace {

// js_location() as a string.
std::string location_text(bool page_url) {
  char* text = js_location(page_url ? 1 : 0);
  std::string out(text);
  std::free(text);
  return out;
}

// The folder of the page's address ("https://host/tools/" for ".../tools/embed.html").
std::string page_folder() {
  const std::string url = location_text(true);
  return url.substr(0, url.find_last_of('/') + 1);
}

struct WebPlatform : Platform {
  bool embedded = false;  // this page is embed.html
  bool copy_text(const std::string& text) override {
    js_copy(text.c_str());
    return false;
  }
  void set_location_hash(const std::string& hash, bool replace) override { js_set_hash(hash.c_str(), replace ? 1 : 0); }
  // The full calculator: this page, or (from the embed) index.html beside it.
  std::string link_to(const std::string& hash) const override {
    return (embedded ? page_folder() + "index.html" : location_text(true)) + "#" + hash;
  }
  std::string embed_link_to(const std::string& hash) const override { return page_folder() + "embed.html#" + hash; }
  void open_link(const std::string& url) override { js_open_link(url.c_str()); }
  bool can_open_files() const override { return true; }
  void open_files() override { js_open_file_picker(); }
  void open_files_button_at(float x0, float y0, float x1, float y1, bool reachable) override {
    js_open_file_box(x0, y0, x1, y1, reachable ? 1 : 0);
  }
  const char* open_files_hint() const override {
    return "A .gguf, .safetensors or config.json: only its header is read, in the page; dropping one works too";
  }
  void announce(const std::string& text) override { js_announce(text.c_str()); }
  void need_glyphs_for(const std::string& utf8) override;
  bool can_read_hub() const override { return true; }
  void read_hub_model(const std::string& id, const std::string& endpoint, const std::string& token) override {
    js_read_hub(id.c_str(), endpoint.c_str(), token.c_str());
  }
  void cancel_hub_read() override { js_cancel_hub(); }
  std::string remembered_hub_token() const override {
    char* text = js_remembered_hub_token();
    std::string token(text);
    std::free(text);
    return token;
  }
  void remember_hub_token(const std::string& token) override { js_remember_hub_token(token.c_str()); }
  Catalog language_catalog(Language language, std::string& failure) override;

  struct FetchedCatalog {
    Catalog state = Catalog::loading;
    MessageTable table;
    std::string failure;
  };
  std::map<Language, FetchedCatalog> catalogs;
};

// The catalog is asked of the page each frame until it is here, then read once and kept.
Platform::Catalog WebPlatform::language_catalog(Language language, std::string& failure) {
  FetchedCatalog& catalog = catalogs[language];
  if (catalog.state == Catalog::loading) {
    int state = 1;
    char* text = js_catalog(language_code(language), &state);
    const std::string body(text);
    std::free(text);
    if (state == 0) {
      const std::optional<MessageReadError> error = read_message_table(body, catalog.table);
      catalog.state = error ? Catalog::failed : Catalog::ready;
      if (error) catalog.failure = std::string("messages/") + language_code(language) + ".json: " + error->message;
      else set_message_table(language, &catalog.table);
    } else if (state == 2) {
      catalog.state = Catalog::failed;
      catalog.failure = std::string("messages/") + language_code(language) + ".json: " + body;
    }
  }
  failure = catalog.failure;
  return catalog.state;
}

GLFWwindow* g_window = nullptr;
double g_dpr = 1.0;
std::vector<unsigned short> g_extra_glyphs;  // beyond Latin-1, asked for by the app's text
bool g_fonts_stale = false;

App g_app;
FitMapRenderer g_renderer;
WebPlatform g_platform;
int g_frames_left = 3;     // frames to draw before pausing (ImGui settles in two or three)
bool g_paused = false;
bool g_first_frame = true;
bool g_backend_ready = false;  // the OpenGL backend has made its device objects
int g_css_width = 0, g_css_height = 0;
int g_fb_width = 0, g_fb_height = 0;

// The atlas is rebuilt before the next frame (never during one).
void WebPlatform::need_glyphs_for(const std::string& utf8) {
  if (!add_needed_glyphs(utf8, g_extra_glyphs)) return;
  g_fonts_stale = true;
  g_frames_left = std::max(g_frames_left, 2);
}

// Fonts rasterised at the device resolution, shown at CSS size: crisp text; with the glyphs
// the app's text has asked for (WebPlatform::need_glyphs_for).
void build_fonts() {
  ImGuiIO& io = ImGui::GetIO();
  io.Fonts->Clear();
  add_browser_font(io.Fonts, kBrowserFontFamily, kFontLineHeight * static_cast<float>(g_dpr), g_extra_glyphs);
  io.FontGlobalScale = static_cast<float>(1.0 / g_dpr);
  if (g_backend_ready) {  // before the first frame the backend builds the texture itself
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  g_fonts_stale = false;
}

// Canvas backing store = CSS size x devicePixelRatio; ImGui works in CSS pixels and is told
// the framebuffer scale once (io.DisplayFramebufferScale), so nothing is scaled twice.
void sync_canvas_size() {
  double css_w = 0, css_h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  const double dpr = js_device_pixel_ratio();
  const int w = static_cast<int>(css_w), h = static_cast<int>(css_h);
  if (g_fonts_stale && dpr == g_dpr) build_fonts();
  if (w == g_css_width && h == g_css_height && dpr == g_dpr) return;
  g_css_width = w;
  g_css_height = h;
  if (dpr != g_dpr) {
    g_dpr = dpr;
    build_fonts();
  }
  // Set the canvas directly: the GLFW port's glfwSetWindowSize() treats "as large as the
  // screen" as a fullscreen request.
  g_fb_width = static_cast<int>(w * dpr + 0.5);
  g_fb_height = static_cast<int>(h * dpr + 0.5);
  emscripten_set_canvas_element_size("#canvas", g_fb_width, g_fb_height);
}

void frame() {
  if (g_frames_left <= 0) {
    emscripten_pause_main_loop();
    g_paused = true;
    js_set_paused(1);
    return;
  }
  --g_frames_left;
  sync_canvas_size();
  if (release_held_presses()) g_frames_left = std::max(g_frames_left, 2);
  layout_frame_begins();
  ImGui_ImplOpenGL3_NewFrame();
  g_backend_ready = true;
  ImGui_ImplGlfw_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  // ImGui works in CSS pixels (the page's events are in CSS pixels).
  const float scale = static_cast<float>(g_dpr);
  io.DisplaySize = ImVec2(static_cast<float>(g_css_width), static_cast<float>(g_css_height));
  io.DisplayFramebufferScale = ImVec2(scale, scale);
  ImGui::NewFrame();
  apply_touch_scroll();
  const double built_from = emscripten_get_now();
  g_app.frame(g_platform);
  js_frame_built(emscripten_get_now() - built_from);
  place_text_field();
  ImGui::Render();
  glViewport(0, 0, g_fb_width, g_fb_height);
  const float shade = g_app.dark() ? 0.08f : 0.94f;
  glClearColor(shade, shade, shade + 0.01f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  // Keep drawing until the picture holds still (src/app/draw_signature.hpp).
  static uint64_t last_signature = 0;
  const uint64_t signature = draw_signature(ImGui::GetDrawData());
  if (signature != last_signature) g_frames_left = std::max(g_frames_left, 1);
  last_signature = signature;
  // A new language changes every text's width, and rows placed from the last frame's widths
  // (a label's "(?)") take frames more to settle, some after the font gains the language's
  // glyphs: a few more frames than the picture's own changes ask for.
  static Language last_language = ui_language();
  if (ui_language() != last_language) g_frames_left = std::max(g_frames_left, 4);
  last_language = ui_language();
  // The cursor shape as CSS (the GLFW port's cursor modes would touch pointer lock).
  static int last_cursor = -2;
  const int cursor = ImGui::GetMouseCursor();
  if (cursor != last_cursor) {
    last_cursor = cursor;
    const char* css = cursor == ImGuiMouseCursor_TextInput ? "text"
                      : cursor == ImGuiMouseCursor_Hand ? "pointer"
                      : cursor == ImGuiMouseCursor_ResizeEW ? "ew-resize"
                      : cursor == ImGuiMouseCursor_ResizeNS ? "ns-resize"
                      : cursor == ImGuiMouseCursor_NotAllowed ? "not-allowed" : "default";
    js_set_cursor(css);
  }
  // Keep drawing while a button is held or a drag runs, and until Dear ImGui's input queue is
  // empty (a tap that follows fast typing would wait for the next event otherwise).
  g_frames_left = std::max(g_frames_left, frames_dear_imgui_still_needs());
  if (g_first_frame) { g_first_frame = false; js_first_frame(); }
}

}  // namespace

extern "C" {

// Input, resize, focus: draw a few frames.
EMSCRIPTEN_KEEPALIVE void vramfit_wake() {
  g_frames_left = 3;
  if (g_paused) {
    g_paused = false;
    js_set_paused(0);
    emscripten_resume_main_loop();
  }
}

// Back/forward: the hash is the state.
EMSCRIPTEN_KEEPALIVE void vramfit_hash_changed() {
  const std::string text = location_text(false);
  if (text != g_app.hash()) g_app.load_hash(text);
  vramfit_wake();
}

// A model file (dropped or picked), read by web/vramfit-api.js readModelFile() (header bytes only).
EMSCRIPTEN_KEEPALIVE void vramfit_apply_fragment(const char* fragment_json) {
  const json fragment = parse_json(std::string(fragment_json ? fragment_json : ""));
  if (fragment.is_discarded()) g_app.set_notice("The dropped file could not be read.");
  else g_app.apply_file_fragment(fragment);
  vramfit_wake();
}

// The clipboard's answer to a copy (js_copy): said beside the buttons; the page wakes again once
// the confirmation's time is up, to take it away.
EMSCRIPTEN_KEEPALIVE void vramfit_copied(int ok) {
  g_app.copied(ok != 0);
  vramfit_wake();
  EM_ASM(setTimeout(() => Module["_vramfit_wake"](), 2600));
}

// A Hub reading's progress and its answer (web/shell.js, from readHubModel).
EMSCRIPTEN_KEEPALIVE void vramfit_hub_progress(const char* progress_json) {
  g_app.hub_progress(parse_json(std::string(progress_json ? progress_json : "")));
  vramfit_wake();
}
EMSCRIPTEN_KEEPALIVE void vramfit_hub_done(const char* answer_json) {
  const json answer = parse_json(std::string(answer_json ? answer_json : ""));
  g_app.hub_answer(answer.is_discarded() ? json{{"error", {{"message", "the answer could not be read"}}}} : answer);
  vramfit_wake();
}

// The current request hash (tests read it).
EMSCRIPTEN_KEEPALIVE const char* vramfit_current_hash() {
  static std::string hash;
  hash = g_app.hash();
  return hash.c_str();
}

// Whether the font has a glyph for this code point (the tests check that names in any script draw).
EMSCRIPTEN_KEEPALIVE int vramfit_has_glyph(int codepoint) {
  const ImFontAtlas* atlas = ImGui::GetIO().Fonts;
  return codepoint > 0 && codepoint <= 0xFFFF && !atlas->Fonts.empty() &&
         atlas->Fonts[0]->FindGlyphNoFallback(static_cast<ImWchar>(codepoint)) != nullptr;
}

// The last frame's widgets by label with their rectangles in CSS pixels (src/app/layout_hook.hpp):
// window.vramfitLayout() in web/shell.js; the browser tests find what to tap through it.
EMSCRIPTEN_KEEPALIVE const char* vramfit_layout() {
  static std::string layout;
  layout = layout_json();
  return layout.c_str();
}

}  // extern "C"

int main() {
  if (!glfwInit()) {
    js_fail("glfw");
    return 1;
  }
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  // No alpha, depth or stencil buffer: the UI and the fit map draw flat, opaque layers.
  glfwWindowHint(GLFW_ALPHA_BITS, 0);
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
  g_window = glfwCreateWindow(1280, 800, "vramfit", nullptr, nullptr);
  if (!g_window) {  // the browser refused a WebGL 2 context
    js_fail("webgl2");
    return 1;
  }
  glfwMakeContextCurrent(g_window);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  enable_layout_hook();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the URL hash is the state; nothing in localStorage
  io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  io.ConfigFlags |= ImGuiConfigFlags_NoMouseCursorChange;  // set as CSS in frame() instead
  io.ConfigInputTextCursorBlink = false;  // a blinking cursor would keep an idle page drawing
  // Keys through the GLFW port; pointer, wheel, text and clipboard from the page's own events
  // (web_input). The backend polls the GLFW port's cursor each frame while no window has the
  // mouse (ImGui_ImplGlfw_UpdateMouseData); telling it the canvas has it stops that, so only
  // the page's pointer events move Dear ImGui's mouse.
  ImGui_ImplGlfw_InitForOpenGL(g_window, false);
  glfwSetKeyCallback(g_window, ImGui_ImplGlfw_KeyCallback);
  glfwSetWindowFocusCallback(g_window, ImGui_ImplGlfw_WindowFocusCallback);
  ImGui_ImplGlfw_CursorEnterCallback(g_window, 1);
  io.AddMousePosEvent(-FLT_MAX, -FLT_MAX);
  install_web_input();
  ImGui_ImplOpenGL3_Init(kGlslVersionLine);
  g_app.set_dark(js_prefers_dark() != 0);
  if (!g_renderer.init()) g_app.set_notice("Fit map unavailable: " + g_renderer.error());
  g_platform.embedded = js_embed_mode() != 0;
  g_app.init(location_text(false), g_platform.embedded, g_renderer.error().empty() ? &g_renderer : nullptr);
  g_dpr = 0;  // force the first font build in sync_canvas_size()
  emscripten_set_main_loop(frame, 0, false);
  return 0;
}
