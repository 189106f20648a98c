// The layer-list networks' part of the estimate (core/network: a network given layer by layer
// and trained with PyTorch), linked into a program only when it enables it: enable_networks(),
// which enable_engines() calls (the CLI, the JavaScript API, the desktop app and the page's
// full module). The page's first module leaves it out for its size.
#pragma once
#include "report/estimate.hpp"

namespace vramfit {

// Fills the report of a request with a network (report.network, its breakdown and fit); null
// until enable_networks() has run.
using NetworkEstimator = Result<Report> (*)(Report report, const Catalog& catalog);
NetworkEstimator network_estimator();
void enable_networks();

}  // namespace vramfit
