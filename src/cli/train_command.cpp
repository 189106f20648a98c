#include "train_command.hpp"

#include <sstream>

#include "cli_common.hpp"
#include "io/header_reads.hpp"
#include "io/megatron_command.hpp"
#include "io/request_json.hpp"
#include "model_files.hpp"
#include "yaml_config.hpp"
#include "report/estimate.hpp"
#include "report/framework_requests.hpp"
#include "report/frameworks.hpp"
#include "text_report.hpp"

namespace vramfit {

namespace {

void add_common_train_options(CLI::App& app, TrainOptions& o) {
  app.add_option("--optimizer", o.optimizer, "sgd, sgd_momentum, adam, adamw (default), adam_8bit, adafactor, lion")
      ->check(CLI::IsMember({"sgd", "sgd_momentum", "adam", "adamw", "adam_8bit", "adafactor", "lion"}));
  app.add_option("-g,--gpu", o.gpu, "GPU id (vramfit gpus)");
  app.add_option("--capacity-gib", o.capacity_gib, "Custom GPU memory in GiB instead of --gpu")->check(CLI::Range(0.001, 1048576.0));
  app.add_option("--margin", o.margin, "Safety margin as a fraction, 0 to 0.30 (default 0.10)")->check(CLI::Range(0.0, 0.30));
  app.add_option("--units", o.units, "GB (10^9) or GiB (2^30)")->check(CLI::IsMember({"GB", "GiB", "gb", "gib"}));
  app.add_option("--lang", o.lang, "The text report's language: en or ar (Arabic)")->check(CLI::IsMember({"en", "ar"}));
  app.add_flag("--compare", o.compare, "Also answer for every catalog GPU");
  app.add_flag("--json", o.as_json, "Print the report as JSON");
}

bool build_train_request(const TrainOptions& o, bool network, const std::optional<HubModel>& hub, json& request,
                         std::ostream& err) {
  request = json::object();
  std::string text;
  if (!o.request_file.empty()) {
    if (!read_file(o.request_file, text)) { err << "error: --request: cannot read " << o.request_file << "\n"; return false; }
    request = parse_json(text);
    if (request.is_discarded() || !request.is_object()) {
      err << "error: --request: " << o.request_file << " is not a JSON object\n";
      return false;
    }
  }
  request["mode"] = "training";
  if (!request.contains("training")) request["training"] = json::object();
  if (network) {
    if (!read_file(o.network_file, text)) { err << "error: cannot read " << o.network_file << "\n"; return false; }
    json net = parse_json(text);
    if (net.is_discarded()) { err << "error: " << o.network_file << " is not valid JSON\n"; return false; }
    request["network"] = net;
    if (o.batch > 0) request["training"]["batch"] = o.batch;
    if (!o.rule.empty()) request["training"]["activation_rule"] = o.rule;
    if (!o.device.empty()) request["training"]["device"] = o.device;
  } else {
    if (!o.config_file.empty()) {
      if (!read_file(o.config_file, text)) { err << "error: --config: cannot read " << o.config_file << "\n"; return false; }
      json config = parse_json(text);
      if (config.is_discarded()) { err << "error: --config: " << o.config_file << " is not valid JSON\n"; return false; }
      request["model"] = {{"config", config}, {"name", base_name(o.config_file)}};
    }
    if (hub) request["model"] = hub_model_config_json(*hub);
    if (!o.model.empty()) request["model"] = {{"preset", o.model}};
    json& t = request["training"];
    if (!o.recipe.empty()) t["recipe"] = o.recipe;
    if (o.foreach) t["foreach_transient"] = true;
    if (!o.sharding.empty()) t["sharding"] = o.sharding;
    if (!o.method.empty()) t["method"] = o.method;
    if (o.lora_rank > 0) t["lora"]["rank"] = o.lora_rank;
    if (!o.lora_targets.empty()) {
      json targets = json::array();
      std::stringstream list(o.lora_targets);
      for (std::string name; std::getline(list, name, ',');) targets.push_back(name);
      t["lora"]["targets"] = targets;
    }
    if (o.no_double_quant) t["lora"]["double_quant"] = false;
    if (o.micro_batch > 0) t["micro_batch"] = o.micro_batch;
    if (o.sequence > 0) t["sequence_length"] = o.sequence;
    if (o.no_flash_attention) t["flash_attention"] = false;
    if (!o.recompute.empty()) t["recompute"] = o.recompute;
    if (o.dropout) t["dropout"] = true;
    if (o.runtime_mib >= 0) t["runtime_bytes"] = o.runtime_mib * kMiB;
    if (!o.framework.empty()) t["framework"] = o.framework;
    if (!o.megatron_line.empty()) {
      auto line = read_megatron_command(o.megatron_line);
      if (!line) { err << "error: --megatron: " << line.error().message << "\n"; return false; }
      t["framework"] = "megatron";
      if (!t.contains("megatron")) t["megatron"] = json::object();
      t["megatron"].update(line->megatron);
      if (line->world_size > 0) request["gpu_count"] = line->world_size;
    }
    if (o.gpu_count > 0) request["gpu_count"] = o.gpu_count;
  }
  if (!o.optimizer.empty()) request["training"]["optimizer"] = o.optimizer;
  if (o.margin >= 0) request["training"]["margin_fraction"] = o.margin;
  if (!o.gpu.empty()) request["gpu"] = {{"id", o.gpu}};
  if (o.capacity_gib > 0) request["gpu"] = {{"capacity_bytes", static_cast<int64_t>(o.capacity_gib * static_cast<double>(kGiB))}};
  if (!o.units.empty()) request["units"] = (o.units == "GiB" || o.units == "gib") ? "GiB" : "GB";
  if (!o.lang.empty()) request["language"] = o.lang;
  if (o.compare) request["compare_gpus"] = true;
  return true;
}

// vramfit train --deepspeed ds_config.json: DeepSpeed ZeRO's answer per rank.
int run_deepspeed(const TrainOptions& o, const Request& request, const Catalog& catalog, std::ostream& out, std::ostream& err) {
  if (request.framework != TrainingFramework::hf_trainer || !o.sharding.empty()) {
    err << "error: --deepspeed: the config says the framework and ZeRO's stage (leave out --framework, --megatron and --sharding)\n";
    return 2;
  }
  DeepSpeedVersion version;
  if (!o.deepspeed_version.empty() && !parse_deepspeed_version(o.deepspeed_version, version)) {
    err << "error: --deepspeed-version: '" << o.deepspeed_version << "' is not a release such as 0.19.6\n";
    return 2;
  }
  std::string text;
  if (!read_file(o.deepspeed_file, text)) { err << "error: --deepspeed: cannot read " << o.deepspeed_file << "\n"; return 2; }
  auto answer = estimate_deepspeed(request, catalog, text, o.nodes, version);
  if (!answer) { err << error_line(o.lang, "--deepspeed " + o.deepspeed_file + ": " + answer.error().message); return 2; }
  if (o.as_json) out << deepspeed_report_to_json(*answer).dump(2) << "\n";
  else print_deepspeed_report(out, *answer);
  return 0;
}

// vramfit train --torchtune "tune run ...": torchtune's single-device recipe.
int run_torchtune(const TrainOptions& o, const Request& request, const Catalog& catalog, std::ostream& out, std::ostream& err) {
  if (request.framework != TrainingFramework::hf_trainer || !o.sharding.empty() || !o.method.empty() || o.micro_batch > 0 || o.sequence > 0) {
    err << "error: --torchtune: the tune line says the recipe, the method, batch_size and tokenizer.max_seq_len "
           "(leave out --framework, --megatron, --sharding, --method, --micro-batch and --seq)\n";
    return 2;
  }
  auto answer = estimate_torchtune(request, catalog, o.torchtune_line);
  if (!answer) { err << error_line(o.lang, "--torchtune: " + answer.error().message); return 2; }
  if (o.as_json) out << torchtune_report_to_json(*answer).dump(2) << "\n";
  else print_torchtune_report(out, *answer);
  return 0;
}

// vramfit train --llamafactory config.yaml: LLaMA-Factory's full or freeze fine-tuning.
int run_llamafactory(const TrainOptions& o, const Request& request, const Catalog& catalog, std::ostream& out, std::ostream& err) {
  if (request.framework != TrainingFramework::hf_trainer || !o.sharding.empty() || !o.method.empty() || o.micro_batch > 0 ||
      o.sequence > 0 || !o.recipe.empty() || !o.recompute.empty()) {
    err << "error: --llamafactory: the config says finetuning_type, per_device_train_batch_size, cutoff_len, bf16 and "
           "disable_gradient_checkpointing (leave out --framework, --megatron, --sharding, --method, --micro-batch, --seq, "
           "--recipe and --recompute)\n";
    return 2;
  }
  std::string text;
  if (!read_file(o.llamafactory_file, text)) { err << "error: --llamafactory: cannot read " << o.llamafactory_file << "\n"; return 2; }
  auto config = yaml_to_json(text);
  if (!config) { err << error_line(o.lang, "--llamafactory " + o.llamafactory_file + ": " + config.error().message); return 2; }
  auto answer = estimate_llamafactory(request, catalog, *config);
  if (!answer) { err << error_line(o.lang, "--llamafactory " + o.llamafactory_file + ": " + answer.error().message); return 2; }
  if (o.as_json) out << llamafactory_report_to_json(*answer).dump(2) << "\n";
  else print_llamafactory_report(out, *answer);
  return 0;
}

}  // namespace

void add_train_options(CLI::App& app, TrainOptions& o) {
  app.add_option("--request", o.request_file, "Request JSON file (mode training); other options override it")
      ->check(CLI::ExistingFile);
  auto* model = app.add_option("-m,--model", o.model, "Model preset id (vramfit models)");
  auto* config = app.add_option("--config", o.config_file, "Hugging Face config.json of the model")->check(CLI::ExistingFile)->excludes(model);
  add_hub_options(app, o.hub)->excludes(model)->excludes(config);
  app.add_option("--framework", o.framework, "Who allocates the step: hf-trainer (default: Trainer + PEFT) or megatron")
      ->check(CLI::IsMember({"hf-trainer", "megatron"}));
  app.add_option("--megatron", o.megatron_line,
                 "A Megatron-LM launch line (torchrun ... pretrain_gpt.py --tensor-model-parallel-size 2 ...): its parallel "
                 "layout, batch and sequence flags are read (implies --framework megatron)");
  auto* deepspeed = app.add_option("--deepspeed", o.deepspeed_file,
                                   "A DeepSpeed config (ds_config.json, as the Trainer's --deepspeed takes it): ZeRO's stage, "
                                   "offloads and buckets; answered per rank over --gpu-count GPUs")
                        ->check(CLI::ExistingFile);
  app.add_option("--nodes", o.nodes, "With --deepspeed: the nodes the --gpu-count GPUs are spread over (default 1)")
      ->check(CLI::Range(int64_t(1), kMaxGpuCount))->needs(deepspeed);
  app.add_option("--deepspeed-version", o.deepspeed_version, "With --deepspeed: the release, as pip shows it (default 0.19.6)")
      ->needs(deepspeed);
  app.add_option("--torchtune", o.torchtune_line,
                 "A torchtune launch (tune run full_finetune_single_device ... batch_size=2 enable_activation_checkpointing=True "
                 "...): the recipe's memory from its config keys, the peak as torchtune logs it")
      ->excludes(deepspeed);
  app.add_option("--llamafactory", o.llamafactory_file,
                 "A LLaMA-Factory training config (the YAML llamafactory-cli train takes): finetuning_type full or freeze, "
                 "its freeze_* keys, per_device_train_batch_size, cutoff_len, bf16")
      ->check(CLI::ExistingFile)->excludes(deepspeed);
  app.add_option("--recipe", o.recipe, "fp32, amp_bf16, amp_fp16, mixed_bf16 (default), mixed_fp16, bf16")
      ->check(CLI::IsMember({"fp32", "amp_bf16", "amp_fp16", "mixed_bf16", "mixed_fp16", "bf16"}));
  app.add_flag("--foreach", o.foreach, "Count foreach Adam's state-sized temporary in step()");
  app.add_option("--sharding", o.sharding, "none, zero1, zero2, zero3, fsdp (over --gpu-count GPUs)")
      ->check(CLI::IsMember({"none", "zero1", "zero2", "zero3", "fsdp"}));
  app.add_option("--method", o.method, "full (default), lora, qlora")->check(CLI::IsMember({"full", "lora", "qlora"}));
  app.add_option("--lora-rank", o.lora_rank, "LoRA rank (default 16)")->check(CLI::Range(int64_t(1), int64_t(65536)));
  app.add_option("--lora-targets", o.lora_targets, "Comma list of q,k,v,o,gate,up,down (default all)");
  app.add_flag("--no-double-quant", o.no_double_quant, "QLoRA without double quantization");
  app.add_option("-b,--micro-batch", o.micro_batch, "Sequences per GPU per step (default 1)")
      ->check(CLI::Range(int64_t(1), kMaxMicroBatch));
  app.add_option("--seq", o.sequence, "Sequence length (default 2048)")->check(CLI::Range(int64_t(1), kMaxTrainingSequence));
  app.add_flag("--no-flash-attention", o.no_flash_attention, "Keep the attention probabilities (s x s per head)");
  app.add_option("--recompute", o.recompute, "Activation recomputation: none, selective, full")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  app.add_flag("--dropout", o.dropout, "The model uses dropout (GPT-style)");
  app.add_option("-n,--gpu-count", o.gpu_count, "Data-parallel GPUs (ZeRO/FSDP shards)")->check(CLI::Range(int64_t(1), kMaxGpuCount));
  app.add_option("--runtime-mib", o.runtime_mib, "CUDA context and workspaces per GPU, MiB (default 512)")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 20));
  add_common_train_options(app, o);
}

void add_net_options(CLI::App& app, TrainOptions& o) {
  app.add_option("file", o.network_file, "Network JSON: {\"input\": [...], \"layers\": [...]} (README)")
      ->required()->check(CLI::ExistingFile);
  app.add_option("-b,--batch", o.batch, "Batch size (default 1)")->check(CLI::Range(int64_t(1), kMaxNetworkBatch));
  app.add_option("--rule", o.rule, "Activations: autograd (default; what PyTorch saves) or layer_outputs (the articles')")
      ->check(CLI::IsMember({"autograd", "layer_outputs"}));
  app.add_option("--device", o.device, "Autograd's device rules: cuda (default) or cpu")->check(CLI::IsMember({"cuda", "cpu"}));
  add_common_train_options(app, o);
}

// vramfit train / net: the request from the options, its estimate printed.
int run_train(const TrainOptions& o, bool network, const Catalog& catalog, std::ostream& out, std::ostream& err) {
  json request_json;
  std::optional<HubModel> hub;
  if (!o.hub.id.empty() && !read_hub_option(o.hub, catalog, hub, err)) return 2;
  if (!build_train_request(o, network, hub, request_json, err)) return 2;
  if (!network && is_separate_framework_request(request_json) && request_json["training"]["framework"] != "megatron") {
    if (!o.deepspeed_file.empty() || !o.torchtune_line.empty() || !o.llamafactory_file.empty()) {
      err << "error: --request: the file names its framework and holds its settings; leave out --deepspeed, --torchtune and --llamafactory\n";
      return 2;
    }
    return run_framework_request(request_json, o.lang, o.as_json, catalog, out, err);
  }
  auto request = request_from_json(request_json);
  if (!request) { err << error_line(o.lang, request.error().message); return 2; }
  if (!o.deepspeed_file.empty()) return run_deepspeed(o, *request, catalog, out, err);
  if (!o.torchtune_line.empty()) return run_torchtune(o, *request, catalog, out, err);
  if (!o.llamafactory_file.empty()) return run_llamafactory(o, *request, catalog, out, err);
  const bool megatron = !network && request->framework == TrainingFramework::megatron;
  auto report = megatron ? estimate_megatron(*request, catalog) : estimate(*request, catalog);
  if (!report) { err << error_line(o.lang, report.error().message); return 2; }
  if (o.as_json) out << (megatron ? megatron_report_to_json(*report) : report_to_json(*report)).dump(2) << "\n";
  else print_report(out, *report);
  return 0;
}

int run_framework_request(const json& request, const std::string& lang, bool as_json, const Catalog& catalog, std::ostream& out,
                          std::ostream& err) {
  if (as_json) {
    const json answer = framework_request_to_json(request, catalog);
    if (answer.contains("error")) { err << error_line(lang, answer["error"]["message"].get<std::string>()); return 2; }
    out << answer.dump(2) << "\n";
    return 0;
  }
  const std::string framework = request["training"]["framework"].get<std::string>();
  if (framework == "deepspeed") {
    auto answer = estimate_deepspeed_request(request, catalog);
    if (!answer) { err << error_line(lang, answer.error().message); return 2; }
    print_deepspeed_report(out, *answer);
  } else if (framework == "torchtune") {
    auto answer = estimate_torchtune_request(request, catalog);
    if (!answer) { err << error_line(lang, answer.error().message); return 2; }
    print_torchtune_report(out, *answer);
  } else if (framework == "llamafactory") {
    auto answer = estimate_llamafactory_request(request, catalog);
    if (!answer) { err << error_line(lang, answer.error().message); return 2; }
    print_llamafactory_report(out, *answer);
  } else {
    auto parsed = request_from_json(request);
    if (!parsed) { err << error_line(lang, parsed.error().message); return 2; }
    auto report = estimate_megatron(*parsed, catalog);
    if (!report) { err << error_line(lang, report.error().message); return 2; }
    print_report(out, *report);
  }
  return 0;
}

}  // namespace vramfit
