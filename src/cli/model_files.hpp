// The model files `vramfit infer` and `vramfit train` name, read from disk: headers only, under
// the header-reading policy every front end follows (io/header_reads.hpp), into the request.
#pragma once
#include <ostream>
#include <string>

#include "catalog/catalog.hpp"
#include "core/request.hpp"
#include "infer_options.hpp"
#include "io/json.hpp"

namespace vramfit {

// A whole file into `text`; false when it cannot be read.
bool read_file(const std::string& path, std::string& text);

// --draft-gguf (llama.cpp's -md): the draft model's weights from its file.
bool read_draft_file(const InferOptions& o, const Catalog& catalog, Request& request, std::ostream& err);

// --lora-gguf (llama.cpp's --lora) and --mmproj-gguf (--mmproj).
bool read_lora_files(const InferOptions& o, const Catalog& catalog, Request& request, std::ostream& err);

// --gguf / --safetensors / --safetensors-index: read headers only, as the page does.
bool read_model_files(const InferOptions& o, const Catalog& catalog, Request& request, std::ostream& err);

// vLLM's model argument: a GGUF file, a folder with a config.json, or a Hugging Face repository
// id, read as the preset of that repository (an -Instruct or other suffix of it has the same
// shapes) or, without a preset and where hub_id is given, from the Hub (--hf). The draft of
// --speculative-config is read the same way, into the --draft* options (no Hub).
bool resolve_vllm_model(const std::string& model, const Catalog& catalog, std::string& gguf_file, std::string& config_file,
                        std::string& preset, std::string* hub_id, std::ostream& err);

// A config.json as the request's model; a quantized checkpoint is sized in the format it is
// stored in, unless -w says otherwise (stored_format_wanted false).
void config_into_request(const json& config, const std::string& name, bool stored_format_wanted, json& request);

}  // namespace vramfit
