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

// Reads one override into the settings; `known` false for a key that moves no memory vramfit models.
std::optional<Error> apply(const std::string& key, const std::string& v, TorchtuneSettings& s, bool& known) {
  known = true;
  bool flag = false;
  int64_t count = 0;
  if (key == "model._component_") {
    const std::string builder = last_part(v);
    s.method = builder.rfind("qlora_", 0) == 0 ? FineTuning::qlora : builder.rfind("lora_", 0) == 0 ? FineTuning::lora : FineTuning::full;
  } else if (key == "model.lora_attn_modules") {
    s.lora_q = s.lora_k = s.lora_v = s.lora_output_proj = false;
    for (const std::string& name : list_items(v)) {
      if (name == "q_proj") s.lora_q = true;
      else if (name == "k_proj") s.lora_k = true;
      else if (name == "v_proj") s.lora_v = true;
      else if (name == "output_proj") s.lora_output_proj = true;
      else return bad(key, "'" + name + "' is not one of q_proj, k_proj, v_proj, output_proj");
    }
  } else if (key == "model.apply_lora_to_mlp" || key == "model.apply_lora_to_output" || key == "optimizer_in_bwd" ||
             key == "enable_activation_checkpointing" || key == "enable_activation_offloading" || key == "compile") {
    if (!parse_bool(v, flag)) return bad(key, "must be True or False (got '" + v + "')");
    if (key == "model.apply_lora_to_mlp") s.apply_lora_to_mlp = flag;
    else if (key == "model.apply_lora_to_output") s.apply_lora_to_output = flag;
    else if (key == "optimizer_in_bwd") s.optimizer_in_bwd = flag;
    else if (key == "enable_activation_checkpointing") s.enable_activation_checkpointing = flag;
    else if (key == "enable_activation_offloading") s.enable_activation_offloading = flag;
    else s.compile = flag;
  } else if (key == "model.lora_rank" || key == "batch_size" || key == "tokenizer.max_seq_len" || key == "loss.num_output_chunks") {
    if (!parse_count(v, count)) return bad(key, "must be a positive whole number (got '" + v + "')");
    if (key == "model.lora_rank") s.lora_rank = count;
    else if (key == "batch_size") s.batch_size = count;
    else if (key == "tokenizer.max_seq_len") s.max_seq_len = count;
    else s.num_output_chunks = count;
  } else if (key == "fsdp_cpu_offload" || key == "fsdp.cpu_offload") {
    if (!parse_bool(v, flag)) return bad(key, "must be True or False (got '" + v + "')");
    s.fsdp_cpu_offload = flag;
  } else if (key == "custom_sharded_layers") {
    s.shard_tok_embeddings = s.shard_output = false;
    for (const std::string& name : list_items(v)) {
      if (name == "tok_embeddings") s.shard_tok_embeddings = true;
      else if (name == "output") s.shard_output = true;
      else return bad(key, "'" + name + "' is not one of tok_embeddings, output");
    }
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
  const bool lora_recipe = c.recipe.rfind("lora_", 0) == 0;
  if (!c.recipe.empty() && lora_recipe != (c.settings.method != FineTuning::full)) {
    return make_error("torchtune.bad_value", "model._component_", "model._component_: " + c.recipe +
                      (lora_recipe ? " trains a lora_ or qlora_ model builder" : " trains a model builder without lora_ or qlora_"));
  }
  return c;
}

}  // namespace vramfit
