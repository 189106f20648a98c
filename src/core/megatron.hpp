// Megatron-LM's training memory per rank, as its own estimator computes it
// (megatron/training/theoretical_memory_usage.py: compute_weight_and_optimizer_memory,
// compute_activation_memory, compute_activation_memory_without_sp, report_theoretical_memory),
// for every distinct pipeline rank, not only the first stage the estimator prints: the
// in-flight micro-batches of each stage follow the 1F1B schedules'
// warm-up counts (megatron/core/pipeline_parallel/schedules.py).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.hpp"
#include "result.hpp"
#include "training.hpp"

namespace vramfit {

// The frameworks a training request can name (training.framework).
enum class TrainingFramework { hf_trainer, megatron };

// Megatron's launch flags, by their argument names (megatron/training/arguments.py).
struct MegatronSettings {
  int64_t world_size = 8;                            // GPUs in the job (torchrun's nproc_per_node x nnodes; the request's gpu_count)
  int64_t tensor_model_parallel_size = 1;            // --tensor-model-parallel-size
  int64_t pipeline_model_parallel_size = 1;          // --pipeline-model-parallel-size
  int64_t virtual_pipeline_model_parallel_size = 1;  // --num-virtual-stages-per-pipeline-rank (1: not interleaved)
  int64_t num_layers_per_virtual_pipeline_stage = 0; // --num-layers-per-virtual-pipeline-stage (0: not given; else it decides)
  int64_t context_parallel_size = 1;                 // --context-parallel-size
  int64_t expert_model_parallel_size = 1;            // --expert-model-parallel-size
  int64_t expert_tensor_parallel_size = 0;           // --expert-tensor-parallel-size (0: as the tensor-parallel size)
  bool sequence_parallel = false;                    // --sequence-parallel
  bool use_distributed_optimizer = false;            // --use-distributed-optimizer
  Recompute recompute_granularity = Recompute::none; // --recompute-granularity (none: the flag left out)
  int64_t micro_batch_size = 1;                      // --micro-batch-size
  int64_t global_batch_size = 0;                     // --global-batch-size (0: one micro-batch per data-parallel rank)
  int64_t seq_length = 4096;                         // --seq-length
  int64_t make_vocab_size_divisible_by = 128;        // --make-vocab-size-divisible-by
};

// One kind of rank: the first pipeline stage, a middle one, the last, or (without pipeline
// parallelism) every rank.
struct MegatronRank {
  std::string stage;              // "first", "middle", "last", "all"
  int64_t pipeline_rank = 0;      // the stage's index (the largest middle stage: 1)
  int64_t layers = 0;             // transformer layers it holds
  int64_t layers_per_chunk = 0;   // interleaved: the layers of one model chunk (else all of them)
  int64_t in_flight = 0;          // micro-batches (interleaved: model-chunk micro-batches) it keeps activations for
  double parameters = 0;          // on this rank (Megatron's float arithmetic)
  double weight_and_optimizer = 0;  // bytes
  double activations = 0;           // bytes
  double total() const { return weight_and_optimizer + activations; }
};

struct MegatronMemory {
  int64_t data_parallel_size = 1, expert_data_parallel_size = 1, num_microbatches = 1;
  int64_t padded_vocab_size = 0;
  bool sequence_parallel_formula = false;  // compute_activation_memory (SP and selective recompute) vs _without_sp
  std::vector<MegatronRank> ranks;         // first, the largest middle stage, last; or one "all"
};

// Fails, naming the field, when the sizes do not divide as Megatron requires or the model is
// one the estimator does not count (recurrent or hybrid layers, encoders, cross-attention).
Result<MegatronMemory> megatron_memory(const ModelSpec& model, const MegatronSettings& settings);

}  // namespace vramfit
