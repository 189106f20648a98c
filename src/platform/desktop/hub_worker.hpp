// Models by Hugging Face id on the desktop: the reading of net/hub_client.hpp (libcurl, the
// settings of huggingface_hub's environment variables, the on-disk cache of what was fetched)
// on a worker thread, one reading at a time, so the window keeps drawing while it runs. Its
// progress and its answer wait here until the UI thread hands them to the app (deliver).
#pragma once
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "app/app.hpp"
#include "io/json.hpp"

namespace vramfit {

class HubWorker {
 public:
  // wake: called on the worker when there is something to deliver (glfwPostEmptyEvent).
  explicit HubWorker(std::function<void()> wake) : wake_(std::move(wake)) {}
  ~HubWorker() { stop(); }
  HubWorker(const HubWorker&) = delete;
  HubWorker& operator=(const HubWorker&) = delete;

  // Starts reading `id` (any form io/hub_ref.hpp reads) from `endpoint` with `token` ("": none);
  // a reading under way is cancelled first.
  void start(const std::string& id, const std::string& endpoint, const std::string& token);
  // The request under way stops (libcurl's transfer callback); the answer is hub.cancelled.
  void cancel() { cancel_ = true; }
  // On the UI thread: the progress and the answer of the current reading, to the app.
  void deliver(App& app);

 private:
  void stop();
  void post(unsigned generation, json progress, std::optional<json> answer);

  std::function<void()> wake_;
  std::thread thread_;
  std::atomic<bool> cancel_{false};
  std::mutex mutex_;
  unsigned generation_ = 0;  // of the current reading; what an older one posts is dropped
  std::vector<json> progress_;
  std::optional<json> answer_;
};

// The read token this device keeps: vramfit's own copy (vramfit.hub_token beside the desktop's
// state, readable by its owner only), else the one huggingface_hub's settings give (HF_TOKEN,
// the token file `hf auth login` writes); "" when none.
std::string desktop_hub_token();
// Keeps `token` in vramfit's own copy; "" removes the copy (huggingface_hub's file is left alone).
void keep_desktop_hub_token(const std::string& token);
// HF_ENDPOINT when it is set and well formed, else "" (the field keeps its default).
std::string desktop_hub_endpoint();

}  // namespace vramfit
