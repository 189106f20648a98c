#include "deepspeed_config.hpp"

#include "io/json.hpp"
#include "request_json_fields.hpp"

namespace vramfit {

using request_fields::Fields;

namespace {

bool is_auto(const json& object, const char* key) {
  return object.contains(key) && object.at(key).is_string() && object.at(key).get<std::string>() == "auto";
}

// An element count as ds_configs write them: 500000000, 5e8, 5.0e8, or "auto" (filled with `filled`).
int64_t elements(Fields& f, const char* key, int64_t fallback, int64_t filled, const std::string& how,
                 std::vector<std::string>& notes) {
  if (is_auto(f.object, key)) {
    notes.push_back(f.name(key) + ": auto = " + how + " = " + std::to_string(filled));
    return filled;
  }
  return f.integer(key, fallback, 0, int64_t(1) << 50);
}

DeepSpeedOffload offload_device(Fields& zero, const char* key, DeepSpeedOffload fallback) {
  const json* sub = zero.sub(key);
  if (!sub) return fallback;
  Fields f{*sub, zero.name(key) + ".", std::nullopt};
  const std::string device = f.text("device", "none");
  if (f.error) { zero.error = f.error; return fallback; }
  if (device == "none") return DeepSpeedOffload::none;
  if (device == "cpu") return DeepSpeedOffload::cpu;
  if (device == "nvme") return DeepSpeedOffload::nvme;
  zero.fail("request.bad_value", f.name("device"), "must be none, cpu or nvme (got '" + device + "')");
  return fallback;
}

// "enabled" of bf16 / fp16: true, false or "auto" (the Trainer's --bf16 / --fp16).
bool precision_enabled(Fields& top, const char* key, bool auto_value, std::vector<std::string>& notes) {
  const json* sub = top.sub(key);
  if (!sub) return false;
  Fields f{*sub, std::string(key) + ".", std::nullopt};
  if (is_auto(*sub, "enabled")) {
    notes.push_back(f.name("enabled") + ": auto = --" + key + " = " + (auto_value ? "true" : "false"));
    return auto_value;
  }
  const bool enabled = f.boolean("enabled", false);
  if (f.error) top.error = f.error;
  return enabled;
}

}  // namespace

Result<DeepSpeedConfigRead> read_deepspeed_config(const std::string& text, const DeepSpeedAutoValues& a) {
  const json j = parse_json(text);
  if (j.is_discarded() || !j.is_object()) return make_error("deepspeed.not_json", "deepspeed", "deepspeed: the config is not a JSON object");
  DeepSpeedConfigRead read;
  DeepSpeedConfig& c = read.config;
  Fields top{j, "", std::nullopt};
  if (is_auto(j, "train_micro_batch_size_per_gpu")) {
    c.train_micro_batch_size_per_gpu = a.per_device_train_batch_size;
    read.filled.push_back("train_micro_batch_size_per_gpu: auto = --per_device_train_batch_size = " + std::to_string(a.per_device_train_batch_size));
  } else {
    c.train_micro_batch_size_per_gpu = top.integer("train_micro_batch_size_per_gpu", 0, 1, kMaxMicroBatch);
  }
  if (is_auto(j, "gradient_accumulation_steps")) c.gradient_accumulation_steps = a.gradient_accumulation_steps;
  else c.gradient_accumulation_steps = top.integer("gradient_accumulation_steps", 1, 1, int64_t(1) << 30);
  c.bf16 = precision_enabled(top, "bf16", a.bf16, read.filled);
  c.fp16 = precision_enabled(top, "fp16", a.fp16, read.filled);
  if (c.bf16 && c.fp16) top.fail("request.bad_value", "fp16.enabled", "bf16 and fp16 cannot both be enabled (DeepSpeed refuses it)");
  if (const json* zero_json = top.sub("zero_optimization")) {
    Fields zero{*zero_json, "zero_optimization.", std::nullopt};
    c.stage = static_cast<int>(zero.integer("stage", 0, 0, 3));
    const int64_t h = a.hidden_size;
    c.reduce_bucket_size = elements(zero, "reduce_bucket_size", c.reduce_bucket_size, h * h, "hidden_size x hidden_size", read.filled);
    c.allgather_bucket_size = zero.integer("allgather_bucket_size", c.allgather_bucket_size, 0, int64_t(1) << 50);
    // The Trainer fills the stage-3 keys only at stage 3 (trainer_config_finalize).
    c.stage3_prefetch_bucket_size = elements(zero, "stage3_prefetch_bucket_size", c.stage3_prefetch_bucket_size,
                                             static_cast<int64_t>(0.9 * static_cast<double>(h) * static_cast<double>(h)),
                                             "int(0.9 x hidden_size x hidden_size)", read.filled);
    c.stage3_param_persistence_threshold = elements(zero, "stage3_param_persistence_threshold", c.stage3_param_persistence_threshold,
                                                    10 * h, "10 x hidden_size", read.filled);
    c.stage3_max_live_parameters = zero.integer("stage3_max_live_parameters", c.stage3_max_live_parameters, 0, int64_t(1) << 50);
    c.overlap_comm = zero.boolean("overlap_comm", c.stage == 3);
    c.contiguous_gradients = zero.boolean("contiguous_gradients", c.contiguous_gradients);
    c.offload_optimizer = offload_device(zero, "offload_optimizer", c.offload_optimizer);
    c.offload_param = offload_device(zero, "offload_param", c.offload_param);
    // The pre-0.5 spelling (DeepSpeedZeroConfig's deprecated cpu_offload / cpu_offload_param).
    if (zero.boolean("cpu_offload", false)) c.offload_optimizer = DeepSpeedOffload::cpu;
    if (zero.boolean("cpu_offload_param", false)) c.offload_param = DeepSpeedOffload::cpu;
    if (c.offload_param != DeepSpeedOffload::none && c.stage != 3) {
      zero.fail("request.bad_value", "zero_optimization.offload_param", "offloads parameters at stage 3 only (got stage " +
                                                                          std::to_string(c.stage) + ")");
    }
    if (zero.error) return *zero.error;
  }
  if (top.error) return *top.error;
  if (c.stage != 3) {  // the Trainer fills the stage-3 keys only at stage 3
    std::erase_if(read.filled, [](const std::string& note) { return note.rfind("zero_optimization.stage3_", 0) == 0; });
  }
  return read;
}

}  // namespace vramfit
