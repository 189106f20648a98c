// Ollama's settings as people write them: the server's environment (OLLAMA_NUM_PARALLEL=4
// OLLAMA_FLASH_ATTENTION=1 ...), a model's options (num_ctx, num_batch, num_gpu, as in a
// Modelfile's PARAMETER lines or the API's "options"), and `ollama run TAG` / `ollama serve`.
// Names and meanings are Ollama's (envconfig/config.go, api/types.go); a variable or option that
// does not change memory is listed as ignored, one this reader does not know is an error naming it.
#pragma once
#include <string>
#include <vector>

#include "core/ollama.hpp"
#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

struct OllamaCommand {
  OllamaSettings settings;
  std::string model_tag;              // `ollama run TAG`: a library tag such as "llama3.1:8b" ("" when none)
  std::vector<int64_t> free_mib;      // memory.available per GPU, when given (else each GPU's total)
  std::vector<std::string> ignored;   // read and set aside: they do not change memory
};

// True when the words hold Ollama's program (`ollama run`, `ollama serve`) or an OLLAMA_* variable.
bool is_ollama_command(const std::vector<std::string>& words);
// A pasted environment block and command: VAR=value words, `ollama run TAG` or `ollama serve`,
// and `PARAMETER name value` (a Modelfile's).
Result<OllamaCommand> read_ollama_words(const std::vector<std::string>& words);
// A request's "ollama" object: options and variables by their own names
// ({"num_ctx": 8192, "OLLAMA_NUM_PARALLEL": 4, "free_mib": [24000], "version": "0.12.10"}).
Result<OllamaCommand> ollama_settings_from_json(const json& object);
// The inverse: the settings as that object (only what differs from Ollama's defaults, and
// free_mib when given), so a report's request reads back to the same answer.
json ollama_settings_to_json(const OllamaCommand& command);

// An Ollama library tag as a vramfit preset and GGUF format: "llama3.1:8b" is llama-3.1-8b in
// Q4_K_M (the library's default quantization), "qwen2.5:14b-instruct-q8_0" qwen2.5-14b in Q8_0.
struct OllamaLibraryModel {
  std::string preset;
  std::string format;
};
Result<OllamaLibraryModel> ollama_library_model(const std::string& tag);

}  // namespace vramfit
