#include "framework_json.hpp"

#include <vector>

#include "request_json_fields.hpp"

namespace vramfit {

using request_fields::Fields;

namespace {
const char* recompute_granularity_id(Recompute r) {
  return r == Recompute::full ? "full" : r == Recompute::selective ? "selective" : "none";
}
}  // namespace

const char* training_framework_id(TrainingFramework framework) {
  return framework == TrainingFramework::megatron ? "megatron" : "hf-trainer";
}

bool parse_training_framework(const std::string& id, TrainingFramework& framework) {
  if (id == "hf-trainer") framework = TrainingFramework::hf_trainer;
  else if (id == "megatron") framework = TrainingFramework::megatron;
  else return false;
  return true;
}

namespace {

// Megatron-LM's flags that take a number, without their "--" (megatron/training/arguments.py),
// and where each goes; one table for reading and writing them.
struct CountFlag {
  const char* name;
  int64_t MegatronSettings::*member;
  int64_t min, max;
};
constexpr int64_t kMaxParallel = 1 << 16;
constexpr CountFlag kCountFlags[] = {
    {"tensor-model-parallel-size", &MegatronSettings::tensor_model_parallel_size, 1, kMaxParallel},
    {"pipeline-model-parallel-size", &MegatronSettings::pipeline_model_parallel_size, 1, kMaxParallel},
    {"num-virtual-stages-per-pipeline-rank", &MegatronSettings::virtual_pipeline_model_parallel_size, 1, kMaxParallel},
    {"num-layers-per-virtual-pipeline-stage", &MegatronSettings::num_layers_per_virtual_pipeline_stage, 0, kMaxParallel},
    {"context-parallel-size", &MegatronSettings::context_parallel_size, 1, kMaxParallel},
    {"expert-model-parallel-size", &MegatronSettings::expert_model_parallel_size, 1, kMaxParallel},
    {"expert-tensor-parallel-size", &MegatronSettings::expert_tensor_parallel_size, 0, kMaxParallel},
    {"micro-batch-size", &MegatronSettings::micro_batch_size, 1, kMaxMicroBatch},
    {"global-batch-size", &MegatronSettings::global_batch_size, 0, int64_t(1) << 40},
    {"seq-length", &MegatronSettings::seq_length, 1, kMaxTrainingSequence},
    {"make-vocab-size-divisible-by", &MegatronSettings::make_vocab_size_divisible_by, 1, 1 << 20}};
struct SwitchFlag {
  const char* name;
  bool MegatronSettings::*member;
};
constexpr SwitchFlag kSwitchFlags[] = {{"sequence-parallel", &MegatronSettings::sequence_parallel},
                                       {"use-distributed-optimizer", &MegatronSettings::use_distributed_optimizer}};

}  // namespace

// The world size is the request's gpu_count.
std::optional<Error> megatron_settings_from_json(const json& j, MegatronSettings& m) {
  if (!j.is_object()) return make_error("request.wrong_type", "training.megatron", "training.megatron: must be an object");
  Fields f{j, "training.megatron.", std::nullopt};
  std::vector<const char*> flags = {"recompute-granularity"};
  for (const CountFlag& c : kCountFlags) flags.push_back(c.name);
  for (const SwitchFlag& b : kSwitchFlags) flags.push_back(b.name);
  f.only(flags.data(), flags.data() + flags.size());
  for (const CountFlag& c : kCountFlags) m.*c.member = f.integer(c.name, m.*c.member, c.min, c.max);
  for (const SwitchFlag& b : kSwitchFlags) m.*b.member = f.boolean(b.name, m.*b.member);
  const std::string recompute = f.text("recompute-granularity", recompute_granularity_id(m.recompute_granularity));
  if (recompute == "none") m.recompute_granularity = Recompute::none;
  else if (recompute == "selective") m.recompute_granularity = Recompute::selective;
  else if (recompute == "full") m.recompute_granularity = Recompute::full;
  else if (!f.error) f.fail("request.bad_value", "training.megatron.recompute-granularity", "must be none, selective or full (got '" + recompute + "')");
  return f.error;
}

// Every flag, with one of the two ways of giving the virtual stages (the one that decides).
json megatron_settings_to_json(const MegatronSettings& m) {
  json j = json::object();
  for (const CountFlag& c : kCountFlags) j[c.name] = m.*c.member;
  j.erase(m.num_layers_per_virtual_pipeline_stage > 0 ? "num-virtual-stages-per-pipeline-rank" : "num-layers-per-virtual-pipeline-stage");
  for (const SwitchFlag& b : kSwitchFlags) j[b.name] = m.*b.member;
  j["recompute-granularity"] = recompute_granularity_id(m.recompute_granularity);
  return j;
}

}  // namespace vramfit
