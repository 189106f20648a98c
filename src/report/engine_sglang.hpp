// engine "sglang" (core/sglang): the model and weights resolved as for any engine, each
// tensor-parallel rank's shard, SGLang's KV pool and request table on each GPU, the lines it
// prints, and the assumptions. The CLI's answer for now (vramfit infer --engine sglang), as the
// training frameworks' are: the page's module has no room for it yet.
#pragma once
#include <string>
#include <vector>

#include "core/sglang.hpp"
#include "io/sglang_command.hpp"
#include "report/estimate.hpp"

namespace vramfit {

// Measured, not derived: the memory taken before "Load weight begin" beyond the device's total
// as the driver reports it (the CUDA context, the driver's own reserve, torch's init), and with
// several ranks what "Init torch distributed ends. mem usage=" adds (NCCL, the custom
// all-reduce). The medians of the logs in validation/engines/sglang.json; reported as
// assumptions.
constexpr int64_t kSglangOverheadBeforeLoading = 840 * 1048576LL;   // 0.82 GiB: one GPU (0.75 to 1.19 in the logs)
constexpr int64_t kSglangOverheadDistributed = 2176 * 1048576LL;    // 2.13 GiB more with tensor parallelism (1.96 and 2.29)

struct SglangReport {
  Report report;                 // the model, its weights and the GPU, as the generic estimate resolves them
  SglangCommand command;
  std::vector<Gpu> devices;      // every GPU in rank order: tp_size per replica
  int64_t weights_per_rank = 0;  // each rank's shard
  SglangMemory memory;
  std::vector<std::string> assumptions;
};

Result<SglangReport> estimate_sglang(const Request& request, const Catalog& catalog, const SglangCommand& command);
// A request JSON for engine "sglang": its "sglang" object (the launch flags by their names, and
// "version") and "gpus" read here, the rest as any request's. An error names the field.
Result<SglangReport> estimate_sglang_request(const json& request, const Catalog& catalog);
json sglang_report_to_json(const SglangReport& answer);

}  // namespace vramfit
