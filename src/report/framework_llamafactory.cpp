#include "frameworks.hpp"
#include "largest_fitting.hpp"

#include <string>
#include <vector>

namespace vramfit {

namespace {

// Every process holds the whole model (DDP or a single GPU).
// base: the estimate's memory; only the batch- and length-dependent terms are recomputed.
TrainingFit llamafactory_fit(const FormatTables& tables, const ModelSpec& model, const LlamaFactorySettings& s, const LlamaFactoryMemory& base,
                             const TrainingSettings& t, int64_t required, int64_t capacity) {
  auto peak = [&](LlamaFactorySettings other) {
    auto m = llamafactory_workload(tables, model, other, base);
    return m ? m->peak : int64_t(-1);
  };
  return one_gpu_training_fit(
      t, required, capacity, [&](int64_t b) { LlamaFactorySettings o = s; o.per_device_train_batch_size = b; return peak(o); },
      [&](int64_t n) { LlamaFactorySettings o = s; o.cutoff_len = n; return peak(o); });
}

std::string layer_list(const std::vector<int64_t>& ids) {
  std::string s;
  for (int64_t i : ids) s += (s.empty() ? "" : ", ") + std::to_string(i);
  return s.empty() ? "none" : s;
}

Breakdown llamafactory_breakdown(const LlamaFactoryReport& r, const TrainingSettings& t) {
  const LlamaFactoryMemory& m = r.memory;
  const LlamaFactorySettings& s = r.config.settings;
  const std::string dtype = s.bf16 ? "bf16" : "fp16";
  const std::string trainable_dtype = s.pure_bf16 ? "bf16 (pure_bf16)" : "fp32";
  const int64_t tb = s.pure_bf16 ? 2 : 4;
  Breakdown b;
  b.mode = "training";
  const int64_t frozen = m.parameters - m.trainable_parameters;
  b.items.push_back({"llamafactory.frozen", "Frozen weights", m.frozen_weights,
                     m.nf4_elements > 0 ? with_thousands(m.nf4_elements) + " elements in NF4 (quantization_bit 4), the other " +
                                              with_thousands(frozen - m.nf4_elements) + " x 2 B (" + dtype + ")"
                                        : with_thousands(frozen) + " parameters x 2 B (" + dtype + ")",
                     s.finetuning_type == LlamaFactoryFinetuning::lora
                         ? "the base model under PEFT (bitsandbytes' Linear4bit for every Linear but lm_head with quantization_bit 4)"
                         : "requires_grad_(False) in the compute dtype (model/adapter.py _setup_freeze_tuning)",
                     {}});
  b.items.push_back({"llamafactory.trainable", "Trainable weights", m.trainable_weights,
                     with_thousands(m.trainable_parameters) + " parameters x " + std::to_string(tb) + " B (" + trainable_dtype + ")",
                     s.finetuning_type == LlamaFactoryFinetuning::freeze
                         ? "layers " + layer_list(m.trainable_layer_ids) + " (freeze_trainable_layers " + std::to_string(s.freeze_trainable_layers) + ")"
                     : s.finetuning_type == LlamaFactoryFinetuning::lora
                         ? "LoRA rank " + std::to_string(s.lora_rank) + ": " + with_thousands(m.adapter_parameters) + " in A and B" +
                               (m.saved_module_parameters > 0 ? ", " + with_thousands(m.saved_module_parameters) + " in the additional_target copies" : "")
                         : "finetuning_type full: every parameter but the vision tower's",
                     {}});
  b.items.push_back({"llamafactory.gradients", "Gradients", m.gradients, with_thousands(m.trainable_parameters) + " x " + std::to_string(tb) + " B",
                     "one per trainable parameter, in its dtype", {}});
  b.items.push_back({"llamafactory.optimizer", "Optimizer states", sat_add(m.optimizer, m.foreach_transient),
                     with_thousands(m.trainable_parameters) + " x 2 x " + std::to_string(tb) + " B" +
                         (m.foreach_transient > 0 ? " + one state-sized temporary " + with_thousands(m.foreach_transient) + " B" : ""),
                     std::string("AdamW's exp_avg and exp_avg_sq (optim: ") + (s.fused_adamw ? "adamw_torch_fused" : "adamw_torch, foreach") + ")", {}});
  if (m.autocast_copies > 0) {
    b.items.push_back({"llamafactory.autocast", "Autocast copies", m.autocast_copies, with_thousands(m.autocast_copies / 2) + " x 2 B",
                       "16-bit copies of the fp32 trainable matmul weights, kept for backward", {}});
  }
  b.items.push_back({"llamafactory.activations", "Activations", sat_add(m.activations, m.recompute_working),
                     with_thousands(m.activations) + " B saved + " + with_thousands(m.recompute_working) + " B rebuilt",
                     "nothing below layer " + std::to_string(m.lowest_trainable_layer) + " (no input there requires grad); " +
                         (s.gradient_checkpointing ? std::to_string(m.checkpointed_layers) + " checkpointed layers keep their input, the frozen layers above them all they save"
                                                   : std::string("every layer from it keeps all it saves (disable_gradient_checkpointing)")) +
                         "; per_device_train_batch_size " + std::to_string(s.per_device_train_batch_size) + " x cutoff_len " + std::to_string(s.cutoff_len),
                     {}});
  b.items.push_back({"llamafactory.logits", "Logits and loss", m.logits, with_thousands(m.logits) + " B",
                     "the head's input, the logits and the loss's fp32 copies", {}});
  const int64_t subtotal = sat_add(m.peak, t.runtime_bytes);
  const int64_t total = with_training_margin(subtotal, t.margin_fraction);
  add_runtime_and_margin(b, t.runtime_bytes, t.margin_fraction, subtotal, total - subtotal);
  b.total_bytes = total;
  b.assumptions.push_back("every term alive at once (vramfit's Trainer rule), one process per GPU (DDP or a single GPU)");
  b.assumptions.push_back("sequences padded to cutoff_len (" + std::to_string(s.cutoff_len) + "), the longest a batch can be");
  if (!r.config.model_name_or_path.empty()) b.assumptions.push_back("model_name_or_path " + r.config.model_name_or_path + " is not read: the request's model is used");
  if (r.config.lora_dropout > 0.0) b.assumptions.push_back("lora_dropout's masks and dropped inputs are not counted");
  if (r.report.prepared.model.qk_norm) {
    b.assumptions.push_back("the q/k norms count with self_attn: with freeze_extra_modules norm LLaMA-Factory's name match would also train them (2 x head_dim a layer)");
  }
  return b;
}

}  // namespace

Result<LlamaFactoryReport> estimate_llamafactory(const Request& request, const Catalog& catalog, const json& config) {
  auto resolved = resolve_training(request, catalog);
  if (!resolved) return resolved.error();
  LlamaFactoryReport r;
  r.report = std::move(resolved).value();
  auto read = read_llamafactory_config(config);
  if (!read) return read.error();
  r.config = std::move(read).value();
  const ModelSpec& model = r.report.prepared.model;
  auto memory = llamafactory_memory(catalog.formats, model, r.config.settings);
  if (!memory) return memory.error();
  r.memory = std::move(memory).value();
  const TrainingSettings& t = request.training;
  r.report.breakdown = llamafactory_breakdown(r, t);
  r.report.training_fit = llamafactory_fit(catalog.formats, model, r.config.settings, r.memory, t, r.report.breakdown.total_bytes, r.report.gpu.usable_bytes());
  if (request.compare_gpus) {
    for (const Gpu& gpu : catalog.gpus) {
      r.report.gpus.push_back(GpuVerdict{&gpu, {}, llamafactory_fit(catalog.formats, model, r.config.settings, r.memory, t, r.report.breakdown.total_bytes, gpu.usable_bytes())});
    }
  }
  TrainingSettings& shown = r.report.request.training;
  const LlamaFactorySettings& s = r.config.settings;
  shown.method = s.finetuning_type != LlamaFactoryFinetuning::lora ? FineTuning::full : s.quantization_bit == 4 ? FineTuning::qlora : FineTuning::lora;
  shown.micro_batch = s.per_device_train_batch_size;
  shown.sequence_length = s.cutoff_len;
  shown.recipe = llamafactory_recipe(s);
  shown.recompute = s.gradient_checkpointing ? Recompute::full : Recompute::none;
  shown.sharding = Sharding::none;
  r.report.training.parameters = r.memory.parameters;
  r.report.training.trainable_parameters = r.memory.trainable_parameters;
  return r;
}

json llamafactory_report_to_json(const LlamaFactoryReport& r) {
  json j = report_to_json(r.report);
  j.erase("training");
  const LlamaFactoryMemory& m = r.memory;
  const LlamaFactorySettings& s = r.config.settings;
  j["llamafactory"] = {{"finetuning_type", llamafactory_finetuning_name(s.finetuning_type)},
                       {"adapter_parameters", m.adapter_parameters},
                       {"saved_module_parameters", m.saved_module_parameters},
                       {"nf4_elements", m.nf4_elements},
                       {"lora_modules", m.lora_modules},
                       {"given", r.config.given},
                       {"skipped", r.config.skipped},
                       {"trainable_layer_ids", m.trainable_layer_ids},
                       {"trainable_patterns", m.trainable_patterns},
                       {"parameters", m.parameters},
                       {"trainable_parameters", m.trainable_parameters},
                       {"lowest_trainable_layer", m.lowest_trainable_layer},
                       {"checkpointed_layers", m.checkpointed_layers},
                       {"frozen_weight_bytes", m.frozen_weights},
                       {"trainable_weight_bytes", m.trainable_weights},
                       {"gradient_bytes", m.gradients},
                       {"optimizer_bytes", m.optimizer},
                       {"foreach_transient_bytes", m.foreach_transient},
                       {"autocast_copy_bytes", m.autocast_copies},
                       {"activation_bytes", m.activations},
                       {"recompute_working_bytes", m.recompute_working},
                       {"logits_bytes", m.logits},
                       {"peak_bytes", m.peak},
                       {"printed", llamafactory_param_stats(m)}};
  return j;
}

}  // namespace vramfit
