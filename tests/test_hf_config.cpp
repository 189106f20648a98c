// config.json reading: architectures' structure, nested text_config, and errors naming fields.
#include "helpers.hpp"

#include "io/hf_config.hpp"

#include <fstream>
#include <sstream>

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

TEST_CASE("a real Llama 3.1 8B config.json gives the preset's count", "[config]") {
  const char* text = R"({
    "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
    "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu", "hidden_size": 4096,
    "initializer_range": 0.02, "intermediate_size": 14336, "max_position_embeddings": 131072,
    "mlp_bias": false, "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "rope_theta": 500000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0", "use_cache": true, "vocab_size": 128256})";
  auto read = read_hf_config_text(text, "config.json");
  REQUIRE(read);
  CHECK(count_parameters(read->spec) == 8030261248);
  CHECK(read->spec.head_dim == 128);
  CHECK(read->assumptions.empty());
}

TEST_CASE("head_dim is taken as given, not hidden / heads", "[config]") {
  // The keys of google/gemma-2-9b's and Qwen/Qwen3-0.6B's config.json (the Hub repositories),
  // written out: 3584 / 16 = 224 but head_dim is 256; 1024 / 16 = 64 but head_dim is 128.
  const json gemma2 = {{"model_type", "gemma2"}, {"hidden_size", 3584}, {"intermediate_size", 14336},
                       {"num_hidden_layers", 42}, {"num_attention_heads", 16}, {"num_key_value_heads", 8},
                       {"head_dim", 256}, {"vocab_size", 256000}, {"max_position_embeddings", 8192},
                       {"sliding_window", 4096}, {"query_pre_attn_scalar", 256}, {"rms_norm_eps", 1e-06},
                       {"torch_dtype", "float32"}};
  auto g = read_hf_config(gemma2, "config.json");
  REQUIRE(g);
  CHECK(g->spec.head_dim == 256);
  const json qwen3 = {{"model_type", "qwen3"}, {"hidden_size", 1024}, {"intermediate_size", 3072},
                      {"num_hidden_layers", 28}, {"num_attention_heads", 16}, {"num_key_value_heads", 8},
                      {"head_dim", 128}, {"vocab_size", 151936}, {"max_position_embeddings", 40960},
                      {"tie_word_embeddings", true}, {"torch_dtype", "bfloat16"}};
  auto q = read_hf_config(qwen3, "config.json");
  REQUIRE(q);
  CHECK(q->spec.head_dim == 128);
  // Without head_dim, LlamaConfig takes hidden_size // num_attention_heads (configuration_llama.py).
  json divided = qwen3;
  divided.erase("head_dim");
  divided["model_type"] = "llama";
  auto d = read_hf_config(divided, "config.json");
  REQUIRE(d);
  CHECK(d->spec.head_dim == 64);
  // Qwen3Config's default is its own: 128 (configuration_qwen3.py), not 1024 / 16.
  json qwen3_default = qwen3;
  qwen3_default.erase("head_dim");
  auto qd = read_hf_config(qwen3_default, "config.json");
  REQUIRE(qd);
  CHECK(qd->spec.head_dim == 128);
  INFO("gemma-2-9b: " << count_parameters(g->spec) << ", qwen3-0.6b: " << count_parameters(q->spec));
  CHECK(count_parameters(g->spec) == 9241705984);  // the Hub's safetensors total for google/gemma-2-9b
  CHECK(count_parameters(q->spec) == 596049920);   // and for Qwen/Qwen3-0.6B
}

TEST_CASE("multimodal configs are read from text_config", "[config]") {
  json config = {{"model_type", "gemma3"}, {"text_config", write_hf_config(preset("gemma-3-1b").spec)}};
  auto read = read_hf_config(config, "config.json");
  REQUIRE(read);
  CHECK(count_parameters(read->spec) == 999885952);
  // An incomplete vision_config is an error naming its field, not a tower silently dropped.
  config["vision_config"] = {{"hidden_size", 1152}};
  auto incomplete = read_hf_config(config, "config.json");
  REQUIRE_FALSE(incomplete);
  CHECK(incomplete.error().field == "vision_config.num_hidden_layers");
}

TEST_CASE("an unknown model_type: refused from a config alone with the keys not placed; a file's weights are exact", "[config]") {
  // An MPT config (mosaicml/mpt-7b's key names): nothing Llama-shaped to count.
  const json mpt = {{"model_type", "mpt"}, {"d_model", 4096}, {"n_heads", 32}, {"n_layers", 32}, {"expansion_ratio", 4},
                    {"max_seq_len", 2048}, {"vocab_size", 50432}, {"torch_dtype", "bfloat16"}, {"architectures", {"MPTForCausalLM"}}};
  auto refused = read_hf_config(mpt, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().id == "config.unknown_architecture");
  CHECK(refused.error().field == "model_type");
  const std::string& message = refused.error().message;
  // (d_model is placed: it is T5's and BART's hidden_size.)
  for (const char* key : {"n_heads", "n_layers", "expansion_ratio", "max_seq_len"}) {
    CHECK(message.find(key) != std::string::npos);
  }
  CHECK(message.find("torch_dtype") == std::string::npos);  // says nothing about tensors
  CHECK(message.find("architectures") == std::string::npos);

  // With its weights read from a file header the config gives only the attention shape.
  json config = write_hf_config(preset("llama-3.2-1b").spec);
  for (const char* key : {"mlp_kind", "norm_kind"}) config.erase(key);
  config["model_type"] = "my_new_arch";
  REQUIRE_FALSE(read_hf_config(config, "config.json"));
  auto read = read_hf_config(config, "config.json", /*weights_from_file=*/true);
  REQUIRE(read);
  REQUIRE(read->assumptions.size() == 1);
  CHECK(read->assumptions[0].find("my_new_arch") != std::string::npos);

  // vramfit's own explicit structure keys (write_hf_config) describe any architecture.
  json explicit_keys = write_hf_config(preset("llama-3.2-1b").spec);
  explicit_keys["model_type"] = "my_new_arch";
  auto described = read_hf_config(explicit_keys, "config.json");
  REQUIRE(described);
  CHECK(count_parameters(described->spec) == count_parameters(preset("llama-3.2-1b").spec));
}

TEST_CASE("bad config values name the field", "[config][errors]") {
  const json good = write_hf_config(preset("llama-3.2-1b").spec);
  struct Case { const char* key; json value; const char* field; };
  const Case cases[] = {
      {"num_key_value_heads", 12, "num_key_value_heads"},  // does not divide 32
      {"num_hidden_layers", 0, "num_hidden_layers"},
      {"hidden_size", -4096, "hidden_size"},
      {"hidden_size", "4096", "hidden_size"},
      {"vocab_size", 1.5, "vocab_size"},
      {"num_attention_heads", 1e300, "num_attention_heads"},
      {"tie_word_embeddings", "yes", "tie_word_embeddings"},
  };
  for (const Case& c : cases) {
    json config = good;
    config[c.key] = c.value;
    INFO(config.dump());
    auto read = read_hf_config(config, "config.json");
    REQUIRE_FALSE(read);
    CHECK(read.error().field == c.field);
    CHECK(read.error().message.find("config.json") == 0);
  }
  auto divisible = read_hf_config([&] { json c = good; c["num_key_value_heads"] = 12; return c; }(), "config.json");
  CHECK(divisible.error().message == "config.json: num_key_value_heads (12) must divide num_attention_heads (32)");
}

namespace {
std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/configs/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<HfConfigRead> read_fixture(const std::string& name) { return read_hf_config_text(fixture_text(name), name); }

// A fixture read with nothing assumed, at its published count, before and after a round trip
// through vramfit's own keys (links, the app's editor).
HfConfigRead read_published(const std::string& file, int64_t published) {
  INFO(file);
  auto read = read_fixture(file);
  REQUIRE(read);
  CHECK(count_parameters(read->spec) == published);
  CHECK(read->assumptions.empty());
  auto again = read_hf_config(write_hf_config(read->spec), "round trip");
  REQUIRE(again);
  CHECK(count_parameters(again->spec) == published);
  CHECK(again->spec.cached_layers() == read->spec.cached_layers());
  CHECK(again->spec.recurrent_state_elements() == read->spec.recurrent_state_elements());
  return *read;
}
}  // namespace

TEST_CASE("real config.json files of more architectures give their published counts", "[config][parameters]") {
  // Published totals: the Pythia paper's table; model cards / safetensors total_size.
  struct Case { const char* file; int64_t parameters; };
  const Case cases[] = {
      {"pythia-1b.json", 1011781632},            // gpt_neox: fused qkv, biases, LayerNorm, plain MLP
      {"falcon-7b.json", 6921720704},            // falcon: multi-query, parallel attention, tied
      {"starcoder2-3b.json", 3030371328},        // starcoder2: biases, LayerNorm, tied
      {"qwen1.5-moe-a2.7b.json", 14315784192},   // qwen2_moe: 60 experts + gated shared expert
      {"deepseek-v2-lite.json", 15706484224},    // deepseek_v2: MLA without q LoRA, 1 dense layer
      // GPT2LMHeadModel, tied (the count printed for gpt2 everywhere: 124,439,808).
      {"gpt2.json", 124439808},                  // gpt2: n_embd keys, c_attn, learned positions
      // bigcode/starcoder as StarCoder's fine-tunes (OctoCoder, MultiPL-T) list it: 15,517,456,384.
      {"starcoder.json", 15517456384},           // gpt_bigcode: multi-query c_attn, learned positions
      // microsoft/phi-2: the Hub's safetensors parameter count (F16: 2,779,683,840).
      {"phi-2.json", 2779683840},                // phi: biases, one LayerNorm, LM head bias
      // BertModel with its pooler (keras-hub's bert_large_en_uncased preset, "params": 335141888).
      {"bert-large-uncased.json", 335141888},    // bert: encoder, positions + segments, pooler
      {"roberta-base.json", 124645632},          // roberta: one segment, 514 positions
      {"xlm-roberta-large.json", 559890432},     // xlm-roberta: 250,002 tokens
      // A pruning tutorial's facebook/opt-125m: "The original model has 125239296 parameters".
      {"opt-125m.json", 125239296},              // opt: positions + 2 rows, biases, final LayerNorm
      // huggingface_hub's test of bigscience/bloomz-560m's safetensors: {"F16": 559214592}.
      {"bloom-560m.json", 559214592},            // bloom: ALiBi, embeddings LayerNorm, fused qkv
      // The StableLM 2 1.6B technical report's table: 1,644,515,328.
      {"stablelm-2-1_6b.json", 1644515328},      // stablelm: LayerNorm with bias, gated MLP, q/k/v bias
      // The Hub's safetensors totals, as listed by model registries: granite-3.1-2b-instruct
      // 2,533,531,648; allenai/OLMo-2-1124-7B 7,298,617,344.
      {"granite-3.1-2b-instruct.json", 2533531648},  // granite: Llama's tensors, scalar multipliers
      {"olmo-2-1124-7b.json", 7298617344},       // olmo2: q/k norms over all heads, post-norms
      // InternLM's and GLM's own chat demos print "with 7737708544 (7.7B) parameters" and
      // "with 9399951360 (9.4B) parameters"; a sum over DeBERTa-v3-large's parameters: 434,012,160.
      {"glm-4-9b-chat-hf.json", 9399951360},     // glm: q/k/v biases, none on o_proj
      {"deberta-v3-large.json", 434012160},      // deberta-v2: rel_embeddings + LayerNorm, no pooler
      // llama-bench's model_n_params for olmoe-1b-7b-0924-instruct: 6919161856.
      {"olmoe-1b-7b-0924.json", 6919161856},     // olmoe: OLMo 2's q/k norms, 64 experts
      // A model-size table in public evaluation code: "cohereforai/aya-expanse-8b": 8028033024.
      {"aya-expanse-8b.json", 8028033024},       // cohere: one bias-free LayerNorm, parallel, tied
  };
  for (const Case& c : cases) {
    INFO(c.file);
    auto read = read_fixture(c.file);
    if (!read) FAIL(read.error().message);
    CHECK(count_parameters(read->spec) == c.parameters);
    CHECK(read->assumptions.empty());
    auto again = read_hf_config(write_hf_config(read->spec), "round trip");  // vramfit's own keys
    REQUIRE(again);
    CHECK(count_parameters(again->spec) == c.parameters);
  }
  // XLM-R without segments (type_vocab_size 0) keeps none through vramfit's own keys (found by fuzz_hf_config).
  json no_segments = json::parse(fixture_text("xlm-roberta-large.json"));
  no_segments["type_vocab_size"] = 0;
  auto xlmr = read_hf_config(no_segments, "config.json");
  REQUIRE(xlmr);
  auto xlmr_again = read_hf_config(write_hf_config(xlmr->spec), "round trip");
  REQUIRE(xlmr_again);
  CHECK(count_parameters(xlmr_again->spec) == count_parameters(xlmr->spec));
  // internlm2: wqkv fused, the "bias" key; its rope_scaling is dynamic NTK, listed as assumed.
  auto internlm = read_fixture("internlm2_5-7b-chat.json");
  REQUIRE(internlm);
  CHECK(count_parameters(internlm->spec) == 7737708544);
  REQUIRE(internlm->assumptions.size() == 1);
  CHECK(internlm->assumptions[0].find("dynamic") != std::string::npos);
  auto falcon = read_fixture("falcon-7b.json");
  CHECK(falcon->spec.kv_heads == 1);
  CHECK(falcon->spec.head_dim == 64);
  auto starcoder = read_fixture("starcoder2-3b.json");
  CHECK(starcoder->spec.sliding_window == 4096);  // StarCoder2 slides over 4,096 tokens in every layer
  CHECK(starcoder->spec.sliding_layer_count() == 30);
}

TEST_CASE("quantization_config picks the stored format", "[config]") {
  auto awq = read_fixture("llama-3.1-8b-instruct-awq.json");
  REQUIRE(awq);
  CHECK(awq->stored_format == "awq-int4");
  CHECK(awq->stored_group_size == 128);
  auto gptq = read_fixture("mistral-7b-instruct-gptq.json");
  CHECK(gptq->stored_format == "gptq-int4");
  CHECK(gptq->stored_group_size == 32);
  CHECK(read_fixture("llama-3.1-8b-bnb-4bit.json")->stored_format == "bnb-nf4-dq");
  CHECK(read_fixture("pythia-1b.json")->stored_format == "fp16");  // torch_dtype
  auto gemma = read_fixture("gemma-3-4b-it.json");  // nested text_config
  REQUIRE(gemma);
  CHECK(gemma->spec.layers == 34);
  CHECK(gemma->spec.sliding_layer_count() == 34 - 5);  // every 6th layer is global
  CHECK(gemma->stored_format == "bf16");
}

TEST_CASE("a quantized checkpoint is not sized as dense", "[config]") {
  // AWQ Llama 3.1 8B: ~5.7 GB on disk, not the 16 GB of the dense model.
  auto awq = read_fixture("llama-3.1-8b-instruct-awq.json");
  REQUIRE(awq);
  const FormatTables& t = builtin_catalog().formats;
  const WeightsSummary w = summarize_weights(t, *t.find_format(awq->stored_format), awq->spec, awq->stored_group_size);
  CHECK(w.bytes > 5000000000);
  CHECK(w.bytes < 6000000000);
}

TEST_CASE("GPT-J, GPT-BigCode, phi-2 and BERT: what was refused or read Llama-shaped is counted tensor by tensor", "[config][parameters]") {
  // GPT-J 6B as transformers builds it (GPTJForCausalLM): wte, 28 x (ln_1, q/k/v/out without
  // bias, fc_in and fc_out with bias), ln_f, lm_head with bias. A user's GPTJForCausalLM load
  // printed "# of params: 6050882784" (a gptj LoRA project's README). The model card's
  // 6,053,381,344 (mesh-transformer-jax's count) is 2,498,560 more (0.04 %), not explained.
  auto gptj = read_fixture("gpt-j-6b.json");
  REQUIRE(gptj);
  CHECK(count_parameters(gptj->spec) == 6050882784);
  CHECK(gptj->spec.intermediate_size == 4 * 4096);  // n_inner null
  CHECK(gptj->spec.max_context_tokens == 2048);     // n_positions
  // HF key names with multi_query: one KV head, not 48 (or 16) - the KV cache is per head.
  auto starcoder = read_fixture("starcoder.json");
  REQUIRE(starcoder);
  CHECK(starcoder->spec.kv_heads == 1);
  CHECK(starcoder->spec.head_dim == 128);
  auto santacoder = read_fixture("santacoder.json");
  REQUIRE(santacoder);
  CHECK(santacoder->spec.kv_heads == 1);
  CHECK(santacoder->spec.position_embeddings == 2048);
  // An encoder keeps no KV cache; the decoders do.
  auto bert = read_fixture("bert-large-uncased.json");
  REQUIRE(bert);
  CHECK(bert->spec.encoder_only);
  // The structure survives a round trip through vramfit's own keys (links, the app's editor).
  for (const char* file : {"gpt2.json", "starcoder.json", "gpt-j-6b.json", "phi-2.json", "bert-large-uncased.json"}) {
    INFO(file);
    auto read = read_fixture(file);
    REQUIRE(read);
    auto again = read_hf_config(write_hf_config(read->spec), "round trip");
    REQUIRE(again);
    CHECK(count_parameters(again->spec) == count_parameters(read->spec));
    CHECK(again->spec.kv_heads == read->spec.kv_heads);
    CHECK(again->spec.encoder_only == read->spec.encoder_only);
  }
}

TEST_CASE("Mamba, RWKV-4, T5, BART and GPT-Neo: real configs give their published counts", "[config][parameters]") {
  // Mamba (MambaForCausalLM) and RWKV-4 (RwkvForCausalLM): the sizes an R analysis script of a
  // public surprisal study lists per checkpoint ("mamba-130m-hf"="129135360", ...,
  // "rwkv-4-169m-pile"="169342464"); mamba-130m's also asserted as sum(p.numel()) in a public
  // Mamba runtime and printed as "Encoder numel: 129135360" in another project's audit.
  const struct { const char* file; int64_t published; } counts[] = {
      {"mamba-130m-hf.json", 129135360},   {"mamba-2.8b-hf.json", 2768345600},
      {"rwkv-4-169m-pile.json", 169342464}, {"rwkv-4-430m-pile.json", 430397440},
      // T5: KerasHub's preset metadata ("T5-Small ... params: 60506624", t5_1.1_base 247577856)
      // and flan-t5-base's "all model parameters: 247577856" printed in several PEFT tutorials.
      {"t5-small.json", 60506624},         {"flan-t5-base.json", 247577856},
      // BART: a public list of pretrained LM sizes ("facebook/bart-base 139420416",
      // "facebook/bart-large 406291456"), bart-base's also in LoRA run logs ("total_parameters").
      {"bart-base.json", 139420416},       {"bart-large.json", 406291456},
      // GPT-Neo 1.3B: a model-tree print "GPTNeoForCausalLM<all params:1315575808>".
      {"gpt-neo-1.3B.json", 1315575808},
      // Whisper: the Hub's safetensors totals as public notes list them ("openai/whisper-large-v3':
      // ('Apache-2.0', 1543490560)", "'openai/whisper-large-v3-turbo': ('MIT', 808878080)", a
      // table of the family: "base ... hub:72593920"). whisper-base's config is the Hub's as a
      // public script quotes it; large-v3's keys are those of its config.json.
      {"whisper-base.json", 72593920},     {"whisper-large-v3.json", 1543490560},
      {"whisper-large-v3-turbo.json", 808878080}};
  for (const auto& c : counts) read_published(c.file, c.published);
  // Mamba and RWKV cache no keys and values: a fixed state per sequence and layer instead
  // (llama.cpp's n_embd_r + n_embd_s: (4 - 1) x 1536 + 16 x 1536; RWKV-4: 5 x hidden).
  auto mamba = read_fixture("mamba-130m-hf.json");
  CHECK(mamba->spec.cached_layers() == 0);
  CHECK(mamba->spec.recurrent_state_elements() == 3 * 1536 + 16 * 1536);
  auto rwkv = read_fixture("rwkv-4-169m-pile.json");
  CHECK(rwkv->spec.cached_layers() == 0);
  CHECK(rwkv->spec.recurrent_state_elements() == 5 * 768);
  CHECK(rwkv->spec.max_context_tokens == 1024);  // context_length
  // T5 and BART: only the decoder's layers cache (self-attention over the output, cross-
  // attention over the input): 6 of t5-small's 12, 12 of bart-large's 24.
  auto t5 = read_fixture("t5-small.json");
  CHECK(t5->spec.encoder_layers == 6);
  CHECK(t5->spec.layers == 12);
  CHECK(t5->spec.cached_layers() == 6);
  CHECK(t5->spec.mlp == MlpKind::plain);
  CHECK(read_fixture("flan-t5-base.json")->spec.mlp == MlpKind::gated);
  CHECK(read_fixture("bart-large.json")->spec.cached_layers() == 12);
  // An encoder-decoder without encoder layers is refused naming the key; T5Config's default
  // num_layers (6) when the key is missing (found by fuzz_hf_config).
  json t5_config = json::parse(fixture_text("t5-small.json"));
  t5_config["num_layers"] = 0;
  auto no_encoder = read_hf_config(t5_config, "config.json");
  REQUIRE_FALSE(no_encoder);
  CHECK(no_encoder.error().field == "num_layers");
  t5_config.erase("num_layers");
  auto defaulted = read_hf_config(t5_config, "config.json");
  REQUIRE(defaulted);
  CHECK(defaulted->spec.encoder_layers == 6);
  REQUIRE(read_hf_config(write_hf_config(defaulted->spec), "round trip"));
  // Whisper: the encoder caches nothing; each decoder layer keeps its self-attention over the
  // output (up to max_target_positions) and its cross-attention over the 1,500 encoder states.
  auto whisper = read_fixture("whisper-large-v3.json");
  CHECK(whisper->spec.encoder_layers == 32);
  CHECK(whisper->spec.cached_layers() == 32);
  CHECK(whisper->spec.max_context_tokens == 1500 + 448);
  CHECK(read_fixture("whisper-large-v3-turbo.json")->spec.cached_layers() == 4);
  // One encoder layer: q, k (no bias), v, o, two LayerNorms, fc1 and fc2 with biases: 12 d^2 + 12 d.
  int64_t encoder_layer = 0;
  for (const TensorShape& t : enumerate_tensors(whisper->spec)) encoder_layer += t.layer == 0 ? t.elements() : 0;
  CHECK(encoder_layer == 12 * 1280 * 1280 + 12 * 1280);
  for (const char* file : {"whisper-base.json", "whisper-large-v3.json"}) {
    auto again = read_hf_config(write_hf_config(read_fixture(file)->spec), "round trip");
    REQUIRE(again);
    CHECK(count_parameters(again->spec) == count_parameters(read_fixture(file)->spec));
  }
  // GPT-Neo: every other layer attends locally (window_size 256).
  auto neo = read_fixture("gpt-neo-1.3B.json");
  CHECK(neo->spec.sliding_window == 256);
  CHECK(neo->spec.sliding_layer_count() == 12);
  CHECK_FALSE(neo->spec.is_sliding_layer(0));
  CHECK(neo->spec.is_sliding_layer(1));
}

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

TEST_CASE("Jamba: attention every 8th layer, Mamba in the others, experts every 2nd, from its real config", "[config][parameters]") {
  // ai21labs/Jamba-v0.1: 51,570,323,328 parameters, the checkpoint's count as a public project's
  // notes reproduce it exactly ("Jamba-v0.1, reproducing 51,570,323,328 exactly", tensorcad's
  // roadmap; its JambaMambaMixer's dt, B and C norms, [256], [16] and [16], included).
  const HfConfigRead jamba = read_published("jamba-v0.1.json", 51570323328);
  const ModelSpec& s = jamba.spec;
  CHECK(s.is_hybrid());
  CHECK_FALSE(s.is_recurrent());
  CHECK(s.recurrent_layer_count() == 28);
  CHECK(s.cached_layers() == 4);  // layers 4, 12, 20, 28
  CHECK_FALSE(s.is_recurrent_layer(4));
  CHECK(s.is_recurrent_layer(5));
  CHECK(s.moe_layer_count() == 16);  // the odd layers
  CHECK(s.is_moe_layer(1));
  CHECK_FALSE(s.is_moe_layer(2));
  // One Mamba layer's mixer: in_proj, conv (+ bias), x_proj, dt_proj (+ bias), A_log, D, out_proj
  // and the three norms.
  int64_t layer5_mixer = 0;
  for (const TensorShape& t : enumerate_tensors(s)) {
    if (t.layer == 5 && t.role != TensorRole::ffn_gate && t.role != TensorRole::ffn_up && t.role != TensorRole::ffn_down &&
        t.role != TensorRole::ffn_gate_exps && t.role != TensorRole::ffn_up_exps && t.role != TensorRole::ffn_down_exps &&
        t.role != TensorRole::router) {
      layer5_mixer += t.elements();
    }
  }
  CHECK(layer5_mixer == 4096 * 16384 + 4 * 8192 + 8192 + 8192 * 288 + 256 * 8192 + 8192 + 8192 * 16 + 8192 + 8192 * 4096 +
                            256 + 16 + 16 + 2 * 4096);  // and the layer's two RMSNorms
  auto bad = read_hf_config(json{{"model_type", "jamba"}, {"hidden_size", 64}, {"num_hidden_layers", 2}, {"num_attention_heads", 1},
                                 {"intermediate_size", 64}, {"vocab_size", 10}, {"attn_layer_period", 2}, {"attn_layer_offset", 2}},
                            "config.json");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "attn_layer_offset");
  json config = {{"model_type", "jamba"}, {"hidden_size", 64}, {"num_hidden_layers", 4}, {"num_attention_heads", 1},
                 {"intermediate_size", 64}, {"vocab_size", 10}, {"attn_layer_period", 2}, {"attn_layer_offset", 1},
                 {"num_experts", 4}, {"num_experts_per_tok", 1}, {"expert_layer_period", 2}, {"expert_layer_offset", 1}};
  CHECK(read_hf_config(config, "config.json"));
  for (const auto& [key, value, field] : {std::tuple<const char*, int, const char*>{"expert_layer_offset", 2, "expert_layer_offset"},
                                          {"expert_layer_period", 0, "expert_layer_offset"},
                                          {"attn_layer_period", 0, "attn_layer_period"},
                                          {"attn_layer_period", 70000, "attn_layer_offset"}}) {
    json wrong = config;
    wrong[key] = value;
    auto refused = read_hf_config(wrong, "config.json");
    REQUIRE_FALSE(refused);
    CHECK(refused.error().field == field);
  }
}

TEST_CASE("Qwen3-Next: Gated DeltaNet in 3 layers of 4, gated full attention in the 4th, 512 experts, from its real config", "[config][parameters]") {
  // Qwen/Qwen3-Next-80B-A3B-Instruct: 79,674,391,296 parameters without its MTP layer, as the same
  // public notes reproduce it from the real weights ("Qwen3-Next-80B-A3B, reproducing
  // 79,674,391,296 exactly": in_proj_qkvz 12,288 wide, the gated q_proj [8192, 2048], the
  // per-head output norm [128], the shared expert's gate [1, 2048]).
  const HfConfigRead next = read_published("qwen3-next-80b-a3b-instruct.json", 79674391296);
  const ModelSpec& s = next.spec;
  CHECK(s.is_hybrid());
  CHECK(s.recurrent_layer_count() == 36);
  CHECK(s.cached_layers() == 12);
  CHECK_FALSE(s.is_recurrent_layer(3));  // (i + 1) % 4 == 0: full attention
  CHECK(s.is_recurrent_layer(0));
  CHECK(s.linear_conv_dim() == 8192);
  CHECK(s.recurrent_state_elements() == 3 * 8192 + 32 * 128 * 128);
  int64_t q_proj = 0;
  for (const TensorShape& t : enumerate_tensors(s)) if (t.layer == 3 && t.role == TensorRole::attn_q) q_proj = t.elements();
  CHECK(q_proj == 8192 * 2048);
  json wide = write_hf_config(s);
  CHECK(read_hf_config(wide, "config.json"));
  wide["linear_value_head_dim"] = 8192;  // above the bounds every dimension has
  auto refused = read_hf_config(wide, "config.json");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().field == "linear_value_head_dim");
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

TEST_CASE("DeepSeek-V3's multi-token-prediction layer: counted apart, named, not in the weights", "[config][parameters]") {
  // The Hub's safetensors total for deepseek-ai/DeepSeek-V3 is 684,531,386,000: BF16 3,918,786,560
  // + F8_E4M3 680,571,043,840 + F32 41,555,600. The F32 entries are the FP8 block scales
  // (weight_scale_inv) and the 59 MoE layers' e_score_correction_bias (59 x 256 = 15,104); the
  // parameters are therefore 684,531,386,000 - (41,555,600 - 15,104) = 684,489,845,504: the
  // 671,026,419,200 of the model (the report's 671 B) + one MTP module.
  const ModelSpec& v3 = preset("deepseek-v3").spec;
  CHECK(v3.mtp_layers == 1);
  CHECK(count_parameters(v3) == 671026419200);
  CHECK(count_mtp_parameters(v3) == 13463426304);
  CHECK(count_parameters(v3) + count_mtp_parameters(v3) == int64_t(684531386000) - (41555600 - 59 * 256));
  auto read = read_hf_config(write_hf_config(v3), "config.json");
  REQUIRE(read);
  CHECK(read->spec.mtp_layers == 1);
  REQUIRE(read->assumptions.size() == 1);
  CHECK(read->assumptions[0] == "num_nextn_predict_layers 1: the checkpoint also holds 13463426304 parameters of "
                                "multi-token prediction, loaded only to speculate; not counted.");
}

TEST_CASE("rope_scaling: YaRN and linear stretch the usable context; past it a warning, not silence", "[config][context]") {
  // Qwen2.5-7B-Instruct's config.json with the rope_scaling block its model card adds for long
  // texts (YaRN x 4 over 32,768 positions); its published count is 7,615,616,512.
  auto qwen = read_fixture("qwen2.5-7b-instruct-yarn.json");
  REQUIRE(qwen);
  CHECK(count_parameters(qwen->spec) == 7615616512);
  CHECK(qwen->spec.max_context_tokens == 32768);
  CHECK(qwen->spec.scaled_context_tokens == 131072);
  CHECK(qwen->spec.usable_context_tokens() == 131072);
  REQUIRE(qwen->assumptions.size() == 1);
  CHECK(qwen->assumptions[0].find("yarn x 4.0 over 32768 positions") != std::string::npos);
  auto again = read_hf_config(write_hf_config(qwen->spec), "round trip");
  REQUIRE(again);
  CHECK(again->spec.scaled_context_tokens == 131072);

  // llama3 and LongRoPE already give the long context as max_position_embeddings; linear does not.
  json config = write_hf_config(qwen->spec);
  config.erase("scaled_context_tokens");
  config["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"original_max_position_embeddings", 8192}};
  CHECK(read_hf_config(config, "config.json")->spec.usable_context_tokens() == 32768);
  config["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}};
  CHECK(read_hf_config(config, "config.json")->spec.usable_context_tokens() == 65536);
  config["rope_scaling"] = {{"type", "dynamic"}, {"factor", 2.0}};
  auto dynamic = read_hf_config(config, "config.json");
  CHECK(dynamic->spec.usable_context_tokens() == 32768);
  CHECK(dynamic->assumptions.size() == 1);
  config["rope_scaling"] = {{"type", "yarn"}, {"factor", "four"}};
  CHECK(read_hf_config(config, "config.json")->spec.scaled_context_tokens == 0);  // no number: no stretch
}
