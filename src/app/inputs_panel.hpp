// The inputs panel: the mode (Inference / Training / Layer list), the model, its weights and
// cache, the workload, the overhead, the training recipe or the network, and the GPU.
#pragma once
#include <optional>
#include <string>

#include "core/request.hpp"
#include "io/json.hpp"

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
  Outcome draw(Request& request);

 private:
  bool draw_mode(Request& request);
  bool draw_model_picker(Request& request);  // true when another preset was picked
  bool draw_inference(Request& request, Outcome& outcome);
  bool draw_training(Request& request);
  bool draw_network(Request& request);
  bool draw_gpu(Request& request);

  std::string model_filter_, format_filter_, gpu_filter_;  // the combos' search fields
  std::string config_text_, config_status_;
  std::string network_text_, network_status_;
};

}  // namespace vramfit
