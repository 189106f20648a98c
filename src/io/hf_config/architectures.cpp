#include "architectures.hpp"

namespace vramfit {

const HfArchitecture* find_hf_architecture(const std::string& model_type) {
  for (const std::span<const HfArchitecture>& family :
       {kLlamaFamily, kQwenFamily, kGemmaFamily, kGptFamily, kEncoderFamily, kEncoderDecoderFamily, kRecurrentFamily, kLlama4Family}) {
    for (const HfArchitecture& row : family) {
      if (model_type == row.model_type) return &row;
    }
  }
  return nullptr;
}

bool read_layer_types(ConfigReader& r, ModelSpec& s, const char* key, const char* sliding) {
  if (!r.config.contains(key) || !r.config.at(key).is_array()) return false;
  const json& types = r.config.at(key);
  if (types.size() != s.sliding_layers.size()) {
    r.fail(key, "must list one entry per layer (" + std::to_string(s.layers) + "), got " + std::to_string(types.size()));
    return true;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    if (!types[i].is_string()) { r.fail(std::string(key) + "[" + std::to_string(i) + "]", "must be a string"); break; }
    s.sliding_layers[i] = types[i].get<std::string>() == sliding;
  }
  return true;
}

}  // namespace vramfit
