// The result as text: the one-line verdict, Copy Markdown's table, the words read to screen
// readers, and the embed snippet. Plain functions of the report: no ImGui.
#pragma once
#include <string>

#include "core/result.hpp"
#include "report/estimate.hpp"

namespace vramfit {

// "<model> on <GPU>: fits (19.50 GB of 25.76 GB)"; `strong` marks the model and the verdict
// ("**" in Markdown, "" in plain text).
std::string headline(const Request& request, const Result<Report>& report, const char* strong);
std::string markdown(const Request& request, const Result<Report>& report);
// The headline and each item, for screen readers.
std::string spoken_summary(const Request& request, const Result<Report>& report);
// The <iframe> snippet for `embed_url`.
std::string embed_snippet(const std::string& embed_url);

}  // namespace vramfit
