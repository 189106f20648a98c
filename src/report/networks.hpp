// The layer-list networks' part of the estimate (core/network: a network given layer by layer
// and trained with PyTorch).
#pragma once
#include "report/estimate.hpp"

namespace vramfit {

// Fills the report of a request with a network (report.network, its breakdown and fit).
Result<Report> estimate_network_training(Report report, const Catalog& catalog);

}  // namespace vramfit
