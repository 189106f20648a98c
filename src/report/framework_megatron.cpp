#include "frameworks.hpp"
#include "largest_fitting.hpp"

#include <cmath>
#include <cstdio>

namespace vramfit {

namespace {

int64_t whole_bytes(double bytes) { return static_cast<int64_t>(std::ceil(bytes)); }

// What one GPU needs: the largest rank's weights, optimizer and activations as Megatron counts
// them, the CUDA context and libraries' workspaces (training.runtime_bytes), and the margin.
struct RankNeed {
  size_t rank = 0;  // index into MegatronMemory::ranks
  int64_t subtotal = 0, margin = 0, total = 0;
};

RankNeed largest_rank(const MegatronMemory& m, const TrainingSettings& t) {
  RankNeed need;
  for (size_t i = 1; i < m.ranks.size(); ++i) {
    if (m.ranks[i].total() > m.ranks[need.rank].total()) need.rank = i;
  }
  need.subtotal = sat_add(whole_bytes(m.ranks[need.rank].total()), t.runtime_bytes);
  need.total = with_training_margin(need.subtotal, t.margin_fraction);
  need.margin = need.total - need.subtotal;
  return need;
}

// The total per GPU for other settings, or -1 where Megatron would refuse them.
int64_t total_with(const ModelSpec& model, const MegatronSettings& s, const TrainingSettings& t) {
  auto m = megatron_memory(model, s);
  return m ? largest_rank(*m, t).total : -1;
}

TrainingFit megatron_fit(const ModelSpec& model, const Request& request, int64_t required, int64_t capacity) {
  TrainingFit fit;
  fit.capacity_bytes = capacity;
  fit.required_bytes = required;
  fit.fits = required <= capacity;
  fit.headroom_bytes = capacity - required;
  const MegatronSettings& s = request.megatron;
  auto fits = [&](const MegatronSettings& other) {
    const int64_t total = total_with(model, other, request.training);
    return total >= 0 && total <= capacity;
  };
  // The micro-batch at the same global batch when it divides, else one micro-batch a step.
  fit.max_batch = largest_fitting(1, kMaxMicroBatch, [&](int64_t b) {
    MegatronSettings o = s;
    o.micro_batch_size = b;
    o.global_batch_size = 0;
    return fits(o);
  });
  fit.max_sequence_length = largest_fitting(s.context_parallel_size, kMaxTrainingSequence, [&](int64_t seq) {
    MegatronSettings o = s;
    o.seq_length = seq;
    return fits(o);
  });
  // The fewest GPUs (world size, a multiple of TP x PP x CP) that fit, more data-parallel ranks
  // sharding the distributed optimizer; without it more GPUs do not lower a rank's memory.
  const int64_t model_size = s.tensor_model_parallel_size * s.pipeline_model_parallel_size * s.context_parallel_size;
  for (int64_t world = model_size; world <= kMaxGpuCount; world += model_size) {
    MegatronSettings o = s;
    o.world_size = world;
    o.global_batch_size = 0;
    if (fits(o)) {
      fit.min_gpus = world;
      break;
    }
  }
  return fit;
}

std::string mb(double bytes) {  // Megatron prints MB as MiB with two decimals
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", bytes / (1024.0 * 1024.0));
  return text;
}

}  // namespace

std::string megatron_printed_line(const MegatronRank& rank) {
  return "Theoretical memory footprints: weight and optimizer=" + mb(rank.weight_and_optimizer) + " MB, activation=" +
         mb(rank.activations) + " MB, total=" + mb(rank.total()) + " MB";
}

std::string megatron_rank_label(const MegatronRank& rank) {
  if (rank.stage == "all") return "every rank";
  return rank.stage == "first" ? "pipeline rank " + std::to_string(rank.pipeline_rank) + " (first stage)"
         : rank.stage == "last" ? "pipeline rank " + std::to_string(rank.pipeline_rank) + " (last stage)"
                                : "pipeline rank " + std::to_string(rank.pipeline_rank) + " (middle stage)";
}

namespace {

Breakdown megatron_breakdown(const Report& report, const RankNeed& need) {
  const MegatronMemory& m = report.megatron;
  const MegatronSettings& s = report.request.megatron;
  const MegatronRank& rank = m.ranks[need.rank];
  Breakdown b;
  b.mode = "training";
  b.gpu_count = s.world_size;
  const std::string per_parameter = s.use_distributed_optimizer
                                        ? "(6 + 12 / " + std::to_string(m.data_parallel_size * s.context_parallel_size) + ") B"
                                        : "18 B";
  b.items.push_back({"megatron.weight_and_optimizer", "Weights, gradients and optimizer, " + megatron_rank_label(rank),
                     whole_bytes(rank.weight_and_optimizer),
                     with_thousands(whole_bytes(rank.parameters)) + " parameters x " + per_parameter + " = " +
                         with_thousands(whole_bytes(rank.weight_and_optimizer)) + " B",
                     "bf16 weights, fp32 main gradients, fp32 main weights and Adam's two fp32 states; the distributed "
                     "optimizer shards the 12 B of main weights and states (megatron/training/theoretical_memory_usage.py)",
                     {}});
  b.items.push_back({"megatron.activations", "Activations, " + megatron_rank_label(rank), whole_bytes(rank.activations),
                     std::to_string(rank.in_flight) + (rank.layers_per_chunk < rank.layers ? " model-chunk" : "") +
                         " micro-batches in flight x " + std::to_string(rank.layers_per_chunk) + " layers' activations = " + with_thousands(whole_bytes(rank.activations)) + " B",
                     m.sequence_parallel_formula ? "Korthikanti et al. 2022, Table 2 with sequence parallelism and selective "
                                                   "recomputation, divided by TP (compute_activation_memory)"
                                                 : "the estimator's terms without sequence parallelism, 5 % added "
                                                   "(compute_activation_memory_without_sp)",
                     {}});
  const TrainingSettings& t = report.request.training;
  add_runtime_and_margin(b, t.runtime_bytes, t.margin_fraction, need.subtotal, need.margin);
  b.total_bytes = need.total;
  if (s.sequence_parallel && s.tensor_model_parallel_size == 1) {
    b.assumptions.push_back("--sequence-parallel is off at --tensor-model-parallel-size 1, as Megatron turns it off (arguments.py)");
  }
  return b;
}

json megatron_ranks_to_json(const MegatronMemory& m) {
  json ranks = json::array();
  for (const MegatronRank& r : m.ranks) {
    ranks.push_back({{"stage", r.stage}, {"pipeline_rank", r.pipeline_rank}, {"layers", r.layers}, {"in_flight", r.in_flight},
                     {"parameters", whole_bytes(r.parameters)}, {"weight_and_optimizer_bytes", whole_bytes(r.weight_and_optimizer)},
                     {"activation_bytes", whole_bytes(r.activations)}, {"total_bytes", whole_bytes(r.total())},
                     {"printed", megatron_printed_line(r)}});
  }
  return {{"data_parallel_size", m.data_parallel_size}, {"expert_data_parallel_size", m.expert_data_parallel_size},
          {"num_microbatches", m.num_microbatches}, {"padded_vocab_size", m.padded_vocab_size},
          {"activation_formula", m.sequence_parallel_formula ? "compute_activation_memory" : "compute_activation_memory_without_sp"},
          {"ranks", ranks}};
}


}  // namespace

Result<Report> estimate_megatron(const Request& request, const Catalog& catalog) {
  auto resolved = resolve_training(request, catalog);
  if (!resolved) return resolved.error();
  Report report = std::move(resolved).value();
  auto memory = megatron_memory(report.prepared.model, request.megatron);
  if (!memory) return memory.error();
  report.megatron = *memory;
  const RankNeed need = largest_rank(report.megatron, request.training);
  report.breakdown = megatron_breakdown(report, need);
  report.training_fit = megatron_fit(report.prepared.model, request, need.total, report.gpu.usable_bytes());
  if (request.compare_gpus) {
    for (const Gpu& gpu : catalog.gpus) {
      report.gpus.push_back(GpuVerdict{&gpu, {}, megatron_fit(report.prepared.model, request, need.total, gpu.usable_bytes())});
    }
  }
  return report;
}

json megatron_report_to_json(const Report& report) {
  json j = report_to_json(report);
  j.erase("training");
  j["model"]["parameters"] = report.prepared.weights.parameters;
  j["megatron"] = megatron_ranks_to_json(report.megatron);
  return j;
}

}  // namespace vramfit
