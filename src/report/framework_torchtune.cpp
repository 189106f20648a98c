#include "frameworks.hpp"
#include "largest_fitting.hpp"

#include <algorithm>
#include <cstdio>

namespace vramfit {

namespace {

const char* optimizer_component(TorchtuneOptimizer o) {
  switch (o) {
    case TorchtuneOptimizer::adamw: return "torch.optim.AdamW";
    case TorchtuneOptimizer::paged_adamw_8bit: return "bitsandbytes.optim.PagedAdamW8bit";
    case TorchtuneOptimizer::paged_adamw: return "bitsandbytes.optim.PagedAdamW";
    case TorchtuneOptimizer::adamw_8bit: return "bitsandbytes.optim.AdamW8bit";
    case TorchtuneOptimizer::torchao_adamw_8bit: return "torchao.optim.AdamW8bit";
  }
  return "";
}

const char* loss_component(TorchtuneLoss l) {
  return l == TorchtuneLoss::chunked_ce ? "CEWithChunkedOutputLoss" : l == TorchtuneLoss::linear_ce ? "LinearCrossEntropyLoss" : "torch.nn.CrossEntropyLoss";
}

std::string gib(int64_t bytes) {  // torchtune's get_memory_stats: bytes / 2**30, printed with two decimals
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(bytes) / 1073741824.0);
  return text;
}

TrainingFit torchtune_fit(const FormatTables& tables, const ModelSpec& model, const TorchtuneSettings& s, const TrainingSettings& t,
                          int64_t required, int64_t capacity) {
  auto peak = [&](TorchtuneSettings other) {
    auto m = torchtune_memory(tables, model, other);
    return m ? m->peak : int64_t(-1);
  };
  return one_gpu_training_fit(  // single-device recipes
      t, required, capacity, [&](int64_t b) { TorchtuneSettings o = s; o.batch_size = b; return peak(o); },
      [&](int64_t n) { TorchtuneSettings o = s; o.max_seq_len = n; return peak(o); });
}

Breakdown torchtune_breakdown(const TorchtuneReport& r, const TrainingSettings& t) {
  const TorchtuneMemory& m = r.memory;
  const TorchtuneSettings& s = r.command.settings;
  Breakdown b;
  b.mode = "training";
  const std::string dtype = s.bf16 ? "bf16" : "fp32";
  b.items.push_back({"torchtune.weights", s.method == FineTuning::qlora ? "Weights (NF4 linears, bf16 rest)" : "Weights", m.weights,
                     s.method == FineTuning::qlora ? with_thousands(m.nf4_elements) + " elements in NF4 (4 bits + 1/64 B + 4/16384 B each), the other " +
                                                         with_thousands(m.parameters - m.nf4_elements) + " in " + dtype
                                                   : with_thousands(m.parameters) + " x " + (s.bf16 ? "2" : "4") + " B",
                     "the model in the config's dtype (training.set_default_dtype); QLoRA: torchao's to_nf4 for every decoder linear",
                     {}});
  if (m.adapters > 0) {
    b.items.push_back({"torchtune.adapters", "LoRA adapters", m.adapters * (s.bf16 ? 2 : 4),
                       with_thousands(m.adapters) + " parameters (rank " + std::to_string(s.lora_rank) + ") x " + (s.bf16 ? "2" : "4") + " B",
                       "lora_a and lora_b of each adapted module, in the dtype", {}});
  }
  if (m.optimizer > 0) {
    const bool whole = m.trainable_parameters > 0 && m.optimizer % m.trainable_parameters == 0;
    b.items.push_back({"torchtune.optimizer", "Optimizer states", m.optimizer,
                       whole ? with_thousands(m.trainable_parameters) + " trainable parameters x " + std::to_string(m.optimizer / m.trainable_parameters) + " B"
                             : with_thousands(m.optimizer) + " B",
                       std::string(optimizer_component(s.optimizer)) + " (torch.optim.AdamW: exp_avg and exp_avg_sq in the parameters' dtype)", {}});
  }
  const int64_t fixed = m.weights + m.adapters * (s.bf16 ? 2 : 4) + m.optimizer;
  const int64_t step = m.peak - fixed;
  b.items.push_back({"torchtune.step", "Activations, loss, gradients", step,
                     "max(forward end " + with_thousands(m.offload_kept + m.loss_forward) + ", loss backward " +
                         with_thousands(m.offload_kept + m.loss_backward) + ", layers' backward " + with_thousands(m.layers_backward) + ") B",
                     std::string("saved activations ") + with_thousands(m.activations) + " B" +
                         (s.enable_activation_checkpointing ? " (layer inputs: enable_activation_checkpointing)" : "") +
                         (s.enable_activation_offloading ? ", " + with_thousands(m.offload_kept) + " B of them on the GPU (enable_activation_offloading)" : "") +
                         "; " + loss_component(s.loss) + (s.compile ? " compiled" : "") + "; gradients " +
                         (s.optimizer_in_bwd ? "freed one parameter at a time (optimizer_in_bwd)" : "until the step"),
                     {}});
  const int64_t subtotal = sat_add(m.peak, t.runtime_bytes);
  const int64_t total = with_training_margin(subtotal, t.margin_fraction);
  add_runtime_and_margin(b, t.runtime_bytes, t.margin_fraction, subtotal, total - subtotal);
  b.total_bytes = total;
  if (m.optimizer_paged > 0) {
    b.assumptions.push_back(std::string(optimizer_component(s.optimizer)) + "'s states (" + with_thousands(m.optimizer_paged) +
                            " B) are in CUDA managed memory, outside PyTorch's allocator: they move to CPU memory when the GPU is full, and are not in the peak");
  }
  if (s.distributed && s.data_parallel_replicate_dim > 1) {
    b.assumptions.push_back("HSDP: parameters, gradients and optimizer states sharded over data_parallel_shard_dim = " +
                            std::to_string(s.shard_ranks()) + " GPUs, replicated over data_parallel_replicate_dim = " +
                            std::to_string(s.data_parallel_replicate_dim) + " groups");
  }
  if (s.compile) b.assumptions.push_back("compile=True: its effect is modelled in the loss only; fused layers may keep less");
  if (!r.command.config.empty()) {
    b.assumptions.push_back("keys the line leaves out take the recipe's defaults, not the values in " + r.command.config + " (vramfit does not have torchtune's config files)");
  }
  return b;
}

}  // namespace

Result<TorchtuneReport> estimate_torchtune(const Request& request, const Catalog& catalog, const std::string& tune_line) {
  auto resolved = resolve_training(request, catalog);
  if (!resolved) return resolved.error();
  TorchtuneReport r;
  r.report = std::move(resolved).value();
  auto command = read_torchtune_command(tune_line);
  if (!command) return command.error();
  r.command = std::move(command).value();
  const ModelSpec& model = r.report.prepared.model;
  auto memory = torchtune_memory(catalog.formats, model, r.command.settings);
  if (!memory) return memory.error();
  r.memory = *memory;
  const TrainingSettings& t = request.training;
  r.report.breakdown = torchtune_breakdown(r, t);
  r.report.training_fit = torchtune_fit(catalog.formats, model, r.command.settings, t, r.report.breakdown.total_bytes, r.report.gpu.usable_bytes());
  if (request.compare_gpus) {
    for (const Gpu& gpu : catalog.gpus) {
      r.report.gpus.push_back(GpuVerdict{&gpu, {}, torchtune_fit(catalog.formats, model, r.command.settings, t, r.report.breakdown.total_bytes, gpu.usable_bytes())});
    }
  }
  // The report's request as the recipe runs it (what the text report's header says).
  TrainingSettings& shown = r.report.request.training;
  const TorchtuneSettings& s = r.command.settings;
  shown.method = s.method;
  shown.micro_batch = s.batch_size;
  shown.sequence_length = s.max_seq_len;
  shown.recipe = s.bf16 ? PrecisionRecipe::bf16 : PrecisionRecipe::fp32;
  shown.sharding = Sharding::none;
  shown.gpu_count = 1;
  r.report.training.parameters = r.memory.parameters;
  r.report.training.trainable_parameters = r.memory.trainable_parameters;
  return r;
}

std::string torchtune_printed_line(const TorchtuneMemory& m) {
  return "peak_memory_alloc: " + gib(m.peak);
}

json torchtune_report_to_json(const TorchtuneReport& r) {
  json j = report_to_json(r.report);
  j.erase("training");
  const TorchtuneMemory& m = r.memory;
  const TorchtuneSettings& s = r.command.settings;
  j["torchtune"] = {{"recipe", r.command.recipe},
                    {"config", r.command.config},
                    {"given", r.command.given},
                    {"skipped", r.command.skipped},
                    {"optimizer", optimizer_component(s.optimizer)},
                    {"loss", loss_component(s.loss)},
                    {"parameters", m.parameters},
                    {"trainable_parameters", m.trainable_parameters},
                    {"weights_bytes", m.weights},
                    {"nf4_elements", m.nf4_elements},
                    {"adapter_parameters", m.adapters},
                    {"optimizer_bytes", m.optimizer},
                    {"optimizer_paged_bytes", m.optimizer_paged},
                    {"activation_bytes", m.activations},
                    {"activations_on_gpu_bytes", m.offload_kept},
                    {"recompute_working_bytes", m.recompute_working},
                    {"loss_forward_bytes", m.loss_forward},
                    {"loss_backward_bytes", m.loss_backward},
                    {"layers_backward_bytes", m.layers_backward},
                    {"world_size", s.world_size},
                    {"data_parallel_replicate_dim", s.distributed ? s.data_parallel_replicate_dim : 1},
                    {"data_parallel_shard_dim", s.distributed ? s.shard_ranks() : 1},
                    {"peak_bytes", m.peak},
                    {"printed", torchtune_printed_line(m)}};
  return j;
}

}  // namespace vramfit
