// The engines in the app (engine "llama.cpp", "vllm", "transformers"): each engine's settings
// under the engine's own names, the GPUs one by one and the host, a pasted command line; and
// the answer — one bar per device and the host, the fit, the speed bounds, and the lines the
// engine itself prints, to compare with a log.
#pragma once
#include <string>

#include "core/request.hpp"
#include "report/estimate.hpp"

namespace vramfit {

bool draw_engine_inputs(Request& request);  // true when the request changed
void draw_engine_results(const Request& request, const Report& report);
// The answer as text: Copy Markdown's, and the words read to screen readers.
std::string engine_markdown(const Request& request, const Report& report);
std::string engine_spoken(const Request& request, const Report& report);

}  // namespace vramfit
