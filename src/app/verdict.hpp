// The verdict: the model and GPU, FITS / DOES NOT FIT with the total against the capacity,
// the headroom, the stacked bar of the items with the capacity line and its legend, and the
// limits (longest context, most sequences, fewest GPUs; training: largest batch...).
#pragma once
#include "report/estimate.hpp"

namespace vramfit {

void draw_verdict(const Request& request, const Report& report);
// The report's warnings (a file cut short, a config read with assumptions that matter), under
// the verdict they qualify: vramfit's own and an engine's.
void draw_warnings(const Report& report);

}  // namespace vramfit
