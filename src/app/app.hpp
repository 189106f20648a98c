// The calculator's interface, shared by the web page and the desktop app: Dear ImGui widgets
// over one Request (the state), the report from src/api/estimate, and the fit map. Knows
// nothing of the platform beyond the small Platform interface below.
#pragma once
#include <string>

#include "io/json.hpp"

#include "api/estimate.hpp"
#include "core/fit_map.hpp"
#include "fit_map_renderer.hpp"

namespace vramfit {

// What the app needs from where it runs.
struct Platform {
  virtual ~Platform() = default;
  virtual void copy_text(const std::string& text) = 0;
  // web: a new history entry, or (replace) the current one rewritten in canonical form
  virtual void set_location_hash(const std::string& hash, bool replace) { (void)hash; (void)replace; }
  virtual std::string page_url() const { return ""; }                      // web: URL without hash
  virtual bool is_web() const { return false; }
  // an Open dialog for model files (desktop: the app's own; web: the browser's file picker)
  virtual bool can_open_files() const { return false; }
  virtual void open_files() {}
  // web: the result in words for screen readers (the page's aria-live region; a canvas says nothing)
  virtual void announce(const std::string& text) { (void)text; }
};

enum class Panel { breakdown, gpus, fit_map, layers };

// The UI font's line height (ascent + descent) in logical pixels, the same on the page and the
// desktop; each platform rasterises it at its device scale.
constexpr float kFontLineHeight = 16.0f;

class App {
 public:
  // hash: the URL hash (web) or the remembered request (desktop); embed: compact layout.
  void init(const std::string& hash, bool embed, FitMapRenderer* renderer);
  void frame(Platform& platform);                   // builds one frame of UI
  bool load_hash(const std::string& hash);           // false: malformed, notice shown, defaults kept
  void apply_file_fragment(const json& fragment);  // a read model file (drop / open)
  std::string hash() const { return hash_; }         // "r=..." for the current request
  bool dark() const { return dark_; }
  void set_dark(bool dark);
  void set_notice(const std::string& notice) { notice_ = notice; }
  Panel panel() const { return panel_; }
  void select_panel(Panel panel) { requested_panel_ = static_cast<int>(panel); }

 private:
  void recompute();
  void draw_top_bar(Platform& platform);
  void draw_inputs();
  bool draw_model_picker();                 // true when the user picked another preset
  void draw_inference_inputs();
  void draw_training_inputs();
  void draw_network_inputs();
  void draw_results(Platform& platform);
  void draw_stacked_bar();
  void draw_breakdown();
  void draw_gpus();
  void draw_fit_map();
  void draw_layers();
  std::string headline(const char* strong) const;  // "<model> on <GPU>: fits (19.50 GB of 25.76 GB)"
  std::string markdown() const;
  std::string spoken_summary() const;              // the headline and each item, for screen readers
  std::string embed_snippet(const Platform& platform) const;

  Request request_;
  Result<Report> report_ = Report{};
  std::string hash_;
  bool dirty_ = true, map_dirty_ = true, embed_ = false, dark_ = true;
  bool from_location_ = false;        // the request came from the URL: rewrite it, no new entry
  Panel panel_ = Panel::breakdown;
  int requested_panel_ = -1;          // select this tab on the next frame
  std::string notice_;                // shown once: malformed hash, file read errors
  std::string model_filter_, format_filter_, gpu_filter_;  // the combos' search fields
  std::string config_text_, config_status_;
  std::string network_text_, network_status_;
  FitMapRenderer* renderer_ = nullptr;
  FitMap map_;
  bool map_valid_ = false;
};

}  // namespace vramfit
