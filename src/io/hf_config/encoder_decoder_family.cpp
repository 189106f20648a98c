// Encoder-decoder models: an encoder stack then a decoder stack.
// T5 (T5Stack): RMS norms without biases, relative attention bias tables in each stack's first
// layer, feed_forward_proj "relu" (wi, wo) or "gated-gelu" (wi_0, wi_1, wo), a final norm per stack.
// BART (BartEncoder, BartDecoder): LayerNorms and biases everywhere, a learned position table
// (max_position_embeddings + 2 rows, BartLearnedPositionalEmbedding's offset) and
// layernorm_embedding per stack, no final norm.
// Whisper (WhisperEncoder, WhisperDecoder): BART's layers with k_proj unbiased, the encoder fed by
// its conv stem over num_mel_bins with a table of max_source_positions, the decoder a table of
// max_target_positions, a final LayerNorm per stack; its cache holds max_source_positions encoder
// states and up to max_target_positions tokens.
#include "architectures.hpp"

#include "core/units.hpp"

namespace vramfit {

namespace {

// The stacks' depths: the configs' own keys (T5's num_layers + num_decoder_layers, BART's
// encoder_ + decoder_layers), or vramfit's (num_hidden_layers is both stacks). False on an error.
bool read_stacks(ConfigReader& r, ModelSpec& s, bool t5) {
  if (r.has("decoder_layers") || (t5 && !r.has("encoder_layers"))) {
    s.encoder_layers = t5 ? r.integer("num_layers", 6) : r.integer("encoder_layers", 0);  // T5Config: 6
    s.layers = s.encoder_layers + (t5 ? r.integer("num_decoder_layers", s.encoder_layers) : r.integer("decoder_layers", 0));
  } else {
    s.encoder_layers = r.integer("encoder_layers", 0);
  }
  if (s.encoder_layers >= 1) return true;
  r.fail(t5 && !r.has("encoder_layers") ? "num_layers" : "encoder_layers", "must be a positive integer");
  return false;
}

void read_t5(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  if (!read_stacks(r, s, true)) return;
  s.relative_attention_buckets = r.integer("relative_attention_buckets", r.integer("relative_attention_num_buckets", 32));
  s.mlp = r.text("mlp_kind", r.text("feed_forward_proj", "relu").rfind("gated-", 0) == 0 ? "gated" : "plain") == "gated"
              ? MlpKind::gated : MlpKind::plain;
}

// BART and Whisper: d_model, encoder_attention_heads and encoder_ffn_dim are read with the other
// families' keys; the decoder must match them.
bool read_bart_stacks(ConfigReader& r, ModelSpec& s) {
  if (!read_stacks(r, s, false)) return false;
  if (r.integer("decoder_ffn_dim", s.intermediate_size) != s.intermediate_size) {
    r.fail("decoder_ffn_dim", "different from encoder_ffn_dim is not counted yet");
  }
  if (r.integer("decoder_attention_heads", s.attention_heads) != s.attention_heads) {
    r.fail("decoder_attention_heads", "different from encoder_attention_heads is not counted yet");
  }
  return true;
}

void read_bart(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  if (!read_bart_stacks(r, s)) return;
  s.position_embeddings = r.integer("position_embeddings", s.max_context_tokens + 2);
  s.embedding_norm = true;
  s.final_norm = r.boolean("final_norm", r.boolean("add_final_layer_norm", false));
}

void read_whisper(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  if (!read_bart_stacks(r, s)) return;
  s.no_key_bias = true;
  s.audio_mel_bins = r.integer("num_mel_bins", 80);
  s.encoder_position_embeddings = r.integer("max_source_positions", 1500);
  s.position_embeddings = r.integer("max_target_positions", r.integer("position_embeddings", 448));
  s.max_context_tokens = sat_add(s.encoder_position_embeddings, s.position_embeddings);
}

constexpr AttentionBiases kAllBiased = {.qkv = true, .output = true, .mlp = true};

constexpr HfArchitecture kRows[] = {
    {.model_type = "t5", .source = "models/t5/configuration_t5.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .read = read_t5},
    {.model_type = "bart", .source = "models/bart/configuration_bart.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = kAllBiased,
     .biases_fixed = true, .read = read_bart},
    {.model_type = "whisper", .source = "models/whisper/configuration_whisper.py", .tie_word_embeddings = true,
     .num_key_value_heads_key = false, .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = kAllBiased,
     .biases_fixed = true, .read = read_whisper},
};

}  // namespace

const std::span<const HfArchitecture> kEncoderDecoderFamily = kRows;

}  // namespace vramfit
