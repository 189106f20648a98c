// --hf: a model named by its Hugging Face id, read from the Hub (net/hub_client.hpp) into the
// same request a local file gives: `vramfit infer --hf Qwen/Qwen3-8B`, `--hf
// unsloth/Qwen3-8B-GGUF:Q4_K_M`, a Hub URL, llama.cpp's `-hf` and vLLM's model in --cmd.
#pragma once
#include <optional>
#include <ostream>
#include <string>

#include "catalog/catalog.hpp"
#include "io/json.hpp"
#include "report/hub_reading.hpp"

namespace vramfit {

struct HubOptions {
  std::string id;        // --hf (or -hf in --cmd, vLLM's model)
  std::string file;      // llama.cpp's -hff: the repository's file
  std::string endpoint;  // --hf-endpoint (else HF_ENDPOINT)
  bool offline = false;  // --offline (or HF_HUB_OFFLINE)
};

// Reads the model; false, with the message on `err`, when it cannot be read. The notes (what
// was chosen, what is assumed) and one line of what was fetched go to `err`.
bool read_hub_option(const HubOptions& options, const Catalog& catalog, std::optional<HubModel>& model, std::ostream& err);

// The model's config for a request's JSON, as --config gives a config.json: {"config", "name"}.
json hub_model_config_json(const HubModel& model);

}  // namespace vramfit
