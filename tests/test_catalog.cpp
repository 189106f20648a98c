// The catalogs load, are large enough, and every preset's exact parameter count equals the
// count its checkpoint publishes (model.safetensors.index.json total_size / 2 for bf16).
#include <cmath>

#include "helpers.hpp"

#include <fstream>
#include <iterator>

using namespace vramfit;
using namespace vramfit::test;

TEST_CASE("the built-in catalog loads", "[catalog]") {
  INFO(builtin_catalog_error());
  REQUIRE(builtin_catalog_error().empty());
  const Catalog& c = builtin_catalog();
  CHECK(c.gpus.size() >= 30);
  CHECK(c.models.size() >= 25);
  CHECK(c.formats.formats.size() >= 25);
}

TEST_CASE("a data file edited into the wrong shape is an error, not a crash", "[catalog]") {
  const std::string formats = embedded_data_file("weight_formats.json");
  const std::string models = embedded_data_file("models.json");
  auto broken = parse_catalog(R"({"gpus": [{"id": "x", "vendor": "v"}]})", formats, models);
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message.find("unexpected shape") != std::string::npos);
  auto not_json = parse_catalog("{", formats, models);
  REQUIRE_FALSE(not_json);
  CHECK(not_json.error().field == "gpus.json");
  CHECK(parse_catalog(embedded_data_file("gpus.json"), formats, models));
}

TEST_CASE("GPU capacities are the driver-reported figures", "[catalog]") {
  const Catalog& c = builtin_catalog();
  REQUIRE(c.find_gpu("rtx-4090"));
  CHECK(c.find_gpu("rtx-4090")->total_bytes == 24564 * kMiB);
  CHECK(c.find_gpu("h100-80")->total_bytes == 81559 * kMiB);
  for (const Gpu& g : c.gpus) {
    INFO(g.id);
    CHECK(g.total_bytes > 0);
    CHECK(g.usable_bytes() <= g.total_bytes);
    CHECK(g.bandwidth_gbs > 0);
    CHECK_FALSE(g.source.empty());  // optional to the reader: the page's catalog leaves them out
    CHECK_FALSE(g.basis.empty());
  }
  // Apple unified memory: a stated share is usable by the GPU.
  const Gpu* mac = c.find_gpu("apple-m4-max-128");
  REQUIRE(mac);
  CHECK(mac->usable_bytes() == 128 * kGiB * 3 / 4);
}

TEST_CASE("every preset's parameter count equals the published count", "[catalog][parameters]") {
  int checked = 0;
  for (const ModelPreset& m : builtin_catalog().models) {
    if (m.published_parameters == 0) continue;  // the articles' models have no checkpoint
    INFO(m.id);
    // The model's own count (DeepSeek-V3's report, its MTP layer apart), or the checkpoint's with
    // its MTP layers (the Hub's safetensors total: Qwen3.6-35B-A3B).
    const int64_t model = count_parameters(m.spec);
    CHECK((model == m.published_parameters || model + count_mtp_parameters(m.spec) == m.published_parameters));
    ++checked;
  }
  CHECK(checked >= 60);
}

TEST_CASE("well-known exact counts", "[catalog][parameters]") {
  CHECK(count_parameters(preset("llama-3.1-8b").spec) == 8030261248);
  CHECK(count_parameters(preset("llama-3.1-70b").spec) == 70553706496);
  CHECK(count_parameters(preset("mixtral-8x7b").spec) == 46702792704);
  CHECK(count_parameters(preset("deepseek-v3").spec) == 671026419200);
  CHECK(count_parameters(preset("gpt-oss-20b").spec) == 20914757184);
}

TEST_CASE("MoE active parameters", "[catalog][parameters]") {
  // Each is checked two ways: exactly, as the published total less the experts a token does not
  // use (their sizes written out from the model's config.json), and against the rounded figure
  // the model card publishes, which is all the card gives.
  // Mixtral 8x7B: 46,702,792,704 parameters (checkpoint); 32 layers x 8 experts of 3 x 4096 x 14336;
  // 2 experts per token; Mistral AI: "12.9B active".
  const int64_t mixtral = count_active_parameters(preset("mixtral-8x7b").spec);
  CHECK(mixtral == 46702792704 - int64_t(32) * (8 - 2) * 3 * 4096 * 14336);
  CHECK(std::abs(static_cast<double>(mixtral) - 12.9e9) < 0.1e9);  // the card's one decimal
  // Qwen3-30B-A3B: 30,532,122,624 parameters; 48 layers x 128 experts of 3 x 2048 x 768; 8 per
  // token; the model card: "Number of Activated Parameters: 3.3B".
  const int64_t qwen = count_active_parameters(preset("qwen3-30b-a3b").spec);
  CHECK(qwen == 30532122624 - int64_t(48) * (128 - 8) * 3 * 2048 * 768);
  CHECK(std::abs(static_cast<double>(qwen) - 3.3e9) < 0.1e9);  // the card's one decimal
  // DeepSeek-V3: 37 B active per the report.
  const int64_t active = count_active_parameters(preset("deepseek-v3").spec);
  CHECK(active > 37000000000);
  CHECK(active < 38000000000);
}

TEST_CASE("the articles' models are parameter-count only", "[catalog]") {
  const ModelSpec& m = preset("article-004-8b").spec;
  CHECK(m.parameters_only == 8000000000);
  CHECK(m.layers == 32);
  CHECK(m.kv_heads == 8);
  CHECK(m.head_dim == 128);
  CHECK(preset("article-004-70b").spec.layers == 80);
}

TEST_CASE("the embedded data files are data/'s, without their layout and notes to readers", "[catalog]") {
  // cmake/embed.cmake drops line breaks and alignment spaces from the JSON it compiles in, and
  // the notes no program reads: the top-level "about" texts and the GPUs' *_source notes.
  for (const char* name : {"gpus.json", "models.json", "weight_formats.json"}) {
    INFO(name);
    std::ifstream in(std::string(VRAMFIT_SOURCE_DIR) + "/data/" + name);
    const std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string embedded = embedded_data_file(name);
    REQUIRE_FALSE(source.empty());
    CHECK(embedded.size() < source.size());
    CHECK(embedded.find('\n') == std::string::npos);
    json expected = json::parse(source);
    CHECK(expected.contains("about"));
    expected.erase("about");
    expected.erase("gguf_mixes_about");
    if (expected.contains("gpus")) {
      for (json& gpu : expected["gpus"]) {
        gpu.erase("cuda_total_source");
        gpu.erase("tensor_rates_source");
      }
    }
    CHECK(json::parse(embedded) == expected);
  }
}
