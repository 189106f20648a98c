#include "deepspeed.hpp"

#include <algorithm>
#include <cstdio>

#include "units.hpp"

namespace vramfit {

bool parse_deepspeed_version(const std::string& text, DeepSpeedVersion& out) {
  int major = 0, minor = 0, patch = 0, used = 0;
  if (std::sscanf(text.c_str(), "%d.%d.%d%n", &major, &minor, &patch, &used) != 3 || major < 0 || minor < 0 || patch < 0) {
    return false;
  }
  const char rest = text.c_str()[used];
  if (rest != '\0' && rest != '+' && rest != '.' && rest != 'r' && rest != 'a' && rest != 'b' && rest != 'd') return false;
  out = {major, minor, patch};
  return true;
}

std::string deepspeed_version_text(const DeepSpeedVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

DeepSpeedModelParams deepspeed_model_params(const ModelSpec& model, bool with_output_head) {
  DeepSpeedModelParams p;
  if (model.parameters_only > 0) {
    p.total = model.parameters_only;
    return p;
  }
  for (const TensorShape& t : enumerate_tensors(model)) {
    if (!with_output_head && t.role == TensorRole::output) continue;
    p.total += t.elements();
    p.largest_layer = std::max(p.largest_layer, t.row_length * t.rows);  // a stacked expert is one module per expert
  }
  return p;
}

namespace {

bool before(const DeepSpeedVersion& v, int major, int minor, int patch) {
  if (v.major != major) return v.major < major;
  if (v.minor != minor) return v.minor < minor;
  return v.patch < patch;
}

// Python's int() of a non-negative float: truncation.
int64_t truncate(double x) { return static_cast<int64_t>(x); }

// stage_1_and_2.py estimate_zero2_model_states_mem_needs. Until 0.14.3 the GPU held 4 B per
// parameter and 16 B per parameter / GPUs without offload; from 0.14.3 (#5099, "fixing memory
// estimation") 2 B (16-bit parameters) and 18 B / GPUs (16-bit and fp32 gradients, fp32
// parameters, Adam's two states).
DeepSpeedEstimateRow zero2_row(double P, int64_t gpus_per_node, int64_t nodes, bool cpu_offload, double factor,
                               const DeepSpeedVersion& version) {
  const double total_gpus = static_cast<double>(nodes * gpus_per_node);
  DeepSpeedEstimateRow row;
  row.offload_optimizer = cpu_offload;
  if (cpu_offload) {
    row.gpu_bytes = truncate(2 * P);
    row.cpu_bytes = truncate(P * std::max(4 * total_gpus, 16.0) * factor);
  } else {
    row.gpu_bytes = before(version, 0, 14, 3) ? truncate(4 * P + static_cast<double>(truncate(16 * P / total_gpus)))
                                              : truncate(2 * P + static_cast<double>(truncate(18 * P / total_gpus)));
    row.cpu_bytes = truncate(P * 4 * static_cast<double>(gpus_per_node) * factor);
  }
  return row;
}

// stage3.py estimate_zero3_model_states_mem_needs (unchanged since 2021): the largest layer's
// 16-bit parameters and gradients gathered (4 B each) on every GPU, and per parameter over all
// GPUs 18 B (no offload) or 2 B (the optimizer offloaded); the CPU holds what was offloaded, and
// without zero.Init each process loads the whole model in fp32 first.
DeepSpeedEstimateRow zero3_row(double P, double largest, int64_t gpus_per_node, int64_t nodes, bool cpu_offload,
                               bool cpu_offload_params, bool zero_init, double factor) {
  const double total_gpus = static_cast<double>(nodes * gpus_per_node);
  const double gpus_factor = 1.0 / static_cast<double>(nodes);
  const double per_node = static_cast<double>(gpus_per_node);
  const double largest_layer_memory = 4 * largest;
  DeepSpeedEstimateRow row{cpu_offload_params, cpu_offload, zero_init, 0, 0};
  if (cpu_offload) {
    const double states = cpu_offload_params ? 18 : 16;
    row.gpu_bytes = cpu_offload_params ? truncate(largest_layer_memory)
                                       : truncate(largest_layer_memory + static_cast<double>(truncate(2 * P / total_gpus)));
    row.cpu_bytes = zero_init ? truncate(P * states * gpus_factor * factor)
                              : truncate(P * std::max(4 * per_node, states * gpus_factor) * factor);
  } else {
    row.gpu_bytes = truncate(largest_layer_memory + static_cast<double>(truncate(18 * P / total_gpus)));
    row.cpu_bytes = zero_init ? truncate(largest * 4 * per_node * factor) : truncate(P * 4 * per_node * factor);
  }
  return row;
}

}  // namespace

DeepSpeedEstimate deepspeed_estimate(int stage, const DeepSpeedModelParams& params, int64_t gpus_per_node, int64_t nodes,
                                     const DeepSpeedVersion& version, double additional_buffer_factor) {
  DeepSpeedEstimate e;
  e.stage = stage == 3 ? 3 : 2;
  e.params = params;
  e.gpus_per_node = gpus_per_node;
  e.nodes = nodes;
  e.additional_buffer_factor = additional_buffer_factor;
  const double P = static_cast<double>(params.total), largest = static_cast<double>(params.largest_layer);
  if (e.stage == 2) {
    for (bool cpu_offload : {true, false}) e.rows.push_back(zero2_row(P, gpus_per_node, nodes, cpu_offload, additional_buffer_factor, version));
    return e;
  }
  for (bool cpu_offload : {true, false}) {
    for (bool offload_params : {true, false}) {
      if (!cpu_offload && offload_params) continue;
      for (bool zero_init : {true, false}) {
        e.rows.push_back(zero3_row(P, largest, gpus_per_node, nodes, cpu_offload, offload_params, zero_init, additional_buffer_factor));
      }
    }
  }
  return e;
}

std::vector<std::string> deepspeed_estimate_lines(const DeepSpeedEstimate& e) {
  std::vector<std::string> lines;
  lines.push_back("Estimated memory needed for params, optim states and gradients for a:");
  lines.push_back("HW: Setup with " + std::to_string(e.nodes) + (e.nodes > 1 ? " nodes, " : " node, ") +
                  std::to_string(e.gpus_per_node) + (e.gpus_per_node > 1 ? " GPUs" : " GPU") + " per node.");
  std::string sw = "SW: Model with " + std::to_string(e.params.total / 1000000) + "M total params";
  if (e.stage == 3) sw += ", " + std::to_string(e.params.largest_layer / 1000000) + "M largest layer params";
  lines.push_back(sw + ".");
  lines.push_back("  per CPU  |  per GPU |   Options");
  const double gib = 1073741824.0;
  for (const DeepSpeedEstimateRow& row : e.rows) {
    char text[160];
    std::snprintf(text, sizeof text, " %7.2fGB | %6.2fGB | ", static_cast<double>(row.cpu_bytes) / gib,
                  static_cast<double>(row.gpu_bytes) / gib);
    std::string options = text;
    if (e.stage == 3) options += std::string("offload_param=") + (row.offload_param ? "cpu " : "none") + ", ";
    options += std::string("offload_optimizer=") + (row.offload_optimizer ? "cpu " : "none");
    if (e.stage == 3) options += std::string(", zero_init=") + (row.zero_init ? "1" : "0");
    lines.push_back(options);
  }
  return lines;
}

const char* deepspeed_offload_name(DeepSpeedOffload device) {
  return device == DeepSpeedOffload::cpu ? "cpu" : device == DeepSpeedOffload::nvme ? "nvme" : "none";
}

namespace {

// Bytes of `elements` split over `ranks`, as ZeRO pads each partition to whole elements.
int64_t partition(int64_t elements, int64_t bytes_per_element, int64_t ranks) {
  return sat_mul(ceil_div(elements, ranks), bytes_per_element);
}

}  // namespace

DeepSpeedRank deepspeed_zero_rank(const TrainingMemory& base, const TrainingSettings& settings, const DeepSpeedConfig& c,
                                  int64_t largest_layer, int64_t data_parallel) {
  DeepSpeedRank r;
  const int64_t P = base.trainable_parameters, N = std::max<int64_t>(1, data_parallel);
  r.parameters = P;
  r.largest_layer = largest_layer;
  r.data_parallel = N;
  r.param_bytes = c.bf16 || c.fp16 ? 2 : 4;
  const int64_t pb = r.param_bytes;
  const bool optimizer_on_gpu = c.offload_optimizer == DeepSpeedOffload::none;
  // The fp32 partition, its fp32 gradient and the optimizer's states (stages 1-3 alike).
  r.master = partition(P, 4, N);
  r.grads32 = partition(P, 4, N);
  r.optimizer = ceil_div(base.optimizer_full.total(), N);
  const int64_t optimizer_side = sat_add(sat_add(r.master, r.grads32), r.optimizer);
  const int64_t frozen = settings.method == FineTuning::full ? 0 : base.parameters;
  if (c.stage == 3) {
    r.params16 = partition(P, pb, N);
    r.frozen16 = partition(frozen, pb, N);  // ZeRO-3 partitions frozen parameters too
    r.gathered = sat_mul(pb, std::min(c.stage3_max_live_parameters, sat_add(largest_layer, c.stage3_prefetch_bucket_size)));
    r.grads16 = sat_mul(pb, std::min(P, largest_layer));
    r.buckets = c.contiguous_gradients ? sat_mul(pb, c.reduce_bucket_size) : 0;
    const int64_t params = sat_add(r.params16, r.frozen16);
    if (c.offload_param == DeepSpeedOffload::cpu) r.host_bytes = sat_add(r.host_bytes, params);
    if (c.offload_param == DeepSpeedOffload::nvme) r.nvme_bytes = sat_add(r.nvme_bytes, params);
    if (c.offload_param != DeepSpeedOffload::none) r.params16 = r.frozen16 = 0;
  } else {
    r.params16 = sat_mul(P, pb);
    r.frozen16 = sat_mul(frozen, pb);
    if (c.stage <= 1) {
      r.grads16 = sat_mul(P, pb);  // each parameter's .grad until the reduction after backward
    } else {
      r.grads16 = optimizer_on_gpu && c.contiguous_gradients ? partition(P, pb, N) : 0;  // grads_in_partition
      r.buckets = c.contiguous_gradients ? sat_mul(sat_mul(pb, c.reduce_bucket_size), c.overlap_comm ? 2 : 1) : 0;
    }
    if (!optimizer_on_gpu) r.offload_buffer = sat_mul(pb, largest_layer);
  }
  if (c.offload_optimizer == DeepSpeedOffload::cpu) r.host_bytes = sat_add(r.host_bytes, optimizer_side);
  if (c.offload_optimizer == DeepSpeedOffload::nvme) r.nvme_bytes = sat_add(r.nvme_bytes, optimizer_side);
  if (!optimizer_on_gpu) r.master = r.grads32 = r.optimizer = 0;
  r.activations = base.activations;
  r.logits = base.logits;
  r.recompute_working = base.recompute_working;
  r.runtime = settings.runtime_bytes;
  for (int64_t part : {r.params16, r.frozen16, r.gathered, r.grads16, r.buckets, r.offload_buffer, r.master, r.grads32, r.optimizer,
                       r.activations, r.logits, r.recompute_working, r.runtime}) {
    r.subtotal = sat_add(r.subtotal, part);
  }
  r.total = with_training_margin(r.subtotal, settings.margin_fraction);
  r.margin = r.total - r.subtotal;
  return r;
}

}  // namespace vramfit
