// A model's tensors, each with its role, layer and shape, as transformers' modeling files build
// them: the embeddings, each layer's norms, mixer (attention, MLA, Mamba, Gated DeltaNet, RWKV)
// and feed-forward (dense or experts), the heads, and a vision or audio tower. Every count of
// parameters and bytes in vramfit is a sum over this list.
#include "model_spec.hpp"

#include "units.hpp"

namespace vramfit {

namespace {

// Out of line: enumerate_tensors adds tensors from some 80 places (the page's module size).
[[gnu::noinline]] void push_tensor(std::vector<TensorShape>& t, TensorRole role, int32_t layer, int64_t row_length, int64_t rows,
                                   int64_t copies) {
  t.push_back(TensorShape{role, layer, row_length, rows, copies});
}

// Whisper's conv stem (WhisperEncoder's conv1 over the mel bins and conv2, kernel 3, each with a
// bias): Whisper's own encoder and Qwen2-Audio's audio tower (Qwen2AudioEncoder), as vision tensors.
void add_whisper_conv_stem(std::vector<TensorShape>& t, int64_t mel_bins, int64_t h) {
  push_tensor(t, TensorRole::vision, -1, 3 * mel_bins, h, 1);
  push_tensor(t, TensorRole::vision, -1, 3 * h, h, 1);
  push_tensor(t, TensorRole::vision, -1, h, 2, 1);  // the two biases
}

// The vision tower and projector (transformers' CLIPVisionTransformer, SiglipVisionTransformer,
// with SiglipMultiheadAttentionPoolingHead when vision_use_head, Idefics3VisionTransformer,
// Qwen2VisionTransformerPretrainedModel /
// Qwen2_5_VisionTransformerPretrainedModel, Qwen3_5VisionModel, PixtralVisionModel, MllamaVisionModel,
// Llama4VisionModel, Qwen2AudioEncoder;
// LlavaMultiModalProjector, Mistral3MultiModalProjector, Gemma3MultiModalProjector, Idefics3Connector, Mllama's
// multi_modal_projector, Llama4MultiModalProjector; LlavaNextModel's image_newline), all as TensorRole::vision at layer -1.
void add_vision_tower(const VisionTower& v, std::vector<TensorShape>& t) {
  if (v.kind == VisionKind::none) return;
  auto add = [&t](int64_t row_length, int64_t rows) { push_tensor(t, TensorRole::vision, -1, row_length, rows, 1); };
  const int64_t h = v.hidden;
  const bool qwen = v.dynamic_resolution(), pixtral = v.kind == VisionKind::pixtral, mllama = v.kind == VisionKind::mllama;
  const bool llama4 = v.kind == VisionKind::llama4, whisper = v.kind == VisionKind::whisper;
  auto norm = [&](int64_t n) { add(n, v.rms_norm ? 1 : 2); };  // weight (+ bias)
  auto linear = [&](int64_t in, int64_t out, bool bias) {
    add(in, out);
    if (bias) add(out, 1);
  };
  if (whisper) {
    add_whisper_conv_stem(t, v.channels, h);
  } else {
    // Patch embedding: a conv of channels x (temporal x) patch x patch per output channel.
    add(v.channels * v.temporal_patch * v.patch * v.patch, h);
  }
  if (v.kind == VisionKind::siglip || v.kind == VisionKind::qwen3_5) add(h, 1);  // SigLIP's and Qwen3.5's conv have a bias
  if (!qwen && !pixtral) add(h, v.patches_per_tile());  // learned position table (Pixtral: 2-D RoPE)
  if (v.position_table > 0) add(h, v.position_table);   // Qwen3.5's pos_embed
  if (v.kind == VisionKind::clip || mllama || llama4) add(h, 1);  // class_embedding
  if (mllama) {
    // MllamaPrecomputedPositionEmbedding: its gate and a table of every tile's positions per
    // aspect ratio; MllamaPrecomputedAspectRatioEmbedding before and after the local encoder.
    const int64_t ratios = v.aspect_ratios + 1;
    add(1, 1);
    add(sat_mul(v.tiles, v.patches_per_tile(), h), ratios);
    for (int i = 0; i < 2; ++i) {
      add(v.tiles * h, ratios);
      add(1, 1);
    }
  }
  if (v.kind == VisionKind::clip || pixtral || mllama || llama4) norm(h);  // pre_layrnorm / ln_pre / layernorm_pre
  const bool attention_bias = !pixtral && !mllama;
  for (int64_t layer = 0; layer < v.layers + v.global_layers; ++layer) {
    norm(h);
    norm(h);
    if (qwen) {
      linear(h, 3 * h, true);  // qkv
    } else {
      for (int i = 0; i < 3; ++i) linear(h, h, attention_bias && !(whisper && i == 1));  // q, k (Whisper: no bias), v
    }
    linear(h, h, attention_bias);  // out / proj / o_proj
    if (v.gated_mlp) linear(h, v.intermediate, !pixtral);  // gate
    linear(h, v.intermediate, !pixtral);                    // up / fc1
    linear(v.intermediate, h, !pixtral);                    // down / fc2
    if (layer >= v.layers) {                                // Mllama's global layers: gate_attn, gate_ffn
      add(1, 1);
      add(1, 1);
    }
  }
  if (qwen) {  // PatchMerger: ln_q, then 4h -> 4h -> out_hidden
    const int64_t merged = h * v.merge * v.merge;
    norm(h);
    linear(merged, merged, true);
    linear(merged, v.out_hidden, true);
  } else if (!pixtral) {
    norm(h);  // post_layernorm / layernorm_post
  }
  if (v.pooling_head) {  // SiglipMultiheadAttentionPoolingHead: probe, in_proj (q, k, v), out_proj, layernorm, mlp
    add(h, 1);
    linear(h, 3 * h, true);
    linear(h, h, true);
    norm(h);
    linear(h, v.intermediate, true);
    linear(v.intermediate, h, true);
  }
  if (v.projector == ProjectorKind::patch_merger) {  // Mistral3MultiModalProjector: norm, patch_merger.merging_layer
    add(h, 1);
    add(h * v.merge * v.merge, h);
  }
  if (v.projector == ProjectorKind::llava_mlp || v.projector == ProjectorKind::patch_merger) {  // linear_1, linear_2
    linear(v.projector_input > 0 ? v.projector_input : h, v.out_hidden, v.projector_bias);
    linear(v.out_hidden, v.out_hidden, v.projector_bias);
  } else if (v.projector == ProjectorKind::gemma3) {
    add(h, v.out_hidden);  // mm_input_projection_weight
    add(h, 1);             // mm_soft_emb_norm
  } else if (v.projector == ProjectorKind::pixel_shuffle) {
    add(h * v.scale_factor * v.scale_factor, v.out_hidden);  // modality_projection.proj, no bias
  } else if (v.projector == ProjectorKind::linear) {
    linear(v.projector_input, v.out_hidden, true);
  } else if (v.projector == ProjectorKind::llama4) {
    // Llama4VisionPixelShuffleMLP (2 x 2 patches, 4 h = intermediate wide, through fc1 and fc2),
    // then Llama4MultiModalProjector.linear_1; none has a bias.
    linear(v.intermediate, v.projector_input, false);
    linear(v.projector_input, v.projector_input, false);
    linear(v.projector_input, v.out_hidden, false);
  }
  if (v.image_newline) add(v.out_hidden, 1);
}

// The list being built, with the shapes every part of a layer uses.
struct TensorList {
  const ModelSpec& s;
  std::vector<TensorShape> t;
  int64_t h = s.hidden_size;
  int64_t q_dim = s.attention_heads * s.head_dim;
  int64_t kv_dim = s.kv_heads * s.head_dim;

  void add(TensorRole role, int32_t layer, int64_t row_length, int64_t rows, int64_t copies = 1) {
    push_tensor(t, role, layer, row_length, rows, copies);
  }
  void vec(int32_t layer, int64_t n) { add(TensorRole::vector, layer, n, 1); }
  // A norm's weight, and its bias for LayerNorm.
  void norm(int32_t layer, int64_t n) {
    vec(layer, n);
    if (s.norm == NormKind::layer) vec(layer, n);
  }

  // GPT-2's wpe, BERT's position and token type tables, BERT's embeddings LayerNorm; an
  // encoder-decoder has one position table, embeddings norm and relative bias table per stack.
  void embeddings() {
    add(TensorRole::token_embd, -1, h, s.vocab_size + s.extra_embedding_rows);
    if (s.audio_mel_bins > 0) add_whisper_conv_stem(t, s.audio_mel_bins, h);
    for (int stack = 0; stack < stacks(); ++stack) {
      const int64_t positions = stack == 0 && s.encoder_position_embeddings > 0 ? s.encoder_position_embeddings : s.position_embeddings;
      if (positions > 0) add(TensorRole::position_embd, -1, h, positions);
      if (s.embedding_norm) norm(-1, h);
      if (s.relative_attention_buckets > 0) add(TensorRole::position_embd, -1, s.attention_heads, s.relative_attention_buckets);
    }
    if (s.token_type_embeddings > 0) add(TensorRole::position_embd, -1, h, s.token_type_embeddings);
  }
  int stacks() const { return s.is_encoder_decoder() ? 2 : 1; }

  // HF LlamaAttention & co.: q, k, v (or one fused tensor), o, and their biases.
  void attention(int32_t i) {
    if (s.fused_qkv) {
      add(TensorRole::attn_qkv, i, h, q_dim + 2 * kv_dim);
      if (s.qkv_bias) vec(i, q_dim + 2 * kv_dim);
    } else {
      add(TensorRole::attn_q, i, h, s.attention_output_gate ? 2 * q_dim : q_dim);  // Qwen3-Next: queries and gate
      add(TensorRole::attn_k, i, h, kv_dim);
      add(TensorRole::attn_v, i, h, kv_dim);
      if (s.qkv_bias) {
        vec(i, q_dim);
        if (!s.no_key_bias) vec(i, kv_dim);
        vec(i, kv_dim);
      }
    }
    add(TensorRole::attn_output, i, q_dim, h);
    if (s.attention_output_bias) vec(i, h);
  }

  // MambaMixer, JambaMambaMixer.
  void mamba_mixer(int32_t i) {
    const int64_t inner = s.ssm_inner, state = s.ssm_state;
    add(TensorRole::ssm_in, i, h, 2 * inner);
    if (s.ssm_proj_bias) vec(i, 2 * inner);
    add(TensorRole::ssm_conv, i, s.ssm_conv_kernel, inner);
    if (s.ssm_conv_bias) vec(i, inner);
    add(TensorRole::ssm_x, i, inner, s.ssm_dt_rank + 2 * state);
    add(TensorRole::ssm_dt, i, s.ssm_dt_rank, inner);
    vec(i, inner);                              // dt_proj's bias
    add(TensorRole::vector, i, state, inner);   // A_log
    vec(i, inner);                              // D
    add(TensorRole::ssm_out, i, inner, h);
    if (s.ssm_proj_bias) vec(i, h);
    if (s.ssm_inner_norms) { vec(i, s.ssm_dt_rank); vec(i, state); vec(i, state); }  // dt, B and C layernorms
  }

  // Qwen3NextGatedDeltaNet.
  void delta_net(int32_t i) {
    const int64_t vh = s.linear_value_heads;
    add(TensorRole::ssm_in, i, h, 2 * s.linear_key_dim() + 2 * s.linear_value_dim());  // in_proj_qkvz
    add(TensorRole::ssm_in, i, h, 2 * vh);                                             // in_proj_ba
    add(TensorRole::ssm_conv, i, s.ssm_conv_kernel, s.linear_conv_dim());             // conv1d, no bias
    vec(i, vh);                                                                        // dt_bias
    vec(i, vh);                                                                        // A_log
    vec(i, s.linear_value_head_dim);                                                   // norm (gated, per head)
    add(TensorRole::ssm_out, i, s.linear_value_dim(), h);                              // out_proj
  }

  // RwkvSelfAttention and RwkvFeedForward: the whole layer.
  void rwkv_layer(int32_t i) {
    const int64_t a = s.ssm_inner;
    vec(i, a); vec(i, a);                       // time_decay, time_first
    vec(i, h); vec(i, h); vec(i, h);            // time_mix_key, _value, _receptance
    add(TensorRole::time_mix_key, i, h, a);
    add(TensorRole::time_mix_value, i, h, a);
    add(TensorRole::time_mix_receptance, i, h, a);
    add(TensorRole::time_mix_output, i, a, h);
    vec(i, h); vec(i, h);                       // the channel mix's time_mix_key, _receptance
    add(TensorRole::ffn_up, i, h, s.intermediate_size);    // key
    add(TensorRole::ffn_gate, i, h, h);                    // receptance
    add(TensorRole::ffn_down, i, s.intermediate_size, h);  // value
  }

  // Multi-head latent attention (DeepseekV3Attention).
  void latent_attention(int32_t i) {
    const int64_t qk_head = s.qk_nope_head_dim + s.qk_rope_head_dim;
    if (s.q_lora_rank > 0) {
      add(TensorRole::attn_q_a, i, h, s.q_lora_rank);
      vec(i, s.q_lora_rank);  // q_a_layernorm
      add(TensorRole::attn_q_b, i, s.q_lora_rank, s.attention_heads * qk_head);
    } else {
      add(TensorRole::attn_q, i, h, s.attention_heads * qk_head);
    }
    add(TensorRole::attn_kv_a, i, h, s.kv_lora_rank + s.qk_rope_head_dim);
    vec(i, s.kv_lora_rank);  // kv_a_layernorm
    add(TensorRole::attn_kv_b, i, s.kv_lora_rank, s.attention_heads * (s.qk_nope_head_dim + s.v_head_dim));
    add(TensorRole::attn_output, i, s.attention_heads * s.v_head_dim, h);
  }

  // An attention layer: self-attention, an encoder-decoder's cross-attention and its norm, the
  // q/k norms, Mllama's gates, gpt-oss's sinks.
  void attention_block(int32_t i) {
    if (s.uses_mla()) {
      latent_attention(i);
      return;
    }
    attention(i);
    if (i >= s.encoder_layers && s.is_encoder_decoder()) {  // the decoder's cross-attention and its norm
      norm(i, h);
      attention(i);
    }
    const bool cross = s.is_cross_attention_layer(i);
    if (s.qk_norm && s.qk_norm_full) { vec(i, q_dim); vec(i, kv_dim); }  // Olmo2Attention's q_norm, k_norm
    else if (s.qk_norm || cross) { vec(i, s.head_dim); vec(i, s.head_dim); }
    if (cross) { vec(i, 1); vec(i, 1); }  // Mllama's cross_attn_attn_gate, cross_attn_mlp_gate
    if (s.attention_sinks) vec(i, s.attention_heads);
  }

  // Feed-forward: router + experts (+ shared experts), or a dense MLP.
  void feed_forward(int32_t i) {
    if (!s.is_moe_layer(i)) {
      const int64_t f = s.intermediate_size;
      if (s.mlp == MlpKind::gated) {
        add(TensorRole::ffn_gate, i, h, f);
        if (s.mlp_bias) vec(i, f);
      }
      add(TensorRole::ffn_up, i, h, f);
      if (s.mlp_bias) vec(i, f);
      add(TensorRole::ffn_down, i, f, h);
      if (s.mlp_bias) vec(i, h);
      return;
    }
    const int64_t e = s.experts, f = s.moe_intermediate_size;
    add(TensorRole::router, i, h, e);
    if (s.router_bias) vec(i, e);
    if (s.router_score_correction) vec(i, e);
    add(TensorRole::ffn_gate_exps, i, h, f, e);
    add(TensorRole::ffn_up_exps, i, h, f, e);
    add(TensorRole::ffn_down_exps, i, f, h, e);
    if (s.expert_bias) {
      add(TensorRole::vector, i, 2 * f, 1, e);  // gate_up_proj_bias
      add(TensorRole::vector, i, h, 1, e);      // down_proj_bias
    }
    if (s.shared_experts > 0) {
      const int64_t fs = s.shared_expert_intermediate_size * s.shared_experts;
      add(TensorRole::ffn_gate_shexp, i, h, fs);
      add(TensorRole::ffn_up_shexp, i, h, fs);
      add(TensorRole::ffn_down_shexp, i, fs, h);
      if (s.shared_expert_gate) add(TensorRole::shared_expert_gate, i, h, 1);
    }
  }

  // One decoder (or encoder) layer: its norms, its mixer, its feed-forward.
  void layer(int32_t i) {
    for (int n = 0; n < s.norms_per_layer; ++n) norm(i, h);
    if (s.mixer == Mixer::rwkv) {
      rwkv_layer(i);
      return;
    }
    if (s.is_recurrent_layer(i)) {
      if (s.mixer == Mixer::mamba) mamba_mixer(i);
      if (s.mixer == Mixer::delta_net) delta_net(i);
      if (s.mixer == Mixer::mamba && s.is_recurrent()) return;  // Mamba: the mixer is the whole layer; Jamba: its MLP or MoE follows
    } else {
      attention_block(i);
    }
    feed_forward(i);
  }

  // After the layers: DeBERTa's relative table, the final norms, BERT's pooler, the tower, the LM head.
  void heads() {
    if (s.relative_position_embeddings > 0) add(TensorRole::position_embd, -1, h, s.relative_position_embeddings);
    if (s.final_norm) for (int stack = 0; stack < stacks(); ++stack) norm(-1, h);
    if (s.pooler) {  // BertPooler: dense + bias over the first token
      add(TensorRole::output, -1, h, h);
      vec(-1, h);
    }
    add_vision_tower(s.vision, t);
    if (s.encoder_only) return;
    if (!s.tied_embeddings) add(TensorRole::output, -1, h, s.vocab_size);
    if (s.output_bias) vec(-1, s.vocab_size);
  }
};

}  // namespace

std::vector<TensorShape> enumerate_tensors(const ModelSpec& s) {
  if (s.parameters_only > 0) return {};
  TensorList list{s, {}};
  list.embeddings();
  for (int32_t i = 0; i < static_cast<int32_t>(s.layers); ++i) list.layer(i);
  list.heads();
  return std::move(list.t);
}

}  // namespace vramfit
