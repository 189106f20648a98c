// Hugging Face config.json -> ModelSpec. Used for the presets (data/models.json) and for a
// user's own config.json. Errors name the JSON field; what was assumed is listed.
#pragma once
#include <string>
#include <vector>

#include "io/json.hpp"

#include "core/model_spec.hpp"
#include "core/result.hpp"

namespace vramfit {

struct HfConfigRead {
  ModelSpec spec;
  std::vector<std::string> assumptions;  // defaults filled in, architectures guessed
  // The weight format the checkpoint is stored in (quantization_config, else torch_dtype),
  // so a quantized checkpoint is not sized as dense. Empty when the config says nothing.
  std::string stored_format;
  int64_t stored_group_size = 0;
  std::string stored_format_reason;
};

// `origin` names the source in messages ("config.json", "models.json: llama-3.1-8b").
// A model_type vramfit does not know is refused (the error lists the keys it could not place)
// unless `weights_from_file`: the weights are then a file header's, exact whatever the
// architecture, and the config gives only the attention shape for the KV cache.
Result<HfConfigRead> read_hf_config(const json& config, const std::string& origin, bool weights_from_file = false);
Result<HfConfigRead> read_hf_config_text(const std::string& text, const std::string& origin);

// The spec as config.json fields that read_hf_config turns back into the same spec.
json write_hf_config(const ModelSpec& spec);

}  // namespace vramfit
