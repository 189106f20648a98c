// Training memory of a transformer (pre-training or fine-tuning), per GPU:
//   weights (+ fp32 master copy) + gradients + optimizer state + activations + logits
//   + runtime + safety margin,
// for a precision recipe, an optimizer, ZeRO/FSDP sharding, and full, LoRA or QLoRA
// fine-tuning. Every number comes with its formula (explain_training).
#pragma once
#include <cstdint>
#include <string>

#include "breakdown.hpp"
#include "formats.hpp"
#include "model_spec.hpp"
#include "optimizer.hpp"
#include "units.hpp"

namespace vramfit {

// Bytes per trainable parameter (weights / gradients / fp32 master / optimizer states) and
// per activation element:
//   fp32        4 / 4 / - / 4, activations 4
//   amp_bf16    torch.autocast: 4 / 4 / - / 4, activations 2, + bf16 copies of the matmul weights
//   amp_fp16    the same with fp16
//   mixed_bf16  Megatron-LM bf16: 2 / 4 (fp32 gradient accumulation) / 4 / 4, activations 2
//   mixed_fp16  ZeRO paper (Rajbhandari et al. 2020): 2 / 2 / 4 / 4 = 16 B, activations 2
//   bf16        pure bf16: 2 / 2 / - / 2, activations 2
enum class PrecisionRecipe { fp32, amp_bf16, amp_fp16, mixed_bf16, mixed_fp16, bf16 };
const char* recipe_id(PrecisionRecipe recipe);
bool parse_recipe(const std::string& id, PrecisionRecipe& recipe);

struct RecipeBytes { int64_t weight, gradient, master, state, activation; };
RecipeBytes recipe_bytes(PrecisionRecipe recipe) noexcept;

enum class Sharding { none, zero1, zero2, zero3, fsdp };
const char* sharding_id(Sharding sharding);
bool parse_sharding(const std::string& id, Sharding& sharding);

enum class FineTuning { full, lora, qlora };
const char* fine_tuning_id(FineTuning method);
bool parse_fine_tuning(const std::string& id, FineTuning& method);

enum class Recompute { none, selective, full };
const char* recompute_id(Recompute recompute);
bool parse_recompute(const std::string& id, Recompute& recompute);

// LoRA target modules, as PEFT's target_modules names them.
enum LoraTarget : uint32_t {
  lora_q = 1, lora_k = 2, lora_v = 4, lora_o = 8, lora_gate = 16, lora_up = 32, lora_down = 64,
  lora_all = 127,
};
std::string lora_targets_text(uint32_t targets);        // "q,k,v,o,gate,up,down"
bool parse_lora_target(const std::string& name, uint32_t& bit);

struct TrainingSettings {
  PrecisionRecipe recipe = PrecisionRecipe::mixed_bf16;
  Optimizer optimizer = Optimizer::adamw;
  bool foreach_transient = false;   // torch.optim foreach Adam: one state-sized temporary in step()
  bool fused_optimizer = false;     // torch.optim fused=True or capturable=True: Adam's step tensors on the GPU
  Sharding sharding = Sharding::none;
  int64_t gpu_count = 1;            // data-parallel GPUs (the ZeRO/FSDP shard count)
  FineTuning method = FineTuning::full;
  int64_t lora_rank = 16;
  uint32_t lora_targets = lora_all;
  bool qlora_double_quant = true;
  int64_t micro_batch = 1;          // sequences per GPU per forward pass
  int64_t sequence_length = 2048;
  bool flash_attention = true;
  Recompute recompute = Recompute::none;
  bool dropout = false;             // attention/residual dropout (GPT-style; Llama-style models: none)
  int64_t runtime_bytes = 512 * kMiB;  // CUDA context, cuBLAS/NCCL workspaces, allocator slack
  double margin_fraction = 0.10;
};

constexpr int64_t kMaxMicroBatch = 4096;
constexpr int64_t kMaxTrainingSequence = int64_t(1) << 20;

// Per-layer activation bytes of one transformer layer, term by term (bytes, per GPU).
struct LayerActivations {
  int64_t attention_norm_input = 0, qkv_input = 0, query_key = 0, value = 0;
  int64_t softmax = 0, attention_dropout = 0, flash_lse = 0, output_projection_input = 0;
  int64_t residual_dropout = 0, mlp_norm_input = 0, mlp = 0, router = 0, lora = 0;
  int64_t total() const noexcept;
};

struct TrainingMemory {             // per GPU
  int64_t parameters = 0;           // whole model
  int64_t trainable_parameters = 0; // full: all; LoRA/QLoRA: the adapters
  int64_t trainable_tensors = 0;
  int64_t frozen_weights = 0;       // LoRA/QLoRA base (bf16, or NF4 + fp32 upcasts)
  int64_t weights = 0;              // trainable weights in the recipe's dtype
  int64_t master = 0;
  int64_t gradients = 0;
  OptimizerState optimizer_full;    // before sharding
  int64_t optimizer = 0;
  int64_t foreach_transient = 0;
  int64_t autocast_copies = 0;      // amp recipes: 16-bit copies of the matmul weights
  int64_t gathered = 0;             // ZeRO-3/FSDP: all-gathered weights of two layers
  LayerActivations layer;           // one layer (the largest, for MoE models the MoE layer)
  int64_t activations = 0;          // all layers
  int64_t recompute_working = 0;    // full recomputation: one layer's activations during backward
  int64_t logits = 0;
  int64_t runtime = 0;
  int64_t subtotal = 0, margin = 0, total = 0;
  int64_t lora_modules_dense = 0, lora_modules_moe = 0;  // LoRA targets per layer kind
};

// Fails (naming the field) for a spec without the shape training needs.
Result<TrainingMemory> training_memory(const FormatTables& tables, const ModelSpec& model,
                                       const TrainingSettings& settings);

// The same memory for another micro-batch / sequence length: only activations, logits and
// the margin change, so this is arithmetic (the fit map and the fit search use it).
TrainingMemory retotal_training(const ModelSpec& model, const TrainingSettings& settings, const TrainingMemory& base);
// Only its total (no copies): what the fit map and the fit searches evaluate per point.
int64_t retotal_training_bytes(const ModelSpec& model, const TrainingSettings& settings, const TrainingMemory& base) noexcept;
// Its two parts: what does not depend on micro-batch and sequence length (weights,
// gradients, optimizer, ...), and what does (activations, recomputation, logits). The second
// is linear in the micro-batch: every term has it as a factor.
int64_t training_fixed_bytes(const TrainingMemory& base) noexcept;
int64_t training_workload_bytes(const ModelSpec& model, const TrainingSettings& settings, const TrainingMemory& base) noexcept;
// subtotal -> total with the safety margin, as training_memory() adds it.
int64_t with_training_margin(int64_t subtotal, double margin_fraction) noexcept;

Breakdown explain_training(const ModelSpec& model, const TrainingSettings& settings, const TrainingMemory& memory);
// The rows every training answer ends with: the runtime (CUDA context and workspaces) and the
// safety margin on `subtotal`, with their formulas and notes (Trainer's and the frameworks').
void add_runtime_and_margin(Breakdown& breakdown, int64_t runtime_bytes, double margin_fraction, int64_t subtotal,
                            int64_t margin);

}  // namespace vramfit
