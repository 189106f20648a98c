// config.json of multimodal models: the vision or audio tower, its projector and the text model
// under text_config, each from a real config at its published count.
#include "helpers.hpp"
#include "support/config_fixtures.hpp"

#include "io/hf_config.hpp"

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

TEST_CASE("multimodal configs count their vision tower and projector", "[config][parameters][vision]") {
  // Published totals: sum(p.numel()) of LlavaForConditionalGeneration in public scripts
  // (7063427072); KerasHub's Gemma 3 / MedGemma 4B presets and several parameter-count
  // assertions (4300079472); a public table of model sizes ("qwen/qwen2-vl-7b-instruct":
  // 8291375616); a Qwen2.5-VL SFT log ("总可训练参数 (冻结前): 8292166656", visual 676550144,
  // text 7615616512) and the Hub's numParameters (8292166656).
  const struct { const char* file; int64_t published, tower; } counts[] = {
      {"llava-1.5-7b-hf.json", 7063427072, 303507456 + 20979712},  // CLIP ViT-L/14-336 + the 2-layer projector
      {"gemma-3-4b-it.json", 4300079472, 0},
      {"qwen2-vl-7b-instruct.json", 8291375616, 0},
      {"qwen2.5-vl-7b-instruct.json", 8292166656, 676550144}};
  for (const auto& c : counts) {
    const HfConfigRead read = read_published(c.file, c.published);
    int64_t tower = 0;
    for (const TensorShape& t : enumerate_tensors(read.spec)) if (t.role == TensorRole::vision) tower += t.elements();
    if (c.tower > 0) CHECK(tower == c.tower);
  }
  CHECK(read_fixture("llava-1.5-7b-hf.json")->spec.vision.patches_per_image() == 577);  // 24 x 24 + the class token
  CHECK(read_fixture("gemma-3-4b-it.json")->spec.vision.patches_per_image() == 4096);   // 64 x 64 at 896 px
  // A family whose tower vramfit does not read: said, not silently dropped.
  json paligemma = {{"model_type", "paligemma"}, {"text_config", write_hf_config(preset("gemma-2-2b").spec)},
                    {"vision_config", {{"hidden_size", 1152}, {"num_hidden_layers", 27}}}};
  auto partial = read_hf_config(paligemma, "config.json");
  REQUIRE(partial);
  REQUIRE(partial->assumptions.size() == 1);
  CHECK(partial->assumptions[0].find("vision_config of model_type 'paligemma' is not counted") != std::string::npos);
  // Bad tower numbers name the field.
  json bad = json::parse(R"({"model_type": "llava", "text_config": {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 1,
      "num_attention_heads": 1, "intermediate_size": 64, "vocab_size": 10}, "vision_config": {"hidden_size": 64,
      "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 64, "patch_size": 0, "image_size": 336}})");
  auto refused = read_hf_config(bad, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "vision_config.patch_size");
}

namespace {
int64_t tower_parameters(const ModelSpec& spec) {
  int64_t tower = 0;
  for (const TensorShape& t : enumerate_tensors(spec)) tower += t.role == TensorRole::vision ? t.elements() : 0;
  return tower;
}
}  // namespace

TEST_CASE("Qwen2-Audio: Whisper-large-v3's encoder, the projector and a Qwen2 text model from the real config", "[config][parameters][vision]") {
  // Qwen2AudioForConditionalGeneration: audio_tower (Qwen2AudioEncoder, Whisper's encoder),
  // multi_modal_projector (one biased linear 1,280 -> 4,096), language_model (Qwen2). Its
  // text_config leaves out hidden_size, the layer and head counts: Qwen2Config's defaults.
  auto audio = read_fixture("qwen2-audio-7b-instruct.json");
  REQUIRE(audio);
  const ModelSpec& s = audio->spec;
  CHECK(s.vision.kind == VisionKind::whisper);
  CHECK(s.hidden_size == 4096);
  CHECK(s.kv_heads == 32);
  CHECK(s.qkv_bias);
  CHECK(s.sliding_window == 0);  // use_sliding_window: Qwen2Config's default, false
  REQUIRE(audio->assumptions.size() == 1);
  CHECK(audio->assumptions[0] == "text_config leaves out Qwen2Config's defaults, read as transformers reads them: "
                                 "hidden_size 4096, num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 32.");
  // The tower is Whisper-large-v3's encoder, tensor for tensor: its conv stem, 1,500 positions,
  // 32 layers and final LayerNorm as counted in whisper-large-v3 (whose total is the Hub's).
  auto whisper = read_fixture("whisper-large-v3.json");
  int64_t whisper_encoder = 0;
  for (const TensorShape& t : enumerate_tensors(whisper->spec)) {
    const bool stem_or_layer = t.role == TensorRole::vision || (t.layer >= 0 && t.layer < 32);
    whisper_encoder += stem_or_layer ? t.elements() : 0;
  }
  whisper_encoder += 1500 * 1280 + 2 * 1280;  // the encoder's position table and final LayerNorm
  CHECK(whisper_encoder == 636968960);
  CHECK(tower_parameters(s) == whisper_encoder + 1280 * 4096 + 4096);
  // The published total: a public table of Qwen releases lists "| Qwen2-Audio-7B / -Instruct |
  // 2024-07-16 / 07-31 | 8,397,094,912 |" (the Hub shows 8.4 B). The sum: the text model (156,032
  // tokens in and out, 32 layers of 4,096 with q/k/v biases, MLP 11,008) and the audio side.
  CHECK(count_parameters(s) == 8397094912);
  CHECK(count_parameters(preset("qwen2-audio-7b").spec) == 8397094912);
  CHECK(s.vision.patches_per_image() == 1500);  // 30 s of audio: 3,000 mel frames through the stride-2 conv
  auto again = read_hf_config(write_hf_config(s), "round trip");
  REQUIRE(again);
  CHECK(count_parameters(again->spec) == count_parameters(s));
  CHECK(again->spec.vision.kind == VisionKind::whisper);
  // Bad numbers name the audio config's own keys.
  json bad = json::parse(fixture_text("qwen2-audio-7b-instruct.json"));
  bad["audio_config"]["encoder_layers"] = 0;
  auto refused = read_hf_config(bad, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "audio_config.encoder_layers");
}

TEST_CASE("Llama 3.2 Vision, LLaVA-NeXT, Pixtral, Idefics3: towers and text from real configs", "[config][parameters][vision]") {
  // Llama 3.2 11B Vision (MllamaForConditionalGeneration): the Hub's safetensors count,
  // 10,670,220,835, as a public table of model sizes lists it ("meta-llama/llama-3.2-11b-vision-
  // instruct": 10670220835, computed with HfApi.get_safetensors_metadata). The text model has 40
  // layers, 8 of them cross-attention layers (q/k norms, two gates), and 8 extra embedding rows;
  // the vision model a 32-layer local and an 8-layer gated global encoder over 4 tiles.
  const HfConfigRead mllama = read_published("llama-3.2-11b-vision-instruct.json", 10670220835);
  CHECK(mllama.spec.cross_attention_layer_count() == 8);
  CHECK(mllama.spec.is_cross_attention_layer(3));
  CHECK_FALSE(mllama.spec.is_cross_attention_layer(4));
  CHECK(mllama.spec.cached_layers() == 32);
  CHECK(mllama.spec.vision.patches_per_image() == 4 * 1601);  // 4 tiles of (560 / 14)^2 + a class token
  CHECK(tower_parameters(mllama.spec) == 863567379 + 31461376);  // MllamaVisionModel + multi_modal_projector
  CHECK(preset("llama-3.2-11b-vision").spec.vision.kind == VisionKind::mllama);
  // One tile (max_num_tiles 1, not Mllama's default 4) survives vramfit's own keys (found by fuzz_hf_config).
  json one_tile = json::parse(fixture_text("llama-3.2-11b-vision-instruct.json"));
  one_tile["vision_config"]["max_num_tiles"] = 1;
  auto single = read_hf_config(one_tile, "config.json");
  REQUIRE(single);
  CHECK(single->spec.vision.tiles == 1);
  auto single_again = read_hf_config(write_hf_config(single->spec), "round trip");
  REQUIRE(single_again);
  CHECK(count_parameters(single_again->spec) == count_parameters(single->spec));
  CHECK(count_parameters(preset("llama-3.2-11b-vision").spec) == 10670220835);

  // No exact published total was found for these three checkpoints; each is the sum of published
  // counts and the tensors the modeling code adds, and equal to it exactly (each architecture meets
  // a published total elsewhere: LLaVA-NeXT's through Granite Vision, Idefics3's through SmolVLM
  // below, Pixtral's through Mistral 3).
  // LLaVA-NeXT (llava-hf/llava-v1.6-mistral-7b-hf): Mistral 7B (published at a 32,768 vocabulary,
  // the v0.3 preset) at 32,064 rows of embedding and LM head, LLaVA 1.5's CLIP tower and projector
  // (published above through llava-1.5-7b-hf's total), and image_newline (4,096).
  auto next = read_fixture("llava-v1.6-mistral-7b-hf.json");
  REQUIRE(next);
  const int64_t mistral_7b = count_parameters(preset("mistral-7b-v0.3").spec);
  REQUIRE(mistral_7b == 7248023552);
  const int64_t llava_tower = 303507456 + 20979712;
  CHECK(count_parameters(next->spec) == mistral_7b - (32768 - 32064) * 4096 * 2 + llava_tower + 4096);
  CHECK(count_parameters(next->spec) == 7566747648);
  CHECK(next->spec.vision.patches_per_image() == 5 * 577);  // the base image and the 2 x 2 grid of 672 x 672
  // Its text_config names only what differs from MistralConfig: the rest is read as transformers
  // fills it, and said.
  REQUIRE(next->assumptions.size() == 1);
  CHECK(next->assumptions[0] == "text_config leaves out MistralConfig's defaults, read as transformers reads them: "
                                "hidden_size 4096, num_hidden_layers 32, num_attention_heads 32.");

  // Pixtral 12B (mistral-community/pixtral-12b, a llava config with a pixtral vision_config):
  // Mistral NeMo's published 12,247,782,400, the "400M parameter vision encoder" Mistral announced
  // (PixtralVisionModel at PixtralVisionConfig's defaults: 403,489,792), and LLaVA's projector.
  auto pixtral = read_fixture("pixtral-12b.json");
  REQUIRE(pixtral);
  CHECK(pixtral->spec.vision.kind == VisionKind::pixtral);
  CHECK(tower_parameters(pixtral->spec) == 403489792 + (1024 * 5120 + 5120) + (5120 * 5120 + 5120));
  CHECK(count_parameters(pixtral->spec) == count_parameters(preset("mistral-nemo-12b").spec) + tower_parameters(pixtral->spec));
  CHECK(count_parameters(pixtral->spec) == 12682739712);
  CHECK(pixtral->spec.vision.patches_per_image() == 64 * 64);  // 1024 px in 16 px patches, no class token

  // Idefics3 8B (HuggingFaceM4/Idefics3-8B-Llama3): Llama 3.1 8B's published 8,030,261,248 with 3
  // more tokens (vocab 128,259), the SigLIP tower at 364 px and the connector (pixel shuffle 2 x 2:
  // 4 x 1,152 -> 4,096, no bias).
  auto idefics = read_fixture("idefics3-8b-llama3.json");
  REQUIRE(idefics);
  CHECK(tower_parameters(idefics->spec) == 412926192 + 4 * 1152 * 4096);
  CHECK(count_parameters(idefics->spec) == 8030261248 + 3 * 4096 * 2 + tower_parameters(idefics->spec));
  CHECK(count_parameters(idefics->spec) == 8462086384);
  CHECK(idefics->spec.vision.patches_per_image() == 17 * 26 * 26);
  CHECK(idefics->assumptions.size() == 2);  // LlamaConfig's defaults, and the processor's 17 tiles

  // Idefics3 at its published total: SmolVLM-256M-Instruct (HuggingFaceTB/SmolVLM-256M-Instruct,
  // revision 7e3e67e), "Parameter total: **256,484,928**" as a public loader's reference records
  // it. The fixture holds the keys of its config.json that shape a tensor, as that reference
  // tables them (its perceiver_config and generation keys, which shape none, left out): SmolLM2's
  // 30 layers of 576 untied from a 49,280-row vocabulary, SigLIP-base at 512 px with 16-px
  // patches (a 1,024-row position table) and the connector of 4 x 4 patches (12,288 -> 576).
  auto smolvlm = read_fixture("smolvlm-256m-instruct.json");
  REQUIRE(smolvlm);
  CHECK(count_parameters(smolvlm->spec) == 256484928);
  CHECK(tower_parameters(smolvlm->spec) == 86433024 + 12288 * 576);
  CHECK(smolvlm->spec.vision.patches_per_image() == 17 * 32 * 32);  // the processor's 4 x 4 tiles of 512 px and the whole image

  for (const auto& spec : {mllama.spec, next->spec, pixtral->spec, idefics->spec, smolvlm->spec}) {  // vramfit's own keys keep every tensor
    auto again = read_hf_config(write_hf_config(spec), "round trip");
    REQUIRE(again);
    CHECK(count_parameters(again->spec) == count_parameters(spec));
    CHECK(again->spec.vision.patches_per_image() == spec.vision.patches_per_image());
    CHECK(again->spec.cached_layers() == spec.cached_layers());
  }

  // Bad values name their field.
  json bad = json::parse(R"({"model_type": "mllama", "text_config": {"model_type": "mllama_text_model", "hidden_size": 64,
      "num_hidden_layers": 2, "num_attention_heads": 1, "intermediate_size": 64, "vocab_size": 10,
      "cross_attention_layers": [5]}})");
  auto refused = read_hf_config(bad, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "cross_attention_layers[0]");
  json grid = json::parse(R"({"model_type": "llava_next", "image_grid_pinpoints": [[336, -1]], "text_config": {"model_type": "llama",
      "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 64, "vocab_size": 10},
      "vision_config": {"hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 1, "intermediate_size": 64,
      "patch_size": 14, "image_size": 336}})");
  auto no_grid = read_hf_config(grid, "config.json");
  REQUIRE_FALSE(no_grid);
  CHECK(no_grid.error().field == "image_grid_pinpoints");
}

TEST_CASE("LLaVA-NeXT at a published total: Granite Vision 3.3 2B, SigLIP with its pooling head and four feature layers", "[config][parameters]") {
  // ibm-granite/granite-vision-3.3-2b (LlavaNextForConditionalGeneration): "Params: 2,975,396,928"
  // as a public model survey records the Hub's total. No copy of its config.json was found whole;
  // the fixture holds the keys that shape a tensor as public sources give them: the vision_config,
  // image_grid_pinpoints and vision_feature_layer [-24, -20, -12, -1] as llama.cpp's Granite Vision
  // guide (docs/multimodal/granitevision.md) copies them from the model's config.json; the
  // text_config's widths and vocab_size 49,156 as torch-spyre/sendnn-inference's model_configs.yaml
  // lists them (image_token_index 49,155 is its last row); the rest of the text_config is
  // granite-3.1-2b-instruct's (the fixture above), the language model Granite Vision is tuned from.
  const HfConfigRead g = read_published("granite-vision-3.3-2b.json", 2975396928);
  const VisionTower& v = g.spec.vision;
  CHECK(v.kind == VisionKind::siglip);
  CHECK(v.pooling_head);  // SiglipVisionTransformer builds the head: the config does not set vision_use_head
  // SiglipVisionModel at 384 px in 14-px patches: the patch conv and its bias, a 729-row position
  // table, 27 layers of 15,239,504, post_layernorm; the pooling head: probe, in_proj (3 x 1,152 rows
  // and bias), out_proj, layernorm, fc1 / fc2. The projector takes the 4 feature layers
  // concatenated (4 x 1,152 -> 2,048 -> 2,048, biased), then image_newline.
  const int64_t siglip = 3 * 14 * 14 * 1152 + 1152 + 729 * 1152 + 27 * int64_t{15239504} + 2 * 1152;
  const int64_t head = 1152 + (1152 * 3456 + 3456) + (1152 * 1152 + 1152) + 2 * 1152 + (1152 * 4304 + 4304) + (4304 * 1152 + 1152);
  const int64_t projector = (4 * 1152 * 2048 + 2048) + (2048 * 2048 + 2048) + 2048;
  CHECK(head == 15238352);
  CHECK(tower_parameters(g.spec) == siglip + head + projector);
  // The text: granite-3.1-2b-instruct's published 2,533,531,648 with one more (tied) row.
  CHECK(count_parameters(g.spec) - tower_parameters(g.spec) == 2533531648 + 2048);
  // An image: the base and the largest pinpoint grid (3,840 x 384: 10 crops) through the tower.
  CHECK(v.patches_per_image() == 11 * 27 * 27);

  // vision_use_head false drops the head; an empty vision_feature_layer is refused by name.
  json config = json::parse(fixture_text("granite-vision-3.3-2b.json"));
  config["vision_config"]["vision_use_head"] = false;
  auto headless = read_hf_config(config, "config.json");
  REQUIRE(headless);
  CHECK(count_parameters(headless->spec) == 2975396928 - head);
  config["vision_feature_layer"] = json::array();
  auto no_layers = read_hf_config(config, "config.json");
  REQUIRE_FALSE(no_layers);
  CHECK(no_layers.error().field == "vision_feature_layer");
}

TEST_CASE("Mistral 3: Pixtral's encoder and the patch-merging projector, from Mistral Small 3.1's real config", "[config][parameters]") {
  // mistralai/Mistral-Small-3.1-24B-Instruct-2503's config.json (3.2-24B-Instruct-2506 has the same
  // shapes): 24,011,361,280 parameters, the Hub's total as public projects record it (Keras'
  // mistral_small_3.1_24b presets: "params": 24011361280; "Mistral-Small-3.2-24B-Instruct-2506 |
  // ... | 24,011,361,280").
  const HfConfigRead m = read_published("mistral-small-3.1-24b-instruct-2503.json", 24011361280);
  const ModelSpec& s = m.spec;
  CHECK(s.vision.kind == VisionKind::pixtral);
  CHECK(s.vision.projector == ProjectorKind::patch_merger);
  // PixtralVisionModel at 14-px patches: the patch conv (3 x 14 x 14 x 1,024), ln_pre and 24 layers
  // of 16,779,264; Mistral3MultiModalProjector: its RMSNorm, the patch merger (2 x 2 patches:
  // 4,096 -> 1,024, no bias), linear_1 and linear_2 (multimodal_projector_bias false).
  const int64_t pixtral = 3 * 14 * 14 * 1024 + 1024 + 24 * int64_t{16779264};
  const int64_t projector = 1024 + 4096 * 1024 + 1024 * 5120 + 5120 * 5120;
  CHECK(tower_parameters(s) == pixtral + projector);
  // The text is Mistral Small 3 (2501), published at 23,572,403,200 (the preset).
  CHECK(count_parameters(s) - tower_parameters(s) == count_parameters(preset("mistral-small-24b").spec));
  CHECK(s.vision.patches_per_image() == 110 * 110);  // 1,540 px in 14-px patches, no class token

  // Ministral 3 3B (mistralai/Ministral-3-3B-Instruct-2512): its published split, "language":
  // 3429006336 and "vision": 420083712 (total 3,849,090,048, the Hub's), from the shapes its
  // publishers list (26 layers, hidden 3,072, 32 heads, 8 KV heads, intermediate 9,216, tied
  // embeddings) under a ministral3 text_config with YaRN rope_parameters.
  json ministral = json::parse(fixture_text("mistral-small-3.1-24b-instruct-2503.json"));
  ministral["text_config"] = json::parse(R"({"model_type": "ministral3", "hidden_size": 3072, "num_hidden_layers": 26,
      "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 9216, "vocab_size": 131072,
      "tie_word_embeddings": true, "max_position_embeddings": 262144, "rope_parameters": {"rope_type": "yarn", "factor": 16.0,
      "original_max_position_embeddings": 16384, "llama_4_scaling_beta": 0.1, "rope_theta": 1000000.0}})");
  auto small = read_hf_config(ministral, "config.json");
  REQUIRE(small);
  CHECK(tower_parameters(small->spec) == 420083712);
  CHECK(count_parameters(small->spec) - tower_parameters(small->spec) == 3429006336);
  CHECK(count_parameters(small->spec) == 3849090048);
  CHECK(small->spec.max_context_tokens == 262144);  // YaRN's 16 x 16,384 is already max_position_embeddings
  CHECK(small->assumptions.empty());
  auto again = read_hf_config(write_hf_config(small->spec), "round trip");
  REQUIRE(again);
  CHECK(count_parameters(again->spec) == 3849090048);

  json bad = json::parse(fixture_text("mistral-small-3.1-24b-instruct-2503.json"));
  bad["spatial_merge_size"] = 0;
  auto refused = read_hf_config(bad, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "spatial_merge_size");
}

TEST_CASE("Qwen3.5 / 3.6 (qwen3_5_moe): Qwen3-Next's hybrid layers, Qwen3.5's vision tower and the MTP layer, from a real config", "[config][parameters][vision]") {
  // Qwen/Qwen3.6-35B-A3B: the Hub's safetensors total, 35,951,822,704, as a public license audit
  // lists it ("'Qwen/Qwen3.6-35B-A3B': ('Apache-2.0', 35951822704)", read from the Hub API's
  // safetensors.total); the config is the Hugging Face config a public training script pins for
  // it. The checkpoint holds the model, its vision tower and one MTP layer (mtp.*).
  auto read = read_fixture("qwen3.6-35b-a3b.json");
  REQUIRE(read);
  const ModelSpec& s = read->spec;
  CHECK(s.is_hybrid());
  CHECK(s.recurrent_layer_count() == 30);
  CHECK(s.cached_layers() == 10);
  CHECK(s.experts == 256);
  CHECK(s.shared_expert_gate);
  CHECK(s.vision.kind == VisionKind::qwen3_5);
  // Qwen3_5VisionModel: conv with bias (3 x 2 x 16 x 16 -> 1,152), a 2,304-row position table,
  // 27 blocks (LayerNorms, fused qkv and proj with biases, fc1 and fc2 of 4,304 with biases) and
  // the merger (LayerNorm, 4,608 -> 4,608 -> 2,048 with biases).
  const int64_t h = 1152, inner = 4304, merged = 4 * h;
  const int64_t block = 4 * h + (h * 3 * h + 3 * h) + (h * h + h) + (h * inner + inner) + (inner * h + h);
  CHECK(tower_parameters(s) == (3 * 2 * 16 * 16 * h + h) + 2304 * h + 27 * block + (2 * h + merged * merged + merged + merged * 2048 + 2048));
  CHECK(tower_parameters(s) == 446571248);
  // The MTP layer shares the embedding and LM head: fc (2 x 2,048 -> 2,048), three norms and one
  // full-attention MoE layer like the model's last.
  REQUIRE(read->assumptions.size() == 1);
  CHECK(read->assumptions[0].rfind("mtp_num_hidden_layers 1: the checkpoint also holds 844640768 parameters", 0) == 0);
  CHECK(count_mtp_parameters(s) == 844640768);
  CHECK(count_parameters(s) + count_mtp_parameters(s) == 35951822704);
  CHECK(s.vision.patches_per_image() == 0);  // dynamic resolution, as Qwen2-VL's
  auto again = read_hf_config(write_hf_config(s), "round trip");
  REQUIRE(again);
  CHECK(count_parameters(again->spec) == count_parameters(s));
  CHECK(count_mtp_parameters(again->spec) == count_mtp_parameters(s));
  CHECK(again->spec.vision.kind == VisionKind::qwen3_5);
  const ModelSpec& preset_spec = preset("qwen3.6-35b-a3b").spec;
  CHECK(count_parameters(preset_spec) + count_mtp_parameters(preset_spec) == 35951822704);
  // A bad position table names its key.
  json bad = json::parse(fixture_text("qwen3.6-35b-a3b.json"));
  bad["vision_config"]["num_position_embeddings"] = 0;
  auto refused = read_hf_config(bad, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "vision_config.num_position_embeddings");

  // Qwen3.6-27B, Qwen3.5's dense layout (qwen3_5): the Hub's 27,781,427,952 in the same audit
  // ("'Qwen/Qwen3.6-27B': ('Apache-2.0', 27781427952)"). Its config.json was not found; the widths
  // are the ones llama.cpp printed loading unsloth's GGUF of it (validation/engines/llamacpp.json,
  // point qwen36-27b-udq4kxl-mtp-rtx5090-ctx131072-np4: n_embd 5120, 64 layers + 1 MTP layer, 24
  // heads, 4 KV heads of 256, n_ff 17408, ssm d_inner 6144 over dt_rank 48 value heads, d_state
  // 128, 16 groups, n_vocab 248320, an output tensor of its own) and its mmproj (n_embd 1152,
  // n_head 16, n_ff 4304, 27 layers, patch 16, n_merge 2, projection_dim 5120: the 35B-A3B's tower).
  json dense = json::parse(fixture_text("qwen3.6-35b-a3b.json"));
  dense["model_type"] = "qwen3_5";
  dense["text_config"] = json::parse(R"({"model_type": "qwen3_5_text", "hidden_size": 5120, "num_hidden_layers": 64,
      "num_attention_heads": 24, "num_key_value_heads": 4, "head_dim": 256, "intermediate_size": 17408, "vocab_size": 248320,
      "tie_word_embeddings": false, "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 48,
      "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "mtp_num_hidden_layers": 1})");
  dense["vision_config"]["out_hidden_size"] = 5120;
  auto q27 = read_hf_config(dense, "config.json");
  REQUIRE(q27);
  CHECK_FALSE(q27->spec.is_moe());
  CHECK(q27->spec.recurrent_layer_count() == 48);
  CHECK(count_mtp_parameters(q27->spec) == 424699392);
  CHECK(count_parameters(q27->spec) + count_mtp_parameters(q27->spec) == 27781427952);

  // Qwen3.5-2B and 9B the same way, against the same audit's "'Qwen/Qwen3.5-2B': ('Apache-2.0',
  // 2274069824)" and "'Qwen/Qwen3.5-9B': ('Apache-2.0', 9653104368)". 2B: llama.cpp's widths for
  // its Q8_0 GGUF (validation point qwen35-2b-q80-cpu-ctx262144-np4-ub1024: n_embd 2048, 24 layers,
  // 8 heads, 2 KV heads of 256, n_ff 6144, ssm d_inner 2048 over 16 value heads, no output tensor:
  // tied) and its mmproj (n_embd 1024, 16 heads, n_ff 4096, 24 layers, projection_dim 2048). 9B:
  // llama.cpp's widths for its Q4_K_S GGUF (n_embd 4096, 32 layers, 16 heads, 4 KV heads of 256,
  // n_ff 12288, ssm d_inner 4096 over 32 value heads, an output tensor), whose text alone it counts
  // as "n_params": 8953803264; its tower's widths were not printed: the 27B's, which the total
  // then meets exactly.
  struct Size { int64_t hidden, layers, heads, kv_heads, ffn, value_heads; bool tied; int64_t tower_depth, tower_width, tower_ffn; int64_t hub; };
  for (const Size& z : {Size{2048, 24, 8, 2, 6144, 16, true, 24, 1024, 4096, 2274069824}, Size{4096, 32, 16, 4, 12288, 32, false, 27, 1152, 4304, 9653104368}}) {
    INFO(z.hidden);
    json c = dense;
    c["text_config"].update({{"hidden_size", z.hidden}, {"num_hidden_layers", z.layers}, {"num_attention_heads", z.heads},
                             {"num_key_value_heads", z.kv_heads}, {"intermediate_size", z.ffn}, {"linear_num_value_heads", z.value_heads},
                             {"tie_word_embeddings", z.tied}});
    c["vision_config"].update({{"depth", z.tower_depth}, {"hidden_size", z.tower_width}, {"intermediate_size", z.tower_ffn},
                               {"out_hidden_size", z.hidden}});
    auto read = read_hf_config(c, "config.json");
    REQUIRE(read);
    CHECK(count_parameters(read->spec) + count_mtp_parameters(read->spec) == z.hub);
    if (!z.tied) {  // the text alone, as llama.cpp counts the 9B's GGUF
      int64_t text = 0;
      for (const TensorShape& t : enumerate_tensors(read->spec)) text += t.role == TensorRole::vision ? 0 : t.elements();
      CHECK(text == 8953803264);
    }
  }
}

TEST_CASE("Llama 4 Scout and Maverick: experts in every layer or every other, chunked attention, the vision tower, from their configs", "[config][parameters]") {
  // The Hub's counts (safetensors.parameters.BF16), as public notes quote them:
  // meta-llama/Llama-4-Scout-17B-16E-Instruct "108,641,793,536"; "The Hugging Face checkpoints
  // hold 108,641,793,536 and 401,583,781,376 tensors in total. Both differ from the text backbone
  // by the same 871,932,416 parameters (the vision encoder and projector)". The Scout fixture is
  // the Llama4Config transformers prints for meta-llama/Llama-4-Scout-17B-16E; the Maverick one is
  // TensorRT-LLM's copy of Maverick's config with its 48 text and 34 vision layers put back.
  auto scout = read_fixture("llama-4-scout-17b-16e-instruct.json");
  REQUIRE(scout);
  const ModelSpec& s = scout->spec;
  CHECK(count_parameters(s) == 108641793536);
  CHECK(tower_parameters(s) == 871932416);
  CHECK(s.moe_layer_count() == 48);
  CHECK(s.intermediate_size == 16384);
  CHECK(s.moe_intermediate_size == 8192);
  CHECK(s.shared_experts == 1);
  // no_rope_layers: every 4th layer (NoPE) attends to the whole context, the others in chunks.
  CHECK(s.sliding_window == 8192);
  CHECK(s.sliding_layer_count() == 36);
  CHECK_FALSE(s.is_sliding_layer(3));
  CHECK(s.is_sliding_layer(4));
  CHECK(s.cached_layers() == 48);
  CHECK(s.vision.kind == VisionKind::llama4);
  CHECK(s.vision.patches_per_tile() == 24 * 24 + 1);
  CHECK(s.vision.patches_per_image() == 17 * 577);
  REQUIRE(scout->assumptions.size() == 2);
  CHECK(scout->assumptions[0].rfind("attention_chunk_size 8192: the 36 chunked-attention layers' cache", 0) == 0);
  CHECK(scout->assumptions[1].rfind("Llama 4: an image is read as the image processor's default 16 tiles of 336 px", 0) == 0);
  // One MoE layer: attention, 16 experts and the shared expert of 8,192, the router, two norms.
  int64_t layer0 = 0;
  for (const TensorShape& t : enumerate_tensors(s)) layer0 += t.layer == 0 ? t.elements() : 0;
  CHECK(layer0 == (5120 * 5120 * 2 + 5120 * 1024 * 2) + 17 * 3 * 5120 * int64_t(8192) + 5120 * 16 + 2 * 5120);

  auto maverick = read_fixture("llama-4-maverick-17b-128e-instruct.json");
  REQUIRE(maverick);
  const ModelSpec& m = maverick->spec;
  CHECK(count_parameters(m) == 401583781376);
  CHECK(tower_parameters(m) == 871932416);
  CHECK(m.moe_layer_count() == 24);  // interleave_moe_layer_step 2: layers 1, 3, ..., 47
  CHECK(m.is_moe_layer(1));
  CHECK_FALSE(m.is_moe_layer(0));
  CHECK(m.sliding_layer_count() == 36);  // no no_rope_layers: every no_rope_layer_interval-th (4) is NoPE

  // Round trips through Llama 4's own keys, and the presets.
  for (const ModelSpec* spec : {&s, &m}) {
    auto again = read_hf_config(write_hf_config(*spec), "round trip");
    REQUIRE(again);
    CHECK(count_parameters(again->spec) == count_parameters(*spec));
    CHECK(again->spec.moe_layer_count() == spec->moe_layer_count());
    CHECK(again->spec.sliding_layer_count() == spec->sliding_layer_count());
    CHECK(again->spec.vision.patches_per_image() == spec->vision.patches_per_image());
  }
  CHECK(count_parameters(preset("llama-4-scout").spec) == 108641793536);
  CHECK(count_parameters(preset("llama-4-maverick").spec) == 401583781376);

  // moe_layers that are not one run of every n-th layer, a null chunk, mismatched adapter widths.
  json config = json::parse(fixture_text("llama-4-scout-17b-16e-instruct.json"));
  json text = config["text_config"];
  text["moe_layers"] = {1, 3, 4};
  json wrong = config;
  wrong["text_config"] = text;
  auto refused = read_hf_config(wrong, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "moe_layers");
  text["moe_layers"] = {47};  // one MoE layer, the last
  text["attention_chunk_size"] = nullptr;
  wrong["text_config"] = text;
  auto one = read_hf_config(wrong, "config.json");
  REQUIRE(one);
  CHECK(one->spec.moe_layer_count() == 1);
  CHECK(one->spec.is_moe_layer(47));
  CHECK(one->spec.sliding_layer_count() == 0);
  // layer_types (newer configs): the "chunked_attention" entries slide, one entry per layer.
  text = config["text_config"];
  text["layer_types"] = json::array();
  for (int i = 0; i < 48; ++i) text["layer_types"].push_back(i % 2 == 0 ? "chunked_attention" : "full_attention");
  wrong["text_config"] = text;
  auto listed = read_hf_config(wrong, "config.json");
  REQUIRE(listed);
  CHECK(listed->spec.sliding_layer_count() == 24);
  CHECK(listed->spec.is_sliding_layer(0));
  CHECK_FALSE(listed->spec.is_sliding_layer(1));
  text["layer_types"].erase(47);
  wrong["text_config"] = text;
  refused = read_hf_config(wrong, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "layer_types");
  wrong = config;
  wrong["vision_config"]["vision_output_dim"] = 7680;
  refused = read_hf_config(wrong, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "vision_output_dim");
  CHECK(refused.error().message.rfind("config.json: vision_config: vision_output_dim must equal", 0) == 0);
}
