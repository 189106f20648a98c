#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "report/engines.hpp"
#include "report/frameworks.hpp"
#include "report/estimate.hpp"
#include "io/engine_command.hpp"
#include "io/header_reads.hpp"
#include "io/megatron_command.hpp"
#include "io/hf_config.hpp"
#include "io/model_file.hpp"
#include "io/request_json.hpp"
#include "io/ollama_settings.hpp"
#include "io/sglang_command.hpp"
#include "report/engine_ollama.hpp"
#include "report/engine_requests.hpp"
#include "report/engine_sglang.hpp"
#include "report/framework_requests.hpp"
#include "hub_option.hpp"
#include "infer_options.hpp"
#include "model_files.hpp"
#include "text/messages.hpp"
#include "text_report.hpp"
#include "train_command.hpp"
#include "cli_common.hpp"

namespace vramfit {

namespace {

void add_infer_options(CLI::App& app, InferOptions& o) {
  app.add_option("--request", o.request_file, "Request JSON file (schema in README); other options override it")
      ->check(CLI::ExistingFile);
  auto* model = app.add_option("-m,--model", o.model, "Model preset id (vramfit models)");
  auto* config = app.add_option("--config", o.config_file, "Hugging Face config.json of the model")->check(CLI::ExistingFile)->excludes(model);
  auto* hf = add_hub_options(app, o.hub)->excludes(model)->excludes(config);
  auto* gguf = app.add_option("--gguf", o.gguf_file, "GGUF file: architecture and exact tensor bytes from its header")
                   ->check(CLI::ExistingFile)->excludes(model);
  auto* st = app.add_option("--safetensors", o.safetensors_files, "safetensors file(s) (all shards): exact tensor bytes")
                 ->check(CLI::ExistingFile)->excludes(model)->excludes(gguf);
  auto* index = app.add_option("--safetensors-index", o.index_file, "model.safetensors.index.json (needs --config)")
                    ->check(CLI::ExistingFile)->excludes(model)->excludes(gguf)->excludes(st);
  hf->excludes(gguf)->excludes(st)->excludes(index);
  app.add_option("-w,--weights", o.weights, "Weight format id (vramfit formats), e.g. bf16, gguf-q4_k_m, gptq-int4");
  app.add_option("--group-size", o.group_size, "Group size of GPTQ/AWQ formats")->check(CLI::Range(int64_t(16), int64_t(65536)));
  app.add_option("--kv", o.kv, "KV cache dtype: f16, bf16, f32, fp8, q8_0, q4_0, ...");
  app.add_option("-c,--context", o.context, "Context tokens per sequence")->check(CLI::Range(int64_t(1), kMaxContextTokens));
  app.add_option("-s,--sequences", o.sequences, "Concurrent sequences")->check(CLI::Range(int64_t(1), kMaxSequences));
  app.add_option("-g,--gpu", o.gpu, "GPU id (vramfit gpus)");
  app.add_option("--capacity-gib", o.capacity_gib, "Custom GPU memory in GiB instead of --gpu")
      ->check(CLI::Range(0.001, 1048576.0));
  app.add_option("-n,--gpu-count", o.gpu_count, "GPUs, tensor parallel")->check(CLI::Range(int64_t(1), kMaxGpuCount));
  app.add_option("--margin", o.margin, "Safety margin as a fraction, 0 to 0.30 (default 0.10)")->check(CLI::Range(0.0, 0.30));
  app.add_option("--overhead", o.overhead, "engine (runtime + compute buffer + margin) or articles (margin only)")
      ->check(CLI::IsMember({"engine", "articles"}));
  app.add_option("--runtime-mib", o.runtime_mib, "CUDA context and runtime per GPU, MiB (default 512)")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 20));
  app.add_option("--prefill-chunk", o.prefill_chunk, "Tokens per forward pass (default 512)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  app.add_flag("--no-flash-attention", o.no_flash_attention, "Count the attention score matrix");
  app.add_option("--units", o.units, "GB (10^9) or GiB (2^30)")->check(CLI::IsMember({"GB", "GiB", "gb", "gib"}));
  app.add_option("--lang", o.lang, "The text report's language: en or ar (Arabic)")->check(CLI::IsMember({"en", "ar"}));
  app.add_flag("--compare", o.compare, "Also answer for every catalog GPU");
  app.add_flag("--json", o.as_json, "Print the report as JSON");
  app.add_option("--engine", o.engine, "generic (default), llama.cpp, vllm, sglang, ollama or transformers: then the engine's own "
                                       "flags follow, e.g. -c 32768 -ngl 20 -fa on -ctk q8_0 -ts 3,1 --n-cpu-moe 8 (llama.cpp), "
                                       "--max-model-len 32768 -tp 2 --gpu-memory-utilization 0.85 (vllm), --tp 2 "
                                       "--mem-fraction-static 0.85 --context-length 32768 (sglang) or "
                                       "--device-map auto --batch-size 4 --max-new-tokens 1024 (transformers); Ollama's settings "
                                       "go in --cmd 'OLLAMA_NUM_PARALLEL=2 ollama run llama3.1:8b'")
      ->check(CLI::IsMember({"generic", "llama.cpp", "vllm", "sglang", "ollama", "transformers"}));
  app.add_option("--llama-build", o.llama_build, "llama.cpp: the build number its log prints (build: 9140 (1e4579fbb)); "
                                                 "default the newest")
      ->check(CLI::Range(int64_t(1), int64_t(1000000)));
  app.add_option("--sglang-version", o.sglang_version, "sglang: the release, as pip shows it (default 0.5.16)");
  app.add_option("--ollama-free-mib", o.ollama_free_mib, "ollama: memory.available per GPU in MiB, as its log prints it "
                                                         "(default: each GPU's total)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 24));
  // Transformers: the names of from_pretrained's and generate's arguments.
  app.add_option("--device-map", o.device_map, "transformers: from_pretrained(device_map=): none (one GPU), auto, balanced, "
                                               "balanced_low_0, sequential");
  app.add_option("--attn-implementation", o.attn_implementation, "transformers: eager, sdpa (default) or flash_attention_2");
  app.add_option("--batch-size", o.batch_size, "transformers: prompts generated together (input_ids.shape[0])")
      ->check(CLI::Range(int64_t(1), kMaxSequences));
  app.add_option("--input-length", o.input_length, "transformers: prompt tokens (input_ids.shape[1])")
      ->check(CLI::Range(int64_t(1), kMaxContextTokens));
  app.add_option("--max-new-tokens", o.max_new_tokens, "transformers: generate(max_new_tokens=)")
      ->check(CLI::Range(int64_t(1), kMaxContextTokens));
  app.add_option("--transformers-version", o.transformers_version, "transformers: the release, e.g. 4.35.2 (default 4.57.0)");
  app.add_option("--bnb-4bit-compute-dtype", o.bnb_4bit_compute_dtype, "transformers: BitsAndBytesConfig(bnb_4bit_compute_dtype=): "
                                                                        "float32 (default), float16, bfloat16");
  app.add_option("--cmd", o.command, "An engine's command line, e.g. 'llama-server -m x.gguf -c 32768 -ngl 99' "
                                     "(its -m file is read like --gguf) or 'vllm serve Qwen/Qwen2.5-7B-Instruct -tp 2'");
  auto* draft = app.add_option("--draft", o.draft, "Draft model preset for speculative decoding (llama.cpp -md, vLLM "
                                                   "--speculative-config)");
  app.add_option("--draft-config", o.draft_config, "The draft model's config.json")->check(CLI::ExistingFile)->excludes(draft);
  app.add_option("--draft-gguf", o.draft_gguf, "The draft model's GGUF file (llama.cpp -md is read like this)")
      ->check(CLI::ExistingFile)->excludes(draft);
  app.add_option("--lora-gguf", o.lora_gguf, "LoRA adapter GGUF file(s) for llama.cpp (its --lora is read like this)")
      ->check(CLI::ExistingFile);
  app.add_option("--mmproj-gguf", o.mmproj_gguf, "Multimodal projector GGUF for llama.cpp (its --mmproj is read like this)")
      ->check(CLI::ExistingFile);
  app.add_option("--draft-weights", o.draft_weights, "The draft model's weight format (vramfit formats)");
  app.add_option("--gpus", o.gpus, "GPUs in device order for an engine, e.g. --gpus rtx-4090 rtx-3090");
  app.add_option("--host-ram-gib", o.host_ram_gib, "The host's RAM for an engine's CPU buffers (llama.cpp offload), GiB")
      ->check(CLI::Range(0.001, 1048576.0));
}

// The engine's flags given to `vramfit infer --engine llama.cpp|vllm` (-ngl, -ctk, -tp ...:
// names CLI11 cannot take as options) move into one command line for read_engine_words.
std::string engine_named(const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("--engine=", 0) == 0) return args[i].substr(9);
    if (args[i] == "--engine" && i + 1 < args.size()) return args[i + 1];
  }
  return "";
}

std::vector<std::string> take_engine_flags(std::vector<std::string>& args) {
  const std::string engine = engine_named(args);
  std::vector<std::string> taken;
  if ((engine != "llama.cpp" && engine != "vllm" && engine != "sglang") || args.empty() || args[0] != "infer") return taken;
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    const int values = engine == "sglang" ? sglang_flag_values(args[i]) : engine_flag_values(engine, args[i]);
    if (values < 0) {
      kept.push_back(args[i]);
      continue;
    }
    taken.push_back(args[i]);
    const bool optional_given = values == 2 && i + 1 < args.size() && !args[i + 1].empty() && args[i + 1][0] != '-';
    if ((values == 1 || optional_given) && i + 1 < args.size()) taken.push_back(args[++i]);
  }
  args = kept;
  return taken;
}

bool draft_given(const InferOptions& o) { return !o.draft.empty() || !o.draft_config.empty() || !o.draft_gguf.empty(); }

bool model_given(const InferOptions& o) {
  return !o.model.empty() || !o.config_file.empty() || !o.gguf_file.empty() || !o.safetensors_files.empty() ||
         !o.index_file.empty() || !o.hub.id.empty();
}

// Builds the request JSON: the --request file, then each option given.
// command: the engine's flags (--cmd and llama.cpp's flags given directly), read once.
// hub: the --hf model, when it gives a config.json alone.
bool build_request(const InferOptions& o, const EngineCommand* command, const std::optional<HubModel>& hub, json& request,
                   std::ostream& err) {
  request = json::object();
  if (!o.request_file.empty()) {
    std::string text;
    if (!read_file(o.request_file, text)) { err << "error: --request: cannot read " << o.request_file << "\n"; return false; }
    request = parse_json(text);
    if (request.is_discarded() || !request.is_object()) {
      err << "error: --request: " << o.request_file << " is not a JSON object\n";
      return false;
    }
  }
  if (!o.config_file.empty() && o.gguf_file.empty() && o.safetensors_files.empty() && o.index_file.empty()) {
    std::string text;
    if (!read_file(o.config_file, text)) { err << "error: --config: cannot read " << o.config_file << "\n"; return false; }
    json config = parse_json(text);
    if (config.is_discarded()) { err << "error: --config: " << o.config_file << " is not valid JSON\n"; return false; }
    config_into_request(config, base_name(o.config_file), o.weights.empty(), request);
  }
  if (hub && !hub->has_weights) config_into_request(hub->config, hub->config_name, o.weights.empty(), request);
  if (!o.model.empty()) request["model"] = {{"preset", o.model}};
  if (!o.weights.empty()) request["weights"]["format"] = o.weights;
  if (o.group_size > 0) request["weights"]["group_size"] = o.group_size;
  if (!o.kv.empty()) request["kv_cache"]["dtype"] = o.kv;
  if (o.context > 0) request["context_tokens"] = o.context;
  if (o.sequences > 0) request["concurrent_sequences"] = o.sequences;
  if (!o.gpu.empty()) request["gpu"] = {{"id", o.gpu}};
  if (o.capacity_gib > 0) request["gpu"] = {{"capacity_bytes", static_cast<int64_t>(o.capacity_gib * static_cast<double>(kGiB))}};
  if (o.gpu_count > 0) request["gpu_count"] = o.gpu_count;
  if (o.margin >= 0) request["overhead"]["margin_fraction"] = o.margin;
  if (!o.overhead.empty()) request["overhead"]["model"] = o.overhead;
  if (o.runtime_mib >= 0) request["overhead"]["runtime_bytes"] = o.runtime_mib * kMiB;
  if (o.prefill_chunk > 0) request["overhead"]["prefill_chunk_tokens"] = o.prefill_chunk;
  if (o.no_flash_attention) request["overhead"]["flash_attention"] = false;
  if (!o.units.empty()) request["units"] = (o.units == "GiB" || o.units == "gib") ? "GiB" : "GB";
  if (!o.lang.empty()) request["language"] = o.lang;
  if (o.compare) request["compare_gpus"] = true;
  if (!o.engine.empty()) request["engine"] = o.engine;
  if (!o.gpus.empty()) request["gpus"] = o.gpus;
  json& t = request["transformers"];
  if (!o.device_map.empty()) t["device_map"] = o.device_map;
  if (!o.attn_implementation.empty()) t["attn_implementation"] = o.attn_implementation;
  if (!o.transformers_version.empty()) t["version"] = o.transformers_version;
  if (!o.bnb_4bit_compute_dtype.empty()) t["bnb_4bit_compute_dtype"] = o.bnb_4bit_compute_dtype;
  if (o.batch_size > 0) t["batch_size"] = o.batch_size;
  if (o.input_length > 0) t["input_length"] = o.input_length;
  if (o.max_new_tokens > 0) t["max_new_tokens"] = o.max_new_tokens;
  if (t.empty()) request.erase("transformers");
  if (!o.draft.empty()) request["draft"]["model"] = {{"preset", o.draft}};
  if (!o.draft_config.empty()) {
    std::string text;
    json config = read_file(o.draft_config, text) ? parse_json(text) : json(json::value_t::discarded);
    if (config.is_discarded()) { err << "error: --draft-config: " << o.draft_config << " is not valid JSON\n"; return false; }
    request["draft"]["model"] = {{"config", config}, {"name", base_name(o.draft_config)}};
  }
  if (!o.draft_weights.empty()) request["draft"]["weights"]["format"] = o.draft_weights;
  if (o.host_ram_gib > 0) request["host"]["memory_bytes"] = static_cast<int64_t>(o.host_ram_gib * static_cast<double>(kGiB));
  if (command) {
    const std::string engine = command->request["engine"].get<std::string>();
    request["engine"] = engine;
    request[engine].merge_patch(command->request[engine]);
    if (!command->weights_format.empty() && o.weights.empty()) request["weights"]["format"] = command->weights_format;
    for (const std::string& flag : command->ignored) err << "note: " << flag << " does not change memory: not read\n";
  }
  if (o.llama_build > 0) request["llama.cpp"]["build"] = o.llama_build;
  // A LoRA adapter read by --hf: vLLM's --enable-lora with a --max-lora-rank that holds it, unless given.
  if (hub && hub->adapter && hub->adapter->vllm_max_lora_rank > 0) {
    json& v = request["vllm"];
    if (!v.contains("enable-lora")) v["enable-lora"] = true;
    if (!v.contains("max-lora-rank")) v["max-lora-rank"] = hub->adapter->vllm_max_lora_rank;
  }
  return true;
}



// An engine's command line (--cmd, and llama.cpp's flags given to vramfit directly): the files
// and models it names are read as the matching vramfit options. False on an error (printed).
bool take_engine_command(InferOptions& infer, const std::vector<std::string>& engine_flags, const Catalog& catalog,
                         std::optional<EngineCommand>& command, std::ostream& err) {
  std::vector<std::string> words = shell_words(infer.command);
  words.insert(words.end(), engine_flags.begin(), engine_flags.end());
  auto read = read_engine_words(words, infer.engine);
  if (!read) { err << error_line(infer.lang, read.error().message); return false; }
  command = std::move(read).value();
  if (!command->model_file.empty() && infer.gguf_file.empty()) infer.gguf_file = command->model_file;  // -m: read like --gguf
  if (!command->draft_file.empty() && !draft_given(infer)) infer.draft_gguf = command->draft_file;  // -md: like --draft-gguf
  for (const std::string& file : command->lora_files) infer.lora_gguf.push_back(file);  // --lora: like --lora-gguf
  if (!command->mmproj_file.empty() && infer.mmproj_gguf.empty()) infer.mmproj_gguf = command->mmproj_file;  // --mmproj
  if (!command->draft_model.empty() && !draft_given(infer)) {  // --speculative-config's model
    if (!resolve_vllm_model(command->draft_model, catalog, infer.draft_gguf, infer.draft_config, infer.draft, nullptr, err)) return false;
  }
  if (!command->hf_repo.empty() && !model_given(infer)) {  // llama.cpp's -hf (and -hff): from the Hub
    infer.hub.id = command->hf_repo;
    infer.hub.file = command->hf_file;
  }
  if (!command->model.empty() && !model_given(infer)) {
    if (!resolve_vllm_model(command->model, catalog, infer.gguf_file, infer.config_file, infer.model, &infer.hub.id, err)) return false;
  }
  return true;
}

// vramfit infer's request: the options and the engine's command, the files it names read.
// Nothing when it cannot be made (the error printed).
std::optional<Request> infer_request(InferOptions& infer, const std::optional<EngineCommand>& command, const Catalog& catalog,
                                     std::ostream& err) {
  json request_json;
  std::optional<HubModel> hub;
  if (!infer.hub.id.empty() && !read_hub_option(infer.hub, catalog, hub, err)) return std::nullopt;
  if (!build_request(infer, command ? &*command : nullptr, hub, request_json, err)) return std::nullopt;
  auto request = request_from_json(request_json);
  if (!request) { err << error_line(infer.lang, request.error().message); return std::nullopt; }
  if (hub && hub->has_weights) {
    if (auto e = apply_model_file(request.value(), hub->read)) { err << "error: --hf: " << e->message << "\n"; return std::nullopt; }
  }
  if (!read_model_files(infer, catalog, request.value(), err)) return std::nullopt;
  if (!read_draft_file(infer, catalog, request.value(), err)) return std::nullopt;
  if (!read_lora_files(infer, catalog, request.value(), err)) return std::nullopt;
  return std::move(request).value();
}

// vramfit infer: the request's estimate printed.
int run_infer(InferOptions& infer, const std::optional<EngineCommand>& command, const Catalog& catalog, std::ostream& out,
              std::ostream& err) {
  const std::optional<Request> request = infer_request(infer, command, catalog, err);
  if (!request) return 2;
  auto report = estimate(*request, catalog);
  if (!report) { err << error_line(infer.lang, report.error().message); return 2; }
  if (infer.as_json) out << report_to_json(*report).dump(2) << "\n";
  else print_report(out, *report);
  return 0;
}

// vramfit infer --engine sglang (or --cmd 'python -m sglang.launch_server ...'): SGLang's flags
// read, its --model-path read as vLLM's model is, its pool on each GPU printed.
int run_sglang(InferOptions& infer, const std::vector<std::string>& words, const Catalog& catalog, std::ostream& out,
               std::ostream& err) {
  auto command = read_sglang_words(words);
  if (!command) { err << error_line(infer.lang, command.error().message); return 2; }
  if (infer.gpu_count > 0) {
    err << "error: -n/--gpu-count: SGLang's GPUs are --tp x --dp, one rank each (--gpus names them)\n";
    return 2;
  }
  if (!infer.sglang_version.empty() && !parse_sglang_version(infer.sglang_version, command.value().settings)) {
    err << "error: --sglang-version: '" << infer.sglang_version << "' is not a release such as 0.5.16\n";
    return 2;
  }
  if (!command->model.empty() && !model_given(infer) &&
      !resolve_vllm_model(command->model, catalog, infer.gguf_file, infer.config_file, infer.model, &infer.hub.id, err)) {
    return 2;
  }
  if (!command->weights_format.empty() && infer.weights.empty()) infer.weights = command->weights_format;
  for (const std::string& flag : command->ignored) err << "note: " << flag << " does not change memory: not read\n";
  infer.engine.clear();
  const std::vector<std::string> gpus = std::move(infer.gpus);  // SGLang's ranks, one GPU each
  infer.gpus.clear();
  std::optional<Request> request = infer_request(infer, std::nullopt, catalog, err);
  if (!request) return 2;
  request->gpu_ids = gpus;
  auto answer = estimate_sglang(*request, catalog, *command);
  if (!answer) { err << error_line(infer.lang, answer.error().message); return 2; }
  if (infer.as_json) out << sglang_report_to_json(*answer).dump(2) << "\n";
  else print_sglang_report(out, *answer);
  return 0;
}

// vramfit infer --engine ollama (or --cmd 'OLLAMA_NUM_PARALLEL=2 ollama run llama3.1:8b'): Ollama's
// environment, options and library tag read, its estimate and its runner's buffers printed.
int run_ollama(InferOptions& infer, const std::vector<std::string>& words, const Catalog& catalog, std::ostream& out,
               std::ostream& err) {
  auto command = read_ollama_words(words);
  if (!command) { err << error_line(infer.lang, command.error().message); return 2; }
  command.value().free_mib = infer.ollama_free_mib;
  if (!command->model_tag.empty() && !model_given(infer)) {
    auto library = ollama_library_model(command->model_tag);
    if (!library) { err << error_line(infer.lang, library.error().message); return 2; }
    infer.model = library->preset;
    if (infer.weights.empty()) infer.weights = library->format;
  }
  for (const std::string& name : command->ignored) err << "note: " << name << " does not change memory: not read\n";
  infer.engine.clear();
  const std::vector<std::string> gpus = std::move(infer.gpus);
  infer.gpus.clear();
  std::optional<Request> request = infer_request(infer, std::nullopt, catalog, err);
  if (!request) return 2;
  request->gpu_ids = gpus;
  auto answer = estimate_ollama(*request, catalog, *command);
  if (!answer) { err << error_line(infer.lang, answer.error().message); return 2; }
  if (infer.as_json) out << ollama_report_to_json(*answer).dump(2) << "\n";
  else print_ollama_report(out, *answer);
  return 0;
}

// vramfit infer --request FILE where the file's engine is SGLang's or Ollama's: the file is the
// whole request (its settings under "sglang" or "ollama"), with --lang and --units.
int run_engine_request(const InferOptions& infer, json request, const Catalog& catalog, std::ostream& out, std::ostream& err) {
  const std::string engine = request.at("engine").get<std::string>();
  if (model_given(infer) || !infer.gpus.empty() || !infer.gpu.empty() || !infer.command.empty() || !infer.weights.empty() ||
      infer.context > 0) {
    err << "error: --request: with engine \"" << engine << "\" the file holds the whole request; give its settings there\n";
    return 2;
  }
  if (!infer.lang.empty()) request["language"] = infer.lang;
  if (!infer.units.empty()) request["units"] = (infer.units == "GiB" || infer.units == "gib") ? "GiB" : "GB";
  if (engine == "ollama") {
    auto answer = estimate_ollama_request(request, catalog);
    if (!answer) { err << error_line(infer.lang, answer.error().message); return 2; }
    if (infer.as_json) out << ollama_report_to_json(*answer).dump(2) << "\n";
    else print_ollama_report(out, *answer);
    return 0;
  }
  auto answer = estimate_sglang_request(request, catalog);
  if (!answer) { err << error_line(infer.lang, answer.error().message); return 2; }
  if (infer.as_json) out << sglang_report_to_json(*answer).dump(2) << "\n";
  else print_sglang_report(out, *answer);
  return 0;
}

// vramfit gpus / models / formats.
void print_lists(const Catalog& catalog, CLI::App& gpus_cmd, CLI::App& models_cmd, bool gpus_json, bool models_json,
                 bool formats_json, const std::string& gpu_units, std::ostream& out) {
  const json lists = catalog_to_json(catalog);
  if (gpus_cmd && gpus_json) out << lists["gpus"].dump(2) << "\n";
  else if (models_cmd && models_json) out << lists["models"].dump(2) << "\n";
  else if (!gpus_cmd && !models_cmd && formats_json) out << lists["formats"].dump(2) << "\n";
  else if (gpus_cmd) {
    DisplayUnits units = DisplayUnits::gb;
    parse_units(gpu_units, units);
    print_gpus(out, catalog, units);
  } else if (models_cmd) {
    print_models(out, catalog);
  } else {
    print_formats(out, catalog);
  }
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"vramfit: will this model fit on this GPU, and why? Every figure with its formula.", "vramfit"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");

  InferOptions infer;
  CLI::App* infer_cmd = app.add_subcommand("infer", "Inference memory: weights, KV cache, overhead, margin; fit on a GPU");
  add_infer_options(*infer_cmd, infer);

  TrainOptions train, net;
  CLI::App* train_cmd = app.add_subcommand("train", "Training memory of a transformer: weights, gradients, optimizer, activations");
  add_train_options(*train_cmd, train);
  CLI::App* net_cmd = app.add_subcommand("net", "Training memory of a network given layer by layer (JSON file)");
  add_net_options(*net_cmd, net);

  bool gpus_json = false, models_json = false, formats_json = false;
  std::string gpu_units = "GB";
  CLI::App* gpus_cmd = app.add_subcommand("gpus", "List the GPU catalog");
  gpus_cmd->add_flag("--json", gpus_json, "As JSON");
  gpus_cmd->add_option("--units", gpu_units, "GB or GiB")->check(CLI::IsMember({"GB", "GiB", "gb", "gib"}));
  CLI::App* models_cmd = app.add_subcommand("models", "List the model presets");
  models_cmd->add_flag("--json", models_json, "As JSON");
  CLI::App* formats_cmd = app.add_subcommand("formats", "List the weight formats");
  formats_cmd->add_flag("--json", formats_json, "As JSON");

  static const char* const commands[] = {"infer", "train", "net", "gpus", "models", "formats"};
  if (!args.empty() && !args[0].empty() && args[0][0] != '-' &&
      std::none_of(std::begin(commands), std::end(commands), [&](const char* c) { return args[0] == c; })) {
    err << "error: unknown command '" << args[0] << "' (commands: infer, train, net, gpus, models, formats)\n";
    err << "Run 'vramfit --help' for usage.\n";
    return 2;
  }
  std::vector<std::string> cli_args = args;
  const std::vector<std::string> engine_flags = take_engine_flags(cli_args);
  // CLI11 parses a vector given in reverse order.
  std::vector<std::string> reversed(cli_args.rbegin(), cli_args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp& e) {
    out << app.help(e.get_name() == "--help-all" ? "" : "", CLI::AppFormatMode::Normal);
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::ParseError& e) {
    // Help requested on a subcommand comes as CallForHelp from that subcommand.
    if (e.get_exit_code() == 0) {
      for (CLI::App* sub : app.get_subcommands()) { out << sub->help(); return 0; }
      out << app.help();
      return 0;
    }
    err << "error: " << e.what() << "\n";
    err << "Run 'vramfit --help' or 'vramfit <command> --help' for usage.\n";
    return 2;
  }

  const Catalog& catalog = builtin_catalog();
  if (catalog.models.empty()) {
    err << "error: the built-in catalog failed to load: " << builtin_catalog_error() << "\n";
    return 1;
  }

  if (*gpus_cmd || *models_cmd || *formats_cmd) {
    print_lists(catalog, *gpus_cmd, *models_cmd, gpus_json, models_json, formats_json, gpu_units, out);
    return 0;
  }
  if (*train_cmd || *net_cmd) return run_train(*train_cmd ? train : net, static_cast<bool>(*net_cmd), catalog, out, err);
  if (!infer.request_file.empty()) {
    std::string text;
    if (!read_file(infer.request_file, text)) { err << "error: --request: cannot read " << infer.request_file << "\n"; return 2; }
    json request = parse_json(text);
    if (is_separate_engine_request(request)) return run_engine_request(infer, std::move(request), catalog, out, err);
    if (is_separate_framework_request(request)) {
      if (!infer.lang.empty()) request["language"] = infer.lang;
      if (!infer.units.empty()) request["units"] = (infer.units == "GiB" || infer.units == "gib") ? "GiB" : "GB";
      return run_framework_request(request, infer.lang, infer.as_json, catalog, out, err);
    }
  }
  std::vector<std::string> words = shell_words(infer.command);
  if (infer.engine == "sglang" || is_sglang_command(words)) {
    words.insert(words.end(), engine_flags.begin(), engine_flags.end());
    return run_sglang(infer, words, catalog, out, err);
  }
  if (infer.engine == "ollama" || is_ollama_command(words)) return run_ollama(infer, words, catalog, out, err);
  std::optional<EngineCommand> command;
  if ((!infer.command.empty() || !engine_flags.empty()) && !take_engine_command(infer, engine_flags, catalog, command, err)) return 2;
  return run_infer(infer, command, catalog, out, err);
}

}  // namespace vramfit
