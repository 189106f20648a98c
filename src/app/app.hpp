// The calculator's interface, shared by the web page and the desktop app: Dear ImGui panels
// over one Request (the state) and its Report (src/report/estimate). The screen, and the file
// that draws each part of it:
//   top bar             app.cpp           title, Open file..., GB/GiB, theme, copy and share
//   inputs panel        inputs_panel.cpp  mode, model, weights, workload, training, GPU
//   verdict and bar     verdict.cpp       FITS / DOES NOT FIT, stacked bar, limits
//   Breakdown, Which GPUs fit, Layers     tables.cpp
//   Fit map             fit_map_view.cpp  (drawn by fit_map_renderer.cpp's shaders)
//   copied text         report_text.cpp   Markdown, the screen-reader summary, embed snippet
// Knows nothing of the platform beyond Platform (platform.hpp).
#pragma once
#include <string>

#include "active_fit.hpp"
#include "core/result.hpp"
#include "fit_map_view.hpp"
#include "inputs_panel.hpp"
#include "io/json.hpp"
#include "platform.hpp"
#include "report/estimate.hpp"
#include "tables.hpp"

namespace vramfit {

enum class Panel { breakdown, gpus, fit_map, layers };

// The UI font's line height (ascent + descent) in logical pixels, the same on the page and the
// desktop; each platform rasterises it at its device scale. Every other size is in font units.
constexpr float kFontLineHeight = 16.0f;

class App {
 public:
  // hash: the URL hash (web) or the remembered request (desktop); embed: compact layout.
  void init(const std::string& hash, bool embed, FitMapRenderer* renderer);
  void frame(Platform& platform);                   // builds one frame of UI
  bool load_hash(const std::string& hash);          // false: malformed, notice shown, defaults kept
  void apply_file_fragment(const json& fragment);   // a read model file (drop / open / paste)
  // A model read by its Hugging Face id (Platform::read_hub_model): {model, weights, hub} or
  // {error}; a failed reading keeps the model shown.
  void hub_answer(const json& answer);
  void hub_progress(const json& progress) { inputs_.hub().progress(progress); }
  // Reads a model by its Hub id at the next frame, through the Model section's Hub field.
  void read_hub(const std::string& id) { inputs_.hub().ask(id); }
  bool hub_busy() { return inputs_.hub().busy(); }
  std::string hash() const { return hash_; }        // "r=..." for the current request
  bool dark() const { return dark_; }
  void set_dark(bool dark);
  void set_notice(const std::string& notice) { notice_ = notice; }
  // A copy's outcome (Copy Markdown, JSON, link, snippet): "Copied" for a moment, or why not.
  void copied(bool ok);
  void set_language(const std::string& code) { request_.language = code; dirty_ = true; }  // "en", "ar"
  Panel panel() const { return panel_; }
  void select_panel(Panel panel) { requested_panel_ = static_cast<int>(panel); }

 private:
  void recompute();
  void draw_top_bar(Platform& platform);
  void draw_notice();
  void draw_results(bool phone);
  void draw_tabs(bool phone);
  void request_glyphs(Platform& platform);  // characters beyond the font's, from text that came in
  // The request's language, drawn from this frame on, once the platform has its catalog.
  void use_language(Platform& platform);


  Request request_;
  Result<Report> report_ = Report{};
  std::string hash_;
  bool dirty_ = true, embed_ = false, dark_ = true;
  bool from_location_ = false;  // the request came from the URL: rewrite it, no new entry
  Panel panel_ = Panel::breakdown;
  int requested_panel_ = -1;    // select this tab on the next frame
  AppMode shown_mode_ = AppMode::inference;  // the mode of the last frame: a new one keeps the tab
  unsigned history_edit_id_ = 0;  // the widget whose edit made the current history entry
  bool first_frame_ = true;
  bool arabic_indic_digits_ = false;  // the digits the interface is drawn with
  bool catalog_failure_said_ = false;  // a language's catalog could not be had (said once)
  std::string glyph_text_;      // the text whose characters were last asked of the platform
  std::string notice_;          // shown until dismissed: malformed hash, file read errors
  bool copy_failed_ = false;    // the last copy's outcome, shown until copy_shown_until_ (ImGui time)
  double copy_shown_until_ = -1.0;
  InputsPanel inputs_;
  GpuTable gpu_table_;
  FitMapView fit_map_;
};

}  // namespace vramfit
