#include "training.hpp"

#include <algorithm>

namespace vramfit {

namespace {

struct Named { int value; const char* id; };
constexpr Named kRecipes[] = {{0, "fp32"}, {1, "amp_bf16"}, {2, "amp_fp16"}, {3, "mixed_bf16"}, {4, "mixed_fp16"}, {5, "bf16"}};
constexpr Named kShardings[] = {{0, "none"}, {1, "zero1"}, {2, "zero2"}, {3, "zero3"}, {4, "fsdp"}};
constexpr Named kMethods[] = {{0, "full"}, {1, "lora"}, {2, "qlora"}};
constexpr Named kRecomputes[] = {{0, "none"}, {1, "selective"}, {2, "full"}};
constexpr const char* kLoraTargetNames[] = {"q", "k", "v", "o", "gate", "up", "down"};

template <class E, size_t N>
bool parse_named(const Named (&table)[N], const std::string& id, E& out) {
  for (const Named& n : table) if (id == n.id) { out = static_cast<E>(n.value); return true; }
  return false;
}

bool is_layer_matrix(TensorRole role) {
  switch (role) {
    case TensorRole::token_embd: case TensorRole::position_embd: case TensorRole::output: case TensorRole::vector:
    case TensorRole::router:
      return false;
    default:
      return true;
  }
}

// Which LoRA target (PEFT target_modules name) a weight matrix is; 0 for none.
uint32_t lora_target_of(TensorRole role) {
  switch (role) {
    case TensorRole::attn_q: case TensorRole::attn_q_a: case TensorRole::attn_q_b: return lora_q;
    case TensorRole::attn_k: case TensorRole::attn_kv_a: case TensorRole::attn_kv_b: return lora_k;
    case TensorRole::attn_v: return lora_v;
    case TensorRole::attn_qkv: return lora_q | lora_k | lora_v;
    case TensorRole::attn_output: return lora_o;
    case TensorRole::ffn_gate: case TensorRole::ffn_gate_exps: case TensorRole::ffn_gate_shexp: return lora_gate;
    case TensorRole::ffn_up: case TensorRole::ffn_up_exps: case TensorRole::ffn_up_shexp: return lora_up;
    case TensorRole::ffn_down: case TensorRole::ffn_down_exps: case TensorRole::ffn_down_shexp: return lora_down;
    default: return 0;
  }
}

ParamTensor param_of(const TensorShape& t) {
  ParamTensor p;
  p.dims = t.role == TensorRole::vector && t.rows == 1 ? std::vector<int64_t>{t.row_length}
                                                       : std::vector<int64_t>{t.rows, t.row_length};
  p.copies = t.copies;
  return p;
}

int64_t shard(int64_t bytes, int64_t n) { return ceil_div(bytes, n); }

}  // namespace

const char* recipe_id(PrecisionRecipe r) { return kRecipes[static_cast<int>(r)].id; }
bool parse_recipe(const std::string& id, PrecisionRecipe& r) { return parse_named(kRecipes, id, r); }
const char* sharding_id(Sharding s) { return kShardings[static_cast<int>(s)].id; }
bool parse_sharding(const std::string& id, Sharding& s) { return parse_named(kShardings, id, s); }
const char* fine_tuning_id(FineTuning m) { return kMethods[static_cast<int>(m)].id; }
bool parse_fine_tuning(const std::string& id, FineTuning& m) { return parse_named(kMethods, id, m); }
const char* recompute_id(Recompute r) { return kRecomputes[static_cast<int>(r)].id; }
bool parse_recompute(const std::string& id, Recompute& r) { return parse_named(kRecomputes, id, r); }

std::string lora_targets_text(uint32_t targets) {
  std::string s;
  for (int i = 0; i < 7; ++i) {
    if (targets & (1u << i)) s += (s.empty() ? "" : ",") + std::string(kLoraTargetNames[i]);
  }
  return s;
}

bool parse_lora_target(const std::string& name, uint32_t& bit) {
  for (int i = 0; i < 7; ++i) if (name == kLoraTargetNames[i]) { bit = 1u << i; return true; }
  return false;
}

RecipeBytes recipe_bytes(PrecisionRecipe r) noexcept {
  switch (r) {
    case PrecisionRecipe::fp32: return {4, 4, 0, 4, 4};
    case PrecisionRecipe::amp_bf16: case PrecisionRecipe::amp_fp16: return {4, 4, 0, 4, 2};
    case PrecisionRecipe::mixed_bf16: return {2, 4, 4, 4, 2};
    case PrecisionRecipe::mixed_fp16: return {2, 2, 4, 4, 2};
    case PrecisionRecipe::bf16: return {2, 2, 0, 2, 2};
  }
  return {4, 4, 0, 4, 4};
}

int64_t LayerActivations::total() const noexcept {
  int64_t t = 0;
  for (int64_t v : {attention_norm_input, qkv_input, query_key, value, softmax, attention_dropout, flash_lse,
                    output_projection_input, residual_dropout, mlp_norm_input, mlp, router, lora}) {
    t = sat_add(t, v);
  }
  return t;
}

namespace {

// One layer's activations (Korthikanti et al. 2022, "Reducing Activation Recomputation in
// Large Transformer Models", section 4.1, generalised): for a GPT layer with 2-byte
// activations, dropout and no flash attention the terms sum to s*b*h*(34 + 5*a*s/h).
LayerActivations layer_activations(const ModelSpec& m, const TrainingSettings& t, int64_t e, bool moe_layer,
                                   int64_t lora_modules) noexcept {
  LayerActivations a;
  const int64_t sb = sat_mul(t.micro_batch, t.sequence_length);
  const int64_t s = t.sequence_length, b = t.micro_batch;
  const int64_t h = m.hidden_size, heads = m.attention_heads;
  const int64_t head_dim = m.head_dim > 0 ? m.head_dim : h / heads;
  int64_t q_dim = heads * head_dim, k_dim = m.kv_heads * head_dim, v_dim = k_dim, o_dim = heads * head_dim;
  if (m.uses_mla()) {  // MLA: q and k decompressed per head (nope + rope), v per head
    q_dim = k_dim = heads * (m.qk_nope_head_dim + m.qk_rope_head_dim);
    v_dim = o_dim = heads * m.v_head_dim;
  }
  a.attention_norm_input = sat_mul(e, sb, h);      // the norm saves its input
  a.qkv_input = sat_mul(e, sb, h);                 // q, k, v projections save the norm's output
  a.query_key = sat_mul(e, sb, q_dim + k_dim);     // QK^T saves Q and K
  a.value = sat_mul(e, sb, v_dim);                 // attention over V saves V
  const bool scores_kept = !t.flash_attention && t.recompute == Recompute::none;
  if (scores_kept) {
    a.softmax = sat_mul(e, heads, s, s, b);        // softmax output (2as^2b at 2 B)
    if (t.dropout) a.attention_dropout = sat_add(sat_mul(heads, s, s, b), sat_mul(e, heads, s, s, b));  // mask + output
  }
  if (t.flash_attention) a.flash_lse = sat_mul(4, heads, s, b);  // fp32 log-sum-exp per row
  a.output_projection_input = sat_mul(e, sb, o_dim);
  if (t.dropout) a.residual_dropout = sat_mul(2, sb, h);  // two 1-byte masks (attention out, MLP out)
  a.mlp_norm_input = sat_mul(e, sb, h);
  int64_t f = m.intermediate_size, mlp_tokens = 1;
  if (moe_layer) {
    // Routed experts see each token experts_per_token times; shared experts every token.
    f = sat_add(sat_mul(m.experts_per_token, m.moe_intermediate_size), sat_mul(m.shared_experts, m.shared_expert_intermediate_size));
    a.router = sat_mul(4, sb, m.experts);          // fp32 router logits / probabilities
    mlp_tokens = m.experts_per_token;
  }
  // Gated MLP: gate and up save the input, SiLU its input (gate out), the product its two
  // operands (SiLU out, up out), down its input: h + 4f. Plain: fc1 input, GELU input, fc2 input: h + 2f.
  const int64_t mlp_width = sat_add(sat_mul(h, mlp_tokens), sat_mul(m.mlp == MlpKind::gated ? 4 : 2, f));
  a.mlp = sat_mul(e, sb, mlp_width);
  if (t.method != FineTuning::full) a.lora = sat_mul(4, sb, t.lora_rank, lora_modules);  // x A, fp32
  if (t.recompute == Recompute::full) {
    LayerActivations only_input;
    only_input.attention_norm_input = sat_mul(e, sb, h);  // 2sbh per layer at 2 B
    return only_input;
  }
  return a;
}

}  // namespace

Result<TrainingMemory> training_memory(const FormatTables& tables, const ModelSpec& model, const TrainingSettings& t) {
  if (model.is_recurrent() || model.is_hybrid() || model.is_encoder_decoder() || model.cross_attention_layer_count() > 0) {
    return make_error("training.model", "model",
                      "model: training activations are modelled for decoder and encoder transformers; " + model.architecture +
                          (model.is_recurrent() || model.is_hybrid() ? "'s recurrent layers"
                           : model.is_encoder_decoder() ? "'s encoder-decoder stacks"
                                                        : "'s cross-attention layers") +
                          " are not yet (describe the network layer by layer instead)");
  }
  if (model.layers < 1 || model.hidden_size < 1 || model.attention_heads < 1 || model.kv_heads < 1 || model.vocab_size < 1) {
    return make_error("training.model", "model", "model: training needs layers, hidden size, heads and vocabulary");
  }
  if (model.intermediate_size < 1 && !model.is_moe()) {
    return make_error("training.model", "model.intermediate_size", "model.intermediate_size: needed for the MLP activations");
  }
  const bool from_count = model.parameters_only > 0;
  if (from_count && t.method != FineTuning::full) {
    return make_error("training.model", "training.method",
                      "training.method: LoRA and QLoRA need the model's architecture, not only its parameter count");
  }
  if (t.gpu_count < 1 || t.gpu_count > 4096) return make_error("training.out_of_range", "training.gpu_count", "training.gpu_count: 1 to 4096");
  const RecipeBytes r = recipe_bytes(t.recipe);
  TrainingMemory m;
  const std::vector<TensorShape> tensors = enumerate_tensors(model);
  m.parameters = count_parameters(model);
  std::vector<ParamTensor> trainable;
  int64_t matmul_params = 0, lora_modules_dense = 0, lora_modules_moe = 0;
  std::vector<int64_t> layer_bytes(static_cast<size_t>(model.layers), 0);
  int nf4 = tables.find_storage(t.qlora_double_quant ? "nf4_dq" : "nf4");
  if (t.method == FineTuning::qlora && nf4 < 0) return make_error("training.tables", "training.method", "training.method: NF4 layout missing");
  for (const TensorShape& x : tensors) {
    const bool uses_matmul = is_layer_matrix(x.role) || x.role == TensorRole::output ||
                             (x.role == TensorRole::token_embd && model.tied_embeddings);
    if (uses_matmul) matmul_params = sat_add(matmul_params, x.elements());
    int64_t stored = 0;  // bytes as held on the GPU
    if (t.method == FineTuning::full) {
      trainable.push_back(param_of(x));
      stored = sat_mul(x.elements(), r.weight);
    } else {
      const uint32_t target = lora_target_of(x.role);
      if (target & t.lora_targets) {
        // PEFT: A is [r, in], B is [out, r] per module (per expert for stacked experts).
        trainable.push_back({{t.lora_rank, x.row_length}, x.copies});
        trainable.push_back({{x.rows, t.lora_rank}, x.copies});
        const bool moe = x.layer >= 0 && model.is_moe_layer(x.layer);
        int64_t copies = is_expert_role(x.role) ? model.experts_per_token : 1;
        (moe ? lora_modules_moe : lora_modules_dense) += copies;
      }
      if (t.method == FineTuning::qlora) {
        // bitsandbytes quantizes the layers' linear weights; PEFT's prepare_model_for_kbit_training
        // upcasts everything else (embeddings, lm_head, norms) to fp32.
        stored = is_layer_matrix(x.role) ? storage_bytes(tables.storage_types[static_cast<size_t>(nf4)], x.row_length, x.rows, x.copies)
                                         : sat_mul(x.elements(), 4);
      } else {
        stored = sat_mul(x.elements(), r.weight);  // the frozen base in the recipe's weight dtype
      }
      m.frozen_weights = sat_add(m.frozen_weights, stored);
    }
    if (x.layer >= 0 && x.layer < model.layers) {
      layer_bytes[static_cast<size_t>(x.layer)] = sat_add(layer_bytes[static_cast<size_t>(x.layer)], stored);
    }
  }
  // Dense layers of a MoE model carry their own targets: count them per layer kind.
  if (t.method != FineTuning::full) {
    const int64_t moe_layers = model.moe_layer_count();
    const int64_t dense_layers = model.layers - moe_layers;
    lora_modules_dense = dense_layers > 0 ? lora_modules_dense / dense_layers : 0;
    lora_modules_moe = moe_layers > 0 ? lora_modules_moe / moe_layers : 0;
    if (trainable.empty()) {
      return make_error("training.bad_value", "training.lora.targets", "training.lora.targets: no module of this model matches");
    }
  }
  if (from_count) {
    trainable.push_back({{model.parameters_only}, 1});
    matmul_params = model.parameters_only;
  }
  const int64_t N = t.sharding == Sharding::none ? 1 : t.gpu_count;
  for (const ParamTensor& p : trainable) {
    m.trainable_parameters = sat_add(m.trainable_parameters, sat_mul(p.elements(), p.copies));
    m.trainable_tensors = sat_add(m.trainable_tensors, p.copies);
  }
  const bool adapters = t.method != FineTuning::full;
  // Adapters are fp32 whatever the recipe (PEFT autocast_adapter_dtype): no master copy needed.
  const int64_t w = adapters ? 4 : r.weight, g = adapters ? 4 : r.gradient, master = adapters ? 0 : r.master;
  const int64_t state_bytes = adapters ? 4 : r.state;
  m.optimizer_full = optimizer_state(t.optimizer, trainable, state_bytes, t.fused_optimizer);
  const int64_t weights_full = sat_mul(m.trainable_parameters, w);
  const int64_t grads_full = sat_mul(m.trainable_parameters, g);
  const int64_t master_full = sat_mul(m.trainable_parameters, master);
  const bool shard_states = t.sharding != Sharding::none;
  const bool shard_grads = t.sharding == Sharding::zero2 || t.sharding == Sharding::zero3 || t.sharding == Sharding::fsdp;
  const bool shard_weights = t.sharding == Sharding::zero3 || t.sharding == Sharding::fsdp;
  m.weights = shard_weights ? shard(weights_full, N) : weights_full;
  m.frozen_weights = shard_weights ? shard(m.frozen_weights, N) : m.frozen_weights;
  m.gradients = shard_grads ? shard(grads_full, N) : grads_full;
  m.master = shard_states ? shard(master_full, N) : master_full;
  m.optimizer = shard_states ? shard(m.optimizer_full.total(), N) : m.optimizer_full.total();
  if (t.foreach_transient && (t.optimizer == Optimizer::adam || t.optimizer == Optimizer::adamw)) {
    // _multi_tensor_adam: torch._foreach_sqrt(exp_avg_sqs) is a full state-sized temporary.
    const int64_t one_state = sat_mul(m.trainable_parameters, state_bytes);
    m.foreach_transient = shard_states ? shard(one_state, N) : one_state;
  }
  if (t.recipe == PrecisionRecipe::amp_bf16 || t.recipe == PrecisionRecipe::amp_fp16) {
    m.autocast_copies = sat_mul(matmul_params, 2);  // autocast's cast cache, alive until backward
    if (shard_weights) m.autocast_copies = shard(m.autocast_copies, N);
  }
  if (shard_weights) {
    int64_t largest = 0;
    for (int64_t v : layer_bytes) largest = std::max(largest, v);
    if (from_count) largest = ceil_div(weights_full, model.layers);
    m.gathered = sat_mul(2, largest);  // the layer being computed + the one prefetched
  }
  m.lora_modules_dense = lora_modules_dense;
  m.lora_modules_moe = lora_modules_moe;
  m.runtime = t.runtime_bytes;
  return retotal_training(model, t, m);
}

namespace {

// The items that depend on micro-batch and sequence length.
struct WorkloadParts {
  LayerActivations layer;
  int64_t activations = 0, recompute_working = 0, logits = 0;
  int64_t total() const noexcept { return sat_add(sat_add(activations, recompute_working), logits); }
};

WorkloadParts workload_parts(const ModelSpec& model, const TrainingSettings& t, const TrainingMemory& base) noexcept {
  WorkloadParts w;
  const int64_t e = recipe_bytes(t.recipe).activation;
  const int64_t moe_layers = model.moe_layer_count();
  const int64_t dense_layers = model.layers - moe_layers;
  const LayerActivations dense = layer_activations(model, t, e, false, base.lora_modules_dense);
  const LayerActivations moe = moe_layers > 0 ? layer_activations(model, t, e, true, base.lora_modules_moe) : dense;
  w.layer = moe_layers > 0 ? moe : dense;
  w.activations = sat_add(sat_mul(dense.total(), dense_layers), sat_mul(moe.total(), moe_layers));
  if (t.recompute == Recompute::full) {
    TrainingSettings again = t;
    again.recompute = Recompute::none;
    w.recompute_working = layer_activations(model, again, e, moe_layers > 0, moe_layers > 0 ? base.lora_modules_moe : base.lora_modules_dense).total();
  }
  const int64_t sb = sat_mul(t.micro_batch, t.sequence_length);
  // Final norm input + lm_head input (activation dtype) + fp32 logits (Transformers upcasts
  // them for the loss) + log-softmax output saved by the cross-entropy.
  w.logits = sat_add(sat_mul(2, e, sb, model.hidden_size), sat_mul(8, sb, model.vocab_size));
  return w;
}

// The safety margin on a subtotal, as training_memory() adds it.
int64_t margin_bytes(int64_t subtotal, double margin_fraction) noexcept {
  return static_cast<int64_t>(static_cast<double>(subtotal) * margin_fraction);
}

}  // namespace

int64_t training_fixed_bytes(const TrainingMemory& m) noexcept {
  int64_t sum = 0;
  for (int64_t v : {m.frozen_weights, m.weights, m.master, m.gradients, m.optimizer, m.foreach_transient, m.autocast_copies,
                    m.gathered, m.runtime}) {
    sum = sat_add(sum, v);
  }
  return sum;
}

TrainingMemory retotal_training(const ModelSpec& model, const TrainingSettings& t, const TrainingMemory& base) {
  TrainingMemory m = base;
  const WorkloadParts w = workload_parts(model, t, base);
  m.layer = w.layer;
  m.activations = w.activations;
  m.recompute_working = w.recompute_working;
  m.logits = w.logits;
  m.subtotal = sat_add(training_fixed_bytes(m), w.total());
  m.margin = margin_bytes(m.subtotal, t.margin_fraction);
  m.total = sat_add(m.subtotal, m.margin);
  return m;
}

int64_t training_workload_bytes(const ModelSpec& model, const TrainingSettings& t, const TrainingMemory& base) noexcept {
  return workload_parts(model, t, base).total();
}

int64_t with_training_margin(int64_t subtotal, double margin_fraction) noexcept {
  return sat_add(subtotal, margin_bytes(subtotal, margin_fraction));
}

int64_t retotal_training_bytes(const ModelSpec& model, const TrainingSettings& t, const TrainingMemory& base) noexcept {
  return with_training_margin(sat_add(training_fixed_bytes(base), training_workload_bytes(model, t, base)), t.margin_fraction);
}

}  // namespace vramfit
