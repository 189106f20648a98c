// A DeepSpeed config (ds_config.json: what the Hugging Face Trainer's --deepspeed and
// deepspeed.initialize(config=...) take): the keys that move memory, each error naming its key
// ("zero_optimization.stage: must be between 0 and 3"). Keys that do not move memory (optimizer
// hyper-parameters, scheduler, logging) are left alone, as DeepSpeed leaves them to others.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/deepspeed.hpp"
#include "core/result.hpp"

namespace vramfit {

// What the Trainer fills "auto" with (transformers/integrations/deepspeed.py,
// HfTrainerDeepSpeedConfig.trainer_config_process and trainer_config_finalize): the batch and
// precision from TrainingArguments, the buckets from the model's hidden_size.
struct DeepSpeedAutoValues {
  int64_t hidden_size = 0;
  int64_t per_device_train_batch_size = 1;
  int64_t gradient_accumulation_steps = 1;
  bool bf16 = true, fp16 = false;  // --bf16 / --fp16
};

struct DeepSpeedConfigRead {
  DeepSpeedConfig config;
  std::vector<std::string> filled;  // "zero_optimization.reduce_bucket_size: auto = hidden_size x hidden_size = 16777216"
};

Result<DeepSpeedConfigRead> read_deepspeed_config(const std::string& text, const DeepSpeedAutoValues& auto_values);

}  // namespace vramfit
