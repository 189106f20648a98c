#include "request_json.hpp"

#include <algorithm>
#include <cmath>

#include "core/fit.hpp"
#include "engine_json.hpp"
#include "framework_json.hpp"
#include "hf_config.hpp"
#include "hub_ref.hpp"
#include "network_json.hpp"
#include "request_json_fields.hpp"

namespace vramfit {

namespace {

using request_fields::Fields;


std::vector<std::string> string_list(const json& j) {
  std::vector<std::string> out;
  if (j.is_array()) for (const json& s : j) if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

std::optional<Error> stored_weights_from_json(const json& j, StoredWeights& w) {
  Fields f{j, "weights.stored.", std::nullopt};
  f.only({"source", "file", "by_type", "parameters", "replicated_bytes", "read", "derived", "assumed", "warnings", "by_layer"});
  w.source = f.text("source", "");
  w.file = f.text("file", "");
  w.parameters = f.integer("parameters", 0, 0, int64_t(1) << 50);
  w.replicated_bytes = f.integer("replicated_bytes", 0, 0, int64_t(1) << 52);
  for (const char* key : {"read", "derived", "assumed", "warnings"}) {
    if (f.has(key) && !j.at(key).is_array()) f.fail("request.wrong_type", f.name(key), "must be an array of strings");
  }
  if (f.has("read")) w.read = string_list(j.at("read"));
  if (f.has("derived")) w.derived = string_list(j.at("derived"));
  if (f.has("assumed")) w.assumed = string_list(j.at("assumed"));
  if (f.has("warnings")) w.warnings = string_list(j.at("warnings"));
  if (!f.has("by_type") || !j.at("by_type").is_array() || j.at("by_type").empty()) {
    f.fail("request.bad_value", "weights.stored.by_type", "must be a non-empty array");
    return f.error;
  }
  if (j.at("by_type").size() > 256) f.fail("request.out_of_range", "weights.stored.by_type", "has more than 256 rows");
  int64_t total = 0;
  for (size_t i = 0; i < j.at("by_type").size() && !f.error; ++i) {
    const json& row = j.at("by_type")[i];
    const std::string path = "weights.stored.by_type[" + std::to_string(i) + "].";
    if (!row.is_object()) { f.fail("request.wrong_type", path, "must be an object"); break; }
    Fields rf{row, path, std::nullopt};
    rf.only({"type", "elements", "tensors", "bytes", "replicated_bytes"});
    StoredWeights::Row r;
    r.type = rf.text("type", "");
    r.elements = rf.integer("elements", 0, 0, int64_t(1) << 50);
    r.tensors = rf.integer("tensors", 0, 0, int64_t(1) << 30);
    r.bytes = rf.integer("bytes", 0, 0, int64_t(1) << 52);
    r.replicated_bytes = rf.integer("replicated_bytes", 0, 0, r.bytes);
    if (rf.error) return rf.error;
    total += r.bytes;
    w.by_type.push_back(r);
  }
  int64_t row_replicated = 0;
  for (const StoredWeights::Row& r : w.by_type) row_replicated += r.replicated_bytes;
  if (!f.error && row_replicated > w.replicated_bytes) {
    f.fail("request.out_of_range", "weights.stored.replicated_bytes", "is less than its rows' replicated_bytes");
  }
  if (!f.error && w.replicated_bytes > total) {
    f.fail("request.out_of_range", "weights.stored.replicated_bytes", "exceeds the stored bytes");
  }
  if (const json* layers = f.sub("by_layer")) {
    if (auto e = llamacpp_weights_from_json(*layers, w.by_layer)) return e;
    w.has_layers = true;
  }
  return f.error;
}


std::optional<Error> training_from_json(const json& j, Request& r) {
  Fields f{j, "training.", std::nullopt};
  TrainingSettings& t = r.training;
  NetworkSettings& ns = r.network_settings;
  // DeepSpeed's and torchtune's requests (report/framework_requests) are read where they are
  // answered: the CLI and the estimator module, not the page's module.
  const std::string framework = j.contains("framework") && j["framework"].is_string() ? j["framework"].get<std::string>() : "";
  if (framework == "deepspeed" || framework == "torchtune") {
    f.fail("request.bad_value", "training.framework", framework + " is answered by the CLI and the estimator module; the page's module does not answer it yet");
    return f.error;
  }
  if (r.has_network) {
    f.only({"optimizer", "fused_optimizer", "batch", "activation_rule", "device", "margin_fraction"});
  } else {
    f.only({"framework", "megatron", "recipe", "optimizer", "fused_optimizer", "foreach_transient", "sharding", "method", "lora",
            "micro_batch", "sequence_length", "flash_attention", "recompute", "dropout", "runtime_bytes", "margin_fraction"});
  }
  auto choice = [&f](const char* key, auto& value, auto parse, const char* def, const std::string& allowed) {
    const std::string v = f.text(key, def);
    if (!f.error && !parse(v, value)) f.fail("request.bad_value", f.name(key), "must be one of " + allowed + " (got '" + v + "')");
  };
  std::string opt_default = optimizer_id(t.optimizer);
  choice("optimizer", t.optimizer, parse_optimizer, opt_default.c_str(), optimizer_ids());
  ns.optimizer = t.optimizer;
  t.fused_optimizer = f.boolean("fused_optimizer", t.fused_optimizer);
  ns.fused_optimizer = t.fused_optimizer;
  if (r.has_network) {
    ns.batch = f.integer("batch", ns.batch, 1, kMaxNetworkBatch);
    const std::string rule = f.text("activation_rule", "autograd");
    if (rule == "autograd") ns.rule = ActivationRule::autograd;
    else if (rule == "layer_outputs") ns.rule = ActivationRule::layer_outputs;
    else f.fail("request.bad_value", "training.activation_rule", "must be autograd or layer_outputs (got '" + rule + "')");
    const std::string device = f.text("device", "cuda");
    if (device == "cuda") ns.device = AutogradDevice::cuda;
    else if (device == "cpu") ns.device = AutogradDevice::cpu;
    else f.fail("request.bad_value", "training.device", "must be cuda or cpu (got '" + device + "')");
    ns.margin_fraction = f.number("margin_fraction", ns.margin_fraction, 0.0, 0.30);
    return f.error;
  }
  choice("framework", r.framework, parse_training_framework, training_framework_id(r.framework), "hf-trainer, megatron");
  if (const json* megatron = f.sub("megatron")) {
    if (auto e = megatron_settings_from_json(*megatron, r.megatron)) return e;
  }
  choice("recipe", t.recipe, parse_recipe, recipe_id(t.recipe), "fp32, amp_bf16, amp_fp16, mixed_bf16, mixed_fp16, bf16");
  t.foreach_transient = f.boolean("foreach_transient", t.foreach_transient);
  choice("sharding", t.sharding, parse_sharding, sharding_id(t.sharding), "none, zero1, zero2, zero3, fsdp");
  choice("method", t.method, parse_fine_tuning, fine_tuning_id(t.method), "full, lora, qlora");
  choice("recompute", t.recompute, parse_recompute, recompute_id(t.recompute), "none, selective, full");
  if (const json* lora = f.sub("lora")) {
    Fields lf{*lora, "training.lora.", std::nullopt};
    lf.only({"rank", "targets", "double_quant"});
    t.lora_rank = lf.integer("rank", t.lora_rank, 1, 65536);
    t.qlora_double_quant = lf.boolean("double_quant", t.qlora_double_quant);
    if (lf.has("targets")) {
      const json& targets = lora->at("targets");
      if (!targets.is_array() || targets.empty()) {
        lf.fail("request.wrong_type", "training.lora.targets", "must be a non-empty array of q, k, v, o, gate, up, down");
      } else {
        t.lora_targets = 0;
        for (const json& name : targets) {
          uint32_t bit = 0;
          if (!name.is_string() || !parse_lora_target(name.get<std::string>(), bit)) {
            lf.fail("request.bad_value", "training.lora.targets", "'" + name.dump() + "' is not one of q, k, v, o, gate, up, down");
            break;
          }
          t.lora_targets |= bit;
        }
      }
    }
    if (lf.error) return lf.error;
  }
  t.micro_batch = f.integer("micro_batch", t.micro_batch, 1, kMaxMicroBatch);
  t.sequence_length = f.integer("sequence_length", t.sequence_length, 1, kMaxTrainingSequence);
  t.flash_attention = f.boolean("flash_attention", t.flash_attention);
  t.dropout = f.boolean("dropout", t.dropout);
  t.runtime_bytes = f.integer("runtime_bytes", t.runtime_bytes, 0, int64_t(1) << 40);
  t.margin_fraction = f.number("margin_fraction", t.margin_fraction, 0.0, 0.30);
  return f.error;
}

}  // namespace


namespace {

// "v" and "mode", and the keys that belong to the other mode.
void read_mode(Fields& top, Request& r) {
  r.version = static_cast<int>(top.integer("v", kRequestVersion, 1, 1000));
  if (!top.error && r.version != kRequestVersion) {
    top.fail("request.unsupported_version", "v", "version " + std::to_string(r.version) + " is not supported (this build reads 1)");
  }
  const std::string mode = top.text("mode", "inference");
  r.mode = mode == "training" ? Mode::training : Mode::inference;
  if (!top.error && mode != "inference" && mode != "training") {
    top.fail("request.bad_value", "mode", "must be inference or training (got '" + mode + "')");
  }
  if (!top.error && r.mode == Mode::inference) {
    for (const char* key : {"network", "training"}) {
      if (top.has(key)) top.fail("request.bad_value", key, "is only for mode \"training\"");
    }
  }
  if (!top.error && r.mode == Mode::training) {
    for (const char* key : {"weights", "kv_cache", "context_tokens", "concurrent_sequences", "overhead"}) {
      if (top.has(key)) top.fail("request.bad_value", key, "is only for mode \"inference\" (training settings go in \"training\")");
    }
    if (top.has("network") && top.has("model")) top.fail("request.bad_value", "network", "give a model or a network, not both");
  }
}

// "model": a preset or a config.json (with its pinned Hub id).
std::optional<Error> read_model(Fields& top, const json& model, Request& r) {
  Fields f{model, "model.", std::nullopt};
  f.only({"preset", "config", "name", "hub"});
  r.custom_model_name = f.text("name", "");
  // "hub": the pinned Hub id the config was read from (the page's Hub field; a link reproduces it).
  r.custom_model_hub = f.text("hub", "");
  if (!f.error && !r.custom_model_hub.empty()) {
    auto ref = parse_hub_ref(r.custom_model_hub);
    if (!ref || !is_commit_sha(ref->revision) || !f.has("config")) {
      f.fail("request.bad_value", "model.hub", "must be a Hub id pinned to a commit (org/name@<40 hex digits>[:file]) beside a config");
    }
  }
  if (f.has("preset") == f.has("config")) {
    f.fail("request.bad_value", "model", "give exactly one of preset or config");
  } else if (f.has("preset")) {
    r.model_preset = f.text("preset", "");
  } else {
    // Weights read from a file header (weights.format "as_stored") are exact whatever the architecture.
    const json* weights = top.sub("weights");
    const bool from_file = weights && weights->contains("stored");
    auto read = read_hf_config(model.at("config"), "model.config", from_file);
    if (!read) {
      Error e = read.error();
      e.field = e.field.empty() ? "model.config" : "model.config." + e.field;
      return e;
    }
    r.has_custom_model = true;
    r.custom_model = read->spec;
    r.custom_model_assumptions = read->assumptions;
    r.model_preset.clear();
  }
  if (f.error) return *f.error;
  return std::nullopt;
}

// "weights": the format, its group size, or a file's stored weights.
std::optional<Error> read_weights(const json& weights, Request& r) {
  Fields f{weights, "weights.", std::nullopt};
  f.only({"format", "group_size", "stored"});
  r.weight_format = f.text("format", r.weight_format);
  if (!f.error && (r.weight_format == "as_stored") != f.has("stored")) {
    f.fail("request.bad_value", "weights.stored", "is given exactly when weights.format is \"as_stored\"");
  }
  if (const json* stored = f.sub("stored")) {
    if (auto e = stored_weights_from_json(*stored, r.stored_weights)) return *e;
    r.has_stored_weights = true;
  }
  r.group_size = f.integer("group_size", 0, 0, 65536);
  if (!f.error && r.group_size != 0 && (r.group_size < 16 || (r.group_size & (r.group_size - 1)) != 0)) {
    f.fail("request.bad_value", "weights.group_size", "must be a power of two of at least 16 (got " + std::to_string(r.group_size) + ")");
  }
  if (f.error) return *f.error;
  return std::nullopt;
}

// "kv_cache", "context_tokens", "concurrent_sequences", "overhead".
std::optional<Error> read_inference_fields(Fields& top, Request& r) {
  InferenceSettings& s = r.settings;
  if (const json* kv = top.sub("kv_cache")) {
    Fields f{*kv, "kv_cache.", std::nullopt};
    f.only({"dtype"});
    r.kv_cache_dtype = f.text("dtype", r.kv_cache_dtype);
    if (f.error) return *f.error;
  }
  s.context_tokens = top.integer("context_tokens", s.context_tokens, 1, kMaxContextTokens);
  s.concurrent_sequences = top.integer("concurrent_sequences", s.concurrent_sequences, 1, kMaxSequences);
  if (const json* overhead = top.sub("overhead")) {
    Fields f{*overhead, "overhead.", std::nullopt};
    f.only({"model", "runtime_bytes", "prefill_chunk_tokens", "flash_attention", "margin_fraction"});
    const std::string model = f.text("model", "engine");
    if (model == "engine") s.overhead = OverheadModel::engine;
    else if (model == "articles") s.overhead = OverheadModel::articles;
    else f.fail("request.bad_value", "overhead.model", "must be 'engine' or 'articles' (got '" + model + "')");
    s.runtime_bytes = f.integer("runtime_bytes", s.runtime_bytes, 0, int64_t(1) << 40);
    s.prefill_chunk_tokens = f.integer("prefill_chunk_tokens", s.prefill_chunk_tokens, 1, int64_t(1) << 20);
    s.flash_attention = f.boolean("flash_attention", s.flash_attention);
    s.margin_fraction = f.number("margin_fraction", s.margin_fraction, 0.0, 0.30);
    if (f.error) return *f.error;
  }
  return std::nullopt;
}

// "gpu": a catalog id or a capacity.
std::optional<Error> read_gpu(const json& gpu, Request& r) {
  Fields f{gpu, "gpu.", std::nullopt};
  f.only({"id", "capacity_bytes"});
  if (f.has("id") == f.has("capacity_bytes")) {
    f.fail("request.bad_value", "gpu", "give exactly one of id or capacity_bytes");
  }
  r.gpu_id = f.text("id", "");
  r.gpu_capacity_bytes = f.integer("capacity_bytes", 0, 1, int64_t(1) << 50);
  if (f.error) return *f.error;
  return std::nullopt;
}

// "engine" and the settings under its own name ({"engine": "vllm", "vllm": {...}}).
std::optional<Error> read_engine(Fields& top, Request& r) {
  const std::string engine = top.text("engine", "generic");
  int known = 0;
  while (known < kEngineCount && engine != engine_name(static_cast<Engine>(known))) ++known;
  if (known == kEngineCount) top.fail("request.bad_value", "engine", "must be generic, llama.cpp, vllm or transformers (got '" + engine + "')");
  else r.engine = static_cast<Engine>(known);
  // The reader of each engine's settings.
  auto read_settings = [&](Engine e, const json& settings) -> std::optional<Error> {
    switch (e) {
      case Engine::llamacpp: return llamacpp_settings_from_json(settings, r.llamacpp);
      case Engine::vllm: return vllm_settings_from_json(settings, r.vllm);
      case Engine::transformers: return transformers_settings_from_json(settings, r.transformers);
      default: return std::nullopt;
    }
  };
  for (int i = 1; i < kEngineCount && !top.error; ++i) {
    const Engine e = static_cast<Engine>(i);
    const std::string name = engine_name(e);
    const json* settings = top.sub(name.c_str());
    if (!settings) continue;
    if (r.engine != e) {
      top.fail("request.bad_value", name, "is only for engine \"" + name + "\"");
    } else if (auto error = read_settings(e, *settings)) {
      return *error;
    }
  }
  if (!top.error && r.engine != Engine::generic && r.mode == Mode::training) {
    top.fail("request.bad_value", "engine", "engines serve models: only for mode \"inference\"");
  }
  return std::nullopt;
}

// "host" and "gpus" (an engine's list of GPUs).
std::optional<Error> read_host_and_gpus(Fields& top, const json& root, Request& r) {
  if (const json* host = top.sub("host")) {
    Fields f{*host, "host.", std::nullopt};
    f.only({"bandwidth_gbs", "memory_bytes"});
    r.host_bandwidth_gbs = f.number("bandwidth_gbs", r.host_bandwidth_gbs, 1.0, 100000.0);
    r.host_memory_bytes = f.integer("memory_bytes", 0, 0, int64_t(1) << 50);
    if (f.error) return *f.error;
  }
  if (top.has("gpus")) {
    const json& gpus = root.at("gpus");
    if (!gpus.is_array() || gpus.empty() || gpus.size() > static_cast<size_t>(kMaxGpuCount)) {
      top.fail("request.bad_value", "gpus", "must be a list of 1 to " + std::to_string(kMaxGpuCount) + " GPU ids");
    } else if (r.engine == Engine::generic) {
      top.fail("request.bad_value", "gpus", "a list of GPUs is for an engine (llama.cpp, vllm, transformers); the generic engine takes gpu and gpu_count");
    } else {
      for (size_t i = 0; i < gpus.size() && !top.error; ++i) {
        if (!gpus[i].is_string()) top.fail("request.wrong_type", "gpus[" + std::to_string(i) + "]", "must be a GPU id");
        else r.gpu_ids.push_back(gpus[i].get<std::string>());
      }
    }
    if (top.error) return *top.error;
  }
  return std::nullopt;
}

// "gpu_count", "compare_gpus", "units", "language".
void read_display(Fields& top, Request& r) {
  InferenceSettings& s = r.settings;
  s.gpu_count = top.integer("gpu_count", 1, 1, kMaxGpuCount);
  r.training.gpu_count = s.gpu_count;
  r.megatron.world_size = s.gpu_count;
  r.compare_gpus = top.boolean("compare_gpus", false);
  const std::string units = top.text("units", "GB");
  if (!top.error && !parse_units(units, r.units)) {
    top.fail("request.bad_value", "units", "must be 'GB' or 'GiB' (got '" + units + "')");
  }
  r.language = top.text("language", "en");
  if (!top.error && r.language != "en" && r.language != "ar" && r.language != "ar-u-nu-arab") {
    top.fail("request.bad_value", "language", "must be 'en', 'ar' or 'ar-u-nu-arab' (Arabic-Indic digits)");
  }
}

}  // namespace

Result<Request> request_from_json(const json& root) {
  if (!root.is_object()) return make_error("request.not_object", "", "request: expected a JSON object");
  Request r;
  Fields top{root, "", std::nullopt};
  top.only({"v", "mode", "model", "network", "training", "weights", "kv_cache", "context_tokens", "concurrent_sequences", "overhead",
            "engine", "llama.cpp", "vllm", "transformers", "draft", "host", "gpu", "gpus", "gpu_count", "compare_gpus", "units",
            "language"});
  read_mode(top, r);
  if (const json* model = top.sub("model")) {
    if (auto e = read_model(top, *model, r)) return *e;
  }
  if (const json* weights = top.sub("weights")) {
    if (auto e = read_weights(*weights, r)) return *e;
  }
  if (auto e = read_inference_fields(top, r)) return *e;
  if (top.error) return *top.error;
  if (const json* network = top.sub("network")) {
    r.has_network = true;
    if (auto e = network_from_json_at(*network, "network", r.network)) return *e;
  }
  if (const json* training = top.sub("training")) {
    if (auto e = training_from_json(*training, r)) return *e;
  }
  if (const json* gpu = top.sub("gpu")) {
    if (auto e = read_gpu(*gpu, r)) return *e;
  }
  if (auto e = read_engine(top, r)) return *e;
  if (const json* draft = top.sub("draft")) {
    if (auto e = draft_from_json(*draft, r)) return *e;
  }
  if (top.error) return *top.error;
  if (auto e = read_host_and_gpus(top, root, r)) return *e;
  read_display(top, r);
  if (top.error) return *top.error;
  return r;
}

namespace {
// The fields both modes share: the GPU, how many, the comparison, the units.
void add_gpu_fields(json& j, const Request& r) {
  if (r.gpu_capacity_bytes > 0) j["gpu"] = {{"capacity_bytes", r.gpu_capacity_bytes}};
  else j["gpu"] = {{"id", r.gpu_id}};
  j["gpu_count"] = r.settings.gpu_count;
  if (!r.gpu_ids.empty()) j["gpus"] = r.gpu_ids;
  j["compare_gpus"] = r.compare_gpus;
  j["units"] = units_name(r.units);
  if (r.language != "en") j["language"] = r.language;  // written only when set: older links stay as they were
}
}  // namespace


Result<Request> request_from_text(const std::string& text) {
  const json parsed = parse_json(text);
  if (parsed.is_discarded()) return make_error("request.bad_json", "", "request: not valid JSON");
  return request_from_json(parsed);
}

json request_to_json(const Request& r) {
  json j;
  j["v"] = r.version;
  j["mode"] = r.mode == Mode::training ? "training" : "inference";
  if (r.has_network) {
    j["network"] = network_to_json(r.network);
  } else if (r.has_custom_model) {
    j["model"] = {{"config", write_hf_config(r.custom_model)}};
    if (!r.custom_model_name.empty()) j["model"]["name"] = r.custom_model_name;
    if (!r.custom_model_hub.empty()) j["model"]["hub"] = r.custom_model_hub;
  }
  else j["model"] = {{"preset", r.model_preset}};
  j["weights"] = {{"format", r.weight_format}};
  if (r.group_size > 0) j["weights"]["group_size"] = r.group_size;
  if (r.has_stored_weights) {
    const StoredWeights& w = r.stored_weights;
    json rows = json::array();
    for (const StoredWeights::Row& row : w.by_type) {
      rows.push_back({{"type", row.type}, {"elements", row.elements}, {"tensors", row.tensors}, {"bytes", row.bytes},
                      {"replicated_bytes", row.replicated_bytes}});
    }
    j["weights"]["stored"] = {{"source", w.source}, {"file", w.file}, {"by_type", rows}, {"parameters", w.parameters},
                              {"replicated_bytes", w.replicated_bytes}, {"read", w.read}, {"derived", w.derived},
                              {"assumed", w.assumed}, {"warnings", w.warnings}};
    if (w.has_layers) j["weights"]["stored"]["by_layer"] = llamacpp_weights_to_json(w.by_layer);
  }
  // An engine's name and its settings under that name;
  // the host for the engines that place work on it (llama.cpp, Transformers).
  if (r.engine != Engine::generic) {
    const char* name = engine_name(r.engine);
    j["engine"] = name;
    if (r.engine != Engine::vllm) j["host"] = {{"bandwidth_gbs", r.host_bandwidth_gbs}, {"memory_bytes", r.host_memory_bytes}};
    if (r.engine == Engine::llamacpp) j[name] = llamacpp_settings_to_json(r.llamacpp);
    if (r.engine == Engine::vllm) j[name] = vllm_settings_to_json(r.vllm);
    if (r.engine == Engine::transformers) j[name] = transformers_settings_to_json(r.transformers);
    if (r.draft) j["draft"] = draft_to_json(*r.draft);
  }
  if (r.mode == Mode::training) {
    const TrainingSettings& t = r.training;
    const NetworkSettings& ns = r.network_settings;
    if (r.has_network) {
      j.erase("weights");
      j["training"] = {{"optimizer", optimizer_id(ns.optimizer)}, {"fused_optimizer", ns.fused_optimizer}, {"batch", ns.batch},
                       {"activation_rule", ns.rule == ActivationRule::autograd ? "autograd" : "layer_outputs"},
                       {"device", ns.device == AutogradDevice::cuda ? "cuda" : "cpu"},
                       {"margin_fraction", ns.margin_fraction}};
    } else {
      j.erase("weights");
      j["training"] = {{"recipe", recipe_id(t.recipe)}, {"optimizer", optimizer_id(t.optimizer)},
                       {"fused_optimizer", t.fused_optimizer},
                       {"foreach_transient", t.foreach_transient}, {"sharding", sharding_id(t.sharding)},
                       {"method", fine_tuning_id(t.method)}, {"micro_batch", t.micro_batch},
                       {"sequence_length", t.sequence_length}, {"flash_attention", t.flash_attention},
                       {"recompute", recompute_id(t.recompute)}, {"dropout", t.dropout},
                       {"runtime_bytes", t.runtime_bytes}, {"margin_fraction", t.margin_fraction}};
      if (t.method != FineTuning::full) {
        json targets = json::array();
        for (const char* name : {"q", "k", "v", "o", "gate", "up", "down"}) {
          uint32_t bit = 0;
          parse_lora_target(name, bit);
          if (t.lora_targets & bit) targets.push_back(name);
        }
        j["training"]["lora"] = {{"rank", t.lora_rank}, {"targets", targets}, {"double_quant", t.qlora_double_quant}};
      }
      if (r.framework != TrainingFramework::hf_trainer) {  // written only when chosen: older links stay as they were
        j["training"]["framework"] = training_framework_id(r.framework);
        j["training"]["megatron"] = megatron_settings_to_json(r.megatron);
      }
    }
    add_gpu_fields(j, r);
    return j;
  }
  j["kv_cache"] = {{"dtype", r.kv_cache_dtype}};
  j["context_tokens"] = r.settings.context_tokens;
  j["concurrent_sequences"] = r.settings.concurrent_sequences;
  j["overhead"] = {{"model", r.settings.overhead == OverheadModel::articles ? "articles" : "engine"},
                   {"runtime_bytes", r.settings.runtime_bytes},
                   {"prefill_chunk_tokens", r.settings.prefill_chunk_tokens},
                   {"flash_attention", r.settings.flash_attention},
                   {"margin_fraction", r.settings.margin_fraction}};
  add_gpu_fields(j, r);
  return j;
}

}  // namespace vramfit
