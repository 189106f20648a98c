// DeepSpeed ZeRO (issue 35): DeepSpeed's own estimators of the model states, printed by vramfit
// and compared line by line with public runs of them (validation/training/deepspeed_estimator.json),
// the release at which the ZeRO-2 estimator changed; a ds_config read as the Trainer fills it; each
// rank's allocations held to DeepSpeed's estimate where both count the same things; the CLI.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"
#include "core/deepspeed.hpp"
#include "helpers.hpp"
#include "io/deepspeed_config.hpp"
#include "report/frameworks.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

json estimator_logs() { return validation_data("training/deepspeed_estimator.json"); }

std::string without_trailing_spaces(std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// vramfit's table for a point: DeepSpeed's inputs as given (cold), or counted from the preset (live).
DeepSpeedEstimate estimate_for(const json& point) {
  const json& call = point.at("call");
  DeepSpeedModelParams params;
  if (call.contains("model")) {
    params = deepspeed_model_params(preset(call.at("model").get<std::string>()).spec, call.at("output_head").get<bool>());
  } else {
    params.total = call.at("total_params").get<int64_t>();
    params.largest_layer = call.value("largest_layer_params", int64_t(0));
  }
  DeepSpeedVersion version;
  if (point.contains("run_as")) REQUIRE(parse_deepspeed_version(point.at("run_as").get<std::string>(), version));
  return deepspeed_estimate(call.at("stage").get<int>(), params, call.at("gpus_per_node").get<int64_t>(),
                            call.at("nodes").get<int64_t>(), version);
}

}  // namespace

TEST_CASE("DeepSpeed's estimators print what public runs of them printed, line for line", "[training]") {
  const json logs = estimator_logs();
  REQUIRE(logs.at("points").size() >= 4);
  for (const json& point : logs.at("points")) {
    const std::string id = point.at("id").get<std::string>();
    INFO(id << " (" << point.at("source").get<std::string>() << ")");
    const std::vector<std::string> ours = deepspeed_estimate_lines(estimate_for(point));
    const json& printed = point.at("printed");
    REQUIRE(printed.size() <= ours.size());
    // A log quoted from its SW line on compares with the end of vramfit's lines.
    const size_t skip = ours.size() - printed.size();
    for (size_t i = 0; i < printed.size(); ++i) {
      INFO("line " << i);
      CHECK(without_trailing_spaces(ours[skip + i]) == printed[i].get<std::string>());
    }
  }
}

TEST_CASE("DeepSpeed's ZeRO-2 estimator changed at 0.14.3: 4 B + 16 B / GPUs before, 2 B + 18 B / GPUs since", "[training]") {
  // deepspeedai/DeepSpeed #5099 (f4cb866c, first in v0.14.3): only the row without offload changed.
  const DeepSpeedModelParams params{1000000000, 0};
  DeepSpeedVersion before, since;
  REQUIRE(parse_deepspeed_version("0.14.2", before));
  REQUIRE(parse_deepspeed_version("0.14.3", since));
  const DeepSpeedEstimate old_rows = deepspeed_estimate(2, params, 8, 1, before);
  const DeepSpeedEstimate new_rows = deepspeed_estimate(2, params, 8, 1, since);
  REQUIRE(old_rows.rows.size() == 2);
  REQUIRE(new_rows.rows.size() == 2);
  CHECK(old_rows.rows[1].gpu_bytes == 4000000000 + 2000000000);  // 4 B + 16 B / 8
  CHECK(new_rows.rows[1].gpu_bytes == 2000000000 + 2250000000);  // 2 B + 18 B / 8
  CHECK(old_rows.rows[0].gpu_bytes == new_rows.rows[0].gpu_bytes);  // offloaded: 2 B in both
  CHECK(old_rows.rows[0].cpu_bytes == new_rows.rows[0].cpu_bytes);
  // The newest release is the default.
  CHECK(deepspeed_estimate(2, params, 8, 1, DeepSpeedVersion{}).rows[1].gpu_bytes == new_rows.rows[1].gpu_bytes);
}

TEST_CASE("DeepSpeed's parameter count: a tied embedding once, the largest module's own parameters", "[training]") {
  // Llama 3.2 1B ties its output head to the embedding: AutoModel and AutoModelForCausalLM count
  // the same 1,235,814,400 parameters (the model card's 1.24 B); the largest module is the
  // 128,256 x 2,048 embedding.
  const DeepSpeedModelParams tied = deepspeed_model_params(preset("llama-3.2-1b").spec, true);
  CHECK(tied.total == 1235814400);
  CHECK(tied.largest_layer == 128256LL * 2048);
  CHECK(deepspeed_model_params(preset("llama-3.2-1b").spec, false).total == tied.total);
  // Llama 2 7B's head is its own 32,000 x 4,096 tensor: AutoModel leaves it out.
  const DeepSpeedModelParams causal = deepspeed_model_params(preset("llama-2-7b").spec, true);
  CHECK(causal.total - deepspeed_model_params(preset("llama-2-7b").spec, false).total == 32000LL * 4096);
}

TEST_CASE("DeepSpeed versions as pip prints them", "[training]") {
  DeepSpeedVersion v;
  CHECK(parse_deepspeed_version("0.19.6", v));
  CHECK(deepspeed_version_text(v) == "0.19.6");
  CHECK(parse_deepspeed_version("0.15.4+cu121", v));
  CHECK(deepspeed_version_text(v) == "0.15.4");
  CHECK_FALSE(parse_deepspeed_version("0.15", v));
  CHECK_FALSE(parse_deepspeed_version("latest", v));
  CHECK_FALSE(parse_deepspeed_version("0.15.4x", v));
}

namespace {

DeepSpeedConfig read_ok(const std::string& text, const DeepSpeedAutoValues& values = {4096, 2, 8, true, false}) {
  auto read = read_deepspeed_config(text, values);
  INFO(text);
  REQUIRE(read);
  return read->config;
}

Error read_error(const std::string& text) {
  auto read = read_deepspeed_config(text, DeepSpeedAutoValues{4096, 2, 8, true, false});
  INFO(text);
  REQUIRE_FALSE(read);
  return read.error();
}

}  // namespace

TEST_CASE("A ds_config's auto values are filled as the Trainer fills them", "[training]") {
  // transformers/integrations/deepspeed.py: reduce_bucket_size = hidden_size^2 at every stage;
  // at stage 3 stage3_prefetch_bucket_size = int(0.9 hidden_size^2), persistence = 10 hidden_size.
  auto read = read_deepspeed_config(R"({"bf16": {"enabled": "auto"}, "train_micro_batch_size_per_gpu": "auto",
      "zero_optimization": {"stage": 3, "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
                            "stage3_param_persistence_threshold": "auto", "stage3_max_live_parameters": 1e9}})",
                                    DeepSpeedAutoValues{4096, 2, 8, true, false});
  REQUIRE(read);
  const DeepSpeedConfig& c = read->config;
  CHECK(c.stage == 3);
  CHECK(c.bf16);
  CHECK_FALSE(c.fp16);
  CHECK(c.train_micro_batch_size_per_gpu == 2);
  CHECK(c.reduce_bucket_size == 4096 * 4096);
  CHECK(c.stage3_prefetch_bucket_size == 15099494);  // int(0.9 x 16,777,216) = int(15,099,494.4)
  CHECK(c.stage3_param_persistence_threshold == 40960);
  CHECK(c.stage3_max_live_parameters == 1000000000);
  CHECK(c.overlap_comm);  // DeepSpeed's default at stage 3 (overlap_comm_valid)
  CHECK(read->filled.size() == 5);
  // At stage 2 the Trainer leaves the stage-3 keys alone; overlap_comm defaults to false.
  auto stage2 = read_deepspeed_config(R"({"zero_optimization": {"stage": 2, "reduce_bucket_size": "auto",
      "stage3_prefetch_bucket_size": "auto", "offload_optimizer": {"device": "cpu", "pin_memory": true}}})",
                                      DeepSpeedAutoValues{4096, 2, 8, true, false});
  REQUIRE(stage2);
  CHECK(stage2->config.offload_optimizer == DeepSpeedOffload::cpu);
  CHECK_FALSE(stage2->config.overlap_comm);
  CHECK(stage2->filled.size() == 1);
  // The pre-0.5 spelling of the optimizer's offload.
  CHECK(read_ok(R"({"zero_optimization": {"stage": 2, "cpu_offload": true}})").offload_optimizer == DeepSpeedOffload::cpu);
  // Keys that do not move memory are left alone; 5e8 written as a float is an integer count.
  CHECK(read_ok(R"({"optimizer": {"type": "AdamW", "params": {"lr": "auto"}}, "steps_per_print": 10,
                     "zero_optimization": {"stage": 1, "allgather_bucket_size": 2e8}})").allgather_bucket_size == 200000000);
}

TEST_CASE("A ds_config's mistakes are errors naming the key", "[training]") {
  CHECK(read_error("[1, 2]").field == "deepspeed");
  CHECK(read_error(R"({"zero_optimization": {"stage": 4}})").field == "zero_optimization.stage");
  CHECK(read_error(R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "gpu"}}})").field ==
        "zero_optimization.offload_param.device");
  CHECK(read_error(R"({"zero_optimization": {"stage": 2, "offload_param": {"device": "cpu"}}})").field ==
        "zero_optimization.offload_param");
  CHECK(read_error(R"({"zero_optimization": {"stage": 2, "reduce_bucket_size": "big"}})").field ==
        "zero_optimization.reduce_bucket_size");
  CHECK(read_error(R"({"bf16": {"enabled": true}, "fp16": {"enabled": true}})").field == "fp16.enabled");
  CHECK(read_error(R"({"train_micro_batch_size_per_gpu": 0})").field == "train_micro_batch_size_per_gpu");
}

namespace {

// A rank of Llama 2 7B's full fine-tuning with AdamW under `config`, over `gpus`.
DeepSpeedRank llama2_rank(DeepSpeedConfig config, int64_t gpus) {
  const ModelSpec& model = preset("llama-2-7b").spec;
  TrainingSettings s;
  s.recipe = PrecisionRecipe::mixed_bf16;
  s.optimizer = Optimizer::adamw;
  auto base = training_memory(builtin_catalog().formats, model, s);
  REQUIRE(base);
  return deepspeed_zero_rank(*base, s, config, deepspeed_model_params(model, true).largest_layer, gpus);
}

int64_t model_states_on_gpu(const DeepSpeedRank& r) {
  return r.params16 + r.gathered + r.grads16 + r.buckets + r.master + r.grads32 + r.optimizer;
}

}  // namespace

TEST_CASE("Each rank's ZeRO allocations add up to DeepSpeed's own estimate where both count the same", "[training]") {
  // DeepSpeed's estimators leave out the buckets and the prefetch: with both at 0, the 16-bit
  // parameters and gradients, the fp32 partition and gradients and Adam's two states a rank holds
  // are the estimate's GPU bytes, and what the offloads put in CPU memory is its CPU bytes
  // without the 1.5 buffer factor. Llama 2 7B: 6,738,415,616 parameters, divisible by 4 and 8.
  const DeepSpeedModelParams params = deepspeed_model_params(preset("llama-2-7b").spec, true);
  for (int64_t gpus : {4, 8}) {
    const DeepSpeedEstimate zero3 = deepspeed_estimate(3, params, gpus, 1, DeepSpeedVersion{});
    const DeepSpeedEstimate zero2 = deepspeed_estimate(2, params, gpus, 1, DeepSpeedVersion{});
    DeepSpeedConfig c;
    c.bf16 = true;
    c.contiguous_gradients = false;  // no buckets
    c.stage3_prefetch_bucket_size = 0;
    c.stage = 3;
    INFO(gpus << " GPUs");
    // zero3 rows: 0/1 both offloaded, 2/3 the optimizer offloaded, 4/5 nothing (zero_init 1, 0).
    CHECK(model_states_on_gpu(llama2_rank(c, gpus)) == zero3.rows[4].gpu_bytes);
    c.offload_optimizer = DeepSpeedOffload::cpu;
    const DeepSpeedRank optimizer_off = llama2_rank(c, gpus);
    CHECK(model_states_on_gpu(optimizer_off) == zero3.rows[2].gpu_bytes);
    CHECK(static_cast<double>(optimizer_off.host_bytes * gpus) * 1.5 == static_cast<double>(zero3.rows[2].cpu_bytes));
    c.offload_param = DeepSpeedOffload::cpu;
    const DeepSpeedRank both_off = llama2_rank(c, gpus);
    CHECK(model_states_on_gpu(both_off) == zero3.rows[0].gpu_bytes);
    CHECK(static_cast<double>(both_off.host_bytes * gpus) * 1.5 == static_cast<double>(zero3.rows[0].cpu_bytes));
    // ZeRO-2 (the estimator since 0.14.3): 2 B + 18 B / GPUs.
    DeepSpeedConfig c2;
    c2.bf16 = true;
    c2.stage = 2;
    c2.contiguous_gradients = true;
    c2.reduce_bucket_size = 0;
    CHECK(model_states_on_gpu(llama2_rank(c2, gpus)) == zero2.rows[1].gpu_bytes);
    c2.offload_optimizer = DeepSpeedOffload::cpu;
    const DeepSpeedRank offloaded = llama2_rank(c2, gpus);
    CHECK(model_states_on_gpu(offloaded) == zero2.rows[0].gpu_bytes);
    CHECK(offloaded.offload_buffer == 2 * params.largest_layer);  // staging the estimator leaves out
  }
}

TEST_CASE("ZeRO's stages as DeepSpeed allocates them: what each shards, the buckets, NVMe", "[training]") {
  DeepSpeedConfig c;
  c.bf16 = true;
  c.stage = 1;
  const int64_t P = 6738415616;
  const DeepSpeedRank one = llama2_rank(c, 8);
  CHECK(one.params16 == 2 * P);
  CHECK(one.grads16 == 2 * P);  // stage 1 keeps every gradient until the reduction
  CHECK(one.buckets == 0);
  CHECK(one.master == 4 * P / 8);
  c.stage = 2;
  c.reduce_bucket_size = 500000000;
  c.overlap_comm = true;
  const DeepSpeedRank two = llama2_rank(c, 8);
  CHECK(two.grads16 == 2 * P / 8);
  CHECK(two.buckets == 2 * 2 * 500000000);  // double buffers with overlap_comm (setup_buckets)
  c.stage = 3;
  c.stage3_max_live_parameters = 100000000;  // caps what is gathered at once
  c.stage3_prefetch_bucket_size = 50000000;
  const DeepSpeedRank three = llama2_rank(c, 8);
  CHECK(three.gathered == 2 * 100000000);
  CHECK(three.buckets == 2 * 500000000);  // one ipg bucket at stage 3
  c.offload_optimizer = DeepSpeedOffload::nvme;
  const DeepSpeedRank nvme = llama2_rank(c, 8);
  CHECK(nvme.host_bytes == 0);
  CHECK(nvme.nvme_bytes == (4 + 4 + 8) * P / 8);
  CHECK(nvme.total < three.total);
}

TEST_CASE("vramfit train --deepspeed: the config's rank, its offloads and DeepSpeed's own table", "[cli]") {
  char path[] = "/tmp/vramfit-ds-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  {
    std::ofstream config(path);
    config << R"({"bf16": {"enabled": "auto"}, "train_micro_batch_size_per_gpu": "auto",
                 "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "reduce_bucket_size": "auto",
                                       "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto"}})";
  }
  std::ostringstream out, err;
  int status = run_cli({"train", "-m", "llama-2-7b", "-n", "8", "--nodes", "2", "--deepspeed", path, "-g", "a100-80"}, out, err);
  INFO(err.str());
  REQUIRE(status == 0);
  const std::string text = out.str();
  CHECK(text.find("zero3 over 8 GPUs") != std::string::npos);
  CHECK(text.find("DeepSpeed 0.19.6, ZeRO-3, offload_optimizer cpu, offload_param none: 2 nodes x 4 GPUs") != std::string::npos);
  CHECK(text.find("HW: Setup with 2 nodes, 4 GPUs per node.") != std::string::npos);
  CHECK(text.find("offload_param=none, offload_optimizer=cpu , zero_init=1  <- this config") != std::string::npos);
  CHECK(text.find("CPU memory for the offloads: ") != std::string::npos);
  CHECK(text.find("  see_memory_usage: MA ") != std::string::npos);
  std::ostringstream json_out, json_err;
  status = run_cli({"train", "-m", "llama-2-7b", "-n", "8", "--nodes", "2", "--deepspeed", path, "--json"}, json_out, json_err);
  REQUIRE(status == 0);
  const json j = json::parse(json_out.str());
  CHECK(j.at("deepspeed").at("rank").at("total_bytes") == j.at("breakdown").at("total_bytes"));
  CHECK(j.at("deepspeed").at("gpus_per_node") == 4);
  CHECK(j.at("deepspeed").at("host_bytes_per_node").get<int64_t>() == 4 * j.at("deepspeed").at("rank").at("host_bytes").get<int64_t>());
  CHECK(j.at("deepspeed").at("estimator").at("config_row") == 2);
  // The GPUs must split evenly over the nodes; the config, not --sharding, says the stage.
  std::ostringstream e1, e2, o1, o2;
  CHECK(run_cli({"train", "-m", "llama-2-7b", "-n", "8", "--nodes", "3", "--deepspeed", path}, o1, e1) == 2);
  CHECK(e1.str().find("nodes: the 8 GPUs (--gpu-count) do not split evenly over 3 nodes") != std::string::npos);
  CHECK(run_cli({"train", "-m", "llama-2-7b", "--sharding", "zero2", "--deepspeed", path}, o2, e2) == 2);
  CHECK(e2.str().find("leave out --framework, --megatron and --sharding") != std::string::npos);
  std::remove(path);
}

TEST_CASE("DeepSpeed's see_memory_usage line: what stays between steps and the peak, in GiB as Python rounds them", "[training]") {
  DeepSpeedRank r;
  r.params16 = 1073741824;                 // 1 GiB
  r.master = r.grads32 = 536870912;        // 0.5 GiB each
  r.optimizer = 1073741824;
  r.runtime = 536870912;                   // not PyTorch's: left out of Max_MA
  r.subtotal = 3 * 1073741824LL + 322122547 + r.runtime;  // + 0.3 GiB of activations
  CHECK(deepspeed_printed_line(r) == "MA 3.0 GB         Max_MA 3.3 GB");
}

TEST_CASE("LoRA under DeepSpeed: the adapters train and shard, the frozen base stays whole until ZeRO-3", "[training]") {
  const ModelSpec& model = preset("llama-2-7b").spec;
  TrainingSettings s;
  s.recipe = PrecisionRecipe::mixed_bf16;
  s.method = FineTuning::lora;
  s.lora_rank = 16;
  auto base = training_memory(builtin_catalog().formats, model, s);
  REQUIRE(base);
  const int64_t adapters = base->trainable_parameters;
  REQUIRE(adapters > 0);
  REQUIRE(adapters < base->parameters / 100);
  DeepSpeedConfig c;
  c.bf16 = true;
  c.stage = 2;
  const int64_t largest = deepspeed_model_params(model, true).largest_layer;
  const DeepSpeedRank two = deepspeed_zero_rank(*base, s, c, largest, 8);
  CHECK(two.frozen16 == 2 * base->parameters);  // every GPU holds the frozen base in bf16
  CHECK(two.params16 == 2 * adapters);
  CHECK(two.master == 4 * ((adapters + 7) / 8));
  c.stage = 3;
  const DeepSpeedRank three = deepspeed_zero_rank(*base, s, c, largest, 8);
  CHECK(three.frozen16 == 2 * ((base->parameters + 7) / 8));  // ZeRO-3 partitions it
  c.offload_param = DeepSpeedOffload::cpu;
  const DeepSpeedRank offloaded = deepspeed_zero_rank(*base, s, c, largest, 8);
  CHECK(offloaded.frozen16 == 0);
  CHECK(offloaded.host_bytes == three.frozen16 + three.params16);
  // QLoRA under DeepSpeed is refused, naming the field.
  std::ostringstream out, err;
  CHECK(run_cli({"train", "-m", "llama-2-7b", "--method", "qlora", "--deepspeed",
                 std::string(VRAMFIT_SOURCE_DIR) + "/docs/examples/ds_config_zero3.json"}, out, err) == 2);
  CHECK(err.str().find("training.method: vramfit answers DeepSpeed for full fine-tuning and LoRA") != std::string::npos);
}
