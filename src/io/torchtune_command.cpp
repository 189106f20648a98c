#include "torchtune_command.hpp"

#include <algorithm>
#include <cctype>

#include "io/engine_command.hpp"

namespace vramfit {

namespace {

bool parse_bool(std::string v, bool& out) {
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (v == "true") out = true;
  else if (v == "false") out = false;
  else return false;
  return true;
}

bool parse_count(const std::string& v, int64_t& out) {
  if (v.empty() || v.size() > 12 || !std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); })) return false;
  out = std::stoll(v);
  return out > 0;
}

// The last dotted part of a component path: "torchtune.models.llama3_1.qlora_llama3_1_8b" -> "qlora_llama3_1_8b".
std::string last_part(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// "[q_proj, v_proj]", "['q_proj','v_proj']", "q_proj,v_proj" -> the names.
std::vector<std::string> list_items(const std::string& v) {
  std::vector<std::string> items;
  std::string item;
  for (char c : v) {
    if (c == '[' || c == ']' || c == '\'' || c == '"' || c == ' ') continue;
    if (c == ',') { if (!item.empty()) items.push_back(item); item.clear(); }
    else item += c;
  }
  if (!item.empty()) items.push_back(item);
  return items;
}

Error bad(const std::string& key, const std::string& what) { return make_error("torchtune.bad_value", key, key + ": " + what); }

// The overrides that are a switch or a count, by their config names, and where each goes.
struct SwitchKey {
  const char* name;
  bool TorchtuneSettings::*member;
};
constexpr SwitchKey kSwitchKeys[] = {{"model.apply_lora_to_mlp", &TorchtuneSettings::apply_lora_to_mlp},
                                     {"model.apply_lora_to_output", &TorchtuneSettings::apply_lora_to_output},
                                     {"optimizer_in_bwd", &TorchtuneSettings::optimizer_in_bwd},
                                     {"enable_activation_checkpointing", &TorchtuneSettings::enable_activation_checkpointing},
                                     {"enable_activation_offloading", &TorchtuneSettings::enable_activation_offloading},
                                     {"compile", &TorchtuneSettings::compile},
                                     {"fsdp_cpu_offload", &TorchtuneSettings::fsdp_cpu_offload},
                                     {"fsdp.cpu_offload", &TorchtuneSettings::fsdp_cpu_offload}};
struct CountKey {
  const char* name;
  int64_t TorchtuneSettings::*member;
};
constexpr CountKey kCountKeys[] = {{"model.lora_rank", &TorchtuneSettings::lora_rank},
                                   {"batch_size", &TorchtuneSettings::batch_size},
                                   {"tokenizer.max_seq_len", &TorchtuneSettings::max_seq_len},
                                   {"loss.num_output_chunks", &TorchtuneSettings::num_output_chunks}};
// A list of module names (model.lora_attn_modules, custom_sharded_layers): each name's switch set,
// the others cleared.
struct NamedSwitch {
  const char* name;
  bool TorchtuneSettings::*member;
};
template <size_t N>
std::optional<Error> read_names(const std::string& key, const std::string& v, const NamedSwitch (&names)[N], const char* allowed,
                                TorchtuneSettings& s) {
  for (const NamedSwitch& n : names) s.*n.member = false;
  for (const std::string& item : list_items(v)) {
    const auto it = std::find_if(std::begin(names), std::end(names), [&](const NamedSwitch& n) { return item == n.name; });
    if (it == std::end(names)) return bad(key, "'" + item + "' is not one of " + allowed);
    s.*it->member = true;
  }
  return std::nullopt;
}
constexpr NamedSwitch kLoraModules[] = {{"q_proj", &TorchtuneSettings::lora_q},
                                        {"k_proj", &TorchtuneSettings::lora_k},
                                        {"v_proj", &TorchtuneSettings::lora_v},
                                        {"output_proj", &TorchtuneSettings::lora_output_proj}};
constexpr NamedSwitch kShardedLayers[] = {{"tok_embeddings", &TorchtuneSettings::shard_tok_embeddings},
                                          {"output", &TorchtuneSettings::shard_output}};

// Reads one override into the settings; `known` false for a key that moves no memory vramfit models.
std::optional<Error> apply(const std::string& key, const std::string& v, TorchtuneSettings& s, bool& known) {
  known = true;
  for (const SwitchKey& k : kSwitchKeys) {
    if (key != k.name) continue;
    if (!parse_bool(v, s.*k.member)) return bad(key, "must be True or False (got '" + v + "')");
    return std::nullopt;
  }
  for (const CountKey& k : kCountKeys) {
    if (key != k.name) continue;
    if (!parse_count(v, s.*k.member)) return bad(key, "must be a positive whole number (got '" + v + "')");
    return std::nullopt;
  }
  if (key == "model._component_") {
    const std::string builder = last_part(v);
    s.method = builder.rfind("qlora_", 0) == 0 ? FineTuning::qlora : builder.rfind("lora_", 0) == 0 ? FineTuning::lora : FineTuning::full;
  } else if (key == "model.lora_attn_modules") {
    return read_names(key, v, kLoraModules, "q_proj, k_proj, v_proj, output_proj", s);
  } else if (key == "data_parallel_replicate_dim" && s.distributed) {
    if (!parse_count(v, s.data_parallel_replicate_dim)) return bad(key, "must be a positive whole number (got '" + v + "')");
  } else if (key == "data_parallel_shard_dim" && s.distributed) {
    if (v != "-1" && !parse_count(v, s.data_parallel_shard_dim)) return bad(key, "must be -1 or a positive whole number (got '" + v + "')");
    if (v == "-1") s.data_parallel_shard_dim = -1;
  } else if ((key == "tensor_parallel_dim" || key == "context_parallel_dim") && s.distributed) {
    int64_t degree = 0;
    if (!parse_count(v, degree)) return bad(key, "must be a positive whole number (got '" + v + "')");
    if (degree > 1) return bad(key, "torchtune's tensor and context parallelism are not modelled yet; 1 is");
  } else if (key == "custom_sharded_layers") {
    return read_names(key, v, kShardedLayers, "tok_embeddings, output", s);
  } else if (key == "dtype") {
    if (v == "bf16") s.bf16 = true;
    else if (v == "fp32") s.bf16 = false;
    else return bad(key, "must be bf16 or fp32 (got '" + v + "')");
  } else if (key == "optimizer._component_") {
    if (v == "torch.optim.AdamW") s.optimizer = TorchtuneOptimizer::adamw;
    else if (v == "bitsandbytes.optim.PagedAdamW8bit") s.optimizer = TorchtuneOptimizer::paged_adamw_8bit;
    else if (v == "bitsandbytes.optim.PagedAdamW") s.optimizer = TorchtuneOptimizer::paged_adamw;
    else if (v == "bitsandbytes.optim.AdamW8bit") s.optimizer = TorchtuneOptimizer::adamw_8bit;
    else if (v == "torchao.optim.AdamW8bit" || v == "torchao.prototype.low_bit_optim.AdamW8bit") s.optimizer = TorchtuneOptimizer::torchao_adamw_8bit;
    else return bad(key, "vramfit knows torch.optim.AdamW, bitsandbytes.optim.PagedAdamW8bit, PagedAdamW, AdamW8bit and torchao.optim.AdamW8bit (got '" + v + "')");
  } else if (key == "loss._component_") {
    if (v == "torchtune.modules.loss.CEWithChunkedOutputLoss") s.loss = TorchtuneLoss::chunked_ce;
    else if (v == "torchtune.modules.loss.LinearCrossEntropyLoss") s.loss = TorchtuneLoss::linear_ce;
    else if (v == "torch.nn.CrossEntropyLoss") s.loss = TorchtuneLoss::ce;
    else return bad(key, "vramfit knows CEWithChunkedOutputLoss, LinearCrossEntropyLoss and torch.nn.CrossEntropyLoss (got '" + v + "')");
  } else {
    known = false;
  }
  return std::nullopt;
}

}  // namespace

Result<TorchtuneCommand> read_torchtune_command(const std::string& line) {
  const std::vector<std::string> words = shell_words(line);
  TorchtuneCommand c;
  size_t i = 0;
  if (i + 1 < words.size() && words[i] == "tune" && words[i + 1] == "run") i += 2;
  // torchrun's options before the recipe (tune run --nproc_per_node 8 --nnodes 2 RECIPE ...).
  int64_t nproc = 1, nnodes = 1;
  while (i < words.size() && (words[i] == "--nproc_per_node" || words[i] == "--nnodes")) {
    int64_t value = 0;
    if (i + 1 >= words.size() || !parse_count(words[i + 1], value)) {
      return make_error("torchtune.bad_value", words[i], words[i] + ": needs a positive whole number");
    }
    (words[i] == "--nproc_per_node" ? nproc : nnodes) = value;
    i += 2;
  }
  if (i < words.size() && words[i].find('=') == std::string::npos && words[i].rfind("--", 0) != 0) c.recipe = words[i++];
  const bool known_recipe = c.recipe.empty() || c.recipe == "full_finetune_single_device" || c.recipe == "lora_finetune_single_device" ||
                            c.recipe == "full_finetune_distributed" || c.recipe == "lora_finetune_distributed";
  if (!known_recipe) {
    return make_error("torchtune.recipe", "recipe", "recipe: vramfit answers torchtune's full and LoRA recipes "
                      "(full_finetune_single_device, lora_finetune_single_device, full_finetune_distributed, "
                      "lora_finetune_distributed); '" + c.recipe + "' is not modelled yet");
  }
  c.settings.distributed = c.recipe.find("_distributed") != std::string::npos;
  c.settings.world_size = c.settings.distributed ? nproc * nnodes : 1;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--config") {
      if (i + 1 >= words.size()) return make_error("torchtune.bad_value", "--config", "--config: needs a config name");
      c.config = words[++i];
      continue;
    }
    const size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) return make_error("torchtune.bad_value", w, w + ": not a key=value override");
    const std::string key = w.substr(0, eq), value = w.substr(eq + 1);
    bool known = false;
    if (auto error = apply(key, value, c.settings, known)) return *error;
    (known ? c.given : c.skipped).push_back(key);
  }
  // ParallelDims._validate: dp_replicate x dp_shard x tp x cp must be the world size.
  const TorchtuneSettings& s = c.settings;
  if (s.distributed && (s.shard_ranks() < 1 || s.data_parallel_replicate_dim * s.shard_ranks() != s.world_size)) {
    return make_error("torchtune.bad_value", "data_parallel_replicate_dim",
                      "data_parallel_replicate_dim: Invalid parallel dims: dp_replicate(" + std::to_string(s.data_parallel_replicate_dim) +
                          ") * dp_shard(" + std::to_string(s.shard_ranks()) + ") * tp(1) != WORLD_SIZE(" + std::to_string(s.world_size) +
                          ") (--nproc_per_node x --nnodes)");
  }
  const bool lora_recipe = c.recipe.rfind("lora_", 0) == 0;
  if (!c.recipe.empty() && lora_recipe != (c.settings.method != FineTuning::full)) {
    return make_error("torchtune.bad_value", "model._component_", "model._component_: " + c.recipe +
                      (lora_recipe ? " trains a lora_ or qlora_ model builder" : " trains a model builder without lora_ or qlora_"));
  }
  return c;
}

}  // namespace vramfit
