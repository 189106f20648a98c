#include "llamafactory.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "formats.hpp"
#include "optimizer.hpp"
#include "units.hpp"

namespace vramfit {

namespace {

constexpr int64_t kMaxNamedParameters = 4000000;

// Model types whose decoder layers transformers names model.layers.N.self_attn / .mlp (Mixtral:
// .block_sparse_moe) with norms input_layernorm, post_attention_layernorm (Gemma 2/3 also
// pre_ and post_feedforward_layernorm), and model.embed_tokens, model.norm, lm_head outside.
bool has_llama_names(const std::string& t) {
  static const char* const kTypes[] = {"llama",      "mistral",     "mixtral",     "qwen2",       "qwen2_moe", "qwen3",
                                       "qwen3_moe",  "gemma",       "gemma2",      "gemma3_text", "phi3",      "granite",
                                       "deepseek_v2", "deepseek_v3"};
  return std::any_of(std::begin(kTypes), std::end(kTypes), [&](const char* k) { return t == k; });
}

const char* norm_name(int index, int norms) {
  static const char* const kNames[] = {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"};
  if (norms == 1) return kNames[0];
  return index < 4 ? kNames[index] : "layernorm";
}

// A layer tensor's place under model.layers.N (transformers' modeling_<type>.py attribute names).
std::string layer_leaf(TensorRole role, bool mixtral) {
  const std::string mlp = mixtral ? "block_sparse_moe." : "mlp.";
  switch (role) {
    case TensorRole::attn_q: return "self_attn.q_proj";
    case TensorRole::attn_k: return "self_attn.k_proj";
    case TensorRole::attn_v: return "self_attn.v_proj";
    case TensorRole::attn_qkv: return "self_attn.qkv_proj";
    case TensorRole::attn_output: return "self_attn.o_proj";
    case TensorRole::attn_q_a: return "self_attn.q_a_proj";
    case TensorRole::attn_q_b: return "self_attn.q_b_proj";
    case TensorRole::attn_kv_a: return "self_attn.kv_a_proj_with_mqa";
    case TensorRole::attn_kv_b: return "self_attn.kv_b_proj";
    case TensorRole::ffn_gate: return mlp + "gate_proj";
    case TensorRole::ffn_up: return mlp + "up_proj";
    case TensorRole::ffn_down: return mlp + "down_proj";
    case TensorRole::router: return mlp + "gate";
    case TensorRole::ffn_gate_shexp: return mlp + "shared_expert.gate_proj";
    case TensorRole::ffn_up_shexp: return mlp + "shared_expert.up_proj";
    case TensorRole::ffn_down_shexp: return mlp + "shared_expert.down_proj";
    case TensorRole::shared_expert_gate: return mlp + "shared_expert_gate";
    default: return mlp + "other";
  }
}

// One expert's projection (transformers 4.x: one module per expert).
std::string expert_leaf(TensorRole role, bool mixtral, int64_t e) {
  const std::string base = (mixtral ? "block_sparse_moe.experts." : "mlp.experts.") + std::to_string(e) + ".";
  if (role == TensorRole::ffn_gate_exps) return base + (mixtral ? "w1" : "gate_proj");
  if (role == TensorRole::ffn_up_exps) return base + (mixtral ? "w3" : "up_proj");
  if (role == TensorRole::ffn_down_exps) return base + (mixtral ? "w2" : "down_proj");
  return base + "bias";
}

// The parameters as named_parameters() lists them: one name per tensor, one per expert of a
// stacked expert tensor (elements: of that one name).
struct NamedParameter {
  std::string name;
  int64_t elements = 0;
  int32_t layer = -1;
  bool matmul = false;   // used as a matrix product's weight (autocast copies it)
  bool vision = false;
  ParamTensor shape;    // one module's [out, in]; shape.copies of them (a stacked expert tensor left unnamed)
};

std::vector<NamedParameter> named_parameters(const ModelSpec& model, const std::vector<TensorShape>& tensors, bool named) {
  const bool mixtral = model.architecture == "mixtral";
  std::vector<NamedParameter> out;
  int32_t layer = -2;
  int leading_vectors = 0;  // the norms come first in a layer (enumerate_tensors)
  std::string block = "";   // the block of the last matrix seen in this layer
  const int vectors_per_norm = model.norm == NormKind::layer ? 2 : 1;
  for (const TensorShape& t : tensors) {
    NamedParameter p;
    p.layer = t.layer;
    p.vision = t.role == TensorRole::vision;
    p.shape = {{t.rows, t.row_length}, named ? 1 : t.copies};
    p.matmul = t.role != TensorRole::vector && t.role != TensorRole::token_embd && t.role != TensorRole::position_embd && !p.vision;
    if (model.tied_embeddings && t.role == TensorRole::token_embd) p.matmul = true;  // it is also lm_head
    if (t.layer != layer) { layer = t.layer; leading_vectors = 0; block = ""; }
    if (t.layer < 0) {
      p.name = p.vision ? "vision_tower.encoder.layers.w" : t.role == TensorRole::token_embd ? "model.embed_tokens.weight"
             : t.role == TensorRole::output ? "lm_head.weight" : t.role == TensorRole::position_embd ? "model.embed_positions.weight"
                                                                                                    : "model.norm.weight";
      p.elements = t.elements();
      out.push_back(p);
      continue;
    }
    const std::string prefix = "model.layers." + std::to_string(t.layer) + ".";
    if (!named) {
      p.name = prefix + "weight";
      p.elements = t.elements();
      out.push_back(p);
      continue;
    }
    if (t.role == TensorRole::vector && block.empty()) {  // a norm (LayerNorm: weight, then bias)
      p.name = prefix + norm_name(leading_vectors / vectors_per_norm, model.norms_per_layer) + ".weight";
      ++leading_vectors;
    } else if (t.role == TensorRole::vector) {            // a bias or a q/k norm: its block's
      p.name = prefix + block + ".bias";
    } else if (is_expert_role(t.role) || t.copies > 1) {
      block = mixtral ? "block_sparse_moe" : "mlp";
      for (int64_t e = 0; e < t.copies; ++e) {
        NamedParameter x = p;
        x.name = prefix + expert_leaf(t.role, mixtral, e) + ".weight";
        x.elements = t.row_length * t.rows;
        out.push_back(x);
      }
      continue;
    } else {
      const std::string leaf = layer_leaf(t.role, mixtral);
      block = leaf.substr(0, leaf.find('.'));
      p.name = prefix + leaf + ".weight";
    }
    p.elements = t.elements();
    out.push_back(p);
  }
  return out;
}

Error module_error(const std::string& key, const std::string& module, const std::set<std::string>& choices) {
  std::string list;
  for (const std::string& c : choices) list += (list.empty() ? "" : ", ") + c;
  return make_error("llamafactory.bad_value", key, key + ": Module " + module + " is not found, please choose from " + list);
}

bool contains(const std::string& name, const std::string& part) { return name.find(part) != std::string::npos; }


// _setup_freeze_tuning's list of names: ".N." or ".N.module" for the trainable layers, then the
// extra modules, each checked as it checks them.
std::optional<Error> freeze_patterns(const std::vector<NamedParameter>& params, const ModelSpec& model, bool named,
                                     const LlamaFactorySettings& s, LlamaFactoryMemory& m) {
  const int64_t L = model.layers, n = s.freeze_trainable_layers;
  if (s.use_llama_pro) {
    if (n == 0 || L % n != 0) {
      return make_error("llamafactory.bad_value", "freeze_trainable_layers", "freeze_trainable_layers: `num_layers` " + std::to_string(L) +
                                                                                 " should be divisible by `num_layer_trainable` " + std::to_string(n) + ".");
    }
    const int64_t stride = L / n;  // range(stride - 1, L + stride - 1, stride): empty for a negative stride
    for (int64_t i = stride - 1; stride > 0 && i < L + stride - 1; i += stride) m.trainable_layer_ids.push_back(i);
  } else if (n > 0) {
    for (int64_t i = std::max<int64_t>(0, L - n); i < L; ++i) m.trainable_layer_ids.push_back(i);
  } else {
    for (int64_t i = 0; i < std::min(-n, L); ++i) m.trainable_layer_ids.push_back(i);
  }
  std::set<std::string> hidden, outside;
  for (const NamedParameter& p : params) {
    if (p.vision) continue;
    const size_t zero = p.name.rfind(".0."), one = p.name.rfind(".1.");
    if (zero != std::string::npos) hidden.insert(p.name.substr(zero + 3, p.name.find('.', zero + 3) - zero - 3));
    else if (one != std::string::npos) hidden.insert(p.name.substr(one + 3, p.name.find('.', one + 3) - one - 3));
    if (p.layer < 0) {  // name.split(".")[-2]
      const size_t last = p.name.rfind('.'), before = p.name.rfind('.', last - 1);
      outside.insert(p.name.substr(before + 1, last - before - 1));
    }
  }
  for (const std::string& module : s.freeze_trainable_modules) {
    if (module != "all" && !named) {
      return make_error("llamafactory.unsupported", "freeze_trainable_modules", "freeze_trainable_modules: vramfit knows the module names of " +
                            model.architecture + "'s layers only as \"all\"");
    }
    if (module != "all" && hidden.count(module) == 0) return module_error("freeze_trainable_modules", module, hidden);
    for (int64_t i : m.trainable_layer_ids) {
      std::string pattern = ".";  // ".N." or ".N.module"
      pattern += std::to_string(i);
      pattern += '.';
      if (module != "all") pattern += module;
      m.trainable_patterns.push_back(pattern);
    }
  }
  for (const std::string& module : s.freeze_extra_modules) {
    if (!named) {
      return make_error("llamafactory.unsupported", "freeze_extra_modules", "freeze_extra_modules: vramfit does not know " + model.architecture + "'s module names");
    }
    if (outside.count(module) == 0) return module_error("freeze_extra_modules", module, outside);
    m.trainable_patterns.push_back(module);
  }
  return std::nullopt;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// What trains, by parameter: its elements and shapes for the optimizer, the layers holding one.
struct Split {
  std::vector<ParamTensor> trainable;
  std::vector<bool> layer_trains;
  bool embeddings_train = false;
  int64_t trainable_matmul = 0;  // elements autocast copies to 16 bits
  uint32_t lora_bits = 0;        // the LoRA targets core/training's activation terms know
  void add(const ParamTensor& shape, int32_t layer, bool matmul) {
    trainable.push_back(shape);
    if (matmul) trainable_matmul = sat_add(trainable_matmul, shape.elements() * shape.copies);
    if (layer >= 0 && layer < static_cast<int32_t>(layer_trains.size())) layer_trains[static_cast<size_t>(layer)] = true;
  }
};

uint32_t lora_bit_of(const std::string& leaf) {
  if (leaf == "q_proj") return lora_q;
  if (leaf == "k_proj") return lora_k;
  if (leaf == "v_proj") return lora_v;
  if (leaf == "qkv_proj") return lora_q | lora_k | lora_v;
  if (leaf == "o_proj") return lora_o;
  if (leaf == "gate_proj" || leaf == "w1") return lora_gate;
  if (leaf == "up_proj" || leaf == "w3") return lora_up;
  if (leaf == "down_proj" || leaf == "w2") return lora_down;
  return 0;
}

// Full and freeze: a parameter trains when a pattern is part of its name (freeze) or always
// (full), the vision tower aside.
Split split_full_or_freeze(const std::vector<NamedParameter>& params, const LlamaFactorySettings& s, int64_t layers, LlamaFactoryMemory& m) {
  Split split;
  split.layer_trains.assign(static_cast<size_t>(std::max<int64_t>(layers, 0)), false);
  for (const NamedParameter& p : params) {
    m.parameters = sat_add(m.parameters, p.elements);
    bool trains = !p.vision;
    if (trains && s.finetuning_type == LlamaFactoryFinetuning::freeze) {
      trains = std::any_of(m.trainable_patterns.begin(), m.trainable_patterns.end(), [&](const std::string& x) { return contains(p.name, x); });
    }
    if (!trains) {
      m.frozen_weights = sat_add(m.frozen_weights, sat_mul(p.elements, 2));
      continue;
    }
    m.trainable_parameters = sat_add(m.trainable_parameters, p.elements);
    split.add({{p.elements}, 1}, p.layer, p.matmul);
    if (p.name == "model.embed_tokens.weight" || p.name == "model.embed_positions.weight") split.embeddings_train = true;
  }
  return split;
}

// LoRA: PEFT's LoraConfig(target_modules) matches a module whose name is a target or ends with
// "." + target; modules_to_save one whose name ends with a target (peft/utils/other.py
// _set_trainable), wrapped with the original kept frozen and a trainable copy. With
// quantization_bit 4, transformers' bitsandbytes integration stores every Linear but lm_head in NF4.
Result<Split> split_lora(const FormatTables& tables, const std::vector<NamedParameter>& params, const LlamaFactorySettings& s, bool named,
                         const ModelSpec& model, LlamaFactoryMemory& m) {
  Split split;
  split.layer_trains.assign(static_cast<size_t>(std::max<int64_t>(model.layers, 0)), false);
  const int nf4 = tables.find_storage(s.double_quantization ? "nf4_dq" : "nf4");
  if (s.quantization_bit == 4 && nf4 < 0) return make_error("llamafactory.tables", "quantization_bit", "quantization_bit: NF4 layout missing");
  const bool all = s.lora_target.size() == 1 && s.lora_target[0] == "all";
  if (!named) {  // which of its modules are nn.Linear (GPT-2's are Conv1D, gpt-oss's experts fused) is the model's own
    return make_error("llamafactory.unsupported", "lora_target", "lora_target: vramfit does not know " + model.architecture + "'s module names");
  }
  std::set<std::string> applied, saved;
  for (const NamedParameter& p : params) {
    const std::string module = p.name.substr(0, p.name.rfind('.'));
    const std::string leaf = module.substr(module.rfind('.') + 1);
    const bool linear = p.matmul && p.name != "model.embed_tokens.weight";
    const bool quantized = s.quantization_bit == 4 && linear && p.layer >= 0;
    const int64_t base = quantized ? storage_bytes(tables.storage_types[static_cast<size_t>(nf4)], p.shape.dims[1], p.shape.dims[0], p.shape.copies)
                                   : sat_mul(p.elements, 2);
    m.frozen_weights = sat_add(m.frozen_weights, base);
    m.parameters = sat_add(m.parameters, p.elements);
    if (quantized) m.nf4_elements = sat_add(m.nf4_elements, p.elements);
    if (p.vision) continue;
    const bool targeted = linear && (all ? leaf != "lm_head"
                                         : std::any_of(s.lora_target.begin(), s.lora_target.end(), [&](const std::string& t) {
                                             return module == t || ends_with(module, "." + t);
                                           }));
    if (targeted && p.shape.dims.size() == 2) {  // A: [r, in], B: [out, r], per module (per expert)
      const int64_t out = p.shape.dims[0], in = p.shape.dims[1];
      split.add({{s.lora_rank, in}, p.shape.copies}, p.layer, true);
      split.add({{out, s.lora_rank}, p.shape.copies}, p.layer, true);
      m.adapter_parameters = sat_add(m.adapter_parameters, sat_mul(sat_mul(s.lora_rank, in + out), p.shape.copies));
      applied.insert(leaf);
      split.lora_bits |= lora_bit_of(leaf);
    }
    const auto match = std::find_if(s.additional_target.begin(), s.additional_target.end(), [&](const std::string& t) { return ends_with(module, t); });
    if (match != s.additional_target.end()) {
      if (model.tied_embeddings && (module == "lm_head" || module == "model.embed_tokens")) {
        return make_error("llamafactory.unsupported", "additional_target", "additional_target: " + *match + " of a model with tied embeddings is not modelled yet");
      }
      m.saved_module_parameters = sat_add(m.saved_module_parameters, p.elements);
      split.add({{p.elements}, 1}, p.layer, p.matmul);
      if (module == "model.embed_tokens") split.embeddings_train = true;
      saved.insert(*match);
    }
  }
  for (const std::string& t : s.additional_target) {
    if (saved.count(t) == 0) {
      return make_error("llamafactory.bad_value", "additional_target", "additional_target: no module of " + model.architecture + " ends with " + t);
    }
  }
  if (applied.empty()) {
    return make_error("llamafactory.bad_value", "lora_target", "lora_target: no Linear module of " + model.architecture + " matches");
  }
  m.lora_modules.assign(applied.begin(), applied.end());
  m.trainable_parameters = sat_add(m.adapter_parameters, m.saved_module_parameters);
  m.parameters = sat_add(m.parameters, m.trainable_parameters);  // the adapters and the copies are parameters too
  return split;
}

}  // namespace

// What autograd keeps (get_custom_gradient_checkpointing_func), with vramfit's per-layer terms
// (core/training) with and without checkpointing; then the peak.
Result<LlamaFactoryMemory> llamafactory_workload(const FormatTables& tables, const ModelSpec& model, const LlamaFactorySettings& s,
                                                 const LlamaFactoryMemory& base) {
  if (s.per_device_train_batch_size < 1 || s.per_device_train_batch_size > kMaxMicroBatch) {
    return make_error("llamafactory.out_of_range", "per_device_train_batch_size", "per_device_train_batch_size: 1 to " + std::to_string(kMaxMicroBatch));
  }
  if (s.cutoff_len < 1 || s.cutoff_len > kMaxTrainingSequence) {
    return make_error("llamafactory.out_of_range", "cutoff_len", "cutoff_len: 1 to " + std::to_string(kMaxTrainingSequence));
  }
  LlamaFactoryMemory m = base;
  const int64_t L = model.layers;
  TrainingSettings t;
  t.recipe = llamafactory_recipe(s);
  t.micro_batch = s.per_device_train_batch_size;
  t.sequence_length = s.cutoff_len;
  t.flash_attention = s.memory_efficient_attention;
  if (m.lora_activation_targets != 0) {  // the x A products LoRA's modules keep (fp32)
    t.method = FineTuning::lora;
    t.lora_targets = m.lora_activation_targets;
    t.lora_rank = s.lora_rank;
  }
  t.recompute = Recompute::none;
  auto plain = training_memory(tables, model, t);
  if (!plain) return plain.error();
  t.recompute = Recompute::full;
  auto checkpointed = training_memory(tables, model, t);
  if (!checkpointed) return checkpointed.error();
  const int64_t moe_layers = model.moe_layer_count(), dense_layers = L - moe_layers;
  const int64_t moe_full = moe_layers > 0 ? plain->layer.total() : 0;
  const int64_t dense_full = dense_layers > 0 ? (plain->activations - sat_mul(moe_full, moe_layers)) / dense_layers : 0;
  const int64_t kept_input = checkpointed->layer.total();
  m.lowest_trainable_layer = L;
  for (int64_t i = 0; i < L; ++i) {
    if (m.layer_holds_trainable[static_cast<size_t>(i)]) { m.lowest_trainable_layer = i; break; }
  }
  if (m.embeddings_trainable) m.lowest_trainable_layer = 0;
  int64_t largest_checkpointed = 0;
  m.activations = 0;
  m.checkpointed_layers = 0;
  for (int64_t i = m.lowest_trainable_layer; i < L; ++i) {
    const int64_t full = model.is_moe_layer(i) ? moe_full : dense_full;
    if (s.gradient_checkpointing && m.layer_holds_trainable[static_cast<size_t>(i)]) {
      m.activations = sat_add(m.activations, kept_input);
      largest_checkpointed = std::max(largest_checkpointed, full);
      ++m.checkpointed_layers;
    } else {
      m.activations = sat_add(m.activations, full);
    }
  }
  m.recompute_working = largest_checkpointed;
  m.logits = plain->logits;
  m.peak = 0;
  for (int64_t v : {m.frozen_weights, m.trainable_weights, m.gradients, m.optimizer, m.foreach_transient, m.autocast_copies,
                    m.activations, m.recompute_working, m.logits}) {
    m.peak = sat_add(m.peak, v);
  }
  return m;
}

Result<LlamaFactoryMemory> llamafactory_memory(const FormatTables& tables, const ModelSpec& model, const LlamaFactorySettings& s) {
  if (model.parameters_only > 0) {
    return make_error("llamafactory.model", "model", "model: LLaMA-Factory's freeze tuning picks parameters by name; give the model's architecture, not only its count");
  }
  const bool named = has_llama_names(model.architecture);
  int64_t names = 0;  // one per expert of a stacked tensor: bounded, as transformers' models are
  const std::vector<TensorShape> tensors = enumerate_tensors(model);
  for (const TensorShape& t : tensors) names = sat_add(names, named ? t.copies : 1);
  if (names > kMaxNamedParameters) {
    return make_error("llamafactory.model", "model", "model: more than " + std::to_string(kMaxNamedParameters) + " parameters by name");
  }
  LlamaFactoryMemory m;
  const std::vector<NamedParameter> params = named_parameters(model, tensors, named);
  Split split;
  if (s.finetuning_type == LlamaFactoryFinetuning::lora) {
    auto lora = split_lora(tables, params, s, named, model, m);
    if (!lora) return lora.error();
    split = std::move(lora).value();
  } else {
    if (s.finetuning_type == LlamaFactoryFinetuning::freeze) {
      if (auto e = freeze_patterns(params, model, named, s, m)) return *e;
    }
    split = split_full_or_freeze(params, s, model.layers, m);
  }
  if (m.trainable_parameters == 0) {
    return make_error("llamafactory.bad_value", "freeze_trainable_layers", "freeze_trainable_layers: no parameter of this model would train");
  }
  // init_adapter: the trainable parameters upcast to fp32 (pure_bf16: left in bf16).
  const int64_t trainable_bytes = s.pure_bf16 ? 2 : 4;
  m.trainable_weights = sat_mul(m.trainable_parameters, trainable_bytes);
  m.gradients = sat_mul(m.trainable_parameters, trainable_bytes);
  m.optimizer = optimizer_state(Optimizer::adamw, split.trainable, trainable_bytes, s.fused_adamw).total();
  if (!s.fused_adamw) m.foreach_transient = sat_mul(m.trainable_parameters, trainable_bytes);  // _multi_tensor_adam's sqrt(exp_avg_sq)
  if (!s.pure_bf16) m.autocast_copies = sat_mul(split.trainable_matmul, 2);
  m.layer_holds_trainable = split.layer_trains;
  m.embeddings_trainable = split.embeddings_train;
  m.lora_activation_targets = split.lora_bits;
  return llamafactory_workload(tables, model, s, m);
}

PrecisionRecipe llamafactory_recipe(const LlamaFactorySettings& s) {
  return s.pure_bf16 ? PrecisionRecipe::bf16 : s.bf16 ? PrecisionRecipe::amp_bf16 : PrecisionRecipe::amp_fp16;
}

const char* llamafactory_finetuning_name(LlamaFactoryFinetuning type) {
  return type == LlamaFactoryFinetuning::freeze ? "freeze" : type == LlamaFactoryFinetuning::lora ? "lora" : "full";
}

std::string llamafactory_param_stats(const LlamaFactoryMemory& m) {
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.4f", m.parameters > 0 ? 100.0 * static_cast<double>(m.trainable_parameters) / static_cast<double>(m.parameters) : 0.0);
  return "trainable params: " + with_thousands(m.trainable_parameters) + " || all params: " + with_thousands(m.parameters) +
         " || trainable%: " + percent;
}

}  // namespace vramfit
