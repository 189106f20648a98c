// Ollama's environment, options and command line, read by their own names.
#include "io/ollama_settings.hpp"

#include "core/fit.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace vramfit {

namespace {

Error fail(const std::string& field, const std::string& message) {
  return make_error("request.bad_value", field, field + ": " + message);
}

// strconv.ParseBool, as envconfig reads OLLAMA_FLASH_ATTENTION and OLLAMA_SCHED_SPREAD.
bool parse_go_bool(const std::string& v, bool& out) {
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"}) {
    if (v == t) return out = true, true;
  }
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"}) {
    if (v == f) return out = false, true;
  }
  return false;
}

// Digits only, with an optional leading minus where `negative` allows it (num_gpu -1).
bool parse_integer(const std::string& v, int64_t& out, bool negative = false) {
  size_t i = negative && !v.empty() && v[0] == '-' ? 1 : 0;
  if (i == v.size() || v.size() - i > 18) return false;
  int64_t n = 0;
  for (; i < v.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) return false;
    n = n * 10 + (v[i] - '0');
  }
  out = negative && v[0] == '-' ? -n : n;
  return true;
}

// Variables and options that do not change the estimate.
bool ignored_name(const std::string& name) {
  static const char* names[] = {"OLLAMA_HOST", "OLLAMA_MODELS", "OLLAMA_KEEP_ALIVE", "OLLAMA_ORIGINS", "OLLAMA_DEBUG",
                                "OLLAMA_MAX_LOADED_MODELS", "OLLAMA_MAX_QUEUE", "OLLAMA_NOPRUNE", "OLLAMA_LOAD_TIMEOUT",
                                "OLLAMA_NOHISTORY", "OLLAMA_LLM_LIBRARY", "CUDA_VISIBLE_DEVICES", "temperature", "top_k",
                                "top_p", "min_p", "seed", "stop", "num_predict", "repeat_penalty", "repeat_last_n",
                                "num_thread", "num_keep", "use_mmap"};
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// One setting by its name; `field` is how errors name it.
std::optional<Error> apply(OllamaCommand& c, const std::string& name, const std::string& value, const std::string& field) {
  OllamaSettings& s = c.settings;
  const auto count = [&](int64_t& out, int64_t least, int64_t most, bool negative = false) -> std::optional<Error> {
    int64_t n = 0;
    if (!parse_integer(value, n, negative) || n < least) {
      return fail(field, "'" + value + "' is not a whole number" + (least > 0 ? " of at least " + std::to_string(least) : std::string()));
    }
    if (n > most) return fail(field, "'" + value + "' is above " + std::to_string(most));
    out = n;
    return std::nullopt;
  };
  if (name == "num_ctx" || name == "OLLAMA_CONTEXT_LENGTH") return count(s.num_ctx, 1, kMaxContextTokens);
  if (name == "num_batch") return count(s.num_batch, 1, kMaxContextTokens);
  if (name == "num_gpu") return count(s.num_gpu, -1, 1 << 20, true);
  if (name == "OLLAMA_NUM_PARALLEL") return count(s.num_parallel, 1, kMaxSequences);
  if (name == "OLLAMA_GPU_OVERHEAD") {
    // envconfig.Uint64: bytes; Ollama logs "invalid environment variable, using default" for 8G.
    if (auto e = count(s.gpu_overhead, 0, int64_t(1) << 50)) {
      return fail(field, "'" + value + "' is not a number of bytes (Ollama ignores it and keeps 0)");
    }
    return std::nullopt;
  }
  if (name == "OLLAMA_FLASH_ATTENTION" || name == "OLLAMA_SCHED_SPREAD") {
    bool b = false;
    if (!parse_go_bool(value, b)) return fail(field, "'" + value + "' is not true or false (1, 0, true, false)");
    if (name == "OLLAMA_SCHED_SPREAD") s.sched_spread = b;
    else s.flash_attention = b;
    return std::nullopt;
  }
  if (name == "OLLAMA_KV_CACHE_TYPE") {
    std::string lower = value;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    s.kv_cache_type = lower;
    return std::nullopt;
  }
  if (name == "version") {
    // 0.minor.patch, as `ollama -v` prints it; the estimator of 0.2.0 to 0.12.10.
    const size_t dot = value.find('.', 2);
    int64_t minor = 0, patch = 0;
    if (value.rfind("0.", 0) != 0 || dot == std::string::npos || !parse_integer(value.substr(2, dot - 2), minor) ||
        !parse_integer(value.substr(dot + 1), patch)) {
      return fail(field, "'" + value + "' is not a release such as 0.12.10");
    }
    if (minor < 2 || minor > 12 || (minor == 12 && patch > 10)) {
      return fail(field, "'" + value + "': vramfit models Ollama's estimator of releases 0.2.0 to 0.12.10 (llm/memory.go); "
                         "later releases size by a trial allocation (0.12.11) or hand placement to llama-server's --fit (0.30)");
    }
    s.version_minor = static_cast<int>(minor);
    s.version_patch = static_cast<int>(patch);
    return std::nullopt;
  }
  if (ignored_name(name)) {
    c.ignored.push_back(name);
    return std::nullopt;
  }
  return make_error("request.unknown_field", field, field + ": '" + name + "' is not an Ollama setting vramfit reads");
}

}  // namespace

bool is_ollama_command(const std::vector<std::string>& words) {
  for (const std::string& w : words) {
    if (w == "ollama" || w.rfind("OLLAMA_", 0) == 0) return true;
  }
  return false;
}

Result<OllamaCommand> read_ollama_words(const std::vector<std::string>& words) {
  OllamaCommand c;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const size_t eq = w.find('=');
    if (w == "export" || w == "env" || w == "serve") continue;
    if (eq != std::string::npos && eq > 0) {
      if (auto e = apply(c, w.substr(0, eq), w.substr(eq + 1), w.substr(0, eq))) return *e;
    } else if (w == "ollama") {
      continue;
    } else if (w == "run" && i + 1 < words.size()) {
      c.model_tag = words[++i];
    } else if (w == "PARAMETER" && i + 2 < words.size()) {
      if (words[i + 1].empty()) return make_error("request.bad_value", "command", "command: PARAMETER needs a name, then its value");
      if (auto e = apply(c, words[i + 1], words[i + 2], words[i + 1])) return *e;
      i += 2;
    } else if (w.rfind("--", 0) == 0) {
      c.ignored.push_back(w);  // ollama run's own flags (--verbose, --keepalive): not memory
    } else {
      return make_error("request.bad_value", "command", "command: '" + w + "' is not part of an Ollama environment or command");
    }
  }
  return c;
}

Result<OllamaCommand> ollama_settings_from_json(const json& object) {
  if (!object.is_object()) return make_error("request.bad_type", "ollama", "ollama: expected an object of Ollama's options and variables");
  OllamaCommand c;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string field = "ollama." + it.key();
    if (it.key() == "free_mib") {
      if (!it->is_array()) return make_error("request.bad_type", field, field + ": expected a list of MiB, one per GPU");
      for (const json& v : *it) {
        // The CLI's --ollama-free-mib range: 1 to 2^24 MiB (16 TiB); nothing larger reaches the cast.
        if (!v.is_number() || v.get<double>() < 1 || v.get<double>() > 16777216.0) {
          return make_error("request.out_of_range", field, field + ": expected MiB from 1 to 16777216");
        }
        c.free_mib.push_back(static_cast<int64_t>(v.get<double>()));
      }
      continue;
    }
    if (it.key() == "model") {
      if (!it->is_string()) return make_error("request.bad_type", field, field + ": expected a library tag such as \"llama3.1:8b\"");
      c.model_tag = it->get<std::string>();
      continue;
    }
    std::string value;
    if (it->is_boolean()) value = it->get<bool>() ? "1" : "0";
    else if (it->is_number_integer()) value = std::to_string(it->get<int64_t>());
    else if (it->is_string()) value = it->get<std::string>();
    else return make_error("request.bad_type", field, field + ": expected a number, true/false or a string");
    if (auto e = apply(c, it.key(), value, field)) return *e;
  }
  return c;
}

json ollama_settings_to_json(const OllamaCommand& c) {
  const OllamaSettings& s = c.settings;
  const OllamaSettings defaults;
  json j = json::object();
  if (s.num_ctx != defaults.num_ctx) j["num_ctx"] = s.num_ctx;
  if (s.num_batch != defaults.num_batch) j["num_batch"] = s.num_batch;
  if (s.num_gpu != defaults.num_gpu) j["num_gpu"] = s.num_gpu;
  if (s.num_parallel > 0) j["OLLAMA_NUM_PARALLEL"] = s.num_parallel;
  if (s.flash_attention) j["OLLAMA_FLASH_ATTENTION"] = *s.flash_attention;
  if (!s.kv_cache_type.empty()) j["OLLAMA_KV_CACHE_TYPE"] = s.kv_cache_type;
  if (s.gpu_overhead != 0) j["OLLAMA_GPU_OVERHEAD"] = s.gpu_overhead;
  if (s.sched_spread) j["OLLAMA_SCHED_SPREAD"] = true;
  j["version"] = ollama_version_text(s);
  if (!c.free_mib.empty()) j["free_mib"] = c.free_mib;
  return j;
}

Result<OllamaLibraryModel> ollama_library_model(const std::string& tag) {
  // name:size -> preset; a name alone is its library default size.
  static const std::map<std::string, std::string> presets = {
      {"llama3.2", "llama-3.2-3b"}, {"llama3.2:1b", "llama-3.2-1b"}, {"llama3.2:3b", "llama-3.2-3b"},
      {"llama3.1", "llama-3.1-8b"}, {"llama3.1:8b", "llama-3.1-8b"}, {"llama3.1:70b", "llama-3.1-70b"},
      {"llama3.1:405b", "llama-3.1-405b"}, {"llama3.3", "llama-3.3-70b"}, {"llama3.3:70b", "llama-3.3-70b"},
      {"llama2", "llama-2-7b"}, {"llama2:7b", "llama-2-7b"}, {"llama2:13b", "llama-2-13b"},
      {"mistral", "mistral-7b-v0.3"}, {"mistral:7b", "mistral-7b-v0.3"}, {"mistral-nemo", "mistral-nemo-12b"},
      {"mistral-nemo:12b", "mistral-nemo-12b"}, {"mistral-small:24b", "mistral-small-24b"},
      {"qwen2.5", "qwen2.5-7b"}, {"qwen2.5:0.5b", "qwen2.5-0.5b"}, {"qwen2.5:1.5b", "qwen2.5-1.5b"},
      {"qwen2.5:3b", "qwen2.5-3b"}, {"qwen2.5:7b", "qwen2.5-7b"}, {"qwen2.5:14b", "qwen2.5-14b"},
      {"qwen2.5:32b", "qwen2.5-32b"}, {"qwen2.5:72b", "qwen2.5-72b"}, {"qwen2.5-coder", "qwen2.5-coder-7b"},
      {"qwen2.5-coder:7b", "qwen2.5-coder-7b"}, {"qwen2.5-coder:14b", "qwen2.5-coder-14b"},
      {"qwen2.5-coder:32b", "qwen2.5-coder-32b"}, {"deepseek-r1:1.5b", "deepseek-r1-distill-qwen-1.5b"},
      {"deepseek-r1:7b", "deepseek-r1-distill-qwen-7b"}, {"deepseek-r1:8b", "deepseek-r1-distill-llama-8b"},
      {"deepseek-r1:14b", "deepseek-r1-distill-qwen-14b"}, {"deepseek-r1:32b", "deepseek-r1-distill-qwen-32b"},
      {"gemma2", "gemma-2-9b"}, {"gemma2:2b", "gemma-2-2b"}, {"gemma2:9b", "gemma-2-9b"}, {"gemma2:27b", "gemma-2-27b"},
      {"phi4", "phi-4"}, {"phi4:14b", "phi-4"}, {"qwq", "qwq-32b"}, {"qwq:32b", "qwq-32b"},
      {"hermes3:8b", "hermes-3-llama-3.1-8b"}, {"smollm2:135m", "smollm2-135m"}, {"smollm2:360m", "smollm2-360m"},
      {"smollm2:1.7b", "smollm2-1.7b"}, {"olmo2:7b", "olmo-2-7b"}, {"olmo2:13b", "olmo-2-13b"},
      {"starcoder2:3b", "starcoder2-3b"}, {"stablelm2:1.6b", "stablelm-2-1.6b"}, {"nemotron:70b", "llama-3.1-nemotron-70b"}};
  std::string name = tag;
  std::string format = "gguf-q4_k_m";  // the library's default quantization (Q4_K_M)
  const size_t colon = name.find(':');
  if (colon != std::string::npos) {
    // name:size[-variant][-quant]: the size first, the quantization last ("8b-instruct-q8_0").
    std::string rest = name.substr(colon + 1);
    name = name.substr(0, colon);
    const size_t dash = rest.find('-');
    const std::string size = rest.substr(0, dash);
    if (dash != std::string::npos) {
      std::string quant = rest.substr(rest.rfind('-') + 1);
      std::transform(quant.begin(), quant.end(), quant.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      if (quant == "fp16") quant = "f16";
      if (quant.size() > 1 && (quant[0] == 'q' || quant == "f16" || quant == "bf16")) format = "gguf-" + quant;
    }
    if (size != "latest") name += ":" + size;
  }
  auto it = presets.find(name);
  if (it == presets.end()) {
    return make_error("request.bad_value", "ollama.model",
                      "ollama.model: '" + tag + "' is not an Ollama library model vramfit has a preset for; give the model "
                      "as a preset, a config or its GGUF file (--model)");
  }
  return OllamaLibraryModel{it->second, format};
}

}  // namespace vramfit
