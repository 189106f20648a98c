#include "cli_common.hpp"

#include "text/messages.hpp"

namespace vramfit {

// An error of the request or the estimate, in the report's language (--lang ar).
std::string error_line(const std::string& lang, const std::string& message) {
  const Language language = parse_language(lang).value_or(Language::english);
  return std::string(translate(language, "error: ")) + translate_text(language, message) + "\n";
}

// --hf and the settings of reading it (infer and train).
CLI::Option* add_hub_options(CLI::App& app, HubOptions& hub) {
  auto* hf = app.add_option("--hf", hub.id, "A Hugging Face model: org/name, org/name@revision, org/name:Q4_K_M (a GGUF "
                                            "quantization) or a Hub URL; config.json and the weights' headers are read "
                                            "by range requests, nothing is downloaded whole (HF_TOKEN for gated models)");
  app.add_option("--hf-endpoint", hub.endpoint, "The Hub or a mirror (default HF_ENDPOINT, else https://huggingface.co)");
  app.add_flag("--offline", hub.offline, "Read --hf from the cache only (as HF_HUB_OFFLINE=1)");
  return hf;
}

}  // namespace vramfit
