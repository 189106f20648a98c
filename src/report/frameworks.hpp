// The training frameworks' parts of the estimate (training.framework "megatron":
// core/megatron): the framework's own figures per rank, the verdict on the largest rank, and
// its part of the report JSON.
#pragma once
#include "report/estimate.hpp"

namespace vramfit {

// training.framework "megatron": the model and GPU resolved, then each rank type
// (report.megatron), the breakdown (the largest rank's terms) and the training fit. The CLI's
// answer for now: estimate() refuses the framework, since the page's module (which shares it)
// has no room for it yet.
Result<Report> estimate_megatron(const Request& request, const Catalog& catalog);
// The report JSON: report_to_json's, with "megatron" (each rank) in place of "training".
json megatron_report_to_json(const Report& report);
// Megatron's own line for a rank (report_theoretical_memory prints it for the first stage):
// "Theoretical memory footprints: weight and optimizer=19279.52 MB, activation=..., total=... MB".
std::string megatron_printed_line(const MegatronRank& rank);
std::string megatron_rank_label(const MegatronRank& rank);  // "pipeline rank 0 (first stage)", "every rank"

}  // namespace vramfit
