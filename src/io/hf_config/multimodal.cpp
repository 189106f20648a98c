// The towers beside a language model in a multimodal config.json: the image encoder and
// projector of LLaVA and LLaVA-NeXT (CLIPVisionConfig, or PixtralVisionConfig under a llava
// config), Mistral 3 (PixtralVisionConfig), Gemma 3 and Idefics3 (SiglipVisionConfig,
// Idefics3VisionConfig), Qwen2-VL / Qwen2.5-VL / Qwen3.5 (their VisionConfig: depth, embed_dim or
// hidden_size, mlp_ratio or intermediate_size, out_hidden_size), Mllama (MllamaVisionConfig) and
// Llama 4; Qwen2-Audio's audio_config (Qwen2AudioEncoderConfig). Other families' towers are not
// counted, and the assumptions say so. Also the text_config's class defaults.
#include "config_sections.hpp"

#include <algorithm>

#include "core/units.hpp"

namespace vramfit {

namespace {

// The largest grid of LLaVA-NeXT's image_grid_pinpoints in tiles of image_size, plus the base
// image (LlavaNextModel.get_image_features runs every crop of an image through the tower).
int64_t llava_next_crops(const json& root, int64_t image_size, ConfigReader& top) {
  if (!root.contains("image_grid_pinpoints") || image_size <= 0) return 1;
  const json& points = root.at("image_grid_pinpoints");
  int64_t most = 1;
  bool valid = points.is_array();
  for (const json& p : valid ? points : json::array()) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number_integer() ||
        p[0].get<int64_t>() <= 0 || p[1].get<int64_t>() <= 0 || p[0].get<int64_t>() > (1 << 16) || p[1].get<int64_t>() > (1 << 16)) {
      valid = false;
      break;
    }
    most = std::max(most, ceil_div(p[0].get<int64_t>(), image_size) * ceil_div(p[1].get<int64_t>(), image_size));
  }
  if (!valid) top.fail("image_grid_pinpoints", "must be a list of [height, width] pairs of positive integers up to 65,536");
  return most + 1;
}

// Qwen2AudioEncoder (Whisper-large-v3's encoder; WhisperConfig's defaults where a key is
// missing), then Qwen2AudioMultiModalProjector: one biased linear to the text width.
void read_audio_tower(ConfigReader& v, const ModelSpec& s, VisionTower& t) {
  t.kind = VisionKind::whisper;
  t.layers = v.integer("encoder_layers", 32);
  t.hidden = v.integer("d_model", 1280);
  t.heads = v.integer("encoder_attention_heads", 20);
  t.intermediate = v.integer("encoder_ffn_dim", 5120);
  t.channels = v.integer("num_mel_bins", 128);
  t.image_size = v.integer("max_source_positions", 1500);
  t.patch = 2;
  t.out_hidden = s.hidden_size;
  t.projector = ProjectorKind::linear;
  t.projector_input = t.hidden;
}

// LLaVA, LLaVA-NeXT, Mistral 3, Gemma 3, Idefics3 and Mllama: a fixed-size tile encoder.
void read_tile_tower(const json& root, const std::string& family, ConfigReader& v, ConfigReader& top, const ModelSpec& s,
                     VisionTower& t, HfConfigRead& out) {
  const bool llava = family == "llava" || family == "llava_next", mistral3 = family == "mistral3";
  // LLaVA's tower is CLIP's unless its vision_config says Pixtral or SigLIP (Granite Vision).
  const std::string tower = v.text("model_type", "");
  const bool pixtral = mistral3 || (llava && tower == "pixtral");
  t.kind = pixtral ? VisionKind::pixtral : llava && tower != "siglip_vision_model" ? VisionKind::clip
           : family == "mllama" ? VisionKind::mllama : VisionKind::siglip;
  // PixtralVisionConfig's defaults (its config.json names only what differs).
  t.layers = v.integer("num_hidden_layers", pixtral ? 24 : 0);
  t.hidden = v.integer("hidden_size", pixtral ? 1024 : 0);
  t.heads = v.integer("num_attention_heads", v.integer("attention_heads", pixtral ? 16 : 0));  // Mllama: attention_heads
  t.intermediate = v.integer("intermediate_size", pixtral ? 4096 : 0);
  t.patch = v.integer("patch_size", pixtral ? 16 : 0);
  t.image_size = v.integer("image_size", pixtral ? 1024 : 0);
  t.channels = v.integer("num_channels", 3);
  t.out_hidden = s.hidden_size;
  t.projector = llava ? ProjectorKind::llava_mlp : mistral3 ? ProjectorKind::patch_merger : family == "gemma3" ? ProjectorKind::gemma3
                : family == "idefics3" ? ProjectorKind::pixel_shuffle : ProjectorKind::linear;
  t.projector_bias = top.boolean("multimodal_projector_bias", true);
  t.rms_norm = t.gated_mlp = pixtral;
  // Tiles per image: LLaVA-NeXT's crops, Idefics3's processor default, Mllama's max_num_tiles
  // (also vramfit's own key for the others, as write_hf_config writes them).
  int64_t tiles = 1;
  if (mistral3) {
    t.merge = top.integer("spatial_merge_size", 2);
  } else if (family == "llava_next") {
    t.image_newline = true;
    tiles = llava_next_crops(root, t.image_size, top);
  } else if (family == "idefics3") {
    t.scale_factor = top.integer("scale_factor", 2);
    tiles = 17;  // Idefics3ImageProcessor: longest_edge 4 x 364 -> 4 x 4 crops, and the whole image
    out.assumptions.push_back("Idefics3: an image is read as the image processor's default 4 x 4 crops of " +
                              std::to_string(t.image_size) + " px and the whole image (17 tiles through the tower).");
  } else if (family == "mllama") {
    tiles = 4;
    t.global_layers = v.integer("num_global_layers", 8);
    t.projector_input = v.integer("vision_output_dim", 7680);
    const json& ratios = root.at("vision_config").value("supported_aspect_ratios", json::array());
    // MllamaVisionConfig's default list has 8 entries.
    t.aspect_ratios = v.integer("aspect_ratio_count", ratios.is_array() && !ratios.empty() ? static_cast<int64_t>(ratios.size()) : 8);
  }
  t.tiles = v.integer("max_num_tiles", tiles);
  // SiglipVisionTransformer builds its pooling head unless vision_use_head says no (Gemma 3's
  // does); Idefics3VisionTransformer has none.
  t.pooling_head = t.kind == VisionKind::siglip && family != "idefics3" && v.boolean("vision_use_head", true);
  // LLaVA's projector takes the vision_feature_layer outputs concatenated (LlavaNextModel.get_image_features);
  // vision_output_dim is vramfit's own key for the width, as write_hf_config writes it.
  const json& feature_layers = root.value("vision_feature_layer", json());
  if (llava) t.projector_input = v.integer("vision_output_dim", sat_mul(t.hidden, feature_layers.is_array() ? int64_t(feature_layers.size()) : 1));
}

// Llama4VisionModel: a CLIP-like encoder of one 336-px tile, then the pixel-shuffle adapter.
void read_llama4_tower(ConfigReader& v, const ModelSpec& s, VisionTower& t, HfConfigRead& out) {
  t.kind = VisionKind::llama4;
  t.layers = v.integer("num_hidden_layers", 34);
  t.hidden = v.integer("hidden_size", 768);
  t.heads = v.integer("num_attention_heads", 16);
  t.intermediate = v.integer("intermediate_size", 5632);
  t.patch = v.integer("patch_size", 14);
  t.image_size = v.integer("image_size", 448);
  t.channels = v.integer("num_channels", 3);
  t.out_hidden = s.hidden_size;
  t.projector = ProjectorKind::llama4;
  // The adapter's fc1 gives projector_input_dim, its fc2 takes projector_output_dim, and the
  // projector takes vision_output_dim: one width in any model that runs.
  t.projector_input = v.integer("projector_output_dim", 4096);
  if (v.integer("projector_input_dim", t.projector_input) != t.projector_input ||
      v.integer("vision_output_dim", t.projector_input) != t.projector_input) {
    v.fail("vision_output_dim", "must equal projector_input_dim and projector_output_dim (the adapter's one width)");
  }
  t.tiles = v.integer("max_num_tiles", 17);
  out.assumptions.push_back("Llama 4: an image is read as the image processor's default 16 tiles of " +
                            std::to_string(t.image_size) + " px and the whole image (max_patches 16: 17 tiles through the tower).");
}

// Qwen2-VL, Qwen2.5-VL and Qwen3.5: dynamic resolution, patches merged spatial_merge_size^2 at a time.
void read_qwen_tower(const std::string& family, ConfigReader& v, const ModelSpec& s, VisionTower& t) {
  const bool qwen3_5 = family.rfind("qwen3_5", 0) == 0;
  t.kind = qwen3_5 ? VisionKind::qwen3_5 : VisionKind::qwen2_vl;
  t.layers = v.integer("depth", 0);
  t.heads = v.integer("num_heads", 0);
  t.patch = v.integer("patch_size", qwen3_5 ? 16 : 14);
  t.channels = v.integer("in_chans", v.integer("in_channels", 3));
  t.temporal_patch = v.integer("temporal_patch_size", 2);
  t.merge = v.integer("spatial_merge_size", 2);
  if (family == "qwen2_vl") {  // Qwen2VisionTransformerPretrainedModel: LayerNorms, fc1/fc2
    t.hidden = v.integer("embed_dim", 0);
    t.intermediate = sat_mul(t.hidden, v.integer("mlp_ratio", 4));
    t.out_hidden = v.integer("hidden_size", s.hidden_size);
  } else {  // Qwen2_5_VisionTransformerPretrainedModel: RMSNorms, a gated MLP; Qwen3_5VisionModel: neither
    t.hidden = v.integer("hidden_size", 0);
    t.intermediate = v.integer("intermediate_size", 0);
    t.out_hidden = v.integer("out_hidden_size", s.hidden_size);
    t.rms_norm = t.gated_mlp = !qwen3_5;
    if (qwen3_5) t.position_table = v.integer("num_position_embeddings", 2304);
  }
}

// Each dimension within what a real tower has, the error naming the key it came from.
void check_tower(const VisionTower& t, bool audio, bool llava, const std::string& section, ConfigReader& r) {
  const bool mllama = t.kind == VisionKind::mllama, llama4 = t.kind == VisionKind::llama4;
  const struct { int64_t value, limit; const char* field; bool top_level; } bounds[] = {
      {t.layers, 1 << 10, audio ? "encoder_layers" : "num_hidden_layers", false}, {t.hidden, 1 << 16, audio ? "d_model" : "hidden_size", false},
      {t.intermediate, 1 << 18, audio ? "encoder_ffn_dim" : "intermediate_size", false}, {t.patch, 1 << 10, "patch_size", false},
      {t.channels, audio ? 1 << 12 : 64, audio ? "num_mel_bins" : "num_channels", false}, {t.temporal_patch, 64, "temporal_patch_size", false},
      {t.tiles, 64, mllama || llama4 ? "max_num_tiles" : "image_grid_pinpoints", !mllama && !llama4},
      {mllama ? t.global_layers : 1, 1 << 10, "num_global_layers", false},
      {mllama ? t.aspect_ratios : 1, 1 << 10, "supported_aspect_ratios", false},
      {mllama || llama4 || llava ? t.projector_input : 1, 1 << 20, llava ? "vision_feature_layer" : "vision_output_dim", llava},
      {t.projector == ProjectorKind::pixel_shuffle ? t.scale_factor : 1, 64, "scale_factor", true},
      {t.projector == ProjectorKind::patch_merger ? t.merge : 1, 16, "spatial_merge_size", true},
      {t.kind == VisionKind::qwen3_5 ? t.position_table : 1, 1 << 20, "num_position_embeddings", false}};
  for (const auto& b : bounds) {
    if (b.value <= 0 || b.value > b.limit) {
      r.fail(b.top_level ? std::string(b.field) : section + "." + b.field, "must be an integer from 1 to " + std::to_string(b.limit));
      return;
    }
  }
  if (!t.dynamic_resolution() && (t.image_size < t.patch || t.image_size > (1 << 16))) {
    r.fail(section + (audio ? ".max_source_positions" : ".image_size"), "must lie between patch_size and 65,536");
  }
  if (t.dynamic_resolution() && (t.merge <= 0 || t.merge > 16 || t.out_hidden <= 0 || t.out_hidden > (1 << 18))) {
    r.fail(section + ".spatial_merge_size", "and out_hidden_size must be positive");
  }
}

}  // namespace

json with_class_defaults(const json& text, HfConfigRead& out) {
  const auto type = text.find("model_type");
  if (type == text.end() || !type->is_string()) return json();
  const bool mistral = *type == "mistral", qwen2 = *type == "qwen2";
  if (!mistral && !qwen2 && *type != "llama") return json();
  const struct { const char* key; int64_t llama, mistral, qwen2; } defaults[] = {
      {"vocab_size", 32000, 32000, 151936}, {"hidden_size", 4096, 4096, 4096}, {"intermediate_size", 11008, 14336, 22016},
      {"num_hidden_layers", 32, 32, 32}, {"num_attention_heads", 32, 32, 32}, {"num_key_value_heads", 0, 8, 32}};
  json filled = text;
  std::string used;
  for (const auto& d : defaults) {
    const int64_t value = mistral ? d.mistral : qwen2 ? d.qwen2 : d.llama;
    if (value == 0 || (text.contains(d.key) && !text.at(d.key).is_null())) continue;
    filled[d.key] = value;
    used += (used.empty() ? "" : ", ") + std::string(d.key) + " " + std::to_string(value);
  }
  if (used.empty()) return json();
  out.assumptions.push_back(std::string("text_config leaves out ") + (mistral ? "MistralConfig" : qwen2 ? "Qwen2Config" : "LlamaConfig") +
                            "'s defaults, read as transformers reads them: " + used + ".");
  return filled;
}

void read_vision_tower(const json& root, const std::string& origin, ModelSpec& s, ConfigReader& r, HfConfigRead& out) {
  ConfigReader top{root, origin, std::nullopt};
  const std::string family = top.text("model_type", "");
  const bool audio = family == "qwen2_audio";
  const char* const key = audio ? "audio_config" : "vision_config";
  if (!root.contains(key) || !root.at(key).is_object()) return;
  ConfigReader v{root.at(key), origin + ": " + key, std::nullopt};
  VisionTower& t = s.vision;
  const bool llava = family == "llava" || family == "llava_next";
  if (audio) {
    read_audio_tower(v, s, t);
  } else if (llava || family == "mistral3" || family == "gemma3" || family == "idefics3" || family == "mllama") {
    read_tile_tower(root, family, v, top, s, t, out);
  } else if (family == "llama4") {
    read_llama4_tower(v, s, t, out);
  } else if (family == "qwen2_vl" || family == "qwen2_5_vl" || family.rfind("qwen3_5", 0) == 0) {
    read_qwen_tower(family, v, s, t);
  } else {
    out.assumptions.push_back("vision_config of model_type '" + family + "' is not counted.");  // the README lists those that are
    return;
  }
  r.take_error(v);
  r.take_error(top);
  if (r.error) return;
  check_tower(t, audio, llava, key, r);
}

}  // namespace vramfit
