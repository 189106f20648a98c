// Megatron-LM's, DeepSpeed's, torchtune's and LLaMA-Factory's answers to a request JSON (report/frameworks.hpp
// computes them; this file reads their part of the request and writes "request" back whole).
#include "report/framework_requests.hpp"

#include "io/request_json.hpp"
#include "report/estimate.hpp"

namespace vramfit {

namespace {

std::string framework_of(const json& request) {
  if (!request.is_object() || !request.contains("mode") || request.at("mode") != "training") return "";
  if (!request.contains("training") || !request.at("training").is_object()) return "";
  const json& training = request.at("training");
  if (!training.contains("framework") || !training.at("framework").is_string()) return "";
  return training.at("framework").get<std::string>();
}

// The request without the framework's part, read as any training request (hf-trainer).
Result<Request> base_request(json request, const char* framework) {
  json& training = request["training"];
  training.erase("framework");
  training.erase(std::string(framework));
  return request_from_json(request);
}

// An error from the framework's own settings, named by the request's field: a ds_config key
// under training.deepspeed.config, a tune command's key as training.torchtune.command. The
// request's own fields (model, gpu, training.*) stay as they are.
Error deepspeed_error(Error e, const json& config) {
  const std::string key = e.field.substr(0, e.field.find('.'));
  if (e.field == "nodes") e.field = "training.deepspeed.nodes";
  else if (e.field == "deepspeed") e.field = "training.deepspeed.config";
  else if (config.contains(key)) e.field = "training.deepspeed.config." + e.field;
  return e;
}

Error torchtune_error(Error e) {
  if (e.id.rfind("torchtune.", 0) == 0) e.field = "training.torchtune.command";
  return e;
}

Error settings_error(const std::string& field, const std::string& message) {
  return make_error("request.bad_value", field, field + ": " + message);
}

// Settings the framework's own file or line gives; the request must leave them out.
std::optional<Error> refuse_given(const json& training, const std::vector<const char*>& keys, const std::string& why) {
  for (const char* key : keys) {
    if (training.contains(key)) return settings_error(std::string("training.") + key, why);
  }
  return std::nullopt;
}

}  // namespace

bool is_separate_framework_request(const json& request) {
  const std::string framework = framework_of(request);
  return framework == "megatron" || framework == "deepspeed" || framework == "torchtune" || framework == "llamafactory";
}

Result<DeepSpeedReport> estimate_deepspeed_request(const json& request, const Catalog& catalog) {
  if (framework_of(request) != "deepspeed") return settings_error("training.framework", "expected \"deepspeed\"");
  const json& training = request.at("training");
  if (auto e = refuse_given(training, {"sharding"}, "the ds_config says ZeRO's stage; leave this out")) return *e;
  if (!training.contains("deepspeed") || !training.at("deepspeed").is_object()) {
    return settings_error("training.deepspeed", "expected an object with the ds_config under \"config\"");
  }
  const json& ds = training.at("deepspeed");
  for (auto it = ds.begin(); it != ds.end(); ++it) {
    if (it.key() != "config" && it.key() != "nodes" && it.key() != "version") {
      return settings_error("training.deepspeed." + it.key(), "not a setting vramfit reads (config, nodes, version)");
    }
  }
  if (!ds.contains("config") || !ds.at("config").is_object()) {
    return settings_error("training.deepspeed.config", "expected the ds_config JSON object");
  }
  int64_t nodes = 1;
  if (ds.contains("nodes")) {  // the CLI's --nodes range: 1 to kMaxGpuCount
    const json& n = ds.at("nodes");
    if (!n.is_number_integer() || n.get<int64_t>() < 1 || n.get<int64_t>() > kMaxGpuCount) {
      return make_error("request.out_of_range", "training.deepspeed.nodes",
                        "training.deepspeed.nodes: expected a whole number from 1 to " + std::to_string(kMaxGpuCount));
    }
    nodes = n.get<int64_t>();
  }
  DeepSpeedVersion version;
  if (ds.contains("version") &&
      (!ds.at("version").is_string() || !parse_deepspeed_version(ds.at("version").get<std::string>(), version))) {
    return settings_error("training.deepspeed.version", "expected a release such as \"0.19.6\"");
  }
  auto base = base_request(request, "deepspeed");
  if (!base) return base.error();
  auto answer = estimate_deepspeed(*base, catalog, ds.at("config").dump(), nodes, version);
  if (!answer) return deepspeed_error(answer.error(), ds.at("config"));
  return answer;
}

Result<TorchtuneReport> estimate_torchtune_request(const json& request, const Catalog& catalog) {
  if (framework_of(request) != "torchtune") return settings_error("training.framework", "expected \"torchtune\"");
  const json& training = request.at("training");
  if (auto e = refuse_given(training, {"sharding", "method", "micro_batch", "sequence_length"},
                            "the tune command says the recipe, the method, batch_size and tokenizer.max_seq_len; leave this out")) {
    return *e;
  }
  if (!training.contains("torchtune") || !training.at("torchtune").is_object() || training.at("torchtune").size() != 1 ||
      !training.at("torchtune").contains("command") || !training.at("torchtune").at("command").is_string()) {
    return settings_error("training.torchtune", "expected {\"command\": \"tune run RECIPE --config CONFIG key=value ...\"}");
  }
  auto base = base_request(request, "torchtune");
  if (!base) return base.error();
  auto answer = estimate_torchtune(*base, catalog, training.at("torchtune").at("command").get<std::string>());
  if (!answer) return torchtune_error(answer.error());
  return answer;
}

Result<LlamaFactoryReport> estimate_llamafactory_request(const json& request, const Catalog& catalog) {
  if (framework_of(request) != "llamafactory") return settings_error("training.framework", "expected \"llamafactory\"");
  const json& training = request.at("training");
  if (auto e = refuse_given(training, {"sharding", "method", "micro_batch", "sequence_length", "recipe", "recompute"},
                            "the config says finetuning_type, per_device_train_batch_size, cutoff_len, bf16 and "
                            "disable_gradient_checkpointing; leave this out")) {
    return *e;
  }
  if (!training.contains("llamafactory") || !training.at("llamafactory").is_object() || training.at("llamafactory").size() != 1 ||
      !training.at("llamafactory").contains("config") || !training.at("llamafactory").at("config").is_object()) {
    return settings_error("training.llamafactory", "expected {\"config\": {...the training YAML's keys...}}");
  }
  auto base = base_request(request, "llamafactory");
  if (!base) return base.error();
  auto answer = estimate_llamafactory(*base, catalog, training.at("llamafactory").at("config"));
  if (!answer) {
    Error e = answer.error();
    if (e.id.rfind("llamafactory.", 0) == 0 && e.field != "model") e.field = "training.llamafactory.config." + e.field;
    return e;
  }
  return answer;
}

json framework_request_to_json(const json& request, const Catalog& catalog) {
  const std::string framework = framework_of(request);
  json answer;
  if (framework == "deepspeed") {
    auto r = estimate_deepspeed_request(request, catalog);
    if (!r) return error_to_json(r.error());
    answer = deepspeed_report_to_json(*r);
  } else if (framework == "torchtune") {
    auto r = estimate_torchtune_request(request, catalog);
    if (!r) return error_to_json(r.error());
    answer = torchtune_report_to_json(*r);
  } else if (framework == "llamafactory") {
    auto r = estimate_llamafactory_request(request, catalog);
    if (!r) return error_to_json(r.error());
    answer = llamafactory_report_to_json(*r);
  } else {
    auto parsed = request_from_json(request);
    if (!parsed) return error_to_json(parsed.error());
    auto r = estimate_megatron(*parsed, catalog);
    if (!r) return error_to_json(r.error());
    return megatron_report_to_json(*r);  // its "request" echoes training.megatron already
  }
  // The echo as read, with the framework's part as given: running it again gives this answer.
  json& echo = answer["request"];
  for (const char* key : {"sharding", "method", "micro_batch", "sequence_length", "recipe", "recompute"}) {
    const std::string k = key;
    if (k == "sharding" || framework == "llamafactory" || (framework == "torchtune" && k != "recipe" && k != "recompute")) {
      echo["training"].erase(key);
    }
  }
  echo["training"]["framework"] = framework;
  echo["training"][framework] = request.at("training").at(framework);
  return answer;
}

}  // namespace vramfit
