// An engine's command line, as people paste it, read into a request: llama.cpp's
// (llama-server, llama-cli and the other llama-* tools; Ollama, LM Studio and koboldcpp run
// the same engine but take their settings elsewhere) and vLLM's (`vllm serve MODEL ...`,
// `python -m vllm.entrypoints.openai.api_server --model MODEL ...`). Flags carry the engine's
// own names and meanings (llama.cpp's common/arg.cpp: -c is the context of all sequences
// together; vLLM's arg_utils.py: --max-model-len is one request's). A flag that does not
// change memory (--port, -t, --temp, --served-model-name ...) is listed as ignored; one this
// reader does not know is an error that names it, never skipped silently.
#pragma once
#include <string>
#include <vector>

#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

struct EngineCommand {
  json request;                       // {"engine": "llama.cpp", "llama.cpp": {...}}: merge into a request
  std::string model_file;             // llama.cpp's -m / --model (a path: read its header to size the weights)
  std::string draft_file;             // llama.cpp's -md / --model-draft: the draft model of speculative decoding
  std::vector<std::string> lora_files;  // llama.cpp's --lora / --lora-scaled: adapter files to read
  std::string mmproj_file;            // llama.cpp's -mm / --mmproj: the multimodal projector's file
  std::string hf_repo;                // llama.cpp's -hf <user>/<model>[:quant]: read from the Hub
  std::string hf_file;                // llama.cpp's -hff: the repository's file (overrides -hf's quant)
  std::string model;                  // vLLM's model: a Hugging Face repository id or a path
  std::string draft_model;            // vLLM's --speculative-config "model": the draft's id or path
  std::string weights_format;         // vLLM's --dtype / --quantization as a weight format ("" : the model's own)
  std::vector<std::string> ignored;   // flags read and set aside: they do not change memory
};

// engine: which engine's flags these are when the words do not start with its program
// ("llama.cpp" or "vllm"; the program, when given, decides).
Result<EngineCommand> read_engine_command(const std::string& line, const std::string& engine = "");
// The same, from words already split (a command line's arguments).
Result<EngineCommand> read_engine_words(const std::vector<std::string>& words, const std::string& engine = "");

// How many values one of an engine's memory flags takes: 0 (a switch), 1, or 2 for "one,
// optional" (llama.cpp's -fa on|off|auto, or -fa alone); -1 when `word` is not one of them.
int engine_flag_values(const std::string& engine, const std::string& word);

// Words of a shell command line: spaces separate, '...' and "..." quote, \ escapes, and a
// backslash before a line break continues the line.
std::vector<std::string> shell_words(const std::string& line);

}  // namespace vramfit
