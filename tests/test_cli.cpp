// The CLI: article 004 reproduced, JSON output equal to the API's, exit codes.
#include "helpers.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"

using namespace vramfit;
using vramfit::json;

namespace {
struct Run {
  int status;
  std::string out, err;
};
Run run(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int status = run_cli(args, out, err);
  return {status, out.str(), err.str()};
}
}  // namespace

TEST_CASE("vramfit infer reproduces article 004's 8 B example", "[cli][article004]") {
  const Run r = run({"infer", "--model", "article-004-8b", "--weights", "fp16", "--context", "8192",
                     "--overhead", "articles", "--gpu", "rtx-4090"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("18.78 GB") != std::string::npos);
  CHECK(r.out.find("= 1,073,741,824 B") != std::string::npos);
  CHECK(r.out.find("FITS on 1 x GeForce RTX 4090") != std::string::npos);
}

TEST_CASE("vramfit infer reproduces every article 004 example", "[cli][article004]") {
  struct Case { const char* model; const char* weights; const char* gpu; const char* total; const char* verdict; };
  const Case cases[] = {
      {"article-004-8b", "fp16", "rtx-4090", "18781116006", "FITS"},
      {"article-004-8b", "int4", "rtx-4060", "5581116006", "FITS"},
      {"article-004-70b", "int4", "rtx-a6000", "41452790016", "FITS"},
      {"article-004-70b", "fp16", "h100-80", "156952790016", "DOES NOT FIT"},
  };
  for (const Case& c : cases) {
    INFO(c.model << " " << c.weights);
    const Run r = run({"infer", "-m", c.model, "-w", c.weights, "-c", "8192", "--overhead", "articles", "-g", c.gpu, "--json"});
    REQUIRE(r.status == 0);
    const json report = json::parse(r.out);
    CHECK(std::to_string(report["breakdown"]["total_bytes"].get<int64_t>()) == c.total);
    CHECK(report["fit"]["fits"] == (std::string(c.verdict) == "FITS"));
  }
  const Run fp16_70b = run({"infer", "-m", "article-004-70b", "-w", "fp16", "--overhead", "articles", "-g", "h100-80"});
  CHECK(fp16_70b.out.find("fewest H100 80 GB GPUs (tensor parallel): 2") != std::string::npos);
}

TEST_CASE("--json prints what the JS API returns", "[cli]") {
  const Run r = run({"infer", "--model", "qwen3-30b-a3b", "--weights", "gguf-q4_k_m", "--kv", "q8_0", "--json"});
  REQUIRE(r.status == 0);
  const json cli = json::parse(r.out);
  const json api = json::parse(estimate_json(cli["request"].dump()));
  CHECK(cli == api);
}

TEST_CASE("--request reads a request file; options override it", "[cli]") {
  const std::string path = std::string(VRAMFIT_GOLDEN_DIR) + "/article004_8b_fp16.json";
  const Run r = run({"infer", "--request", path, "--context", "16384", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json report = json::parse(r.out);
  CHECK(report["request"]["context_tokens"] == 16384);
  CHECK(report["request"]["model"]["preset"] == "article-004-8b");
}

TEST_CASE("bad arguments exit 2 with a message naming the argument", "[cli][errors]") {
  struct Case { std::vector<std::string> args; const char* mentions; };
  const Case cases[] = {
      {{}, "subcommand"},
      {{"frobnicate"}, "frobnicate"},
      {{"infer", "--context", "-5"}, "--context"},
      {{"infer", "--context", "lots"}, "--context"},
      {{"infer", "--margin", "0.5"}, "--margin"},
      {{"infer", "--gpu-count", "0"}, "--gpu-count"},
      {{"infer", "--overhead", "magic"}, "--overhead"},
      {{"infer", "--request", "/no/such/file.json"}, "--request"},
      {{"infer", "--model", "nope"}, "model.preset"},
      {{"infer", "--weights", "q3"}, "weights.format"},
      {{"infer", "--gpu", "rtx-1"}, "gpu.id"},
      {{"infer", "--kv", "int2"}, "kv_cache.dtype"},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    INFO(joined);
    const Run r = run(c.args);
    CHECK(r.status == 2);
    CHECK(r.err.find(c.mentions) != std::string::npos);
  }
}

TEST_CASE("help and listings exit 0", "[cli]") {
  CHECK(run({"--help"}).status == 0);
  const Run help = run({"infer", "--help"});
  CHECK(help.status == 0);
  CHECK(help.out.find("--context") != std::string::npos);
  const Run gpus = run({"gpus"});
  CHECK(gpus.status == 0);
  CHECK(gpus.out.find("rtx-4090") != std::string::npos);
  const Run models = run({"models", "--json"});
  CHECK(models.status == 0);
  CHECK(json::parse(models.out).size() == builtin_catalog().models.size());
  CHECK(run({"formats"}).out.find("gguf-q4_k_m") != std::string::npos);
}

TEST_CASE("--config sizes a quantized checkpoint in its stored format", "[cli][config]") {
  const std::string path = std::string(VRAMFIT_FIXTURES_DIR) + "/configs/mistral-7b-instruct-gptq.json";
  const Run r = run({"infer", "--config", path, "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json report = json::parse(r.out);
  CHECK(report["request"]["weights"]["format"] == "gptq-int4");
  CHECK(report["request"]["weights"]["group_size"] == 32);
  const Run dense = run({"infer", "--config", path, "-w", "bf16", "--json"});
  CHECK(json::parse(dense.out)["request"]["weights"]["format"] == "bf16");
}

TEST_CASE("--config reads an audio model: Qwen2-Audio's tower in the weights and its encoder in the compute buffer", "[cli][config]") {
  const std::string path = std::string(VRAMFIT_FIXTURES_DIR) + "/configs/qwen2-audio-7b-instruct.json";
  const Run r = run({"infer", "--config", path, "-w", "bf16"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("8,397,094,912 parameters") != std::string::npos);
  CHECK(r.out.find("Audio encoder") != std::string::npos);
  const Run whisper = run({"infer", "--config", std::string(VRAMFIT_FIXTURES_DIR) + "/configs/whisper-large-v3.json", "--json"});
  REQUIRE(whisper.status == 0);
  CHECK(json::parse(whisper.out)["model"]["parameters"] == 1543490560);
}

TEST_CASE("--config reads Mistral 3: Pixtral's tower in the weights, its pass over a 1,540-px image in the compute buffer", "[cli][config]") {
  const std::string path = std::string(VRAMFIT_FIXTURES_DIR) + "/configs/mistral-small-3.1-24b-instruct-2503.json";
  const Run r = run({"infer", "--config", path, "-w", "bf16"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("24,011,361,280 parameters") != std::string::npos);
  CHECK(r.out.find("12,100 patches x 2 B x (5 x 1,024 hidden + 2 x 4,096 intermediate)") != std::string::npos);
}

TEST_CASE("--config reads Granite Vision: LLaVA-NeXT with SigLIP, its pass over the base image and 10 crops", "[cli][config]") {
  const Run r = run({"infer", "--config", std::string(VRAMFIT_FIXTURES_DIR) + "/configs/granite-vision-3.3-2b.json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("2,975,396,928 parameters") != std::string::npos);
  CHECK(r.out.find("8,019 patches x 2 B x (5 x 1,152 hidden + 2 x 4,304 intermediate)") != std::string::npos);
}

TEST_CASE("--safetensors-index with --config sizes the checkpoint from its total_size", "[cli][safetensors]") {
  const std::string config = std::string(VRAMFIT_FIXTURES_DIR) + "/configs/pythia-1b.json";
  const std::string index = (std::filesystem::temp_directory_path() / "vramfit-pythia-1b.index.json").string();
  std::ofstream(index) << R"({"metadata": {"total_size": 2023423488}, "weight_map": {"gpt_neox.embed_in.weight": "model.safetensors"}})";
  const Run r = run({"infer", "--config", config, "--safetensors-index", index, "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json report = json::parse(r.out);
  CHECK(report["request"]["weights"]["format"] == "as_stored");
  int64_t stored = 0;
  for (const json& row : report["request"]["weights"]["stored"]["by_type"]) stored += row["bytes"].get<int64_t>();
  CHECK(stored == 2023423488);
  // Without --config the index alone cannot give the architecture.
  const Run alone = run({"infer", "--safetensors-index", index});
  CHECK(alone.status == 2);
  CHECK(alone.err.find("needs --config") != std::string::npos);
  std::remove(index.c_str());
}

namespace {
const std::string kArticle003 = std::string(VRAMFIT_FIXTURES_DIR) + "/../../validation/networks/article-003-mlp.json";
}

TEST_CASE("vramfit net reproduces article 003 with the articles' rule and with autograd's", "[cli][article003]") {
  Run r = run({"net", kArticle003, "--batch", "128", "--rule", "layer_outputs", "--margin", "0", "--units", "GiB"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("33,574,912 parameters x 4 B (f32) = 134,299,648 B") != std::string::npos);
  CHECK(r.out.find("2,098,432 elements (batch 128 x 16,394 per sample) x 4 B = 8,393,728 B") != std::string::npos);
  CHECK(r.out.find("gat               linear         [128, 4096]") != std::string::npos);
  r = run({"net", kArticle003, "--batch", "128", "--json"});
  CHECK(r.status == 0);
  const json report = json::parse(r.out);
  CHECK(report["network"]["activation_bytes"] == 9442304);
  CHECK(report["network"]["parameters"] == 33574912);
  CHECK(report["network"]["layers"].size() == 11);
}

TEST_CASE("vramfit train: options reach the request; errors exit 2", "[cli][training]") {
  Run r = run({"train", "-m", "llama-3.1-8b", "--method", "lora", "--lora-rank", "8", "--lora-targets", "q,v",
               "-g", "rtx-4090", "--json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  json report = json::parse(r.out);
  CHECK(report["training"]["trainable_parameters"] == 32 * 8 * ((4096 + 4096) + (4096 + 1024)));
  r = run({"train", "-m", "llama-3.1-8b", "--sharding", "zero3", "-n", "8", "-g", "h100-80"});
  CHECK(r.status == 0);
  CHECK(r.out.find("Total per GPU") != std::string::npos);
  CHECK(r.out.find("fewest GPUs (zero3): ") != std::string::npos);
  r = run({"train", "-m", "llama-3.1-8b", "--lora-targets", "q,qkv", "--method", "lora"});
  CHECK(r.status == 2);
  CHECK(r.err.find("training.lora.targets") != std::string::npos);
  r = run({"train", "-m", "llama-3.1-8b", "--optimizer", "adamm"});
  CHECK(r.status == 2);
  r = run({"net", "/nonexistent.json"});
  CHECK(r.status == 2);
}

TEST_CASE("vramfit net reproduces article 000: 100 M float32 parameters = 400 MB", "[cli][article000]") {
  const std::string file = std::string(VRAMFIT_FIXTURES_DIR) + "/../../build/article-000-test.json";
  {
    std::ofstream out(file);
    out << R"({"name": "100M", "input": [10000], "layers": [{"type": "linear", "out": 10000, "bias": false}]})";
  }
  Run r = run({"net", file, "--optimizer", "adam", "--rule", "layer_outputs", "--margin", "0"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("100,000,000 parameters x 4 B (f32) = 400,000,000 B") != std::string::npos);
  CHECK(r.out.find("400.00 MB\n    = 100,000,000 parameters") != std::string::npos);
  std::remove(file.c_str());
}

TEST_CASE("vramfit infer --lang ar: article 004's 8 B example in Arabic, the same numbers", "[cli]") {
  const std::vector<std::string> args = {"infer", "--model", "article-004-8b", "--weights", "fp16", "--context", "8192",
                                         "--overhead", "articles", "--gpu", "rtx-4090"};
  const Run english = run(args);
  std::vector<std::string> arabic_args = args;
  arabic_args.insert(arabic_args.end(), {"--lang", "ar"});
  const Run arabic = run(arabic_args);
  INFO(arabic.err);
  REQUIRE(arabic.status == 0);
  CHECK(arabic.out.find("18.78 GB") != std::string::npos);           // the article's total
  CHECK(arabic.out.find("يتسع على 1 x GeForce RTX 4090") != std::string::npos);  // FITS on
  CHECK(arabic.out.find("الأوزان") != std::string::npos);             // Weights
  CHECK(arabic.out.find("ذاكرة KV المؤقتة") != std::string::npos);    // KV cache
  CHECK(arabic.out.find("هامش الأمان") != std::string::npos);         // Safety margin
  CHECK(arabic.out.find("FITS") == std::string::npos);
  // Every formula line is the English report's, unchanged.
  std::istringstream lines(english.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" = ") != std::string::npos && line.find(" B") != std::string::npos) {
      CHECK(arabic.out.find(line) != std::string::npos);
    }
  }
  CHECK(run({"infer", "--lang", "fr"}).status == 2);
}

TEST_CASE("vramfit train and net --lang ar: the training reports in Arabic, the same numbers", "[cli]") {
  const Run train = run({"train", "--model", "llama-3.1-8b", "--lang", "ar"});
  const Run english = run({"train", "--model", "llama-3.1-8b"});
  REQUIRE(train.status == 0);
  CHECK(train.out.find("حالة المحسن: AdamW") != std::string::npos);  // "Optimizer state: AdamW" through its pattern
  CHECK(train.out.find("التدرجات") != std::string::npos);            // Gradients
  CHECK(train.out.find("أكبر دفعة صغرى تتسع: ") != std::string::npos);
  CHECK(english.out.find("Optimizer state: AdamW") != std::string::npos);
  CHECK(train.out.find("64.24 GB") != std::string::npos);
  const Run net = run({"net", std::string(VRAMFIT_SOURCE_DIR) + "/validation/networks/article-003-mlp.json", "--lang", "ar"});
  REQUIRE(net.status == 0);
  CHECK(net.out.find("شكل المخرج") != std::string::npos);  // the layer table's "output shape"
  CHECK(net.out.find("autograd (ما يحفظه PyTorch)") != std::string::npos);
}

TEST_CASE("vramfit infer --engine ... --lang ar: the engines' reports in Arabic, their printed lines and numbers unchanged", "[cli]") {
  const std::vector<std::vector<std::string>> engines = {
      {"infer", "--model", "llama-3.1-8b", "--engine", "llama.cpp", "--gpus", "rtx-4090", "--weights", "gguf-q4_k_m", "-c", "32768"},
      {"infer", "--model", "llama-3.1-8b", "--engine", "vllm", "--gpus", "rtx-4090", "--max-model-len", "8192"},
      {"infer", "--model", "llama-3.1-8b", "--engine", "transformers", "--gpus", "rtx-4090", "rtx-4090", "--device-map", "auto"}};
  const std::vector<std::pair<std::string, std::string>> headings = {
      {"  what llama.cpp will print:", "  ما سيطبعه llama.cpp:"},
      {"  what vLLM will print:", "  ما سيطبعه vLLM:"},
      {"  what you can print to compare:", "  ما يمكنك طباعته للمقارنة:"}};
  const std::vector<std::string> verdicts = {"يبدأ العمل على 1 وحدة GPU", "يبدأ العمل على 1 وحدة GPU", "يتسع على 2 وحدات GPU"};
  for (size_t e = 0; e < engines.size(); ++e) {
    const Run english = run(engines[e]);
    std::vector<std::string> arabic_args = engines[e];
    arabic_args.insert(arabic_args.end(), {"--lang", "ar"});
    const Run arabic = run(arabic_args);
    INFO(arabic.out);
    REQUIRE(english.status == 0);
    REQUIRE(arabic.status == 0);
    CHECK(arabic.out.find(headings[e].second) != std::string::npos);
    CHECK(arabic.out.find(headings[e].first) == std::string::npos);
    CHECK(arabic.out.find(verdicts[e]) != std::string::npos);
    CHECK(arabic.out.find("FITS") == std::string::npos);
    CHECK(arabic.out.find("STARTS") == std::string::npos);
    // What the engine prints (the lines under the heading, indented by four) and the formulas
    // ("= ...") are the English report's, unchanged; so is every byte figure.
    std::istringstream lines(english.out);
    bool printed = false;
    for (std::string line; std::getline(lines, line);) {
      if (line == headings[e].first) { printed = true; continue; }
      if (printed && line.rfind("    ", 0) != 0) printed = false;
      if (printed || line.find("    = ") == 0) CHECK(arabic.out.find(line) != std::string::npos);
    }
    for (const char* figure : {"4.62 GB", "4.29 GB", "16.09 GB", "6.34 GB", "7.16 GB", "8.90 GB"}) {
      CHECK((english.out.find(figure) == std::string::npos) == (arabic.out.find(figure) == std::string::npos));
    }
  }
  // An engine's refusal, in Arabic on stderr.
  const Run refused = run({"infer", "--model", "llama-3.1-8b", "--engine", "transformers", "--gpus", "rtx-4090", "rtx-4090", "--lang", "ar"});
  CHECK(refused.status == 2);
  CHECK(refused.err.find("خطأ: transformers.device_map: القيمة none تضع النموذج كله على وحدة GPU واحدة") != std::string::npos);
}
