// The parts of a config.json that any architecture may have, each read on its own:
// rope_scaling, quantization_config / torch_dtype, a multimodal text_config's class defaults,
// and the vision or audio tower beside the language model.
#pragma once
#include <string>

#include "core/model_spec.hpp"
#include "io/hf_config.hpp"

#include "config_reader.hpp"

namespace vramfit {

// rope_scaling (transformers' modeling_rope_utils.py, ROPE_INIT_FUNCTIONS): linear and YaRN
// stretch RoPE to original_max_position_embeddings (else max_position_embeddings) x factor, the
// context vLLM also derives (_get_and_verify_max_len). llama3 and LongRoPE configs already give
// the long context as max_position_embeddings; dynamic NTK rescales past it with no set end.
void read_rope_scaling(const json& config, ConfigReader& r, ModelSpec& s, HfConfigRead& out);

// quantization_config (transformers' *QuantizationConfig), else torch_dtype -> a format id.
void read_stored_format(const json& config, ConfigReader& r, HfConfigRead& out);

// A multimodal config's text_config lists only what differs from its class's defaults (LLaVA's
// Vicuna and Mistral, Pixtral's Mistral NeMo, Idefics3's Llama 3.1, Qwen2-Audio's Qwen2):
// transformers fills the rest from LlamaConfig / MistralConfig / Qwen2Config's __init__
// defaults, and so does vramfit, saying which. Null when nothing is missing.
json with_class_defaults(const json& text, HfConfigRead& out);

// vision_config (or Qwen2-Audio's audio_config) at the top of a multimodal config.json.
void read_vision_tower(const json& root, const std::string& origin, ModelSpec& s, ConfigReader& r, HfConfigRead& out);

}  // namespace vramfit
