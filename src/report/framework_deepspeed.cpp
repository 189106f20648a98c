#include "frameworks.hpp"
#include "largest_fitting.hpp"

#include <algorithm>
#include <cstdio>

namespace vramfit {

namespace {

bool bf16_recipe(PrecisionRecipe r) {
  return r == PrecisionRecipe::mixed_bf16 || r == PrecisionRecipe::amp_bf16 || r == PrecisionRecipe::bf16;
}
bool fp16_recipe(PrecisionRecipe r) { return r == PrecisionRecipe::mixed_fp16 || r == PrecisionRecipe::amp_fp16; }

// The settings DeepSpeed trains with: the config's micro-batch, its precision (bf16 or fp16
// enabled: 16-bit parameters, activations and an fp32 copy; neither: fp32 throughout), no
// sharding in training_memory() (ZeRO's partitions are core/deepspeed's).
TrainingSettings deepspeed_settings(const TrainingSettings& request, const DeepSpeedConfig& c) {
  TrainingSettings s = request;
  if (c.train_micro_batch_size_per_gpu > 0) s.micro_batch = c.train_micro_batch_size_per_gpu;
  s.recipe = c.bf16 ? PrecisionRecipe::mixed_bf16 : c.fp16 ? PrecisionRecipe::mixed_fp16 : PrecisionRecipe::fp32;
  s.sharding = Sharding::none;
  s.gpu_count = 1;
  return s;
}

struct RankAt {
  const ModelSpec& model;
  const TrainingSettings& settings;
  const TrainingMemory& base;
  const DeepSpeedConfig& config;
  int64_t largest_layer;
  // The rank's total at another micro-batch, sequence length or data-parallel size (activations
  // and logits are arithmetic on the base: retotal_training).
  int64_t total(int64_t micro_batch, int64_t sequence, int64_t data_parallel) const {
    TrainingSettings s = settings;
    s.micro_batch = micro_batch;
    s.sequence_length = sequence;
    const TrainingMemory m = retotal_training(model, s, base);
    return deepspeed_zero_rank(m, s, config, largest_layer, data_parallel).total;
  }
};

TrainingFit deepspeed_fit(const RankAt& at, int64_t required, int64_t data_parallel, int64_t capacity) {
  TrainingFit fit;
  fit.capacity_bytes = capacity;
  fit.required_bytes = required;
  fit.headroom_bytes = capacity - required;
  fit.fits = required <= capacity;
  const int64_t seq = at.settings.sequence_length, batch = at.settings.micro_batch;
  fit.max_batch = largest_fitting(1, kMaxMicroBatch, [&](int64_t b) { return at.total(b, seq, data_parallel) <= capacity; });
  fit.max_sequence_length = largest_fitting(1, kMaxTrainingSequence, [&](int64_t n) { return at.total(batch, n, data_parallel) <= capacity; });
  for (int64_t n = 1; n <= kMaxGpuCount; ++n) {
    if (at.total(batch, seq, n) <= capacity) { fit.min_gpus = n; break; }
  }
  return fit;
}

std::string times(int64_t a, int64_t b) { return with_thousands(a) + " x " + std::to_string(b) + " B"; }

Breakdown deepspeed_breakdown(const DeepSpeedReport& d, const TrainingSettings& s) {
  const DeepSpeedRank& r = d.rank;
  const DeepSpeedConfig& c = d.config.config;
  const std::string N = std::to_string(r.data_parallel), pb = std::to_string(r.param_bytes);
  const std::string stage = "ZeRO-" + std::to_string(c.stage);
  Breakdown b;
  b.mode = "training";
  b.gpu_count = r.data_parallel;
  auto add = [&b](const char* id, std::string label, int64_t bytes, std::string formula, std::string note) {
    if (bytes > 0) b.items.push_back({id, std::move(label), bytes, std::move(formula), std::move(note), {}});
  };
  const bool lora = r.frozen16 > 0 || d.report.request.training.method != FineTuning::full;
  add("deepspeed.params16", lora ? (c.stage == 3 ? "Adapters (partition)" : "Adapters") : c.stage == 3 ? "Parameters (partition)" : "Parameters",
      r.params16,
      c.stage == 3 ? times(r.parameters, r.param_bytes) + " / " + N + " GPUs" : times(r.parameters, r.param_bytes),
      stage + ": " + (c.stage == 3 ? "fp16_partitioned_groups_flat (stage3.py)" : "bit16_groups, every parameter on every GPU (stage_1_and_2.py)"));
  add("deepspeed.frozen16", c.stage == 3 ? "Frozen weights (partition)" : "Frozen weights", r.frozen16,
      c.stage == 3 ? times(d.report.training.parameters, r.param_bytes) + " / " + N + " GPUs" : times(d.report.training.parameters, r.param_bytes),
      "LoRA: the base model, cast to the config's dtype with the adapters by DeepSpeed's engine");
  add("deepspeed.gathered", "Gathered parameters", r.gathered,
      pb + " B x min(stage3_max_live_parameters, largest module " + with_thousands(r.largest_layer) +
          " + stage3_prefetch_bucket_size " + with_thousands(c.stage3_prefetch_bucket_size) + ")",
      "ZeRO-3 gathers each module's parameters before it runs and prefetches the next bucket (partitioned_param_coordinator.py)");
  add("deepspeed.grads16", c.stage == 1 ? "Gradients (16-bit)" : c.stage == 2 ? "Gradients (16-bit, partition)" : "Module gradients (16-bit)",
      r.grads16,
      c.stage == 1 ? times(r.parameters, r.param_bytes) : c.stage == 2 ? times(r.parameters, r.param_bytes) + " / " + N + " GPUs"
                                                               : times(std::min(r.parameters, r.largest_layer), r.param_bytes),
      c.stage == 1 ? "every parameter's .grad until the reduction after backward" : c.stage == 2 ? "grads_in_partition (contiguous_gradients)"
                                                                                         : "the largest module's, before reduce-scatter");
  add("deepspeed.buckets", "Reduce buckets", r.buckets,
      times(c.reduce_bucket_size, r.param_bytes) + (c.stage == 2 && c.overlap_comm ? " x 2 (overlap_comm)" : ""),
      "reduce_bucket_size elements (the ipg buckets, setup_buckets)");
  add("deepspeed.offload_buffer", "Offload gradient staging", r.offload_buffer,
      times(r.largest_layer, r.param_bytes), "temp_grad_buffer_for_gpu_offload: the largest parameter's gradient");
  add("deepspeed.master", "fp32 parameters (partition)", r.master, times(r.parameters, 4) + " / " + N + " GPUs",
      "single_partition_of_fp32_groups (stages 1, 2), fp32_partitioned_groups_flat (3)");
  add("deepspeed.grads32", "fp32 gradients (partition)", r.grads32, times(r.parameters, 4) + " / " + N + " GPUs",
      "the fp32 partition's .grad (initialize_optimizer_states), grad_partitions_flat_buffer at stage 3");
  add("deepspeed.optimizer", "Optimizer states (partition)", r.optimizer,
      with_thousands(d.report.training.optimizer_full.total()) + " B / " + N + " GPUs", d.report.training.optimizer_full.formula);
  add("activations", "Activations", r.activations, with_thousands(r.activations) + " B", "as the Trainer's step keeps them (explain_training)");
  add("recompute", "Recomputation working set", r.recompute_working, with_thousands(r.recompute_working) + " B", "one layer during backward");
  add("logits", "Logits and loss", r.logits, with_thousands(r.logits) + " B", "fp32 logits and log-softmax for the loss");
  add_runtime_and_margin(b, r.runtime, s.margin_fraction, r.subtotal, r.margin);
  b.total_bytes = r.total;
  for (const std::string& filled : d.config.filled) b.assumptions.push_back(filled);
  b.assumptions.push_back("parameters below stage3_param_persistence_threshold are counted partitioned (ZeRO-3 keeps them whole: a few norms and biases)");
  if (d.host_bytes_per_node > 0) {
    b.assumptions.push_back("offloaded to CPU memory: " + with_thousands(r.host_bytes) + " B a rank, " +
                            with_thousands(d.host_bytes_per_node) + " B a node of " + std::to_string(d.gpus_per_node) + " GPUs");
  }
  if (d.nvme_bytes_per_node > 0) {
    b.assumptions.push_back("offloaded to NVMe: " + with_thousands(d.nvme_bytes_per_node) + " B a node (the swap buffers in pinned CPU memory are not counted)");
  }
  return b;
}

// Python's round(x, 2) as print() shows it: "12.35", "12.5", "3.0".
std::string python_round2(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", x);
  std::string s = text;
  while (s.size() > 3 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
  return s;
}

}  // namespace

std::string deepspeed_printed_line(const DeepSpeedRank& r) {
  const double gib = 1073741824.0;
  const int64_t after_step = r.params16 + r.master + r.grads32 + r.optimizer;  // what stays allocated between steps
  const int64_t peak = r.subtotal - r.runtime;                                // PyTorch's allocator only
  return "MA " + python_round2(static_cast<double>(after_step) / gib) + " GB         Max_MA " +
         python_round2(static_cast<double>(peak) / gib) + " GB";
}

Result<DeepSpeedReport> estimate_deepspeed(const Request& request, const Catalog& catalog, const std::string& ds_config_text,
                                           int64_t nodes, const DeepSpeedVersion& version) {
  auto resolved = resolve_training(request, catalog);
  if (!resolved) return resolved.error();
  DeepSpeedReport d;
  d.report = std::move(resolved).value();
  const ModelSpec& model = d.report.prepared.model;
  const TrainingSettings& t = request.training;
  if (t.method == FineTuning::qlora) {
    return make_error("training.bad_value", "training.method",
                      "training.method: vramfit answers DeepSpeed for full fine-tuning and LoRA; QLoRA under DeepSpeed is not modelled yet");
  }
  DeepSpeedAutoValues auto_values{model.hidden_size, t.micro_batch, 1, bf16_recipe(t.recipe), fp16_recipe(t.recipe)};
  auto config = read_deepspeed_config(ds_config_text, auto_values);
  if (!config) return config.error();
  d.config = std::move(config).value();
  const DeepSpeedConfig& c = d.config.config;
  if (c.stage == 0) {
    return make_error("deepspeed.bad_value", "zero_optimization.stage",
                      "zero_optimization.stage: 0 is DeepSpeed without ZeRO (plain data parallelism): answer it with --sharding none");
  }
  const int64_t gpus = std::max<int64_t>(1, t.gpu_count);
  if (nodes < 1 || gpus % nodes != 0) {
    return make_error("deepspeed.bad_value", "nodes", "nodes: the " + std::to_string(gpus) + " GPUs (--gpu-count) do not split evenly over " +
                                                          std::to_string(nodes) + " nodes");
  }
  d.nodes = nodes;
  d.gpus_per_node = gpus / nodes;
  d.version = version;
  const TrainingSettings settings = deepspeed_settings(t, c);
  auto base = training_memory(catalog.formats, model, settings);
  if (!base) return base.error();
  d.report.training = *base;
  const DeepSpeedModelParams params = deepspeed_model_params(model, true);
  d.rank = deepspeed_zero_rank(*base, settings, c, params.largest_layer, gpus);
  d.host_bytes_per_node = sat_mul(d.rank.host_bytes, d.gpus_per_node);
  d.nvme_bytes_per_node = sat_mul(d.rank.nvme_bytes, d.gpus_per_node);
  d.estimate = deepspeed_estimate(c.stage, params, d.gpus_per_node, nodes, version);
  const bool offload_optimizer = c.offload_optimizer != DeepSpeedOffload::none, offload_param = c.offload_param != DeepSpeedOffload::none;
  for (size_t i = 0; i < d.estimate.rows.size(); ++i) {
    const DeepSpeedEstimateRow& row = d.estimate.rows[i];
    if (row.offload_optimizer == offload_optimizer && row.offload_param == offload_param && (c.stage != 3 || row.zero_init)) {
      d.estimate_row = i;
      break;
    }
  }
  d.report.breakdown = deepspeed_breakdown(d, settings);
  // The report's request as DeepSpeed runs it: the config's micro-batch and precision, ZeRO's
  // stage over the data-parallel GPUs (what the text report's header and fit lines say).
  TrainingSettings& shown = d.report.request.training;
  shown = settings;
  shown.sharding = c.stage == 1 ? Sharding::zero1 : c.stage == 2 ? Sharding::zero2 : Sharding::zero3;
  shown.gpu_count = gpus;
  const RankAt at{model, settings, *base, c, params.largest_layer};
  d.report.training_fit = deepspeed_fit(at, d.rank.total, gpus, d.report.gpu.usable_bytes());
  if (request.compare_gpus) {
    for (const Gpu& gpu : catalog.gpus) {
      d.report.gpus.push_back(GpuVerdict{&gpu, {}, deepspeed_fit(at, d.rank.total, gpus, gpu.usable_bytes())});
    }
  }
  return d;
}

json deepspeed_report_to_json(const DeepSpeedReport& d) {
  json j = report_to_json(d.report);
  j.erase("training");
  const DeepSpeedConfig& c = d.config.config;
  const DeepSpeedRank& r = d.rank;
  json estimate = json::array();
  for (const DeepSpeedEstimateRow& row : d.estimate.rows) {
    estimate.push_back({{"offload_param", row.offload_param}, {"offload_optimizer", row.offload_optimizer},
                        {"zero_init", row.zero_init}, {"cpu_bytes", row.cpu_bytes}, {"gpu_bytes", row.gpu_bytes}});
  }
  j["deepspeed"] = {
      {"version", deepspeed_version_text(d.version)},
      {"stage", c.stage},
      {"offload_optimizer", deepspeed_offload_name(c.offload_optimizer)},
      {"offload_param", deepspeed_offload_name(c.offload_param)},
      {"nodes", d.nodes},
      {"gpus_per_node", d.gpus_per_node},
      {"filled", d.config.filled},
      {"rank", {{"parameters", r.parameters}, {"largest_layer_params", r.largest_layer}, {"params16_bytes", r.params16},
                {"gathered_bytes", r.gathered}, {"grads16_bytes", r.grads16}, {"bucket_bytes", r.buckets},
                {"offload_buffer_bytes", r.offload_buffer}, {"master_bytes", r.master}, {"grads32_bytes", r.grads32},
                {"optimizer_bytes", r.optimizer}, {"total_bytes", r.total}, {"host_bytes", r.host_bytes}, {"nvme_bytes", r.nvme_bytes}}},
      {"printed", deepspeed_printed_line(r)},
      {"host_bytes_per_node", d.host_bytes_per_node},
      {"nvme_bytes_per_node", d.nvme_bytes_per_node},
      {"estimator", {{"function", d.estimate.stage == 3 ? "estimate_zero3_model_states_mem_needs" : "estimate_zero2_model_states_mem_needs"},
                     {"total_params", d.estimate.params.total},
                     {"largest_layer_params", d.estimate.params.largest_layer},
                     {"rows", estimate},
                     {"config_row", d.estimate_row},
                     {"printed", deepspeed_estimate_lines(d.estimate)}}}};
  return j;
}

}  // namespace vramfit
