// The engines in the app (engine "llama.cpp", "vllm", "transformers"): each engine's settings
// under the engine's own names, the GPUs one by one and the host, a pasted command line; and
// the answer — one bar per device and the host, the fit, the speed bounds, and the lines the
// engine itself prints, to compare with a log.
#pragma once
#include <string>

#include "core/request.hpp"
#include "report/estimate.hpp"

namespace vramfit {

// The engine's inputs; they hold what is being typed and searched between frames.
class EngineInputs {
 public:
  bool draw(Request& request);  // true when the request changed

 private:
  bool draw_llamacpp(Request& request);
  bool draw_vllm(Request& request);
  bool draw_transformers(Request& request);
  bool draw_draft(Request& request);
  bool draw_gpu_list(Request& request);
  bool draw_command_box(Request& request);
  template <class Settings>
  bool version_field(const char* label, Settings& settings, bool (*parse)(const std::string&, Settings&),
                     std::string (*text)(const Settings&));

  std::string command_text_, command_status_;  // a pasted command line, and what reading it said
  std::string gpu_filter_, draft_filter_;      // the lists' search boxes
  std::string version_text_;                   // a release being typed, in the field version_id_ (0: none)
  unsigned version_id_ = 0;
};
void draw_engine_results(const Request& request, const Report& report);
// The same in two parts, for a results area wide enough to show them side by side: the verdict,
// headroom and per-device bars; then what fits, the engine's printed lines and what was assumed.
void draw_engine_verdict(const Request& request, const Report& report);
void draw_engine_details(const Request& request, const Report& report);
// The answer as text: Copy Markdown's, and the words read to screen readers.
std::string engine_markdown(const Request& request, const Report& report);
std::string engine_spoken(const Request& request, const Report& report);

}  // namespace vramfit
