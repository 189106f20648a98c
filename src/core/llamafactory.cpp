#include "llamafactory.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <set>
#include <string>
#include <vector>

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
  ParamTensor shape;
};

std::vector<NamedParameter> named_parameters(const ModelSpec& model, bool named) {
  const bool mixtral = model.architecture == "mixtral";
  std::vector<NamedParameter> out;
  int32_t layer = -2;
  int leading_vectors = 0;  // the norms come first in a layer (enumerate_tensors)
  std::string block = "";   // the block of the last matrix seen in this layer
  const int vectors_per_norm = model.norm == NormKind::layer ? 2 : 1;
  for (const TensorShape& t : enumerate_tensors(model)) {
    NamedParameter p;
    p.layer = t.layer;
    p.vision = t.role == TensorRole::vision;
    p.shape = {{t.rows, t.row_length}, 1};
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

}  // namespace

Result<LlamaFactoryMemory> llamafactory_memory(const FormatTables& tables, const ModelSpec& model, const LlamaFactorySettings& s) {
  if (model.parameters_only > 0) {
    return make_error("llamafactory.model", "model", "model: LLaMA-Factory's freeze tuning picks parameters by name; give the model's architecture, not only its count");
  }
  if (s.per_device_train_batch_size < 1 || s.per_device_train_batch_size > kMaxMicroBatch) {
    return make_error("llamafactory.out_of_range", "per_device_train_batch_size", "per_device_train_batch_size: 1 to " + std::to_string(kMaxMicroBatch));
  }
  if (s.cutoff_len < 1 || s.cutoff_len > kMaxTrainingSequence) {
    return make_error("llamafactory.out_of_range", "cutoff_len", "cutoff_len: 1 to " + std::to_string(kMaxTrainingSequence));
  }
  const int64_t L = model.layers;
  const bool named = has_llama_names(model.architecture);
  int64_t names = 0;  // one per expert of a stacked tensor: bounded, as transformers' models are
  for (const TensorShape& t : enumerate_tensors(model)) names = sat_add(names, named ? t.copies : 1);
  if (names > kMaxNamedParameters) {
    return make_error("llamafactory.model", "model", "model: more than " + std::to_string(kMaxNamedParameters) + " parameters by name");
  }
  LlamaFactoryMemory m;
  std::vector<NamedParameter> params = named_parameters(model, named);

  // _setup_freeze_tuning; finetuning_type full: every parameter (_setup_full_tuning, the vision
  // tower frozen by default as freeze_vision_tower says).
  std::vector<std::string>& patterns = m.trainable_patterns;
  if (s.finetuning_type == LlamaFactoryFinetuning::freeze) {
    const int64_t n = s.freeze_trainable_layers;
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
      for (int64_t i : m.trainable_layer_ids) patterns.push_back("." + std::to_string(i) + "." + (module == "all" ? "" : module));
    }
    for (const std::string& module : s.freeze_extra_modules) {
      if (!named) {
        return make_error("llamafactory.unsupported", "freeze_extra_modules", "freeze_extra_modules: vramfit does not know " + model.architecture + "'s module names");
      }
      if (outside.count(module) == 0) return module_error("freeze_extra_modules", module, outside);
      patterns.push_back(module);
    }
  }

  const bool half_trainable = s.pure_bf16;
  const int64_t compute = 2, trainable_bytes = half_trainable ? 2 : 4;
  std::vector<ParamTensor> trainable;
  std::vector<bool> layer_trains(static_cast<size_t>(std::max<int64_t>(L, 0)), false);
  bool embeddings_train = false;
  int64_t trainable_matmul = 0;
  for (const NamedParameter& p : params) {
    m.parameters = sat_add(m.parameters, p.elements);
    bool trains = !p.vision;
    if (trains && s.finetuning_type == LlamaFactoryFinetuning::freeze) {
      trains = std::any_of(patterns.begin(), patterns.end(), [&](const std::string& x) { return contains(p.name, x); });
    }
    if (!trains) {
      m.frozen_weights = sat_add(m.frozen_weights, sat_mul(p.elements, compute));
      continue;
    }
    m.trainable_parameters = sat_add(m.trainable_parameters, p.elements);
    ParamTensor shape = p.shape;
    shape.dims = {p.elements};
    trainable.push_back(shape);
    if (p.matmul) trainable_matmul = sat_add(trainable_matmul, p.elements);
    if (p.layer >= 0 && p.layer < L) layer_trains[static_cast<size_t>(p.layer)] = true;
    if (p.name == "model.embed_tokens.weight" || p.name == "model.embed_positions.weight") embeddings_train = true;
  }
  if (m.trainable_parameters == 0) {
    return make_error("llamafactory.bad_value", "freeze_trainable_layers", "freeze_trainable_layers: no parameter of this model would train");
  }
  m.trainable_weights = sat_mul(m.trainable_parameters, trainable_bytes);
  m.gradients = sat_mul(m.trainable_parameters, trainable_bytes);
  m.optimizer = optimizer_state(Optimizer::adamw, trainable, trainable_bytes, s.fused_adamw).total();
  if (!s.fused_adamw) m.foreach_transient = sat_mul(m.trainable_parameters, trainable_bytes);  // _multi_tensor_adam's sqrt(exp_avg_sq)
  if (!s.pure_bf16) m.autocast_copies = sat_mul(trainable_matmul, 2);

  // Activations: vramfit's per-layer terms (core/training) with and without checkpointing.
  TrainingSettings t;
  t.recipe = s.pure_bf16 ? PrecisionRecipe::bf16 : (s.bf16 ? PrecisionRecipe::amp_bf16 : PrecisionRecipe::amp_fp16);
  t.micro_batch = s.per_device_train_batch_size;
  t.sequence_length = s.cutoff_len;
  t.flash_attention = s.memory_efficient_attention;
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
    if (layer_trains[static_cast<size_t>(i)]) { m.lowest_trainable_layer = i; break; }
  }
  if (embeddings_train) m.lowest_trainable_layer = 0;
  int64_t largest_checkpointed = 0;
  for (int64_t i = m.lowest_trainable_layer; i < L; ++i) {
    const int64_t full = model.is_moe_layer(i) ? moe_full : dense_full;
    if (s.gradient_checkpointing && layer_trains[static_cast<size_t>(i)]) {
      m.activations = sat_add(m.activations, kept_input);
      largest_checkpointed = std::max(largest_checkpointed, full);
      ++m.checkpointed_layers;
    } else {
      m.activations = sat_add(m.activations, full);
    }
  }
  m.recompute_working = largest_checkpointed;
  m.logits = plain->logits;
  for (int64_t v : {m.frozen_weights, m.trainable_weights, m.gradients, m.optimizer, m.foreach_transient, m.autocast_copies,
                    m.activations, m.recompute_working, m.logits}) {
    m.peak = sat_add(m.peak, v);
  }
  return m;
}

std::string llamafactory_param_stats(const LlamaFactoryMemory& m) {
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.4f", m.parameters > 0 ? 100.0 * static_cast<double>(m.trainable_parameters) / static_cast<double>(m.parameters) : 0.0);
  return "trainable params: " + with_thousands(m.trainable_parameters) + " || all params: " + with_thousands(m.parameters) +
         " || trainable%: " + percent;
}

}  // namespace vramfit
