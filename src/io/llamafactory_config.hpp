// A LLaMA-Factory training config (the YAML `llamafactory-cli train` takes, as a JSON object of
// its keys): the keys that move memory are read by their names (finetuning_type,
// freeze_trainable_layers, freeze_trainable_modules, freeze_extra_modules, use_llama_pro, lora_rank,
// lora_target, additional_target, quantization_bit, double_quantization, use_dora, lora_dropout,
// freeze_vision_tower, freeze_multi_modal_projector, freeze_language_model, bf16, fp16,
// pure_bf16, disable_gradient_checkpointing, flash_attn, optim, per_device_train_batch_size,
// cutoff_len, stage, quantization_bit, deepspeed, upcast_layernorm); the others (the model's
// path, the dataset, the template, learning rates, logging, saving) are listed as skipped. An
// error names the key.
#pragma once
#include <string>
#include <vector>

#include "core/llamafactory.hpp"
#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

struct LlamaFactoryConfig {
  LlamaFactorySettings settings;
  std::string model_name_or_path;    // as given (the request names the model vramfit uses)
  double lora_dropout = 0.0;         // lora_dropout (its masks and dropped copies are not counted)
  std::vector<std::string> given;    // the keys read
  std::vector<std::string> skipped;  // keys that move no memory vramfit models
};

Result<LlamaFactoryConfig> read_llamafactory_config(const json& config);

}  // namespace vramfit
