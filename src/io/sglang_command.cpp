#include "sglang_command.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>


namespace vramfit {

namespace {

// SGLang's flags that change memory (server_args.py ServerArgs, its names and aliases).
enum class Key { model, tp, dp, pp, fraction, context, running, total_tokens, chunk, prefill, graphs, page, kv_dtype, dtype, quantization };
struct Flag {
  std::vector<const char*> names;
  Key key;
};
const std::vector<Flag>& memory_flags() {
  static const std::vector<Flag> flags = {
      {{"--model-path", "--model"}, Key::model},
      {{"--tp-size", "--tp", "--tensor-parallel-size"}, Key::tp},
      {{"--dp-size", "--dp", "--data-parallel-size"}, Key::dp},
      {{"--pp-size", "--pipeline-parallel-size"}, Key::pp},
      {{"--mem-fraction-static"}, Key::fraction},
      {{"--context-length"}, Key::context},
      {{"--max-running-requests"}, Key::running},
      {{"--max-total-tokens"}, Key::total_tokens},
      {{"--chunked-prefill-size"}, Key::chunk},
      {{"--max-prefill-tokens"}, Key::prefill},
      {{"--cuda-graph-max-bs"}, Key::graphs},
      {{"--page-size"}, Key::page},
      {{"--kv-cache-dtype"}, Key::kv_dtype},
      {{"--dtype"}, Key::dtype},
      {{"--quantization"}, Key::quantization},
  };
  return flags;
}

// Flags that do not change the memory vramfit models: the server's address, names, parsers,
// kernels and logging (a value each), and switches.
const std::vector<const char*>& ignored_with_value() {
  static const std::vector<const char*> names = {
      "--host", "--port", "--served-model-name", "--chat-template", "--tokenizer-path", "--tokenizer-mode", "--revision",
      "--log-level", "--api-key", "--tool-call-parser", "--reasoning-parser", "--attention-backend", "--sampling-backend",
      "--grammar-backend", "--download-dir", "--load-format", "--random-seed", "--schedule-policy", "--stream-interval",
      "--moe-runner-backend", "--prefill-attention-backend", "--decode-attention-backend", "--base-gpu-id", "--nnodes",
      "--node-rank", "--dist-init-addr", "--watchdog-timeout", "--schedule-conservativeness", "--mm-attention-backend"};
  return names;
}
const std::vector<const char*>& ignored_switches() {
  static const std::vector<const char*> names = {
      "--trust-remote-code", "--disable-radix-cache", "--enable-metrics", "--log-requests", "--disable-cuda-graph",
      "--disable-cuda-graph-padding", "--enable-torch-compile", "--disable-overlap-schedule", "--enable-mixed-chunk",
      "--skip-tokenizer-init", "--disable-custom-all-reduce", "--enable-cache-report", "--show-time-cost"};
  return names;
}

const Flag* find_flag(const std::string& word) {
  for (const Flag& f : memory_flags()) {
    if (std::any_of(f.names.begin(), f.names.end(), [&](const char* n) { return word == n; })) return &f;
  }
  return nullptr;
}
bool listed(const std::vector<const char*>& names, const std::string& word) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return word == n; });
}

Error fail(const std::string& flag, const std::string& why) {
  return make_error("request.bad_value", "sglang." + flag.substr(2), "sglang." + flag.substr(2) + ": " + why);
}

// A whole number as argparse's int reads it (server_args.py declares these flags int): digits, a
// leading minus where the flag takes -1.
std::optional<Error> read_count(const std::string& flag, const std::string& text, int64_t minimum, int64_t& out) {
  const size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  bool whole = text.size() > digits && text.size() - digits <= 12;
  for (size_t i = digits; whole && i < text.size(); ++i) whole = text[i] >= '0' && text[i] <= '9';
  if (!whole) return fail(flag, "'" + text + "' is not a whole number");
  const int64_t value = std::strtoll(text.c_str(), nullptr, 10);
  if (value < minimum) return fail(flag, "'" + text + "' is below " + std::to_string(minimum));
  out = value;
  return std::nullopt;
}

// --dtype and --quantization as vramfit's weight formats (the model's own when "auto" or not
// one vramfit has).
std::string weights_from_dtype(const std::string& dtype) {
  if (dtype == "bfloat16" || dtype == "bf16") return "bf16";
  if (dtype == "float16" || dtype == "half" || dtype == "fp16") return "fp16";
  if (dtype == "float32" || dtype == "float") return "fp32";
  return "";
}

std::optional<Error> apply(const Flag& f, const std::string& flag, const std::string& value, SglangCommand& c) {
  SglangSettings& s = c.settings;
  switch (f.key) {
    case Key::model: c.model = value; return std::nullopt;
    case Key::tp: return read_count(flag, value, 1, s.tp_size);
    case Key::dp: return read_count(flag, value, 1, s.dp_size);
    case Key::pp: {
      int64_t pp = 1;
      if (auto e = read_count(flag, value, 1, pp)) return e;
      if (pp > 1) return fail(flag, "pipeline parallelism is not modelled for SGLang yet (tensor and data parallelism are)");
      return std::nullopt;
    }
    case Key::fraction: {
      char* end = nullptr;
      const double fraction = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !(fraction > 0.0 && fraction <= 1.0)) {
        return fail(flag, "'" + value + "' is not a fraction above 0 and at most 1");
      }
      s.mem_fraction_static = fraction;
      return std::nullopt;
    }
    case Key::context: return read_count(flag, value, 1, s.context_length);
    case Key::running: return read_count(flag, value, 1, s.max_running_requests);
    case Key::total_tokens: return read_count(flag, value, 1, s.max_total_tokens);
    case Key::chunk: return read_count(flag, value, -1, s.chunked_prefill_size);
    case Key::prefill: return read_count(flag, value, 1, s.max_prefill_tokens);
    case Key::graphs: return read_count(flag, value, 1, s.cuda_graph_max_bs);
    case Key::page: return read_count(flag, value, 1, s.page_size);
    case Key::kv_dtype:
      if (!parse_sglang_kv_cache_dtype(value, s.kv_cache_dtype)) {
        return fail(flag, "'" + value + "' is not one of auto, bfloat16, float16, fp8_e4m3, fp8_e5m2");
      }
      return std::nullopt;
    case Key::dtype:
      if (value != "auto") c.weights_format = weights_from_dtype(value);
      return std::nullopt;
    case Key::quantization:
      if (value == "fp8") c.weights_format = "fp8";
      else if (value == "awq" || value == "awq_marlin") c.weights_format = "awq-int4";
      else if (value == "gptq" || value == "gptq_marlin") c.weights_format = "gptq-int4";
      else return fail(flag, "'" + value + "': vramfit reads fp8, awq and gptq; for another method give the model's "
                                   "weights (a checkpoint's own bytes) or -w");
      return std::nullopt;
  }
  return std::nullopt;
}

size_t program_words(const std::vector<std::string>& w) {
  if (w.size() >= 3 && (w[0] == "python" || w[0] == "python3") && w[1] == "-m" &&
      (w[2] == "sglang.launch_server" || w[2] == "sglang.bench_one_batch")) {
    return 3;
  }
  if (w.size() >= 2 && w[0] == "sglang" && w[1] == "serve") return 2;
  return 0;
}

}  // namespace

bool is_sglang_command(const std::vector<std::string>& words) { return program_words(words) > 0; }

int sglang_flag_values(const std::string& word) {
  const std::string name = word.substr(0, word.find('='));
  if (find_flag(name) || listed(ignored_with_value(), name)) return word.find('=') == std::string::npos ? 1 : 0;
  if (listed(ignored_switches(), name)) return 0;
  return -1;
}

Result<SglangCommand> read_sglang_words(const std::vector<std::string>& words) {
  SglangCommand c;
  for (size_t i = program_words(words); i < words.size(); ++i) {
    std::string flag = words[i], value;
    const size_t equals = flag.find('=');
    const bool inline_value = equals != std::string::npos && flag.rfind("--", 0) == 0;
    if (inline_value) {
      value = flag.substr(equals + 1);
      flag = flag.substr(0, equals);
    }
    if (listed(ignored_switches(), flag)) {
      c.ignored.push_back(flag);
      continue;
    }
    const Flag* f = find_flag(flag);
    if (!f && !listed(ignored_with_value(), flag)) {
      return make_error("request.bad_value", "sglang", "sglang: '" + flag + "' is not a launch_server flag vramfit knows");
    }
    if (!inline_value) {
      if (i + 1 >= words.size()) return fail(flag, "needs a value");
      value = words[++i];
    }
    if (!f) {
      c.ignored.push_back(flag);
      continue;
    }
    if (auto e = apply(*f, flag, value, c)) return *e;
  }
  return c;
}

Result<SglangCommand> sglang_settings_from_json(const json& object) {
  if (!object.is_object()) return make_error("request.bad_type", "sglang", "sglang: expected an object of launch_server flags");
  std::vector<std::string> words;
  std::string version;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (it.key() == "version") {
      if (!it->is_string()) return make_error("request.bad_type", "sglang.version", "sglang.version: expected a release such as \"0.5.16\"");
      version = it->get<std::string>();
      continue;
    }
    const std::string flag = "--" + it.key();
    if (it->is_boolean()) {
      if (it->get<bool>()) words.push_back(flag);
      continue;
    }
    words.push_back(flag);
    words.push_back(it->is_string() ? it->get<std::string>() : it->dump());
  }
  auto c = read_sglang_words(words);
  if (!c) return c;
  if (!version.empty() && !parse_sglang_version(version, c.value().settings)) {
    return make_error("request.bad_value", "sglang.version", "sglang.version: '" + version + "' is not a release such as 0.5.16");
  }
  return c;
}

json sglang_settings_to_json(const SglangSettings& s) {
  const SglangSettings d;
  json j = json::object();
  if (s.mem_fraction_static != d.mem_fraction_static) j["mem-fraction-static"] = s.mem_fraction_static;
  if (s.context_length != d.context_length) j["context-length"] = s.context_length;
  if (s.max_running_requests != d.max_running_requests) j["max-running-requests"] = s.max_running_requests;
  if (s.max_total_tokens != d.max_total_tokens) j["max-total-tokens"] = s.max_total_tokens;
  if (s.chunked_prefill_size != d.chunked_prefill_size) j["chunked-prefill-size"] = s.chunked_prefill_size;
  if (s.max_prefill_tokens != d.max_prefill_tokens) j["max-prefill-tokens"] = s.max_prefill_tokens;
  if (s.cuda_graph_max_bs != d.cuda_graph_max_bs) j["cuda-graph-max-bs"] = s.cuda_graph_max_bs;
  if (s.tp_size != d.tp_size) j["tp-size"] = s.tp_size;
  if (s.dp_size != d.dp_size) j["dp-size"] = s.dp_size;
  if (s.page_size != d.page_size) j["page-size"] = s.page_size;
  if (s.kv_cache_dtype != d.kv_cache_dtype) j["kv-cache-dtype"] = sglang_kv_cache_dtype_name(s.kv_cache_dtype);
  j["version"] = sglang_version_text(s);
  return j;
}

}  // namespace vramfit
