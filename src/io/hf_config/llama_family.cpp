// Llama and the decoders that kept LlamaConfig's keys: num_key_value_heads for GQA, head_dim,
// RMSNorm and a gated MLP, attention_bias / mlp_bias, tie_word_embeddings false.
#include "architectures.hpp"

namespace vramfit {

namespace {

// InternLM2 (configuration_internlm2.py in its model repositories) names attention_bias "bias";
// its wqkv is one tensor of q, k and v's sizes.
void read_internlm2(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  if (r.boolean("bias", false)) s.qkv_bias = s.attention_output_bias = true;
}

// Cohere (CohereDecoderLayer): one LayerNorm without bias (a weight, as RMSNorm's) before attention
// and MLP in parallel; use_qk_norm normalises q and k over all heads.
void read_cohere(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.qk_norm = s.qk_norm_full = r.boolean("use_qk_norm", false);
}

constexpr HfArchitecture kRows[] = {
    // vramfit's own: a parameter count alone (no tensors).
    {.model_type = "parameters_only", .source = "vramfit (data/models.json)"},
    {.model_type = "llama", .source = "models/llama/configuration_llama.py"},
    {.model_type = "mistral", .source = "models/mistral/configuration_mistral.py"},
    {.model_type = "mixtral", .source = "models/mixtral/configuration_mixtral.py"},
    {.model_type = "ministral3", .source = "models/ministral3/configuration_ministral3.py"},
    // Granite: Llama's tensors; its multipliers (embedding, residual, attention, logits) are scalars.
    {.model_type = "granite", .source = "models/granite/configuration_granite.py"},
    {.model_type = "internlm2", .source = "internlm/internlm2-*: configuration_internlm2.py", .fused_qkv = true,
     .read = read_internlm2},
    // GLM: attention_bias is on q, k and v only (GlmAttention's o_proj has none); gate_up_proj fused.
    {.model_type = "glm", .source = "models/glm/configuration_glm.py", .attention_bias_on_output = false},
    {.model_type = "cohere", .source = "models/cohere/configuration_cohere.py", .tie_word_embeddings = true,
     .norms_per_layer = 1, .read = read_cohere},
    // OLMo 2 (Olmo2DecoderLayer): RMSNorm over all of q and of k, and its two norms come after
    // attention and the MLP: still two per layer. OLMoE's attention likewise, before its MoE.
    {.model_type = "olmo2", .source = "models/olmo2/configuration_olmo2.py", .qk_norm = true, .qk_norm_full = true},
    {.model_type = "olmoe", .source = "models/olmoe/configuration_olmoe.py", .qk_norm = true, .qk_norm_full = true},
    // Phi-3: qkv_proj and gate_up_proj fused; its sliding_window is for blocksparse kernels only.
    {.model_type = "phi3", .source = "models/phi3/configuration_phi3.py", .fused_qkv = true,
     .sliding = SlidingLayers::never},
    // DeepSeek-V2/V3: multi-head latent attention (kv_lora_rank, ...), no num_key_value_heads.
    {.model_type = "deepseek_v2", .source = "models/deepseek_v2/configuration_deepseek_v2.py", .num_key_value_heads_key = false},
    {.model_type = "deepseek_v3", .source = "models/deepseek_v3/configuration_deepseek_v3.py", .num_key_value_heads_key = false,
     .router_score_correction = true},
    // gpt-oss: attention biases and sinks, router and expert biases.
    {.model_type = "gpt_oss", .source = "models/gpt_oss/configuration_gpt_oss.py", .attention_bias = true,
     .attention_sinks = true, .expert_biases = true},
    // Multimodal models whose text_config is a Llama's (their towers: multimodal.cpp).
    {.model_type = "llava_next", .source = "models/llava_next/configuration_llava_next.py"},
    {.model_type = "idefics3", .source = "models/idefics3/configuration_idefics3.py"},
    // Mllama's text model: the cross-attention layers and embed_tokens' 8 extra rows
    // (MllamaTextModel: nn.Embedding(vocab_size + 8, hidden_size)).
    {.model_type = "mllama", .source = "models/mllama/configuration_mllama.py", .extra_embedding_rows = 8},
    {.model_type = "mllama_text_model", .source = "models/mllama/configuration_mllama.py", .extra_embedding_rows = 8},
};

}  // namespace

const std::span<const HfArchitecture> kLlamaFamily = kRows;

}  // namespace vramfit
