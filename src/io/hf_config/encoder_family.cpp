// BERT-style encoders (BertModel, RobertaModel, XLMRobertaModel, DebertaV2Model): learned positions
// and segments, an embeddings LayerNorm, post-norm layers with biases, a pooler, no LM head.
#include "architectures.hpp"

namespace vramfit {

namespace {

void read_bert(ConfigReader& r, ModelSpec& s, HfConfigRead&) {
  s.position_embeddings = s.max_context_tokens;
  s.token_type_embeddings = r.integer("type_vocab_size", 2);
  s.embedding_norm = s.pooler = s.encoder_only = true;
  s.final_norm = false;
  s.tied_embeddings = false;
}

// DeBERTa-v2/v3 (DebertaV2Embeddings, DebertaV2Encoder): absolute positions only with
// position_biased_input, no segments by default, no pooler; relative attention's rel_embeddings
// (2 x position_buckets rows, else 2 x max_relative_positions) with its LayerNorm.
void read_deberta_v2(ConfigReader& r, ModelSpec& s, HfConfigRead& out) {
  read_bert(r, s, out);
  s.position_embeddings = r.boolean("position_biased_input", true) ? s.max_context_tokens : 0;
  s.token_type_embeddings = r.integer("type_vocab_size", 0);
  s.pooler = false;
  if (r.boolean("relative_attention", false)) {
    // -1 means "unset" for both keys (DebertaV2Config), so they are read as signed numbers.
    auto signed_key = [&r](const char* key) {
      return r.config.contains(key) && r.config.at(key).is_number_integer() ? r.config.at(key).get<int64_t>() : int64_t(-1);
    };
    int64_t span = signed_key("max_relative_positions");
    if (span < 1 || span > kMaxConfigDimension) span = s.max_context_tokens;
    const int64_t buckets = signed_key("position_buckets");
    s.relative_position_embeddings = 2 * (buckets > 0 && buckets <= kMaxConfigDimension ? buckets : span);
    s.final_norm = r.text("norm_rel_ebd", "none").find("layer_norm") != std::string::npos;
  }
  if (r.integer("embedding_size", s.hidden_size) != s.hidden_size) r.fail("embedding_size", "different from hidden_size (embed_proj) is not counted yet");
  if (r.integer("conv_kernel_size", 0) > 0) r.fail("conv_kernel_size", "DeBERTa's convolution layer is not counted yet");
}

constexpr AttentionBiases kAllBiased = {.qkv = true, .output = true, .mlp = true};

constexpr HfArchitecture kRows[] = {
    {.model_type = "bert", .source = "models/bert/configuration_bert.py", .num_key_value_heads_key = false,
     .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = kAllBiased, .biases_fixed = true, .read = read_bert},
    {.model_type = "roberta", .source = "models/roberta/configuration_roberta.py", .num_key_value_heads_key = false,
     .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = kAllBiased, .biases_fixed = true, .read = read_bert},
    {.model_type = "xlm-roberta", .source = "models/xlm_roberta/configuration_xlm_roberta.py", .num_key_value_heads_key = false,
     .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = kAllBiased, .biases_fixed = true, .read = read_bert},
    {.model_type = "deberta-v2", .source = "models/deberta_v2/configuration_deberta_v2.py", .num_key_value_heads_key = false,
     .norm = NormKind::layer, .mlp = MlpKind::plain, .always_biased = kAllBiased, .biases_fixed = true,
     .read = read_deberta_v2},
};

}  // namespace

const std::span<const HfArchitecture> kEncoderFamily = kRows;

}  // namespace vramfit
