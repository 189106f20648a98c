// The engines in the app (engine "llama.cpp", "vllm", "transformers"): each engine's settings
// under the engine's own names, the GPUs one by one and the host, a pasted command line; and
// the answer — one bar per device and the host, the fit, the speed bounds, and the lines the
// engine itself prints, to compare with a log.
//
// Linked only where the engines are (report/engines.hpp): the desktop app and the page's
// engines module (vramfit_app_engines). The page's first module leaves them out for its size
// budget; picking an engine there loads the engines module (Platform::use_engines).
#pragma once
#include <string>

#include "core/request.hpp"
#include "report/estimate.hpp"

namespace vramfit {

struct EngineUi {
  bool (*draw_inputs)(Request& request) = nullptr;  // true when the request changed
  void (*draw_results)(const Request& request, const Report& report) = nullptr;
  // The answer as text: Copy Markdown's, and the words read to screen readers.
  std::string (*markdown)(const Request& request, const Report& report) = nullptr;
  std::string (*spoken)(const Request& request, const Report& report) = nullptr;
};

// Empty until enable_engine_ui() has run.
const EngineUi& engine_ui();
// Links the engines' inputs and results, and the engines themselves (enable_engines()).
void enable_engine_ui();

}  // namespace vramfit
