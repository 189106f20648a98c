#include "engine_command.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>

namespace vramfit {

std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) word += line[++i];
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      if (line[i + 1] == '\n' || (line[i + 1] == '\r' && i + 2 < line.size() && line[i + 2] == '\n')) {
        i += line[i + 1] == '\r' ? 2 : 1;  // a continued line
      } else {
        word += line[++i];
        in_word = true;
      }
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

namespace {

enum class Value { none, integer, number, text, on_off, list };

// An engine's flags that change memory, with every name the engine gives them, and the key
// they have under the engine's object in a request.
struct Flag {
  std::vector<const char*> names;
  const char* key;
  Value value;
};

struct EngineFlags {
  const char* engine;                          // "llama.cpp", "vllm": the request's engine and its object
  std::vector<Flag> memory;
  std::vector<const char*> ignored_with_value;  // flags that take a value and do not change memory
  std::vector<const char*> ignored_switches;
};

// llama.cpp: common/arg.cpp.
const EngineFlags& llamacpp_flags() {
  static const EngineFlags flags = {
      "llama.cpp",
      {
          {{"-c", "--ctx-size"}, "ctx-size", Value::integer},
          {{"-b", "--batch-size"}, "batch-size", Value::integer},
          {{"-ub", "--ubatch-size"}, "ubatch-size", Value::integer},
          {{"-np", "--parallel"}, "parallel", Value::integer},
          {{"-ctk", "--cache-type-k"}, "cache-type-k", Value::text},
          {{"-ctv", "--cache-type-v"}, "cache-type-v", Value::text},
          {{"-fa", "--flash-attn"}, "flash-attn", Value::on_off},
          {{"-ngl", "--gpu-layers", "--n-gpu-layers"}, "n-gpu-layers", Value::integer},
          {{"-sm", "--split-mode"}, "split-mode", Value::text},
          {{"-ts", "--tensor-split"}, "tensor-split", Value::list},
          {{"-mg", "--main-gpu"}, "main-gpu", Value::integer},
          {{"-cmoe", "--cpu-moe"}, "cpu-moe", Value::none},
          {{"-ncmoe", "--n-cpu-moe"}, "n-cpu-moe", Value::integer},
          {{"-nkvo", "--no-kv-offload"}, "no-kv-offload", Value::none},
          {{"--swa-full"}, "swa-full", Value::none},
          {{"-ngld", "--gpu-layers-draft", "--n-gpu-layers-draft"}, "gpu-layers-draft", Value::integer},
          {{"-ctkd", "--cache-type-k-draft"}, "cache-type-k-draft", Value::text},
          {{"-ctvd", "--cache-type-v-draft"}, "cache-type-v-draft", Value::text},
          {{"--no-mmproj-offload"}, "no-mmproj-offload", Value::none},
      },
      {"--host", "--port", "-t", "--threads", "-tb", "--threads-batch", "--temp", "--top-k", "--top-p", "--min-p",
       "--repeat-penalty", "--repeat-last-n", "-n", "--n-predict", "-s", "--seed", "--log-file", "-a", "--alias",
       "--api-key", "--chat-template", "--chat-template-file", "-p", "--prompt", "-f", "--file", "-sys", "--system-prompt",
       "--timeout", "--numa", "-r", "--reverse-prompt", "--keep", "--reasoning-format", "--reasoning-budget",
       "--path", "--slot-save-path", "--grammar", "--grammar-file", "-C",
       "--cpu-mask", "--prio", "--poll", "--media-path", "--threads-http", "--cache-reuse",
       "--rope-scaling", "--rope-scale", "--rope-freq-base", "--rope-freq-scale", "--yarn-orig-ctx", "--device", "-dev",
       // speculative decoding: how many tokens to draft, and llama.cpp's older per-slot draft context
       // (-cd; the 2026 draft context is the target's size whatever -cd says)
       "--draft-max", "--draft", "--draft-n", "--draft-min", "--draft-n-min", "--draft-p-min", "-cd", "--ctx-size-draft",
       "-devd", "--device-draft", "-lv", "--verbosity", "--log-verbosity", "-cram", "--cache-ram"},
      {"--jinja", "--no-jinja", "--verbose", "-v", "--metrics", "--no-webui", "--mlock", "--no-mmap", "--cont-batching", "-cb",
       "--no-cont-batching", "-nocb", "--props", "--slots", "--no-slots", "-i", "--interactive", "-cnv", "--conversation",
       "-no-cnv", "--no-conversation", "--color", "--no-warmup", "--embedding", "--embeddings", "--log-disable", "--simple-io",
       "-st", "--single-turn", "--no-display-prompt", "--log-colors", "--check-tensors", "--kv-unified", "-kvu"},
  };
  return flags;
}

// vLLM: vllm/engine/arg_utils.py EngineArgs.add_cli_args; --dtype and --quantization choose
// the weight format and are read apart.
const EngineFlags& vllm_flags() {
  static const EngineFlags flags = {
      "vllm",
      {
          {{"--gpu-memory-utilization"}, "gpu-memory-utilization", Value::number},
          {{"--max-model-len"}, "max-model-len", Value::integer},
          {{"--max-num-seqs"}, "max-num-seqs", Value::integer},
          {{"--max-num-batched-tokens"}, "max-num-batched-tokens", Value::integer},
          {{"-tp", "--tensor-parallel-size"}, "tensor-parallel-size", Value::integer},
          {{"-pp", "--pipeline-parallel-size"}, "pipeline-parallel-size", Value::integer},
          {{"--kv-cache-dtype"}, "kv-cache-dtype", Value::text},
          {{"--enforce-eager"}, "enforce-eager", Value::none},
          {{"--disable-hybrid-kv-cache-manager"}, "disable-hybrid-kv-cache-manager", Value::none},
          {{"--block-size"}, "block-size", Value::integer},
          {{"--enable-lora"}, "enable-lora", Value::none},
          {{"--max-loras"}, "max-loras", Value::integer},
          {{"--max-lora-rank"}, "max-lora-rank", Value::integer},
          {{"--fully-sharded-loras"}, "fully-sharded-loras", Value::none},
          {{"--lora-dtype"}, "lora-dtype", Value::text},
      },
      {"--host", "--port", "--served-model-name", "--api-key", "--chat-template", "--swap-space", "--download-dir",
       "--tokenizer", "--tokenizer-mode", "--seed", "--max-logprobs", "--load-format", "--generation-config",
       "--uvicorn-log-level", "--tool-call-parser", "--reasoning-parser", "--distributed-executor-backend", "--revision",
       "--limit-mm-per-prompt", "--config-format", "--hf-overrides", "--override-generation-config", "--api-server-count",
       "--root-path", "--response-role", "--ssl-keyfile", "--ssl-certfile", "--allowed-origins", "--lora-modules", "--max-cpu-loras",
       "--cpu-offload-gb", "--data-parallel-size", "-dp", "--compilation-config", "-O"},
      {"--trust-remote-code", "--disable-log-requests", "--enable-prefix-caching", "--no-enable-prefix-caching",
       "--enable-chunked-prefill", "--no-enable-chunked-prefill", "--enable-auto-tool-choice", "--disable-custom-all-reduce",
       "--disable-log-stats", "--enable-log-requests", "--disable-frontend-multiprocessing", "--enable-expert-parallel",
       "--async-scheduling", "--no-async-scheduling"},
  };
  return flags;
}

const EngineFlags* flags_for(const std::string& engine) {
  if (engine == "llama.cpp") return &llamacpp_flags();
  if (engine == "vllm") return &vllm_flags();
  return nullptr;
}

// A command's program without its folder ("/opt/bin/llama-server", "C:\\llama\\llama-server.exe").
std::string program_name(const std::string& word) { return word.substr(word.find_last_of("/\\") + 1); }  // npos + 1: all

bool is_llamacpp_tool(const std::string& word) {
  const std::string name = program_name(word);
  return name.rfind("llama-", 0) == 0 || name == "main" || name == "server" || name == "llama-server.exe" ||
         name == "llama-cli.exe";
}

bool parse_integer(const std::string& text, int64_t& value) {
  if (text.empty() || text.size() > 12) return false;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return false;
  int64_t v = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    v = v * 10 + (text[i] - '0');
  }
  value = text[0] == '-' ? -v : v;
  return true;
}

// vLLM reads token counts in human units (vllm/utils: human_readable_int): 32k = 32,000,
// 32K = 32,768, 1m = 1,000,000, 1M = 1,048,576.
bool parse_token_count(const std::string& text, int64_t& value) {
  if (text.empty()) return false;
  const char unit = text.back();
  const int64_t factor = unit == 'k' ? 1000 : unit == 'K' ? 1024 : unit == 'm' ? 1000000 : unit == 'M' ? 1048576 : 1;
  const std::string digits = factor == 1 ? text : text.substr(0, text.size() - 1);
  if (!parse_integer(digits, value) || value < 0) return false;
  value *= factor;
  return true;
}

// vLLM's --dtype and --quantization as a weight format (data/weight_formats.json).
std::string vllm_weights_format(const std::string& dtype, const std::string& quantization, std::string& why_not) {
  if (!quantization.empty()) {
    if (quantization == "fp8") return "fp8";
    if (quantization == "awq" || quantization == "awq_marlin") return "awq-int4";
    if (quantization == "gptq" || quantization == "gptq_marlin") return "gptq-int4";
    if (quantization == "bitsandbytes") return "bnb-nf4";
    why_not = "--quantization " + quantization + " is not one vramfit sizes (fp8, awq, awq_marlin, gptq, gptq_marlin, bitsandbytes)";
    return "";
  }
  if (dtype.empty() || dtype == "auto") return "";
  if (dtype == "half" || dtype == "float16") return "fp16";
  if (dtype == "bfloat16") return "bf16";
  if (dtype == "float" || dtype == "float32") return "fp32";
  why_not = "--dtype " + dtype + " is not one of auto, half, float16, bfloat16, float, float32";
  return "";
}

// vLLM's --speculative-config JSON (vllm/config/speculative.py SpeculativeConfig): its method and
// token count become settings, its model the draft model (a repository id or a path). Without a
// method vLLM detects one from the model: an EAGLE head by its name, else draft_model.
std::optional<Error> read_speculative_config(const std::string& text, json& settings, EngineCommand& command) {
  const json config = parse_json(text);
  auto fail = [](const std::string& what) {
    return make_error("command.bad_value", "command.--speculative-config", "command: --speculative-config: " + what);
  };
  if (!config.is_object()) return fail("'" + text + "' is not a JSON object");
  json spec = json::object();
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& key = it.key();
    if (key == "model" && it->is_string()) {
      command.draft_model = it->get<std::string>();
    } else if (key == "method" && it->is_string()) {
      spec["method"] = *it;
    } else if (key == "num_speculative_tokens" && it->is_number_integer()) {
      spec["num_speculative_tokens"] = *it;
    } else if (key == "prompt_lookup_max" || key == "prompt_lookup_min") {
      command.ignored.push_back("--speculative-config's " + key);  // ngram's window: CPU work
    } else {
      return fail(key + " is not read by vramfit (model, method, num_speculative_tokens are); the draft's "
                        "weights are given as the draft model's format");
    }
  }
  if (!spec.contains("method")) {
    std::string name = command.draft_model;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    spec["method"] = name.find("eagle3") != std::string::npos  ? "eagle3"
                     : name.find("eagle") != std::string::npos ? "eagle"
                     : command.draft_model.empty()              ? "ngram"
                                                                : "draft_model";
  }
  settings["speculative-config"] = spec;
  return std::nullopt;
}

const Flag* find_flag(const EngineFlags& flags, const std::string& word) {
  const std::string flag = word.rfind("--", 0) == 0 ? word.substr(0, word.find('=')) : word;
  for (const Flag& f : flags.memory) {
    if (std::any_of(f.names.begin(), f.names.end(), [&](const char* name) { return flag == name; })) return &f;
  }
  return nullptr;
}

}  // namespace

int engine_flag_values(const std::string& engine, const std::string& word) {
  const EngineFlags* flags = flags_for(engine);
  if (!flags) return -1;
  const std::string flag = word.rfind("--", 0) == 0 ? word.substr(0, word.find('=')) : word;
  if (engine == "vllm" && (flag == "--dtype" || flag == "--quantization" || flag == "-q")) return flag != word ? 0 : 1;
  if (engine == "llama.cpp" && (flag == "-md" || flag == "--model-draft" || flag == "--lora" || flag == "-mm" || flag == "--mmproj")) {
    return flag != word ? 0 : 1;
  }
  if (engine == "vllm" && flag == "--speculative-config") return flag != word ? 0 : 1;
  const Flag* f = find_flag(*flags, word);
  if (!f) return -1;
  if (flag != word) return 0;  // --name=value carries its value
  return f->value == Value::none ? 0 : f->value == Value::on_off ? 2 : 1;
}

Result<EngineCommand> read_engine_command(const std::string& line, const std::string& engine) {
  return read_engine_words(shell_words(line), engine);
}

namespace {

// The words after the program, one flag at a time: the flag (without an inline "=value"), and
// its value from "--flag=value" or the next word.
struct FlagWords {
  const std::vector<std::string>& words;
  size_t i = 0;
  std::string flag, inline_value;
  bool has_inline = false;

  void start() {
    flag = words[i];
    inline_value.clear();
    has_inline = false;
    if (flag.rfind("--", 0) == 0 && flag.find('=') != std::string::npos) {  // --ctx-size=32768
      inline_value = flag.substr(flag.find('=') + 1);
      flag = flag.substr(0, flag.find('='));
      has_inline = true;
    }
  }
  bool next_value(std::string& value) {
    if (has_inline) { value = inline_value; return true; }
    if (i + 1 >= words.size()) return false;
    value = words[++i];
    return true;
  }
  // A value follows when it is inline or the next word is not a flag.
  bool value_follows() const { return has_inline || (i + 1 < words.size() && words[i + 1][0] != '-'); }
  Error fail(const std::string& what) const {
    return make_error("command.bad_value", "command." + flag, "command: " + flag + ": " + what);
  }
};

// The program: llama-server, llama-cli ...; `vllm serve MODEL`; `python -m vllm.entrypoints.openai.api_server`.
// Gives the engine and the index of the first flag.
std::optional<Error> read_program(const std::vector<std::string>& words, std::string& engine, size_t& i, EngineCommand& command) {
  if (words[0][0] == '-') return std::nullopt;
  const std::string& w0 = words[0];
  const std::string name = program_name(w0);
  if (is_llamacpp_tool(w0)) {
    engine = "llama.cpp";
    i = 1;
  } else if (name == "vllm" && words.size() > 1 && words[1] == "serve") {
    engine = "vllm";
    i = 2;
    if (i < words.size() && words[i][0] != '-') command.model = words[i++];
  } else if ((name.rfind("python", 0) == 0) && words.size() > 2 && words[1] == "-m" &&
             words[2].rfind("vllm.entrypoints", 0) == 0) {
    engine = "vllm";
    i = 3;
  } else {
    return make_error("command.unknown_tool", "command",
                      "command: '" + w0 + "' is not an engine vramfit reads (llama-server, llama-cli, ...; vllm serve)");
  }
  return std::nullopt;
}

// What the command names rather than sets: the model, its draft, projector and adapters, the
// Hub repository, vLLM's dtype and quantization. False when the flag is not one of them.
struct NamedValues {
  std::string dtype, quantization;
};

Result<bool> read_named(FlagWords& w, const std::string& engine, EngineCommand& command, json& settings, NamedValues& named) {
  const std::string& flag = w.flag;
  const bool llama = engine == "llama.cpp", vllm = engine == "vllm";
  // A flag whose value is one string, kept as given.
  auto one = [&](std::string& target, const char* missing) -> Result<bool> {
    if (!w.next_value(target)) return w.fail(missing);
    return true;
  };
  if (llama && (flag == "-m" || flag == "--model")) return one(command.model_file, "needs a file");
  if (llama && (flag == "-md" || flag == "--model-draft")) return one(command.draft_file, "needs a file");
  if (llama && (flag == "-mm" || flag == "--mmproj")) return one(command.mmproj_file, "needs a file");
  if (llama && (flag == "-hff" || flag == "--hf-file")) return one(command.hf_file, "needs a file of the repository");  // overrides -hf's quant
  if (vllm && flag == "--model") return one(command.model, "needs a model");
  if (vllm && flag == "--dtype") return one(named.dtype, "needs a dtype");
  if (vllm && (flag == "--quantization" || flag == "-q")) return one(named.quantization, "needs a method");
  if (llama && (flag == "-hf" || flag == "-hfr" || flag == "--hf-repo")) {  // <user>/<model>[:quant]
    if (!w.next_value(command.hf_repo)) return w.fail("needs a Hugging Face repository, e.g. unsloth/Qwen3-8B-GGUF:Q4_K_M");
    return true;
  }
  if (llama && (flag == "--lora" || flag == "--lora-scaled")) {  // --lora-scaled FNAME SCALE
    std::string lora, scale;
    if (!w.next_value(lora) || (flag == "--lora-scaled" && !w.next_value(scale))) return w.fail("needs a file");
    command.lora_files.push_back(lora);
    return true;
  }
  if (vllm && flag == "--speculative-config") {
    std::string value;
    if (!w.next_value(value)) return w.fail("needs a JSON object");
    if (auto e = read_speculative_config(value, settings, command)) return *e;
    return true;
  }
  return false;
}

// One of the engine's flags that sets a setting, by the kind of value it takes.
std::optional<Error> read_setting(FlagWords& w, const Flag& known, const std::string& engine, json& settings) {
  std::string value;
  switch (known.value) {
    case Value::none:
      settings[known.key] = true;
      break;
    case Value::integer: {
      if (!w.next_value(value)) return w.fail("needs a number");
      int64_t n = 0;
      if (std::string(known.key).find("gpu-layers") != std::string::npos && (value == "auto" || value == "all")) n = -1;
      else if (engine == "vllm" ? !parse_token_count(value, n) : !parse_integer(value, n)) {
        return w.fail("'" + value + "' is not a whole number");
      }
      settings[known.key] = n;
      break;
    }
    case Value::number: {
      if (!w.next_value(value)) return w.fail("needs a number");
      char* stop = nullptr;
      const double x = std::strtod(value.c_str(), &stop);
      if (value.empty() || stop != value.c_str() + value.size()) return w.fail("'" + value + "' is not a number");
      settings[known.key] = x;
      break;
    }
    case Value::text:
      if (!w.next_value(value)) return w.fail("needs a value");
      settings[known.key] = value;
      break;
    case Value::on_off:
      // -fa on|off|auto; older builds took -fa alone for "on".
      if (w.value_follows()) {
        w.next_value(value);
        if (value == "1" || value == "true") value = "on";
        if (value == "0" || value == "false") value = "off";
      } else {
        value = "on";
      }
      settings[known.key] = value;
      break;
    case Value::list: {
      if (!w.next_value(value)) return w.fail("needs proportions, e.g. 3,1");
      json list = json::array();
      size_t start = 0;
      while (start <= value.size()) {
        const size_t end = std::min(value.find_first_of(",/", start), value.size());
        const std::string part = value.substr(start, end - start);
        char* stop = nullptr;
        const double x = std::strtod(part.c_str(), &stop);
        if (part.empty() || stop != part.c_str() + part.size()) return w.fail("'" + value + "' is not a list of numbers");
        list.push_back(x);
        start = end + 1;
      }
      settings[known.key] = list;
      break;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<EngineCommand> read_engine_words(const std::vector<std::string>& words, const std::string& engine_given) {
  if (words.empty()) return make_error("command.empty", "command", "command: empty");
  EngineCommand command;
  json settings = json::object();
  std::string engine = engine_given;
  FlagWords w{words, 0, {}, {}, false};
  if (auto e = read_program(words, engine, w.i, command)) return *e;
  // The program decides what llama.cpp reserves (llamacpp_reserved_outputs): llama-server,
  // llama-cli, llama-bench ... (main and server, their names until 2024, keep the default).
  if (w.i == 1 && engine == "llama.cpp") {
    std::string name = program_name(words[0]);
    name.resize(std::min(name.size(), name.find(".exe")));
    if (name.rfind("llama-", 0) == 0) settings["tool"] = name;
  }
  const EngineFlags* flags = flags_for(engine);
  if (!flags) {
    return make_error("command.unknown_tool", "command", "command: which engine? start with llama-server or vllm serve");
  }
  NamedValues named;
  for (; w.i < words.size(); ++w.i) {
    w.start();
    const std::string& flag = w.flag;
    auto was_named = read_named(w, engine, command, settings, named);
    if (!was_named) return was_named.error();
    if (*was_named) continue;
    if (const Flag* known = find_flag(*flags, flag)) {
      if (auto e = read_setting(w, *known, engine, settings)) return *e;
      continue;
    }
    if (std::any_of(flags->ignored_with_value.begin(), flags->ignored_with_value.end(), [&](const char* n) { return flag == n; })) {
      std::string value;
      if (!w.next_value(value)) return w.fail("needs a value");
      command.ignored.push_back(flag + " " + value);
      continue;
    }
    if (std::any_of(flags->ignored_switches.begin(), flags->ignored_switches.end(), [&](const char* n) { return flag == n; })) {
      command.ignored.push_back(flag);
      continue;
    }
    return make_error("command.unknown_flag", "command." + flag,
                      "command: " + flag + " is not a" + (engine == "vllm" ? " vLLM" : " llama.cpp") +
                          " flag vramfit knows; remove it, or ask for it to be read");
  }
  if (engine == "vllm") {
    std::string why_not;
    command.weights_format = vllm_weights_format(named.dtype, named.quantization, why_not);
    if (!why_not.empty()) return make_error("command.bad_value", "command.--quantization", "command: " + why_not);
  }
  command.request = {{"engine", flags->engine}, {flags->engine, settings}};
  return command;
}

}  // namespace vramfit
