// A pasted engine command line (`llama-server -m x.gguf -c 32768 ...`, `vllm serve
// meta-llama/Llama-3.1-8B-Instruct -tp 2 ...`) as request fields, for the app and the
// JavaScript API: the engine and its settings, the model (a Hugging Face id read as the
// preset of that repository; vramfit downloads nothing), vLLM's --dtype / --quantization as
// the weight format, and a note for each thing set aside. The CLI reads the same lines
// (io/engine_command) and also opens the files they name.
#pragma once
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

struct CommandRequest {
  json fields;                     // {"engine": ..., "<engine>": {...}, "model"?: {"preset"}, "weights"?: {"format"}}
  std::string model_file;          // llama.cpp's -m: a file to open to size the weights
  std::string draft_file;          // llama.cpp's -md: the draft model's file, to open likewise
  std::vector<std::string> notes;  // how the model was read; flags that do not change memory
};

Result<CommandRequest> command_request(const std::string& line, const Catalog& catalog);

// {"fields": {...}, "model_file": "...", "draft_file": "...", "notes": [...]} or {"error": {...}}: the JavaScript API's answer.
json command_request_json(const std::string& line, const Catalog& catalog);

}  // namespace vramfit
