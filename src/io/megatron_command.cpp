#include "megatron_command.hpp"

#include <cstdlib>
#include <string_view>

#include "engine_command.hpp"

namespace vramfit {

namespace {

// megatron/training/arguments.py's flags that take a number, and the two that take a word or nothing.
constexpr std::string_view kNumberFlags[] = {
    "tensor-model-parallel-size", "pipeline-model-parallel-size", "num-layers-per-virtual-pipeline-stage",
    "num-virtual-stages-per-pipeline-rank", "context-parallel-size", "expert-model-parallel-size",
    "expert-tensor-parallel-size", "micro-batch-size", "global-batch-size", "seq-length", "make-vocab-size-divisible-by"};
constexpr std::string_view kSwitches[] = {"sequence-parallel", "use-distributed-optimizer"};

bool is_one_of(std::string_view name, const auto& names) {
  for (std::string_view n : names) {
    if (n == name) return true;
  }
  return false;
}

bool read_count(const std::string& text, int64_t& value) {
  if (text.empty() || text.size() > 12) return false;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || v < 0) return false;
  value = v;
  return true;
}

}  // namespace

Result<MegatronCommand> read_megatron_command(const std::string& line) {
  MegatronCommand command;
  const std::vector<std::string> words = shell_words(line);
  int64_t processes_per_node = 0, nodes = 1;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.rfind("--", 0) != 0) continue;
    std::string name = word.substr(2), value;
    const size_t equals = name.find('=');
    const bool inline_value = equals != std::string::npos;
    if (inline_value) value = name.substr(equals + 1), name.resize(equals);
    auto take_value = [&]() -> std::optional<Error> {
      if (inline_value) return std::nullopt;
      if (i + 1 >= words.size()) return make_error("command.missing_value", "--" + name, "--" + name + ": needs a value");
      value = words[++i];
      return std::nullopt;
    };
    auto count = [&](int64_t& out) -> std::optional<Error> {
      if (auto e = take_value()) return e;
      if (!read_count(value, out)) {
        return make_error("command.bad_value", "--" + name, "--" + name + ": '" + value + "' is not a whole number");
      }
      return std::nullopt;
    };
    if (name == "nproc_per_node" || name == "nproc-per-node") {  // torchrun
      if (auto e = count(processes_per_node)) return *e;
    } else if (name == "nnodes") {
      if (auto e = count(nodes)) return *e;
    } else if (is_one_of(name, kNumberFlags)) {
      int64_t v = 0;
      if (auto e = count(v)) return *e;
      command.megatron[name] = v;
    } else if (is_one_of(name, kSwitches)) {
      command.megatron[name] = true;
    } else if (name == "recompute-granularity") {
      if (auto e = take_value()) return *e;
      command.megatron[name] = value;
    } else if (name == "recompute-activations") {  // arguments.py: the same as --recompute-granularity selective
      command.megatron["recompute-granularity"] = "selective";
    }
  }
  if (processes_per_node > 0) command.world_size = processes_per_node * nodes;
  return command;
}

}  // namespace vramfit
