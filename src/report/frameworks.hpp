// The training frameworks' parts of the estimate (training.framework "megatron":
// core/megatron; DeepSpeed ZeRO under a ds_config: core/deepspeed): the framework's own figures per rank, the verdict on the largest rank, and
// its part of the report JSON.
#pragma once
#include "core/deepspeed.hpp"
#include "io/deepspeed_config.hpp"
#include "io/torchtune_command.hpp"
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

namespace vramfit {

// DeepSpeed ZeRO under a ds_config (core/deepspeed): one data-parallel rank (every rank holds
// the same), the host memory its offloads take per node, and DeepSpeed's own estimator table for
// the model, nodes and GPUs. The CLI's answer (vramfit train --deepspeed ds_config.json), as
// Megatron-LM's is.
struct DeepSpeedReport {
  Report report;                 // the model, the GPU, the rank's breakdown and the training fit
  DeepSpeedConfigRead config;
  DeepSpeedVersion version;
  int64_t nodes = 1, gpus_per_node = 1;
  DeepSpeedRank rank;
  int64_t host_bytes_per_node = 0, nvme_bytes_per_node = 0;
  DeepSpeedEstimate estimate;    // estimate_zero{2,3}_model_states_mem_needs for this model and layout
  size_t estimate_row = 0;       // the table's row of this config's offloads (zero_init=1 at stage 3)
};

// request.gpu_count data-parallel GPUs over `nodes` nodes; the request's micro-batch and
// precision fill the config's "auto" values as the Trainer's arguments do.
Result<DeepSpeedReport> estimate_deepspeed(const Request& request, const Catalog& catalog, const std::string& ds_config_text,
                                           int64_t nodes, const DeepSpeedVersion& version);
json deepspeed_report_to_json(const DeepSpeedReport& answer);
// DeepSpeed's see_memory_usage line for a rank after a step (runtime/utils.py: memory_allocated and
// max_memory_allocated in GiB, round(x, 2), labelled GB): "MA 30.93 GB         Max_MA 34.12 GB".
// Its CA and Max_CA (the allocator's reserve) are not modelled.
std::string deepspeed_printed_line(const DeepSpeedRank& rank);

}  // namespace vramfit

namespace vramfit {

// torchtune's single-device recipes (core/torchtune) from a pasted tune command
// (io/torchtune_command): the peak of a step as torchtune's log_peak_memory_stats reports it, the
// verdict on it with the runtime and the margin, and how far batch_size and tokenizer.max_seq_len
// could go. The CLI's answer (vramfit train --torchtune "tune run ..."), as DeepSpeed's is.
struct TorchtuneReport {
  Report report;               // the model, the GPU, the breakdown and the training fit
  TorchtuneCommand command;
  TorchtuneMemory memory;
};
Result<TorchtuneReport> estimate_torchtune(const Request& request, const Catalog& catalog, const std::string& tune_line);
json torchtune_report_to_json(const TorchtuneReport& answer);
// The figure torchtune's metric log gives for a step (training/memory.py get_memory_stats, in
// GiB): "peak_memory_alloc: 7.41".
std::string torchtune_printed_line(const TorchtuneMemory& memory);

}  // namespace vramfit

#include "io/llamafactory_config.hpp"

namespace vramfit {

// LLaMA-Factory's full and freeze fine-tuning (core/llamafactory) from its training config
// (io/llamafactory_config): the sum of what a step keeps alive, the verdict on it with the
// runtime and the margin, how far per_device_train_batch_size and cutoff_len could go, and the
// trainable-parameter line LLaMA-Factory logs. The CLI's answer (vramfit train --llamafactory
// config.yaml), as torchtune's is.
struct LlamaFactoryReport {
  Report report;
  LlamaFactoryConfig config;
  LlamaFactoryMemory memory;
};
Result<LlamaFactoryReport> estimate_llamafactory(const Request& request, const Catalog& catalog, const json& config);
json llamafactory_report_to_json(const LlamaFactoryReport& answer);

}  // namespace vramfit
