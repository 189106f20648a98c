// The inputs panel: the mode (Inference / Training / Layer list), the model, its weights and
// cache, the workload, the overhead, the training recipe or the network, and the GPU.
#pragma once
#include <optional>
#include <string>

#include "core/request.hpp"
#include "engine_view.hpp"
#include "hub_field.hpp"
#include "io/json.hpp"
#include "platform.hpp"

namespace vramfit {

// The seeds' MLP of article 003, offered by the Layer list's "Article 003 example".
extern const char* const kExampleNetwork;

class InputsPanel {
 public:
  InputsPanel();
  // After the request was replaced (a link, a remembered state): show its network as text.
  void show_request(const Request& request);

  struct Outcome {
    bool changed = false;             // the request was edited
    std::optional<json> pasted_file;  // "Use this config": the fragment read from the pasted text
  };
  // focus_first: put the keyboard focus, visibly, on the first input (the page's first frame).
  Outcome draw(Request& request, Platform& platform, bool focus_first = false);
  // The embed's one row: model, weights, context, GPU. True when the request changed.
  bool draw_compact(Request& request, Platform& platform);
  // The text the panel shows that came from outside (pasted config, network): its characters
  // may need glyphs the font does not have yet.
  std::string text_in_use() const { return config_text_ + network_text_; }
  HubField& hub() { return hub_; }

 private:
  bool draw_mode(Request& request, bool focus_first);
  bool draw_model_picker(Request& request);  // true when the user picked another preset
  bool draw_weights_picker(Request& request);
  bool draw_gpu_picker(Request& request);
  bool draw_inference(Request& request, Platform& platform, Outcome& outcome);
  bool draw_training(Request& request);
  bool draw_network(Request& request);
  bool draw_gpu(Request& request);

  std::string model_filter_, format_filter_, gpu_filter_;  // the combos' search fields
  std::string config_text_, config_status_;
  std::string network_text_, network_status_;
  bool custom_gpu_ = false;  // "Custom GPU" chosen, before a capacity is typed
  HubField hub_;
  EngineInputs engine_inputs_;
};

}  // namespace vramfit
