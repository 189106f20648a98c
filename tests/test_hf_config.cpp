// config.json reading: architectures' structure, nested text_config, and errors naming fields.
#include "helpers.hpp"

#include "io/hf_config.hpp"
#include "support/config_fixtures.hpp"

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

TEST_CASE("head_dim: taken as given, else the config class's default (hidden / heads; Qwen3's 128)", "[config]") {
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
