// DeepSpeed ZeRO's memory (deepspeedai/DeepSpeed), two ways:
// - DeepSpeed's own estimators of the model states (parameters, gradients, optimizer states),
//   which its users run before a job: deepspeed/runtime/zero/stage_1_and_2.py
//   estimate_zero2_model_states_mem_needs and stage3.py estimate_zero3_model_states_mem_needs,
//   printed by their _all_live / _all_cold functions; reproduced here to the byte, with the
//   parameter counts model_to_params takes from the model.
// - Per rank, as ZeRO allocates under a ds_config (deepspeed_zero_memory): the 16-bit
//   parameters, the fp32 partition and optimizer states, the gradients and the buckets the
//   config sizes, on the GPU or offloaded to the host.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.hpp"
#include "training.hpp"

namespace vramfit {

// `pip show deepspeed`'s version. The estimators changed at 0.14.3 (below); the default is the
// newest release read (deepspeedai/DeepSpeed version.txt, 2026-08).
struct DeepSpeedVersion {
  int major = 0, minor = 19, patch = 6;
};
bool parse_deepspeed_version(const std::string& text, DeepSpeedVersion& out);  // "0.14.2", "0.19.6+cu121"
std::string deepspeed_version_text(const DeepSpeedVersion& version);

// model_to_params (stage3.py): every parameter once (a tied embedding and output head are one
// tensor), and the largest layer: the module with the most parameters of its own
// (m.parameters(recurse=False)), for these models an embedding, the output head or one
// projection (each expert its own module, as transformers 4.x builds them).
struct DeepSpeedModelParams {
  int64_t total = 0, largest_layer = 0;
};
// with_output_head: the model as AutoModelForCausalLM loads it (what is trained); false: as
// AutoModel does (the DeepSpeed documentation's examples), without an untied output head.
DeepSpeedModelParams deepspeed_model_params(const ModelSpec& model, bool with_output_head);

// One row of the estimators' tables: a combination of offloads, the memory per CPU (per node)
// and per GPU.
struct DeepSpeedEstimateRow {
  bool offload_param = false, offload_optimizer = false, zero_init = false;
  int64_t cpu_bytes = 0, gpu_bytes = 0;
};
struct DeepSpeedEstimate {
  int stage = 3;  // 2: estimate_zero2_model_states_mem_needs (stages 1 and 2); 3: estimate_zero3_...
  DeepSpeedModelParams params;
  int64_t gpus_per_node = 1, nodes = 1;
  double additional_buffer_factor = 1.5;
  std::vector<DeepSpeedEstimateRow> rows;  // in the order DeepSpeed prints them
};
// stage 0, 1 or 2 take the ZeRO-2 estimator (the one stage_1_and_2.py has), 3 the ZeRO-3 one.
DeepSpeedEstimate deepspeed_estimate(int stage, const DeepSpeedModelParams& params, int64_t gpus_per_node, int64_t nodes,
                                     const DeepSpeedVersion& version, double additional_buffer_factor = 1.5);
// The lines estimate_zero{2,3}_model_states_mem_needs_all_cold prints, as the DeepSpeed
// documentation shows them (Python 3.12 and later print "cpu " as "OffloadDeviceEnum.cpu").
std::vector<std::string> deepspeed_estimate_lines(const DeepSpeedEstimate& estimate);

// --- ZeRO per rank, as a ds_config sizes it -------------------------------------------------

// offload_optimizer.device / offload_param.device (deepspeed/runtime/zero/offload_config.py).
enum class DeepSpeedOffload : uint8_t { none, cpu, nvme };
const char* deepspeed_offload_name(DeepSpeedOffload device);

// The ds_config keys that move memory, with DeepSpeed's defaults (deepspeed/runtime/zero/config.py
// DeepSpeedZeroConfig); "auto" values are filled as the Hugging Face Trainer fills them
// (io/deepspeed_config).
struct DeepSpeedConfig {
  int stage = 0;                                   // zero_optimization.stage
  DeepSpeedOffload offload_optimizer = DeepSpeedOffload::none;
  DeepSpeedOffload offload_param = DeepSpeedOffload::none;  // stage 3 only
  int64_t reduce_bucket_size = 500000000;          // elements
  int64_t allgather_bucket_size = 500000000;       // elements (stages 1 and 2)
  int64_t stage3_prefetch_bucket_size = 50000000;  // elements
  int64_t stage3_max_live_parameters = 1000000000; // elements
  int64_t stage3_param_persistence_threshold = 100000;  // elements
  bool overlap_comm = false;                       // default: true at stage 3 only (overlap_comm_valid)
  bool contiguous_gradients = true;
  int64_t train_micro_batch_size_per_gpu = 0;      // 0: not given (the request's micro-batch)
  int64_t gradient_accumulation_steps = 1;
  bool bf16 = false, fp16 = false;                 // bf16.enabled, fp16.enabled
};

// What one data-parallel rank holds, by where. The model states follow ZeRO's allocations:
// stage_1_and_2.py DeepSpeedZeroOptimizer (bit16_groups, single_partition_of_fp32_groups, their
// fp32 gradient from initialize_optimizer_states, grads_in_partition, the ipg buckets of
// setup_buckets, temp_grad_buffer_for_gpu_offload) and stage3.py DeepSpeedZeroOptimizer_Stage3
// (fp16_partitioned_groups_flat, fp32_partitioned_groups_flat, grad_partitions_flat_buffer, the
// ipg bucket, and the parameters it gathers module by module up to stage3_max_live_parameters).
struct DeepSpeedRank {
  int64_t parameters = 0, largest_layer = 0, data_parallel = 1;
  int64_t param_bytes = 2;        // 2 with bf16 or fp16 enabled, 4 without
  // On the GPU:
  int64_t params16 = 0;           // the trained parameters (stage 3: this rank's partition)
  int64_t frozen16 = 0;           // LoRA: the frozen base model (stage 3: this rank's partition)
  int64_t gathered = 0;           // stage 3: parameters gathered for the modules being computed
  int64_t grads16 = 0;            // 16-bit gradients (stage 1: all; 2: this rank's partition; 3: the layer being computed)
  int64_t buckets = 0;            // reduce buckets (reduce_bucket_size, twice with overlap_comm at stage 2)
  int64_t offload_buffer = 0;     // stages 1 and 2 with the optimizer offloaded: one parameter's gradient staging
  int64_t master = 0, grads32 = 0, optimizer = 0;  // fp32 partition, its fp32 gradient, the optimizer's states
  int64_t activations = 0, logits = 0, recompute_working = 0, runtime = 0;
  int64_t subtotal = 0, margin = 0, total = 0;
  // Off the GPU (this rank's share; a node holds gpus_per_node of them):
  int64_t host_bytes = 0;         // offloaded to CPU memory
  int64_t nvme_bytes = 0;         // offloaded to NVMe
};

// One rank of `data_parallel` under `config`: `base` is training_memory() without sharding (its
// trainable parameters, optimizer state, activations and logits; with LoRA the adapters train and
// the base model is frozen, cast to the config's dtype with the rest by DeepSpeed's engine),
// `largest_layer` as deepspeed_model_params gives it.
DeepSpeedRank deepspeed_zero_rank(const TrainingMemory& base, const TrainingSettings& settings, const DeepSpeedConfig& config,
                                  int64_t largest_layer, int64_t data_parallel);

}  // namespace vramfit
