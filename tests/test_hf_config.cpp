// config.json reading: architectures' structure, nested text_config, and errors naming fields.
#include "helpers.hpp"

#include "io/hf_config.hpp"

using namespace vramfit;
using namespace vramfit::test;
using nlohmann::json;

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
  // Gemma 2 9B: 3584 / 16 = 224, but head_dim is 256.
  CHECK(preset("gemma-2-9b").spec.head_dim == 256);
  CHECK(preset("qwen3-0.6b").spec.head_dim == 128);  // 1024 / 16 = 64
}

TEST_CASE("multimodal configs are read from text_config", "[config]") {
  const json config = {{"model_type", "gemma3"},
                       {"text_config", write_hf_config(preset("gemma-3-1b").spec)},
                       {"vision_config", {{"hidden_size", 1152}}}};
  auto read = read_hf_config(config, "config.json");
  REQUIRE(read);
  CHECK(count_parameters(read->spec) == 999885952);
}

TEST_CASE("an unknown model_type falls back with the assumption listed", "[config]") {
  json config = write_hf_config(preset("llama-3.2-1b").spec);
  config["model_type"] = "my_new_arch";
  auto read = read_hf_config(config, "config.json");
  REQUIRE(read);
  REQUIRE(read->assumptions.size() == 1);
  CHECK(read->assumptions[0].find("my_new_arch") != std::string::npos);
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
