// A decoder-only transformer in the terms of a Hugging Face config.json, and the exact list
// of its weight tensors (from which parameters and stored bytes are counted).
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "result.hpp"

namespace vramfit {

enum class MlpKind { gated, plain };  // gated: gate, up, down (SwiGLU/GeGLU); plain: up, down
enum class NormKind { rms, layer };   // layer norm carries a bias as well as a weight
// What mixes tokens in a layer: attention (a KV cache grows with the context), or a recurrence
// that keeps a fixed state per sequence instead (Mamba's selective SSM, RWKV-4's time mixing,
// Qwen3-Next's Gated DeltaNet linear attention).
enum class Mixer { attention, mamba, rwkv, delta_net };

// A multimodal model's image encoder and projector (config.json vision_config), counted with
// the model: CLIP (LLaVA, LLaVA-NeXT: a class token, pre- and post-LayerNorm), SigLIP (Gemma 3,
// Idefics3: conv bias, no class token), Qwen2-VL / Qwen2.5-VL (a 3-D patch conv over 2 frames,
// fused qkv, and the merger from 2 x 2 patches to the text width; Qwen3.5's also a conv bias and
// a learned table of num_position_embeddings), Pixtral (RMSNorms, a gated
// MLP, no biases, 2-D RoPE instead of a position table) and Mllama (Llama 3.2 Vision: a local
// and a gated global encoder over up to max_num_tiles tiles, tile and aspect-ratio tables).
// An audio encoder is held the same way: Whisper's (Qwen2-Audio's audio_tower,
// Qwen2AudioEncoder: two convs over num_mel_bins channels, a table of max_source_positions,
// CLIP-like layers whose k has no bias, a final LayerNorm).
// Projectors: LLaVA's 2-layer MLP (Mistral 3's after an RMSNorm and a patch merger of
// spatial_merge_size^2 patches into one), Gemma 3's one matrix and RMSNorm, Idefics3's pixel shuffle
// into one matrix, one biased matrix from projector_input (Mllama's stacked layer outputs,
// Qwen2-Audio's encoder width); Qwen's merger belongs to the tower.
enum class VisionKind : uint8_t { none, clip, siglip, qwen2_vl, pixtral, mllama, llama4, whisper, qwen3_5 };
enum class ProjectorKind : uint8_t { none, llava_mlp, gemma3, pixel_shuffle, linear, llama4, patch_merger };
struct VisionTower {
  VisionKind kind = VisionKind::none;
  int64_t layers = 0, hidden = 0, heads = 0, intermediate = 0;
  // Whisper: channels = num_mel_bins, image_size = max_source_positions (30 s of audio after
  // the stride-2 conv), patch = 2 (mel frames per position).
  int64_t patch = 0, image_size = 0, channels = 3, temporal_patch = 1;
  bool rms_norm = false;    // Qwen2.5-VL, Pixtral: RMSNorm (a weight) instead of LayerNorm (weight + bias)
  bool gated_mlp = false;   // Qwen2.5-VL, Pixtral: gate, up, down instead of fc1, fc2
  bool pooling_head = false;  // SigLIP's attention-pooling head (vision_use_head): probe, attention, norm, MLP
  int64_t merge = 0;        // Qwen, Mistral 3: spatial_merge_size (2: 4 patches per merged token)
  int64_t out_hidden = 0;   // the text model's hidden_size the projector or merger maps to
  ProjectorKind projector = ProjectorKind::none;
  bool projector_bias = true;
  // Crops of one image the encoder runs over at once: LLaVA-NeXT's base image and its largest
  // grid (image_grid_pinpoints), Mllama's max_num_tiles, Idefics3's processor (4 x 4 + 1).
  int64_t tiles = 1;
  bool image_newline = false;     // LLaVA-NeXT: one learned hidden_size row between image rows
  int64_t scale_factor = 0;       // Idefics3: pixel shuffle of scale x scale patches into one
  int64_t global_layers = 0;      // Mllama: num_global_layers of the gated global encoder
  int64_t aspect_ratios = 0;      // Mllama: len(supported_aspect_ratios)
  // Mllama: vision_output_dim (the stacked intermediate layers); Llama 4: the adapter's width;
  // LLaVA: hidden x the layers of vision_feature_layer (Granite Vision concatenates 4), 0 = hidden.
  int64_t projector_input = 0;
  int64_t position_table = 0;     // Qwen3.5: num_position_embeddings (interpolated to each image's grid)
  bool dynamic_resolution() const { return kind == VisionKind::qwen2_vl || kind == VisionKind::qwen3_5; }
  // Patches of one tile at image_size (CLIP and Mllama add a class token); Qwen's are as many
  // as the image has (dynamic resolution), 0 here.
  int64_t patches_per_tile() const;
  // Patches the encoder sees for one image: every tile's.
  int64_t patches_per_image() const;
};

struct ModelSpec {
  std::string architecture;         // config.json model_type
  // > 0 when only the parameter count is known (the articles' "8 B model"): weights are
  // sized from the count; the attention shape is still needed for the KV cache.
  int64_t parameters_only = 0;

  int64_t layers = 0;               // num_hidden_layers
  int64_t hidden_size = 0;
  int64_t attention_heads = 0;
  int64_t kv_heads = 0;             // num_key_value_heads (GQA: fewer than attention_heads)
  int64_t head_dim = 0;             // explicit head_dim, else hidden_size / attention_heads
  int64_t intermediate_size = 0;    // dense MLP width
  int64_t vocab_size = 0;
  int64_t max_context_tokens = 0;   // max_position_embeddings (0 = unknown)
  // The context rope_scaling stretches RoPE to (linear, YaRN: original positions x factor),
  // when longer than max_position_embeddings; 0 = none. The longest usable context.
  int64_t scaled_context_tokens = 0;
  int64_t usable_context_tokens() const { return std::max(max_context_tokens, scaled_context_tokens); }
  bool tied_embeddings = false;
  bool qkv_bias = false;            // Qwen2, gpt-oss
  bool no_key_bias = false;         // Whisper: q and v have biases, k does not (WhisperAttention)
  bool attention_output_bias = false;
  bool mlp_bias = false;
  MlpKind mlp = MlpKind::gated;
  NormKind norm = NormKind::rms;
  int norms_per_layer = 2;          // Gemma 2/3: 4 (pre/post attention, pre/post MLP)
  bool qk_norm = false;             // Qwen3, Gemma 3: RMSNorm over head_dim on q and k
  bool qk_norm_full = false;        // OLMo 2: the q and k norms span all heads (q_dim, kv_dim)
  bool attention_sinks = false;     // gpt-oss: one learned logit per head
  bool fused_qkv = false;           // Phi-3, GPT-2: one qkv_proj / c_attn (GGUF attn_qkv)
  bool output_bias = false;         // GPT-J, Phi: the LM head has a bias
  bool attention_output_gate = false;  // Qwen3-Next: q_proj also gives a gate for the output (2 x q)

  // Learned tables and encoders (GPT-2, GPT-BigCode, BERT): absolute positions as a table of
  // position_embeddings rows (0: rotary, no table); BERT's segment table (type_vocab_size);
  // BERT's LayerNorm after the embeddings; no norm after the last layer (post-norm encoders);
  // BERT's pooler (dense hidden x hidden + bias); an encoder: no LM head and no KV cache.
  int64_t position_embeddings = 0;
  int64_t token_type_embeddings = 0;
  int64_t relative_position_embeddings = 0;  // DeBERTa-v2/v3: the encoder's rel_embeddings rows
  bool embedding_norm = false;
  bool final_norm = true;
  bool pooler = false;
  bool encoder_only = false;
  // Encoder-decoder (T5, BART): the first encoder_layers layers of the stack are the encoder
  // (self-attention and MLP, nothing cached); the others are decoder layers with a
  // cross-attention block and one more norm. BART: each stack has its own position table and
  // embeddings LayerNorm, and T5 a relative-attention bias table (buckets x heads) per stack.
  int64_t encoder_layers = 0;
  int64_t relative_attention_buckets = 0;
  // Whisper (WhisperEncoder): the encoder reads num_mel_bins-channel log-mel frames through two
  // convs of kernel 3 (with biases) instead of token embeddings, and has its own table of
  // max_source_positions rows beside the decoder's position_embeddings.
  int64_t audio_mel_bins = 0;
  int64_t encoder_position_embeddings = 0;

  // Recurrent layers (mixer != attention): no attention, no KV cache; a fixed state per sequence.
  // Mamba (MambaMixer): in_proj to 2 x ssm_inner, a depthwise conv of ssm_conv_kernel, x_proj to
  // ssm_dt_rank + 2 x ssm_state, dt_proj, A_log and D, out_proj; no MLP. RWKV-4 (RwkvBlock):
  // time mixing with attention_hidden_size = ssm_inner and channel mixing of intermediate_size.
  Mixer mixer = Mixer::attention;
  // Hybrid (Jamba, Qwen3-Next): with attention_layer_period > 0 only layer i with i % period ==
  // offset attends; the others mix with `mixer` (Jamba's Mamba, with RMSNorms over dt, B and C:
  // ssm_inner_norms; Qwen3-Next's Gated DeltaNet) and every layer keeps its MLP or MoE.
  int64_t attention_layer_period = 0, attention_layer_offset = 0;
  bool ssm_inner_norms = false;
  // Gated DeltaNet (Qwen3NextGatedDeltaNet): key and value heads and their widths; its causal
  // conv (ssm_conv_kernel) runs over q, k and v.
  int64_t linear_key_heads = 0, linear_value_heads = 0, linear_key_head_dim = 0, linear_value_head_dim = 0;
  int64_t linear_key_dim() const { return linear_key_heads * linear_key_head_dim; }
  int64_t linear_value_dim() const { return linear_value_heads * linear_value_head_dim; }
  int64_t linear_conv_dim() const { return 2 * linear_key_dim() + linear_value_dim(); }
  int64_t ssm_inner = 0;
  int64_t ssm_state = 0;
  int64_t ssm_conv_kernel = 0;
  int64_t ssm_dt_rank = 0;
  bool ssm_conv_bias = true;
  bool ssm_proj_bias = false;

  VisionTower vision;               // kind none: a text-only model
  // Mllama (Llama 3.2 Vision): cross_attention_layers[i] != 0 when text layer i attends to the
  // image's tiles instead of the text (MllamaCrossAttentionDecoderLayer: q/k norms and two
  // tanh gates); its keys and values are the image's, fixed per sequence. Its embed_tokens has
  // 8 rows more than vocab_size (extra_embedding_rows).
  std::vector<uint8_t> cross_attention_layers;
  int64_t extra_embedding_rows = 0;
  // num_nextn_predict_layers (DeepSeek-V3), mtp_num_hidden_layers (Qwen3-Next, Qwen3.5):
  // multi-token-prediction modules the checkpoint holds beside the model, which engines load only
  // to speculate; not in enumerate_tensors.
  int64_t mtp_layers = 0;

  // Mixture of experts
  int64_t experts = 0;              // routed experts per MoE layer
  int64_t experts_per_token = 0;
  int64_t moe_intermediate_size = 0;
  int64_t shared_experts = 0;
  int64_t shared_expert_intermediate_size = 0;  // per shared expert
  bool shared_expert_gate = false;  // Qwen2-MoE: sigmoid gate on the shared expert
  int64_t first_dense_layers = 0;   // DeepSeek first_k_dense_replace
  int64_t moe_layer_period = 1, moe_layer_offset = 0;  // Jamba: experts in layers i % period == offset
  bool router_bias = false;         // gpt-oss
  bool expert_bias = false;         // gpt-oss: biases on expert projections
  bool router_score_correction = false;  // DeepSeek-V3 e_score_correction_bias

  // Multi-head latent attention (DeepSeek-V2/V3)
  int64_t q_lora_rank = 0;          // 0: q is projected directly
  int64_t kv_lora_rank = 0;         // > 0 switches MLA on
  int64_t qk_rope_head_dim = 0;
  int64_t qk_nope_head_dim = 0;
  int64_t v_head_dim = 0;

  // Sliding-window attention: sliding_layers[i] != 0 when layer i sees only the last
  // sliding_window tokens. Empty: every layer attends to the whole context.
  int64_t sliding_window = 0;
  std::vector<uint8_t> sliding_layers;
  bool chunked_attention = false;   // Llama 4: those layers attend within chunks of sliding_window tokens

  bool uses_mla() const { return kv_lora_rank > 0; }
  bool is_moe() const { return experts > 0; }
  bool is_moe_layer(int64_t layer) const {
    return is_moe() && layer >= first_dense_layers && (moe_layer_period <= 1 || layer % moe_layer_period == moe_layer_offset);
  }
  int64_t moe_layer_count() const;
  bool is_sliding_layer(int64_t layer) const {
    return sliding_window > 0 && layer < static_cast<int64_t>(sliding_layers.size()) &&
           sliding_layers[static_cast<size_t>(layer)] != 0;
  }
  int64_t sliding_layer_count() const;
  bool is_cross_attention_layer(int64_t layer) const {
    return layer >= 0 && layer < static_cast<int64_t>(cross_attention_layers.size()) &&
           cross_attention_layers[static_cast<size_t>(layer)] != 0;
  }
  int64_t cross_attention_layer_count() const;
  // Every layer recurrent (Mamba, RWKV): no KV cache at all.
  bool is_recurrent() const { return mixer != Mixer::attention && attention_layer_period == 0; }
  bool is_hybrid() const { return mixer != Mixer::attention && attention_layer_period > 0; }
  bool is_recurrent_layer(int64_t layer) const {
    return is_recurrent() || (is_hybrid() && layer % attention_layer_period != attention_layer_offset);
  }
  int64_t recurrent_layer_count() const;
  bool is_encoder_decoder() const { return encoder_layers > 0; }
  // Layers whose keys and values are cached: the decoder's (T5: self- and cross-attention alike,
  // so a context of input + output tokens); none for an encoder or a recurrent model.
  // Mllama's cross-attention layers cache the image's keys and values instead (not counted here).
  int64_t cached_layers() const {
    return encoder_only || is_recurrent() ? 0
                                          : layers - encoder_layers - cross_attention_layer_count() - recurrent_layer_count();
  }
  // Recurrent state per sequence and layer in elements (kept in fp32 by llama.cpp and
  // transformers): Mamba (llama_hparams::n_embd_r + n_embd_s) (d_conv - 1) x d_inner for the
  // conv and d_state x d_inner for the SSM; RWKV-4 (RwkvModel.forward's state) 5 x hidden;
  // Gated DeltaNet (llama.cpp's qwen3next: r and s) (conv_kernel - 1) x conv_dim for the conv and
  // value heads x key head_dim x value head_dim for the delta rule's state.
  int64_t recurrent_state_elements() const;
};

// What a weight tensor does; drives which tensors a quantization format keeps unquantized.
enum class TensorRole : uint8_t {
  token_embd, output, attn_q, attn_k, attn_v, attn_qkv, attn_output,
  attn_q_a, attn_q_b, attn_kv_a, attn_kv_b,
  ffn_gate, ffn_up, ffn_down,
  ffn_gate_exps, ffn_up_exps, ffn_down_exps,
  ffn_gate_shexp, ffn_up_shexp, ffn_down_shexp, shared_expert_gate,
  router, vector, position_embd,
  ssm_in, ssm_conv, ssm_x, ssm_dt, ssm_out,  // Mamba's projections (the conv is ggml's ssm_conv1d)
  time_mix_key, time_mix_value, time_mix_receptance, time_mix_output,  // RWKV's time mixing
  vision  // every tensor of the image or audio encoder and projector (and Whisper's conv stem), kept in 16 bits
};
const char* tensor_role_name(TensorRole role);  // GGUF-style name, e.g. "attn_v", "ffn_down_exps"
// The input tables looked up by index, not multiplied (token, position and segment embeddings).
inline bool is_embedding_role(TensorRole role) { return role == TensorRole::token_embd || role == TensorRole::position_embd; }
bool is_expert_role(TensorRole role);

// One weight tensor (or `copies` identical ones), shaped as ggml stores it:
// row_length = input features (ne[0]), rows = output features (ne[1]).
struct TensorShape {
  TensorRole role;
  int32_t layer;      // -1 for tensors outside the layer stack
  int64_t row_length;
  int64_t rows;
  int64_t copies;     // experts stacked in one GGUF tensor; 1 otherwise
  int64_t elements() const { return row_length * rows * copies; }
};

// Fails with an error naming the field when the spec cannot describe a model.
std::optional<Error> validate_model_spec(const ModelSpec& spec);

// Every weight tensor, layer by layer. Empty for a parameters-only spec.
std::vector<TensorShape> enumerate_tensors(const ModelSpec& spec);

// Exact parameter count (sum of tensor elements), or parameters_only.
int64_t count_parameters(const ModelSpec& spec);
// The multi-token-prediction modules' parameters (DeepSeek-V3 report, section 2.2; the
// checkpoint's model.layers.61.*): per module its own embedding and output head (vocab x
// hidden each), enorm and hnorm, eh_proj (2 hidden -> hidden) and one decoder layer shaped as
// the model's last, with shared_head's norm. Qwen3-Next's and Qwen3.5's (the checkpoint's mtp.*:
// fc, pre_fc_norm_embedding, pre_fc_norm_hidden, one full-attention layer, norm) share the
// model's embedding and LM head.
int64_t count_mtp_parameters(const ModelSpec& spec);
// Parameters used per token: routed experts count experts_per_token / experts of their size.
int64_t count_active_parameters(const ModelSpec& spec);
// The same for each repeating layer (index = layer): the weights one token multiplies by.
std::vector<int64_t> active_parameters_per_layer(const ModelSpec& spec);

// FLOPs of one token of a prompt of `prompt_tokens` in the repeating layers first_layer ..
// first_layer + layers - 1 (active: active_parameters_per_layer): 2 per active weight, and the
// attention's QK^T and AV, 2 x 2 x q width per earlier position — on average half the prompt
// for a causal model (sliding-window layers: at most the window).
double prefill_flops_per_token(const ModelSpec& spec, const std::vector<int64_t>& active, int64_t first_layer, int64_t layers,
                               int64_t prompt_tokens);

}  // namespace vramfit
