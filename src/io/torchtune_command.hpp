// A torchtune launch as people paste it: "tune run full_finetune_single_device --config
// llama3_1/8B_full_single_device batch_size=2 enable_activation_checkpointing=True ...". The
// recipe and every key=value override that moves memory are read by their config names
// (model._component_, model.lora_attn_modules, model.apply_lora_to_mlp, model.apply_lora_to_output,
// model.lora_rank, dtype, optimizer._component_, optimizer_in_bwd, enable_activation_checkpointing,
// enable_activation_offloading, compile, loss._component_, loss.num_output_chunks, batch_size,
// tokenizer.max_seq_len); other keys (paths, learning rates, logging) are listed as skipped. Keys
// the line leaves out take the recipe's own defaults (cfg.get(key, default) in the recipe), not the
// values of the --config file, which vramfit does not have: the line says so in `notes`.
#pragma once
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/torchtune.hpp"

namespace vramfit {

struct TorchtuneCommand {
  std::string recipe;                // "full_finetune_single_device", "lora_finetune_single_device"
  std::string config;                // --config's name ("llama3_1/8B_full_single_device"), or ""
  TorchtuneSettings settings;
  std::vector<std::string> given;    // the keys read
  std::vector<std::string> skipped;  // keys that move no memory vramfit models
};

Result<TorchtuneCommand> read_torchtune_command(const std::string& line);

}  // namespace vramfit
