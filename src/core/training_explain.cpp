// The training breakdown as text: every item of training_memory() with its formula and the
// numbers in it. Kept apart from the arithmetic (training.cpp), which the page builds for
// speed; this part is built for size.
#include <string>

#include "training.hpp"

namespace vramfit {

namespace {

std::string n(int64_t v) { return with_thousands(v); }

}  // namespace

Breakdown explain_training(const ModelSpec& model, const TrainingSettings& t, const TrainingMemory& m) {
  Breakdown b;
  b.mode = "training";
  b.gpu_count = t.gpu_count;
  const RecipeBytes r = recipe_bytes(t.recipe);
  const bool adapters = t.method != FineTuning::full;
  const int64_t N = t.sharding == Sharding::none ? 1 : t.gpu_count;
  const std::string per = N > 1 ? " / " + std::to_string(N) + " GPUs" : "";
  const std::string tp = n(m.trainable_parameters);
  const std::string who = adapters ? "LoRA adapter parameters (fp32)" : "trainable parameters";
  const bool shard_weights = t.sharding == Sharding::zero3 || t.sharding == Sharding::fsdp;
  const bool shard_grads = shard_weights || t.sharding == Sharding::zero2;
  if (adapters) {
    const std::string base = t.method == FineTuning::qlora
        ? std::string("layer matrices in NF4") + (t.qlora_double_quant ? " + double quantization" : "") +
              "; embeddings, lm_head and norms upcast to fp32 (PEFT prepare_model_for_kbit_training)"
        : "all " + n(m.parameters) + " parameters x " + std::to_string(r.weight) + " B";
    b.items.push_back({"weights.frozen", "Frozen base model", m.frozen_weights, base + (shard_weights ? per : "") + " = " + n(m.frozen_weights) + " B",
                       "No gradients and no optimizer state for the frozen weights.", {}});
  }
  b.items.push_back({"weights", adapters ? "LoRA adapters" : "Weights", m.weights,
                     tp + " " + who + " x " + std::to_string(adapters ? 4 : r.weight) + " B" + (shard_weights ? per : "") +
                         " = " + n(m.weights) + " B",
                     adapters ? "rank " + std::to_string(t.lora_rank) + " on " + lora_targets_text(t.lora_targets) +
                                    ": A is r x in, B is out x r; PEFT keeps adapters in fp32."
                              : std::string("Precision recipe ") + recipe_id(t.recipe) + ".", {}});
  if (m.master > 0) {
    b.items.push_back({"master", "fp32 master weights", m.master,
                       tp + " x 4 B" + (t.sharding != Sharding::none ? per : "") + " = " + n(m.master) + " B",
                       "Mixed precision keeps an fp32 copy for the optimizer update (ZeRO: part of the optimizer state).", {}});
  }
  b.items.push_back({"gradients", "Gradients", m.gradients,
                     tp + " x " + std::to_string(adapters ? 4 : r.gradient) + " B" + (shard_grads ? per : "") + " = " + n(m.gradients) + " B",
                     "Gradient accumulation over micro-batches reuses these buffers: it adds no memory.", {}});
  b.items.push_back({"optimizer", std::string("Optimizer state: ") + optimizer_label(t.optimizer), m.optimizer,
                     m.optimizer_full.formula + (t.sharding != Sharding::none ? per : "") + " = " + n(m.optimizer) + " B",
                     t.sharding != Sharding::none ? std::string(sharding_id(t.sharding)) + ": optimizer state split over the GPUs." : "", {}});
  if (m.foreach_transient > 0) {
    b.items.push_back({"optimizer.foreach", "foreach Adam temporary", m.foreach_transient,
                       "one state-sized temporary (sqrt of exp_avg_sq) = " + n(m.foreach_transient) + " B",
                       "torch.optim's multi-tensor Adam holds it during step(), after the activations are freed.", {}});
  }
  if (m.autocast_copies > 0) {
    b.items.push_back({"autocast", "16-bit weight copies (autocast)", m.autocast_copies,
                       "matmul weights x 2 B = " + n(m.autocast_copies) + " B",
                       "torch.autocast caches the cast weights for the step; the matmuls save them for backward.", {}});
  }
  if (m.gathered > 0) {
    b.items.push_back({"gathered", "All-gathered layers", m.gathered, "2 x the largest layer's weights = " + n(m.gathered) + " B",
                       "ZeRO-3 / FSDP gather each layer's full weights to compute it; with prefetch two are whole at once.", {}});
  }
  const LayerActivations& L = m.layer;
  BreakdownItem a{"activations", "Activations", m.activations, "", "", {}};
  const int64_t moe_layers = model.moe_layer_count();
  a.formula = (moe_layers > 0 ? "dense and MoE layers" : n(model.layers) + " layers x " + n(L.total()) + " B") +
              " = " + n(m.activations) + " B";
  a.note = "Per layer after Korthikanti et al. 2022: s*b*h*(34 + 5*a*s/h) for a GPT layer with 2-byte activations and "
           "dropout; here term by term for this model (GQA, gated MLP, flash attention). Micro-batch " +
           n(t.micro_batch) + ", sequence " + n(t.sequence_length) + ".";
  auto child = [&a](const char* id, const char* label, int64_t bytes, const std::string& f) {
    if (bytes > 0) a.children.push_back({std::string("activations.") + id, label, bytes, f + " = " + with_thousands(bytes) + " B", "", {}});
  };
  // Numbers for the formulas.
  const std::string e = std::to_string(r.activation) + " B", sb = n(t.sequence_length) + " x " + n(t.micro_batch);
  const int64_t heads = model.attention_heads;
  // A per-layer item's width in elements per token, for the formulas.
  const int64_t token_bytes = std::max<int64_t>(1, r.activation * t.sequence_length * t.micro_batch);
  auto width = [&](int64_t bytes) { return n(bytes / token_bytes); };
  const std::string h = n(model.hidden_size);
  if (t.recompute == Recompute::full) {
    child("layer_inputs", "Layer inputs (full recomputation)", m.activations,
          n(model.layers) + " layers x " + e + " x " + sb + " x " + h + " (only each layer's input)");
  } else {
    const std::string per = " (per layer)";
    child("attention_norm", "Attention norm input", L.attention_norm_input, e + " x " + sb + " x " + h + per);
    child("qkv_input", "Q/K/V projection input", L.qkv_input, e + " x " + sb + " x " + h + per);
    child("query_key", "Q and K", L.query_key,
          e + " x " + sb + " x (q " + width(L.query_key - L.value) + " + k " + width(L.value) + ")" + per);
    child("value", "V", L.value, e + " x " + sb + " x " + width(L.value) + per);
    child("softmax", "Attention probabilities", L.softmax, e + " x " + n(heads) + " heads x " + n(t.sequence_length) + "^2 x " + n(t.micro_batch) + per);
    child("attention_dropout", "Attention dropout (mask + output)", L.attention_dropout,
          "(1 B + " + e + ") x " + n(heads) + " heads x " + n(t.sequence_length) + "^2 x " + n(t.micro_batch) + per);
    child("flash_lse", "Flash attention log-sum-exp", L.flash_lse, "4 B x " + n(heads) + " heads x " + sb + per);
    child("output_projection", "Output projection input", L.output_projection_input,
          e + " x " + sb + " x " + width(L.output_projection_input) + per);
    child("residual_dropout", "Residual dropout masks", L.residual_dropout, "2 x 1 B x " + sb + " x " + h + per);
    child("mlp_norm", "MLP norm input", L.mlp_norm_input, e + " x " + sb + " x " + h + per);
    child("mlp", "MLP", L.mlp,
          e + " x " + sb + " x " + width(L.mlp) +
              (model.mlp == MlpKind::gated ? " (h + 4 x f: gate/up input, SiLU in, SiLU out, up out, down input)"
                                           : " (h + 2 x f: fc1 input, activation input, fc2 input)") + per);
    child("router", "Router logits (fp32)", L.router, "4 B x " + sb + " x " + n(model.experts) + " experts" + per);
    child("lora", "LoRA intermediates (x A, fp32)", L.lora, "4 B x " + sb + " x rank " + n(t.lora_rank) + " x target modules" + per);
  }
  b.items.push_back(std::move(a));
  if (m.recompute_working > 0) {
    b.items.push_back({"recompute", "One layer recomputed in backward", m.recompute_working,
                       "one layer's activations without recomputation = " + n(m.recompute_working) + " B",
                       "Full recomputation rebuilds each layer's activations while its backward runs.", {}});
  }
  b.items.push_back({"logits", "Logits and loss", m.logits,
                     "2 x " + std::to_string(r.activation) + " B x " + n(t.sequence_length) + " x " + n(t.micro_batch) + " x " +
                         n(model.hidden_size) + " (final norm, lm_head inputs) + 2 x 4 B x " + n(t.sequence_length) + " x " +
                         n(t.micro_batch) + " x " + n(model.vocab_size) + " vocab (fp32 logits, log-softmax) = " + n(m.logits) + " B",
                     "Transformers upcasts the logits to fp32 for the cross-entropy.", {}});
  add_runtime_and_margin(b, m.runtime, t.margin_fraction, m.subtotal, m.margin);
  b.total_bytes = m.total;
  if (moe_layers > 0) b.warnings.push_back("MoE activations are an estimate: routed tokens are counted experts_per_token times.");
  if (model.uses_mla()) b.warnings.push_back("MLA activations are an estimate: q/k/v taken decompressed per head.");
  if (adapters) b.assumptions.push_back("LoRA activations are taken as full fine-tuning's plus the fp32 rank-r intermediates.");
  b.assumptions.push_back("Gradient accumulation adds no memory: the same gradient buffers are summed into.");
  return b;
}

void add_runtime_and_margin(Breakdown& b, int64_t runtime_bytes, double margin_fraction, int64_t subtotal, int64_t margin) {
  b.items.push_back({"runtime", "CUDA context and workspaces", runtime_bytes, with_thousands(runtime_bytes) + " B",
                     "An assumption (default 512 MiB): context, cuBLAS/NCCL workspaces, allocator slack.", {}});
  b.items.push_back({"margin", "Safety margin", margin,
                     format_percent(margin_fraction) + " x " + with_thousands(subtotal) + " B = " + with_thousands(margin) + " B",
                     "Articles 000/003: 10-30% against unexpected allocations.", {}});
}

}  // namespace vramfit
