// An engine's command line, as people paste it, read into a request: today llama.cpp's
// (llama-server, llama-cli and the other llama-* tools; Ollama, LM Studio and koboldcpp run
// the same engine but take their settings elsewhere). Flags carry llama.cpp's own names and
// meanings (common/arg.cpp): -c is the context of all sequences together, -ngl the layers on
// the GPUs. A flag that does not change memory (--port, -t, --temp ...) is listed as ignored;
// one this reader does not know is an error that names it, never skipped silently.
#pragma once
#include <string>
#include <vector>

#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

struct EngineCommand {
  json request;                       // {"engine": "llama.cpp", "llama.cpp": {...}}: merge into a request
  std::string model_file;             // -m / --model (a path: read its header to size the weights)
  std::vector<std::string> ignored;   // flags read and set aside: they do not change memory
};

Result<EngineCommand> read_engine_command(const std::string& line);
// The same, from words already split (a command line's arguments).
Result<EngineCommand> read_engine_words(const std::vector<std::string>& words);

// How many values a llama.cpp memory flag takes: 0 (a switch), 1, or 2 for "one, optional"
// (-fa on|off|auto, or -fa alone); -1 when `word` is not one of them.
int llamacpp_flag_values(const std::string& word);

// Words of a shell command line: spaces separate, '...' and "..." quote, \ escapes, and a
// backslash before a line break continues the line.
std::vector<std::string> shell_words(const std::string& line);

}  // namespace vramfit
