#include "io/llamafactory_config.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace vramfit {

namespace {

Error key_error(const std::string& key, const std::string& message) {
  return make_error("llamafactory.bad_value", key, key + ": " + message);
}

Error unsupported(const std::string& key, const std::string& message) {
  return make_error("llamafactory.unsupported", key, key + ": " + message);
}

// YAML's true/false, as a JSON boolean (a string "true" is accepted as the YAML loader would
// not give one, but a pasted JSON might).
std::optional<bool> boolean(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string() && (v == "true" || v == "True")) return true;
  if (v.is_string() && (v == "false" || v == "False")) return false;
  return std::nullopt;
}

std::optional<int64_t> whole(const json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

// hparams' _split_arg: "mlp,self_attn" -> ["mlp", "self_attn"] (each stripped); a list as it is.
std::optional<std::vector<std::string>> names(const json& v) {
  std::vector<std::string> out;
  if (v.is_null()) return out;
  if (v.is_array()) {
    for (const json& x : v) {
      if (!x.is_string()) return std::nullopt;
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  if (!v.is_string()) return std::nullopt;
  const std::string text = v.get<std::string>();
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    out.push_back(item);
    start = comma + 1;
  }
  return out;
}

// The keys read; every other key is skipped (it moves no memory vramfit models).
const char* const kRead[] = {"finetuning_type", "freeze_trainable_layers", "freeze_trainable_modules", "freeze_extra_modules",
                             "use_llama_pro", "freeze_vision_tower", "freeze_multi_modal_projector", "freeze_language_model",
                             "bf16", "fp16", "pure_bf16", "disable_gradient_checkpointing", "flash_attn", "optim",
                             "per_device_train_batch_size", "cutoff_len", "stage", "quantization_bit", "deepspeed",
                             "upcast_layernorm", "model_name_or_path", "lora_rank", "lora_target", "additional_target",
                             "double_quantization", "quantization_method", "use_dora", "lora_dropout"};

std::optional<Error> read_key(const std::string& key, const json& v, LlamaFactoryConfig& c) {
  LlamaFactorySettings& s = c.settings;
  if (key == "finetuning_type") {
    if (v == "freeze") s.finetuning_type = LlamaFactoryFinetuning::freeze;
    else if (v == "full") s.finetuning_type = LlamaFactoryFinetuning::full;
    else if (v == "lora") s.finetuning_type = LlamaFactoryFinetuning::lora;
    else if (v == "oft") return unsupported(key, "oft is not modelled yet");
    else return key_error(key, "expected freeze, full or lora");
  } else if (key == "freeze_trainable_layers") {
    auto n = whole(v);
    if (!n || *n < -kMaxTrainingSequence || *n > kMaxTrainingSequence) return key_error(key, "expected a whole number (the last n layers; negative: the first -n)");
    s.freeze_trainable_layers = *n;
  } else if (key == "freeze_trainable_modules" || key == "freeze_extra_modules" || key == "lora_target" || key == "additional_target") {
    auto list = names(v);
    if (!list || std::any_of(list->begin(), list->end(), [](const std::string& x) { return x.empty(); })) {
      return key_error(key, "expected module names separated by commas");
    }
    (key == "freeze_trainable_modules" ? s.freeze_trainable_modules
     : key == "freeze_extra_modules"   ? s.freeze_extra_modules
     : key == "lora_target"            ? s.lora_target
                                       : s.additional_target) = *list;
  } else if (key == "lora_rank") {
    auto n = whole(v);
    if (!n || *n < 1 || *n > 65536) return key_error(key, "expected a whole number from 1 to 65536");
    s.lora_rank = *n;
  } else if (key == "lora_dropout") {
    if (!v.is_number() || v.get<double>() < 0.0 || v.get<double>() >= 1.0) return key_error(key, "expected a number from 0 to below 1");
    c.lora_dropout = v.get<double>();
  } else if (key == "quantization_method") {
    if (v != "bnb" && v != "bitsandbytes") return unsupported(key, "vramfit models bitsandbytes (bnb) only");
  } else if (key == "per_device_train_batch_size" || key == "cutoff_len") {
    auto n = whole(v);
    const int64_t most = key == "cutoff_len" ? kMaxTrainingSequence : kMaxMicroBatch;
    if (!n || *n < 1 || *n > most) return key_error(key, "expected a whole number from 1 to " + std::to_string(most));
    (key == "cutoff_len" ? s.cutoff_len : s.per_device_train_batch_size) = *n;
  } else if (key == "flash_attn") {
    if (v == "disabled") s.memory_efficient_attention = false;
    else if (v == "auto" || v == "sdpa" || v == "fa2" || v == "fa3") s.memory_efficient_attention = true;
    else return key_error(key, "expected auto, disabled, sdpa, fa2 or fa3");
  } else if (key == "optim") {
    if (v == "adamw_torch_fused") s.fused_adamw = true;
    else if (v == "adamw_torch") s.fused_adamw = false;
    else return unsupported(key, "vramfit models adamw_torch_fused and adamw_torch");
  } else if (key == "stage") {
    if (v != "sft" && v != "pt") return unsupported(key, "vramfit models the sft and pt stages (the others hold reference or reward models)");
  } else if (key == "quantization_bit") {
    if (!v.is_null() && !(v.is_number_integer() && v.get<int64_t>() == 4)) {
      return unsupported(key, "vramfit models 4 (bitsandbytes NF4) only");
    }
    s.quantization_bit = v.is_null() ? 0 : 4;
  } else if (key == "deepspeed") {
    if (!v.is_null()) return unsupported(key, "LLaMA-Factory under DeepSpeed is not modelled yet (a ds_config alone: training.framework \"deepspeed\")");
  } else if (key == "model_name_or_path") {
    if (!v.is_string()) return key_error(key, "expected a Hub id or a path");
    c.model_name_or_path = v.get<std::string>();
  } else {  // the booleans
    auto b = boolean(v);
    if (!b) return key_error(key, "expected true or false");
    if (key == "use_llama_pro") s.use_llama_pro = *b;
    else if (key == "bf16") s.bf16 = *b;
    else if (key == "pure_bf16") s.pure_bf16 = *b;
    else if (key == "disable_gradient_checkpointing") s.gradient_checkpointing = !*b;
    else if (key == "freeze_vision_tower" && !*b) return unsupported(key, "a trained vision tower is not modelled yet");
    else if (key == "freeze_multi_modal_projector" && !*b) return unsupported(key, "a trained projector is not modelled yet");
    else if (key == "freeze_language_model" && *b) return unsupported(key, "a frozen language model is not modelled yet");
    else if (key == "upcast_layernorm" && *b) return unsupported(key, "fp32 layernorms are not modelled yet");
    else if (key == "use_dora" && *b) return unsupported(key, "DoRA is not modelled yet");
    else if (key == "double_quantization") s.double_quantization = *b;
  }
  return std::nullopt;
}

}  // namespace

Result<LlamaFactoryConfig> read_llamafactory_config(const json& config) {
  if (!config.is_object()) return make_error("llamafactory.bad_value", "llamafactory", "llamafactory: expected the config's keys as an object");
  LlamaFactoryConfig c;
  bool fp16 = false, bf16_given = false;
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& key = it.key();
    if (std::none_of(std::begin(kRead), std::end(kRead), [&](const char* k) { return key == k; })) {
      c.skipped.push_back(key);
      continue;
    }
    if (!it->is_string() && (key == "finetuning_type" || key == "flash_attn" || key == "optim" || key == "stage" || key == "quantization_method")) {
      return key_error(key, "expected a name");
    }
    if (auto e = read_key(key, *it, c)) return *e;
    if (key == "fp16") fp16 = boolean(*it).value_or(false);
    if (key == "bf16") bf16_given = c.settings.bf16;
    c.given.push_back(key);
  }
  LlamaFactorySettings& s = c.settings;
  if (s.quantization_bit != 0 && s.finetuning_type != LlamaFactoryFinetuning::lora) {  // init_adapter's own check
    return key_error("quantization_bit", "Quantized models can only be used for the LoRA or OFT tuning.");
  }
  if (s.use_llama_pro && s.finetuning_type == LlamaFactoryFinetuning::lora) return unsupported("use_llama_pro", "LoRA on LLaMA Pro's expanded blocks is not modelled yet");
  if (s.pure_bf16) s.bf16 = true;
  else if (fp16 && bf16_given) return key_error("fp16", "bf16 and fp16 are both true");
  else if (fp16) s.bf16 = false;
  else if (!bf16_given) return key_error("bf16", "set bf16: true or fp16: true (without them LLaMA-Factory takes the checkpoint's dtype, which vramfit does not guess)");
  return c;
}

}  // namespace vramfit
