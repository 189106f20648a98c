// torchtune's single-device recipes (pytorch/torchtune recipes/full_finetune_single_device.py and
// lora_finetune_single_device.py), as they allocate on the GPU: the model in the config's dtype
// (bf16: every parameter, embeddings and output included; QLoRA: the linear layers in torchao's
// NF4, the embeddings, norms and output in bf16), LoRA adapters in that dtype, the optimizer's
// states as its class keeps them, gradients (freed one parameter at a time with
// optimizer_in_bwd), the activations autograd saves (layer inputs only with
// enable_activation_checkpointing) and the loss's logits. The peak is the larger of the phases
// of a step (the loss, then the layers' backward), as torch.cuda.max_memory_allocated sees it:
// what torchtune logs with log_peak_memory_stats. The distributed recipes shard all of it with
// FSDP2 and gather a layer (and the one prefetched) at a time.
#pragma once
#include <cstdint>
#include <string>

#include "formats.hpp"
#include "model_spec.hpp"
#include "result.hpp"
#include "training.hpp"

namespace vramfit {

// optimizer._component_
enum class TorchtuneOptimizer : uint8_t {
  adamw,             // torch.optim.AdamW (states in the parameters' dtype)
  paged_adamw_8bit,  // bitsandbytes.optim.PagedAdamW8bit (states in CUDA managed memory, outside PyTorch's allocator)
  paged_adamw,       // bitsandbytes.optim.PagedAdamW (32-bit states, paged)
  adamw_8bit,        // bitsandbytes.optim.AdamW8bit (8-bit states on the GPU)
  torchao_adamw_8bit // torchao.optim.AdamW8bit (8-bit states, one fp32 scale per 256)
};
// loss._component_
enum class TorchtuneLoss : uint8_t {
  chunked_ce,   // torchtune.modules.loss.CEWithChunkedOutputLoss: bf16 logits, upcast one chunk at a time
  linear_ce,    // torchtune.modules.loss.LinearCrossEntropyLoss: the output projection and CE chunk by chunk
  ce            // torch.nn.CrossEntropyLoss over the whole output (the recipe upcasts it to fp32)
};

// The config's keys, by their names.
struct TorchtuneSettings {
  FineTuning method = FineTuning::full;   // model._component_: llama3_1_8b, lora_llama3_1_8b, qlora_llama3_1_8b
  bool lora_q = true, lora_k = false, lora_v = true, lora_output_proj = false;  // model.lora_attn_modules
  bool apply_lora_to_mlp = false;         // model.apply_lora_to_mlp
  bool apply_lora_to_output = false;      // model.apply_lora_to_output
  int64_t lora_rank = 8;                  // model.lora_rank
  bool bf16 = true;                       // dtype: bf16 or fp32
  TorchtuneOptimizer optimizer = TorchtuneOptimizer::adamw;
  bool optimizer_in_bwd = false;          // optimizer_in_bwd
  bool enable_activation_checkpointing = false;
  bool enable_activation_offloading = false;
  bool compile = false;                   // compile (vramfit models its effect on the loss only)
  TorchtuneLoss loss = TorchtuneLoss::chunked_ce;
  int64_t num_output_chunks = 8;          // loss.num_output_chunks
  int64_t batch_size = 2;                 // batch_size (per GPU)
  int64_t max_seq_len = 2048;             // tokenizer.max_seq_len (the packed length)
  // The distributed recipes (full_finetune_distributed, lora_finetune_distributed): FSDP2's
  // fully_shard on each decoder layer, on custom_sharded_layers, and on the whole model
  // (training/_distributed.py shard_model), over tune run's --nproc_per_node x --nnodes GPUs.
  bool distributed = false;
  int64_t world_size = 1;
  // HSDP (training/_distributed.py ParallelDims; the recipes' _setup_model): the parameters shard
  // over data_parallel_shard_dim GPUs (-1: world_size / data_parallel_replicate_dim) and replicate
  // over data_parallel_replicate_dim groups of them; fully_shard gets the 2-D mesh
  // ("dp_replicate", "dp_shard_cp").
  int64_t data_parallel_replicate_dim = 1;
  int64_t data_parallel_shard_dim = -1;
  int64_t shard_ranks() const { return data_parallel_shard_dim > 0 ? data_parallel_shard_dim : world_size / data_parallel_replicate_dim; }
  bool fsdp_cpu_offload = false;          // fsdp_cpu_offload (fsdp.cpu_offload): CPUOffloadPolicy
  bool shard_tok_embeddings = false, shard_output = false;  // custom_sharded_layers: ['tok_embeddings', 'output']
};

struct TorchtuneMemory {
  int64_t parameters = 0, trainable_parameters = 0, largest_parameter = 0;
  int64_t weights = 0;          // the model in its dtype (QLoRA: NF4 linears + bf16 rest)
  int64_t nf4_elements = 0;     // QLoRA: the elements stored in NF4
  int64_t adapters = 0;         // LoRA / QLoRA: the adapters' parameters in the dtype
  int64_t optimizer = 0;        // optimizer states in PyTorch's allocator
  int64_t optimizer_paged = 0;  // bitsandbytes' paged states: CUDA managed memory, not in the peak below
  int64_t activations = 0;      // saved for backward during the forward pass
  int64_t recompute_working = 0;// checkpointing: one layer's activations rebuilt during its backward
  int64_t offload_kept = 0;     // activation offloading: what stays on the GPU of the saved activations
  int64_t loss_forward = 0;     // logits and the loss's saved tensors at the end of the forward pass
  int64_t loss_backward = 0;    // the logits' gradient and the output layer's gradient
  int64_t layers_backward = 0;  // gradients and the recomputed layer during the layers' backward
  int64_t gathered = 0;         // distributed: the unsharded units alive at once (the root, two layers)
  int64_t host_bytes = 0;       // distributed with fsdp_cpu_offload: parameters, gradients and states on the CPU (per GPU)
  int64_t peak = 0;             // what torch.cuda.max_memory_allocated reports for a step
};

Result<TorchtuneMemory> torchtune_memory(const FormatTables& tables, const ModelSpec& model, const TorchtuneSettings& settings);

}  // namespace vramfit
