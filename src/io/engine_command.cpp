#include "engine_command.hpp"

#include <algorithm>
#include <cstdlib>

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

enum class Value { none, integer, text, on_off, list };

// llama.cpp's flags that change memory, with every name common/arg.cpp gives them, and the
// key they have under "llama.cpp" in a request.
struct Flag {
  std::vector<const char*> names;
  const char* key;
  Value value;
};
const std::vector<Flag>& memory_flags() {
  static const std::vector<Flag> flags = {
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
  };
  return flags;
}

// Flags that take a value and do not change memory (sampling, server, threads, logging...).
const std::vector<const char*>& ignored_with_value() {
  static const std::vector<const char*> names = {
      "--host", "--port", "-t", "--threads", "-tb", "--threads-batch", "--temp", "--top-k", "--top-p", "--min-p",
      "--repeat-penalty", "--repeat-last-n", "-n", "--n-predict", "-s", "--seed", "--log-file", "-a", "--alias",
      "--api-key", "--chat-template", "--chat-template-file", "-p", "--prompt", "-f", "--file", "-sys", "--system-prompt",
      "--timeout", "--numa", "-r", "--reverse-prompt", "--keep", "--reasoning-format", "--reasoning-budget",
      "-hf", "--hf-repo", "-hff", "--hf-file", "--path", "--slot-save-path", "--grammar", "--grammar-file", "-C",
      "--cpu-mask", "--prio", "--poll", "--media-path", "--lora-scaled", "--threads-http", "--cache-reuse",
      "--rope-scaling", "--rope-scale", "--rope-freq-base", "--rope-freq-scale", "--yarn-orig-ctx", "--device", "-dev"};
  return names;
}
const std::vector<const char*>& ignored_switches() {
  static const std::vector<const char*> names = {
      "--jinja", "--no-jinja", "--verbose", "-v", "--metrics", "--no-webui", "--mlock", "--no-mmap", "--cont-batching", "-cb",
      "--no-cont-batching", "-nocb", "--props", "--slots", "--no-slots", "-i", "--interactive", "-cnv", "--conversation",
      "-no-cnv", "--no-conversation", "--color", "--no-warmup", "--embedding", "--embeddings", "--log-disable", "--simple-io",
      "-st", "--single-turn", "--no-display-prompt", "--log-colors", "-lv", "--check-tensors", "--kv-unified", "-kvu"};
  return names;
}

bool is_tool(const std::string& word) {
  const std::string name = word.substr(word.find_last_of('/') == std::string::npos ? 0 : word.find_last_of('/') + 1);
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

}  // namespace

int llamacpp_flag_values(const std::string& word) {
  const std::string flag = word.rfind("--", 0) == 0 ? word.substr(0, word.find('=')) : word;
  for (const Flag& f : memory_flags()) {
    if (std::none_of(f.names.begin(), f.names.end(), [&](const char* name) { return flag == name; })) continue;
    if (flag != word) return 0;  // --name=value carries its value
    return f.value == Value::none ? 0 : f.value == Value::on_off ? 2 : 1;
  }
  return -1;
}

Result<EngineCommand> read_engine_command(const std::string& line) { return read_engine_words(shell_words(line)); }

Result<EngineCommand> read_engine_words(const std::vector<std::string>& words) {
  if (words.empty()) return make_error("command.empty", "command", "command: empty");
  EngineCommand command;
  json settings = json::object();
  size_t i = 0;
  if (words[0][0] != '-') {
    if (!is_tool(words[0])) {
      return make_error("command.unknown_tool", "command",
                        "command: '" + words[0] + "' is not a llama.cpp tool (llama-server, llama-cli, ...)");
    }
    i = 1;
  }
  for (; i < words.size(); ++i) {
    std::string flag = words[i];
    std::string inline_value;
    bool has_inline = false;
    if (flag.rfind("--", 0) == 0 && flag.find('=') != std::string::npos) {  // --ctx-size=32768
      inline_value = flag.substr(flag.find('=') + 1);
      flag = flag.substr(0, flag.find('='));
      has_inline = true;
    }
    auto next_value = [&](std::string& value) {
      if (has_inline) { value = inline_value; return true; }
      if (i + 1 >= words.size()) return false;
      value = words[++i];
      return true;
    };
    auto fail = [&](const std::string& what) {
      return make_error("command.bad_value", "command." + flag, "command: " + flag + ": " + what);
    };
    if (flag == "-m" || flag == "--model") {
      if (!next_value(command.model_file)) return fail("needs a file");
      continue;
    }
    const auto known = std::find_if(memory_flags().begin(), memory_flags().end(), [&](const Flag& f) {
      return std::any_of(f.names.begin(), f.names.end(), [&](const char* name) { return flag == name; });
    });
    if (known != memory_flags().end()) {
      std::string value;
      switch (known->value) {
        case Value::none:
          settings[known->key] = true;
          break;
        case Value::integer: {
          if (!next_value(value)) return fail("needs a number");
          int64_t n = 0;
          if (std::string(known->key) == "n-gpu-layers" && (value == "auto" || value == "all")) n = -1;
          else if (!parse_integer(value, n)) return fail("'" + value + "' is not a whole number");
          settings[known->key] = n;
          break;
        }
        case Value::text:
          if (!next_value(value)) return fail("needs a value");
          settings[known->key] = value;
          break;
        case Value::on_off:
          // -fa on|off|auto; older builds took -fa alone for "on".
          if (has_inline || (i + 1 < words.size() && words[i + 1][0] != '-')) {
            next_value(value);
            if (value == "1" || value == "true") value = "on";
            if (value == "0" || value == "false") value = "off";
          } else {
            value = "on";
          }
          settings[known->key] = value;
          break;
        case Value::list: {
          if (!next_value(value)) return fail("needs proportions, e.g. 3,1");
          json list = json::array();
          size_t start = 0;
          while (start <= value.size()) {
            const size_t end = std::min(value.find_first_of(",/", start), value.size());
            const std::string part = value.substr(start, end - start);
            char* stop = nullptr;
            const double x = std::strtod(part.c_str(), &stop);
            if (part.empty() || stop != part.c_str() + part.size()) return fail("'" + value + "' is not a list of numbers");
            list.push_back(x);
            start = end + 1;
          }
          settings[known->key] = list;
          break;
        }
      }
      continue;
    }
    if (std::any_of(ignored_with_value().begin(), ignored_with_value().end(), [&](const char* n) { return flag == n; })) {
      std::string value;
      if (!next_value(value)) return fail("needs a value");
      command.ignored.push_back(flag + " " + value);
      continue;
    }
    if (std::any_of(ignored_switches().begin(), ignored_switches().end(), [&](const char* n) { return flag == n; })) {
      command.ignored.push_back(flag);
      continue;
    }
    return make_error("command.unknown_flag", "command." + flag,
                      "command: " + flag + " is not a llama.cpp flag vramfit knows; remove it, or ask for it to be read");
  }
  command.request = {{"engine", "llama.cpp"}, {"llama.cpp", settings}};
  return command;
}

}  // namespace vramfit
