// LLaMA-Factory's full, freeze (partial-parameter) and LoRA/QLoRA fine-tuning on one GPU per process, as its
// code allocates (hiyouga/LLaMA-Factory, src/llamafactory):
// - model/adapter.py init_adapter: the trainable parameters upcast to fp32 (not with pure_bf16);
//   _setup_freeze_tuning: which parameters train — the last freeze_trainable_layers layers (the
//   first ones when negative; every stride-th with use_llama_pro), their freeze_trainable_modules
//   ("all" or names of a layer's submodules), the freeze_extra_modules outside the layers, each
//   matched as a substring of the parameter's name; the rest requires_grad_(False) in the
//   checkpoint's dtype; _setup_lora_tuning: LoRA on lora_target (all: find_all_linear_modules),
//   PEFT's modules_to_save from additional_target, the base in NF4 with quantization_bit 4;
// - model/model_utils/checkpointing.py get_custom_gradient_checkpointing_func: with gradient
//   checkpointing (unless disable_gradient_checkpointing) only layers holding a trainable
//   parameter are checkpointed (their input kept, made to require grad); a layer without one runs
//   plainly, so below the lowest trainable layer nothing is saved for backward and above it a
//   frozen layer keeps all of its activations;
// - the Trainer (transformers): bf16/fp16 autocast, AdamW (optim: adamw_torch_fused, the default
//   with torch >= 2.8, or adamw_torch) over the trainable parameters.
// The model is loaded in the dtype bf16 or fp16 names (LLaMA-Factory's compute_dtype).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.hpp"
#include "result.hpp"
#include "training.hpp"

namespace vramfit {

enum class LlamaFactoryFinetuning : uint8_t { full, freeze, lora };

// The config's keys, by their names (hparams/finetuning_args.py, model_args.py, data_args.py and
// transformers' TrainingArguments).
struct LlamaFactorySettings {
  LlamaFactoryFinetuning finetuning_type = LlamaFactoryFinetuning::freeze;  // finetuning_type
  int64_t freeze_trainable_layers = 2;                   // last n layers (n > 0) or first -n (n < 0)
  std::vector<std::string> freeze_trainable_modules = {"all"};
  std::vector<std::string> freeze_extra_modules;         // e.g. embed_tokens, lm_head, norm
  bool use_llama_pro = false;                            // every (layers / n)-th layer instead
  // LoRA (model/adapter.py _setup_lora_tuning: PEFT's LoraConfig).
  int64_t lora_rank = 8;                                 // lora_rank
  std::vector<std::string> lora_target = {"all"};        // "all": find_all_linear_modules (every Linear but lm_head)
  std::vector<std::string> additional_target;            // PEFT's modules_to_save: a trainable copy of each
  int quantization_bit = 0;                              // 4: bitsandbytes NF4 for every Linear but lm_head (QLoRA)
  bool double_quantization = true;                       // bnb_4bit_use_double_quant
  bool bf16 = true;                                      // bf16: true (else fp16: true)
  bool pure_bf16 = false;                                // pure_bf16: no fp32 upcast, no autocast
  bool gradient_checkpointing = true;                    // not disable_gradient_checkpointing
  bool memory_efficient_attention = true;                // flash_attn: auto, sdpa, fa2 (disabled: eager, scores kept)
  bool fused_adamw = true;                               // optim: adamw_torch_fused (else adamw_torch)
  int64_t per_device_train_batch_size = 8;               // TrainingArguments' default
  int64_t cutoff_len = 2048;                             // the longest a padded batch can be
};

struct LlamaFactoryMemory {
  int64_t parameters = 0, trainable_parameters = 0;
  int64_t adapter_parameters = 0;               // LoRA's A and B
  int64_t saved_module_parameters = 0;          // additional_target's trainable copies (the originals stay, frozen)
  int64_t nf4_elements = 0;                     // quantization_bit 4: the base elements stored in NF4
  std::vector<std::string> lora_modules;        // the target names LoRA was applied to ("Found linear modules: ...")
  std::vector<int64_t> trainable_layer_ids;     // the layers _setup_freeze_tuning picks
  std::vector<std::string> trainable_patterns;  // its "Set trainable layers: ..." list
  int64_t lowest_trainable_layer = 0;           // layers below it keep nothing for backward (layers: none in the stack)
  int64_t checkpointed_layers = 0;              // layers holding a trainable parameter, with gradient checkpointing
  int64_t frozen_weights = 0;                   // frozen parameters in the compute dtype
  int64_t trainable_weights = 0;                // fp32 (pure_bf16: bf16)
  int64_t gradients = 0;
  int64_t optimizer = 0;                        // AdamW's exp_avg and exp_avg_sq (+ fused: its step tensors)
  int64_t foreach_transient = 0;                // adamw_torch (foreach): one state-sized temporary in step()
  int64_t autocast_copies = 0;                  // 16-bit copies of fp32 trainable matmul weights, alive until backward
  int64_t activations = 0;                      // saved for backward, every layer
  int64_t recompute_working = 0;                // one checkpointed layer rebuilt during its backward
  int64_t logits = 0;                           // the head's input, the logits and the loss's fp32 copies
  int64_t peak = 0;                             // the sum of the above (vramfit's Trainer rule: all alive at once)
  // What the workload terms need from the choice of parameters.
  std::vector<bool> layer_holds_trainable;      // per layer
  bool embeddings_trainable = false;            // their output requires grad: every layer from 0 keeps its share
  uint32_t lora_activation_targets = 0;         // core/training's LoRA target bits for the x A terms
};

// LLaMA-Factory's own errors where it raises one (a module name it would not find), else one
// naming the key.
Result<LlamaFactoryMemory> llamafactory_memory(const FormatTables& tables, const ModelSpec& model, const LlamaFactorySettings& settings);

// The same memory for another per_device_train_batch_size or cutoff_len (only the activations,
// the logits and the peak change): what the fit searches evaluate.
Result<LlamaFactoryMemory> llamafactory_workload(const FormatTables& tables, const ModelSpec& model, const LlamaFactorySettings& settings,
                                                 const LlamaFactoryMemory& base);

// The Trainer's precision as vramfit's recipe: autocast over fp32 trainable weights (bf16: true or
// fp16: true), or pure_bf16 without it.
PrecisionRecipe llamafactory_recipe(const LlamaFactorySettings& settings);

const char* llamafactory_finetuning_name(LlamaFactoryFinetuning type);  // "full", "freeze", "lora"

// Its log line (model/loader.py): "trainable params: 436,219,904 || all params: 6,738,415,616 || trainable%: 6.4737".
std::string llamafactory_param_stats(const LlamaFactoryMemory& memory);

}  // namespace vramfit
