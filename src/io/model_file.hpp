// Model files -> what the estimator needs: the architecture (a ModelSpec, through the same
// config.json reader as the presets) and the weights exactly as the file stores them.
// What was read, derived and assumed is listed for the UI and the CLI.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/json.hpp"

#include "core/formats.hpp"
#include "core/request.hpp"
#include "core/result.hpp"
#include "gguf.hpp"
#include "safetensors.hpp"

namespace vramfit {

struct ModelFileRead {
  json config;          // config.json fields (read or derived)
  StoredWeights weights;
  std::vector<std::string> read;      // facts taken from the file
  std::vector<std::string> derived;   // facts computed from them
  std::vector<std::string> assumed;   // defaults where the file is silent
};

// GGUF: metadata -> config fields; tensor infos -> exact bytes per ggml type.
Result<ModelFileRead> model_from_gguf(const FormatTables& tables, const GgufFile& gguf, const std::string& file);

// A LoRA adapter GGUF (general.type "adapter", adapter.type "lora"): its A/B pairs' bytes by the
// place of the tensor each adapts (llama.cpp's src/llama-adapter.cpp llama_adapter_lora_init_impl).
bool is_gguf_adapter(const GgufFile& gguf);
Result<LlamaCppLora> lora_from_gguf(const FormatTables& tables, const GgufFile& gguf, const std::string& file);

// A multimodal projector GGUF (general.architecture "clip", llama.cpp's mmproj files): its tensors'
// bytes and the vision tower's clip.vision.* sizes.
bool is_gguf_mmproj(const GgufFile& gguf);
Result<LlamaCppMmproj> mmproj_from_gguf(const FormatTables& tables, const GgufFile& gguf, const std::string& file);

// safetensors shards (one or more headers, `files` their names in order); `config` may be null,
// then the architecture is derived from tensor names and shapes (Llama-style naming) with the
// assumptions listed. The model is named by shards_name(files).
Result<ModelFileRead> model_from_safetensors(const std::vector<SafetensorsFile>& shards,
                                             const json* config, const std::vector<std::string>& files);

// How a model in several files is named: "a, b" for one or two, "first, ..., last" for more
// (31 shards named in full made a report's first line 1,000 characters long).
std::string shards_name(const std::vector<std::string>& files);

// model.safetensors.index.json with its config.json: total bytes, no per-tensor dtypes.
Result<ModelFileRead> model_from_safetensors_index(const SafetensorsIndex& index, const json& config,
                                                   const std::string& file);

// The storage type id vramfit uses for a safetensors dtype ("BF16" -> "bf16").
std::string storage_id_for_safetensors_dtype(const std::string& dtype);

// Puts a file read into a request: the model's config (through read_hf_config) and its
// stored weights. Fails when the derived config does not describe a model.
std::optional<Error> apply_model_file(Request& request, const ModelFileRead& read);

}  // namespace vramfit
