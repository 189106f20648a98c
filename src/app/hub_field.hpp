// A model by its Hugging Face id, in the Model section: the id or a Hub URL as people copy it
// ("Qwen/Qwen3-8B", "unsloth/Qwen3-8B-GGUF:Q4_K_M", "https://huggingface.co/org/name/tree/main"),
// the Hub's settings (the endpoint, a read token kept in memory unless the user asks this
// device to remember it), the reading's progress with Cancel, and after a GGUF repository
// its other GGUF files to choose from. The platform reads (Platform::read_hub_model); the
// answer comes back through App::hub_answer.
#pragma once
#include <string>
#include <vector>

#include "io/json.hpp"
#include "platform.hpp"

namespace vramfit {

class HubField {
 public:
  // Where the platform reads the Hub; loads the token this device remembers.
  void start(Platform& platform);
  // Draws the field (nothing where the platform cannot read the Hub); asks the platform to read
  // or to cancel.
  void draw(Platform& platform);
  void progress(const json& progress);  // {files_done, files_planned, bytes_fetched}
  // The reading's end: its GGUF files are kept to choose from; an error is shown under the field.
  void finished(const json& answer);
  // A link's model read on the Hub ("org/name@<commit>[:file]"): the field shows it.
  void show_source(const std::string& pinned_id);
  // Reads `id` at the next draw, as if typed and Read pressed (the desktop's --hf).
  void ask(const std::string& id) { asked_ = id; }
  bool busy() const { return reading_ || !asked_.empty(); }

 private:
  void read(Platform& platform, const std::string& id);

  bool available_ = false;
  std::string id_;                           // as typed
  std::string asked_;                        // to read at the next draw (ask)
  std::string endpoint_ = "https://huggingface.co";
  std::string token_;                        // in memory; on the device only when remember_
  bool remember_ = false;
  bool reading_ = false;
  std::string progress_text_, status_;      // status_: what went wrong
  std::vector<std::string> notes_;           // the reading's notes (the file chosen, a projector left out)
  struct Gguf {
    std::string file, quant;
    int64_t size = 0;
  };
  std::string repo_, revision_;              // of the last reading, for its GGUF files
  std::vector<Gguf> ggufs_;
  std::string chosen_;
};

}  // namespace vramfit
