// The config.json of each architecture as data: one row per model_type, with the defaults its
// transformers config class has and the structure its modeling file fixes, and one small
// function for what a row cannot say. A family of related model types is one file here
// (llama_family.cpp, qwen_family.cpp, ...); a new architecture is a row, and a fixture in
// tests/fixtures/configs.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "core/model_spec.hpp"
#include "io/hf_config.hpp"

#include "config_reader.hpp"

namespace vramfit {

// Which layers use sliding-window attention when the config has a sliding_window and no
// layer_types list.
enum class SlidingLayers {
  every_layer,         // Mistral v0.1: every layer slides
  when_enabled,        // Qwen's classes: only with use_sliding_window (default false), then every layer
  never,               // Phi-3: sliding_window is for its blocksparse kernels, the cache is whole
  every_sixth_global,  // Gemma 3: every sliding_window_pattern-th layer (default 6) is global
  even_layers,         // Gemma 2: even layers slide
  gpt_neo,             // GPT-Neo: attention_layers "local"/"global", window_size (default 256)
};

// How the shared expert of an MoE is configured.
enum class SharedExpert {
  counted,  // n_shared_experts of moe_intermediate_size (DeepSeek)
  gated,    // one of shared_expert_intermediate_size, with a sigmoid gate (Qwen2-MoE, Qwen3-Next)
};

struct AttentionBiases {
  bool qkv = false;
  bool output = false;
  bool mlp = false;
};

struct HfArchitecture {
  const char* model_type = "";
  const char* source = "";  // the transformers (or model repository) file the row follows

  // Defaults of keys the config may leave out, as the config class sets them.
  bool tie_word_embeddings = false;
  bool attention_bias = false;             // the attention_bias key's default (gpt-oss: true)
  bool attention_bias_on_output = true;    // attention_bias also biases o_proj (not GLM's)
  bool num_key_value_heads_key = true;     // false: no such key (multi-head, MQA or MLA by other keys)
  int64_t head_dim = 0;                    // 0: hidden_size / num_attention_heads
  int64_t ffn_width_factor = 0;            // no intermediate key: this x hidden_size (GPT-2's n_inner)

  // Structure the modeling file fixes.
  NormKind norm = NormKind::rms;
  MlpKind mlp = MlpKind::gated;
  AttentionBiases always_biased = {};      // q/k/v biases whatever the keys say (Qwen2)
  bool biases_fixed = false;               // the family sets every bias (the keys above are not read)
  bool qk_norm = false, qk_norm_full = false;
  int norms_per_layer = 2;
  bool fused_qkv = false;
  bool attention_sinks = false;
  bool output_bias = false;
  SlidingLayers sliding = SlidingLayers::every_layer;
  SharedExpert shared_expert = SharedExpert::counted;
  bool expert_biases = false;              // router and expert biases (gpt-oss)
  bool router_score_correction = false;    // DeepSeek-V3's e_score_correction_bias
  int64_t extra_embedding_rows = 0;        // Mllama's text model: embed_tokens has 8 more rows

  // What a row cannot say, read after the common keys (the structure keys of vramfit's own
  // configs are read after it and win), and, for Llama 4, after the experts.
  void (*read)(ConfigReader&, ModelSpec&, HfConfigRead&) = nullptr;
  void (*read_after_experts)(ConfigReader&, ModelSpec&, HfConfigRead&) = nullptr;
};

// Each family's rows (one definition per family file).
extern const std::span<const HfArchitecture> kLlamaFamily;
extern const std::span<const HfArchitecture> kQwenFamily;
extern const std::span<const HfArchitecture> kGemmaFamily;
extern const std::span<const HfArchitecture> kGptFamily;
extern const std::span<const HfArchitecture> kEncoderFamily;
extern const std::span<const HfArchitecture> kEncoderDecoderFamily;
extern const std::span<const HfArchitecture> kRecurrentFamily;
extern const std::span<const HfArchitecture> kLlama4Family;

// The row of `model_type`, or null when vramfit does not know it.
const HfArchitecture* find_hf_architecture(const std::string& model_type);

// Which layers slide, from a config's list of every layer's attention (layer_types, GPT-Neo's
// attention_layers): those whose entry is `sliding`. sliding_layers must already hold one entry
// per layer. False when the config has no such list.
bool read_layer_types(ConfigReader& r, ModelSpec& s, const char* key, const char* sliding);

}  // namespace vramfit
