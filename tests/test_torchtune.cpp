// torchtune's single-device recipes (issue 35): the peak vramfit gives for each measured run in
// torchtune's own README (validation/training/torchtune_memory.json), scored against the goal the
// README states for training (10 % median, 20 % worst), the tune command's overrides read by their
// config names, and the terms that decide the peak.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "cli/cli.hpp"
#include "core/torchtune.hpp"
#include "helpers.hpp"
#include "io/torchtune_command.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

json torchtune_points() { return validation_data("training/torchtune_memory.json"); }

TorchtuneMemory memory_for(const json& point) {
  auto command = read_torchtune_command(point.at("line").get<std::string>());
  INFO(point.at("line").get<std::string>());
  REQUIRE(command);
  auto memory = torchtune_memory(builtin_catalog().formats, preset(point.at("model").get<std::string>()).spec, command->settings);
  REQUIRE(memory);
  return *memory;
}

double relative_error(const json& point) {
  const double gib = static_cast<double>(memory_for(point).peak) / 1073741824.0;
  const double measured = point.at("measured_gib").get<double>();
  return (gib - measured) / measured;
}

}  // namespace

TEST_CASE("torchtune's README peaks: vramfit within 10 % median and 20 % worst", "[training]") {
  const json data = torchtune_points();
  std::vector<double> errors;
  for (const json& point : data.at("points")) {
    const double e = relative_error(point);
    WARN(point.at("id").get<std::string>() << ": measured " << point.at("measured_gib").get<double>() << " GiB, vramfit "
                                           << static_cast<double>(memory_for(point).peak) / 1073741824.0 << " GiB ("
                                           << (e >= 0 ? "+" : "") << e * 100 << " %)");
    errors.push_back(std::fabs(e));
  }
  REQUIRE(errors.size() >= 8);
  std::sort(errors.begin(), errors.end());
  const double median = errors.size() % 2 ? errors[errors.size() / 2] : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
  CHECK(median <= 0.10);
  CHECK(errors.back() <= 0.20);
  for (const json& miss : data.at("misses")) {
    INFO(miss.at("id").get<std::string>() << ": " << miss.at("why").get<std::string>());
    CHECK(std::fabs(relative_error(miss)) > 0.20);
  }
}

TEST_CASE("A tune command's overrides are read by their config names; others are listed as skipped", "[training]") {
  auto c = read_torchtune_command(
      "tune run lora_finetune_single_device --config llama3_1/8B_qlora_single_device "
      "model._component_=torchtune.models.llama3_1.qlora_llama3_1_8b \"model.lora_attn_modules=['q_proj', 'k_proj']\" "
      "model.apply_lora_to_mlp=true model.lora_rank=16 batch_size=4 tokenizer.max_seq_len=8192 compile=True "
      "optimizer._component_=bitsandbytes.optim.PagedAdamW8bit optimizer.lr=3e-4 checkpointer.checkpoint_dir=/tmp/m");
  REQUIRE(c);
  CHECK(c->recipe == "lora_finetune_single_device");
  CHECK(c->config == "llama3_1/8B_qlora_single_device");
  const TorchtuneSettings& s = c->settings;
  CHECK(s.method == FineTuning::qlora);
  CHECK(s.lora_q);
  CHECK(s.lora_k);
  CHECK_FALSE(s.lora_v);
  CHECK(s.apply_lora_to_mlp);
  CHECK(s.lora_rank == 16);
  CHECK(s.batch_size == 4);
  CHECK(s.max_seq_len == 8192);
  CHECK(s.compile);
  CHECK(s.optimizer == TorchtuneOptimizer::paged_adamw_8bit);
  CHECK(c->skipped == std::vector<std::string>{"optimizer.lr", "checkpointer.checkpoint_dir"});
}

TEST_CASE("A tune command's mistakes are errors naming the key", "[training]") {
  auto error_field = [](const std::string& line) {
    auto c = read_torchtune_command(line);
    INFO(line);
    REQUIRE_FALSE(c);
    return c.error().field;
  };
  CHECK(error_field("tune run full_finetune_single_device batch_size=0") == "batch_size");
  CHECK(error_field("tune run full_finetune_single_device compile=yes") == "compile");
  CHECK(error_field("tune run full_finetune_single_device dtype=fp16") == "dtype");
  CHECK(error_field("tune run full_finetune_single_device optimizer._component_=torch.optim.SGD") == "optimizer._component_");
  CHECK(error_field("tune run lora_finetune_single_device model.lora_attn_modules=[w1]") == "model.lora_attn_modules");
  CHECK(error_field("tune run qat_distributed batch_size=2") == "recipe");
  CHECK(error_field("tune run lora_finetune_single_device model._component_=torchtune.models.llama3_1.llama3_1_8b") == "model._component_");
  CHECK(error_field("tune run full_finetune_single_device --config") == "--config");
  CHECK(error_field("tune run full_finetune_single_device batch_size") == "batch_size");
}

TEST_CASE("torchtune's terms: QLoRA's NF4 bytes, paged states outside the peak, optimizer_in_bwd, offloading", "[training]") {
  const ModelSpec& model = preset("llama-3.1-8b").spec;
  TorchtuneSettings s;
  s.method = FineTuning::qlora;
  s.enable_activation_checkpointing = true;
  s.compile = true;
  auto qlora = torchtune_memory(builtin_catalog().formats, model, s);
  REQUIRE(qlora);
  // Every decoder linear in NF4: 4 bits, an int8 scaler per 64, an fp32 factor per 16,384
  // elements; the 128,256 x 4,096 embedding and output (and the norms) in bf16.
  const int64_t n = qlora->nf4_elements;
  CHECK(n == 8030261248 - 2 * 525336576 - 65 * 4096);
  CHECK(qlora->weights == (n / 2 + n / 64 + 4 * ((n + 16383) / 16384)) + 2 * (8030261248 - n));
  // q and v adapters at rank 8 (the default modules) in 32 layers: 8 x (4096 + 4096) + 8 x (4096 + 1024).
  CHECK(qlora->adapters == 32 * (8 * (4096 + 4096) + 8 * (4096 + 1024)));
  // Full fine-tuning with PagedAdamW8bit: its states are not in PyTorch's peak.
  TorchtuneSettings full;
  full.enable_activation_checkpointing = true;
  full.optimizer = TorchtuneOptimizer::paged_adamw_8bit;
  auto paged = torchtune_memory(builtin_catalog().formats, model, full);
  REQUIRE(paged);
  CHECK(paged->optimizer == 0);
  CHECK(paged->optimizer_paged > 2 * 8030261248 - 1);
  // optimizer_in_bwd: the gradients are not all alive at the end of the backward pass.
  full.optimizer_in_bwd = true;
  auto in_bwd = torchtune_memory(builtin_catalog().formats, model, full);
  REQUIRE(in_bwd);
  CHECK(in_bwd->peak < paged->peak - 8030261248);  // 2 B x 8 B parameters less (their bf16 gradients), give or take a layer
  // Activation offloading keeps two layers' saved activations on the GPU.
  full.enable_activation_offloading = true;
  auto offloaded = torchtune_memory(builtin_catalog().formats, model, full);
  REQUIRE(offloaded);
  CHECK(offloaded->offload_kept == 2 * ((offloaded->activations + 31) / 32));
  CHECK(offloaded->peak <= in_bwd->peak);
}

TEST_CASE("vramfit train --torchtune: the recipe's verdict and torchtune's own metric", "[cli]") {
  std::ostringstream out, err;
  const int status = run_cli({"train", "-m", "llama-3.2-3b", "-g", "a100-80", "--torchtune",
                              "tune run full_finetune_single_device batch_size=2 tokenizer.max_seq_len=4096 dtype=bf16 "
                              "enable_activation_checkpointing=True optimizer_in_bwd=True compile=True "
                              "loss._component_=torchtune.modules.loss.CEWithChunkedOutputLoss"},
                             out, err);
  INFO(err.str());
  REQUIRE(status == 0);
  const std::string text = out.str();
  CHECK(text.find("full, bf16, AdamW, micro-batch 2 x 4,096 tokens") != std::string::npos);
  CHECK(text.find("torchtune full_finetune_single_device:") != std::string::npos);
  CHECK(text.find("  peak_memory_alloc: ") != std::string::npos);
  std::ostringstream json_out, json_err;
  REQUIRE(run_cli({"train", "-m", "llama-3.2-3b", "--torchtune", "tune run full_finetune_single_device batch_size=2", "--json"},
                  json_out, json_err) == 0);
  const json j = json::parse(json_out.str());
  CHECK(j.at("torchtune").at("peak_bytes").get<int64_t>() < j.at("breakdown").at("total_bytes").get<int64_t>());
  std::ostringstream e1, o1;
  CHECK(run_cli({"train", "-m", "llama-3.2-3b", "--method", "lora", "--torchtune", "tune run full_finetune_single_device"}, o1, e1) == 2);
  CHECK(e1.str().find("leave out --framework") != std::string::npos);
}

TEST_CASE("torchtune's distributed recipes: FSDP2 over tune run's GPUs, CPU offload, custom-sharded layers", "[training]") {
  auto c = read_torchtune_command("tune run --nproc_per_node 8 --nnodes 2 full_finetune_distributed --config llama3_1/70B_full "
                                  "custom_sharded_layers=['tok_embeddings','output'] fsdp_cpu_offload=True batch_size=2");
  REQUIRE(c);
  CHECK(c->settings.distributed);
  CHECK(c->settings.world_size == 16);
  CHECK(c->settings.fsdp_cpu_offload);
  CHECK(c->settings.shard_tok_embeddings);
  CHECK(c->settings.shard_output);
  CHECK_FALSE(read_torchtune_command("tune run --nproc_per_node eight full_finetune_distributed"));
  CHECK(read_torchtune_command("tune run full_finetune_distributed custom_sharded_layers=[norm]").error().field == "custom_sharded_layers");

  const ModelSpec& model = preset("llama-3.1-70b").spec;
  TorchtuneSettings s;
  s.distributed = true;
  s.enable_activation_checkpointing = true;
  s.world_size = 8;
  auto eight = torchtune_memory(builtin_catalog().formats, model, s);
  s.world_size = 16;
  auto sixteen = torchtune_memory(builtin_catalog().formats, model, s);
  REQUIRE(eight);
  REQUIRE(sixteen);
  // Twice the GPUs: the sharded weights, gradients and states halve; the gathered units do not.
  CHECK(sixteen->gathered == eight->gathered);
  CHECK(eight->peak - sixteen->peak > (eight->weights + eight->optimizer) / 16 - 1);
  // The root (embedding, final norm, output: 2 x 128,256 x 8,192 bf16 and the norm) stays
  // gathered; custom-sharding the output takes it out of the root.
  CHECK(eight->gathered > 2 * 2 * 128256LL * 8192);
  s.world_size = 8;
  s.shard_output = true;
  s.shard_tok_embeddings = true;
  auto custom = torchtune_memory(builtin_catalog().formats, model, s);
  REQUIRE(custom);
  CHECK(eight->gathered - custom->gathered == 2 * 2 * 128256LL * 8192);
  // fsdp_cpu_offload: the shards live on the CPU.
  s.fsdp_cpu_offload = true;
  auto offloaded = torchtune_memory(builtin_catalog().formats, model, s);
  REQUIRE(offloaded);
  CHECK(offloaded->host_bytes >= (offloaded->weights + offloaded->optimizer) / 8);
  CHECK(custom->peak - offloaded->peak >= (offloaded->weights + offloaded->optimizer) / 8 - 1);
}

TEST_CASE("torchtune's HSDP: data_parallel_replicate_dim groups, each sharding over data_parallel_shard_dim GPUs", "[training]") {
  // 16 GPUs as 2 replicas of 8 shards: each rank holds what FSDP over 8 GPUs gives it
  // (recipes' _setup_model: fully_shard over the ("dp_replicate", "dp_shard_cp") mesh).
  auto hsdp = read_torchtune_command("tune run --nproc_per_node 8 --nnodes 2 full_finetune_distributed "
                                     "data_parallel_replicate_dim=2 enable_activation_checkpointing=True batch_size=2");
  auto fsdp8 = read_torchtune_command("tune run --nproc_per_node 8 full_finetune_distributed "
                                      "enable_activation_checkpointing=True batch_size=2");
  auto fsdp16 = read_torchtune_command("tune run --nproc_per_node 8 --nnodes 2 full_finetune_distributed "
                                       "enable_activation_checkpointing=True batch_size=2");
  REQUIRE(hsdp);
  REQUIRE(fsdp8);
  REQUIRE(fsdp16);
  CHECK(hsdp->settings.world_size == 16);
  CHECK(hsdp->settings.shard_ranks() == 8);  // data_parallel_shard_dim -1: 16 / 2
  const ModelSpec& model = preset("llama-3.1-70b").spec;
  const auto& tables = builtin_catalog().formats;
  auto a = torchtune_memory(tables, model, hsdp->settings);
  auto b = torchtune_memory(tables, model, fsdp8->settings);
  auto c = torchtune_memory(tables, model, fsdp16->settings);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK(a->peak == b->peak);
  CHECK(a->peak > c->peak);
  // data_parallel_shard_dim given: 4 x 4.
  auto given = read_torchtune_command("tune run --nproc_per_node 8 --nnodes 2 lora_finetune_distributed "
                                      "model._component_=torchtune.models.llama3_1.lora_llama3_1_70b "
                                      "data_parallel_replicate_dim=4 data_parallel_shard_dim=4");
  REQUIRE(given);
  CHECK(given->settings.shard_ranks() == 4);
  // ParallelDims._validate's assertion, named by the key.
  auto bad = read_torchtune_command("tune run --nproc_per_node 8 full_finetune_distributed data_parallel_replicate_dim=3");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "data_parallel_replicate_dim");
  CHECK(bad.error().message.find("Invalid parallel dims: dp_replicate(3) * dp_shard(2) * tp(1) != WORLD_SIZE(8)") != std::string::npos);
  auto shard = read_torchtune_command("tune run --nproc_per_node 8 full_finetune_distributed data_parallel_replicate_dim=2 "
                                      "data_parallel_shard_dim=2");
  REQUIRE_FALSE(shard);
  CHECK(shard.error().field == "data_parallel_replicate_dim");
  // Tensor and context parallelism are refused, not skipped; 1 is read.
  auto tp = read_torchtune_command("tune run --nproc_per_node 8 full_finetune_distributed tensor_parallel_dim=2");
  REQUIRE_FALSE(tp);
  CHECK(tp.error().field == "tensor_parallel_dim");
  CHECK(read_torchtune_command("tune run --nproc_per_node 8 full_finetune_distributed context_parallel_dim=1"));
  // The single-device recipes have no mesh: the keys are listed as not read.
  auto single = read_torchtune_command("tune run full_finetune_single_device data_parallel_replicate_dim=2");
  REQUIRE(single);
  CHECK(std::find(single->skipped.begin(), single->skipped.end(), "data_parallel_replicate_dim") != single->skipped.end());
}
