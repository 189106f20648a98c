// The errors a person meets in the app, in Arabic (issue 15): real errors from the readers, the
// request, the engines, a pasted command, a layer list and a typed number, each translated by
// the catalog (data/messages/ar.json) with nothing left in English but names: fields, files,
// flags, ids, quoted values and the engines' own words in quotes.
#include <regex>
#include <set>

#include "helpers.hpp"
#include "core/units.hpp"
#include "io/json.hpp"
#include "io/network_json.hpp"
#include "io/url_hash.hpp"
#include "report/command_request.hpp"
#include "report/estimate.hpp"
#include "text/messages.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

// The English words a translation left: words of three or more Latin letters that are not
// names (quoted text, identifiers with '.', '_', '-', digits or brackets, and the product and
// engine names an Arabic text keeps).
std::vector<std::string> english_words_left(const std::string& text) {
  static const std::set<std::string> names = {"vramfit", "GGUF", "JSON", "LoRA", "QLoRA", "vLLM", "GPU", "GPUs", "CUDA",
                                              "Transformers", "transformers", "safetensors", "MLP", "NF4", "base64url",
                                              "JavaScript", "Mamba", "RWKV", "true", "false", "config", "preset",
                                              "ggml", "DeBERTa", "SigLIP", "PiB", "GiB", "MiB", "TiB", "token", "tokens",
                                              // fields, values, commands and layer types, as typed
                                              "units", "gpus", "models", "dtype", "shape", "none", "auto", "sequential",
                                              "serve", "cli", "linear", "layernorm", "embedding", "relu", "gelu", "silu",
                                              "sigmoid", "tanh", "softmax", "dropout", "flatten", "add", "off", "vllm", "layers"};
  std::string rest = std::regex_replace(text, std::regex("'[^']*'|\"[^\"]*\""), " ");
  std::vector<std::string> left;
  const std::regex word(R"([^\s,;:()\[\]=<>،؛]+)");
  for (auto it = std::sregex_iterator(rest.begin(), rest.end(), word); it != std::sregex_iterator(); ++it) {
    std::string w = it->str();
    while (!w.empty() && (w.back() == '.' || w.back() == '?')) w.pop_back();
    if (w.find_first_of("._-0123456789/*^") != std::string::npos) continue;  // an identifier, file, flag, number
    if (!std::regex_match(w, std::regex("[A-Za-z]{3,}"))) continue;
    if (names.count(w)) continue;
    left.push_back(w);
  }
  return left;
}

// The bytes of a literal with NULs in it, all of them (not up to its first NUL).
template <size_t N>
std::string bytes(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

bool has_arabic(const std::string& text) { return text.find('\xD8') != std::string::npos || text.find('\xD9') != std::string::npos; }

void check_in_arabic(const std::string& english) {
  INFO(english);
  REQUIRE(!english.empty());
  const std::string arabic = translate_text(Language::arabic, english);
  INFO(arabic);
  CHECK(has_arabic(arabic));
  const std::vector<std::string> left = english_words_left(arabic);
  for (const std::string& word : left) UNSCOPED_INFO("left in English: " << word);
  CHECK(left.empty());
}

std::string read_error(const std::string& name, const std::string& bytes) {
  const json read = read_model_file_json(name, reinterpret_cast<const uint8_t*>(bytes.data()),
                                         static_cast<int64_t>(bytes.size()), static_cast<int64_t>(bytes.size()));
  REQUIRE(read.contains("error"));
  return read["error"]["message"].get<std::string>();
}

}  // namespace

TEST_CASE("The checker of what is left in English finds English", "[text]") {
  CHECK(english_words_left("gpu.id: no GPU 'x' (vramfit gpus lists them)") ==
        std::vector<std::string>{"lists", "them"});  // "no" is short; names stay
  CHECK(english_words_left("gpu.id: لا توجد وحدة GPU باسم 'x' (يسردها الأمر vramfit gpus)").empty());
  CHECK(english_words_left("command: -m: needs a file") == std::vector<std::string>{"command", "needs", "file"});
}

TEST_CASE("Errors from the files a person opens, in Arabic", "[text]") {
  check_in_arabic(read_error("weights.bin", "hello"));                        // not a model file
  check_in_arabic(read_error("model.gguf", "GGUX and more bytes than four")); // not GGUF
  check_in_arabic(read_error("model.gguf", bytes("GGUF\x03\0\0\0")));  // cut short in the header
  check_in_arabic(read_error("model.safetensors", bytes("\x0D\0\0\0\0\0\0\0{\"a\":1}      ")));  // an entry without dtype
  check_in_arabic(read_error("model.safetensors", bytes("\x02\0\0\0\0\0\0\0[]")));  // a header that is no object
  const json config = read_config_fragment_json(R"({"model_type": "mystery", "hidden_size": 64, "frob_nicate": 3})", "config.json");
  REQUIRE(config.contains("error"));
  check_in_arabic(config["error"]["message"].get<std::string>());  // an architecture vramfit does not know
  const json negative = read_config_fragment_json(R"({"model_type": "llama", "num_hidden_layers": -2})", "config.json");
  REQUIRE(negative.contains("error"));
  check_in_arabic(negative["error"]["message"].get<std::string>());
}

TEST_CASE("Errors of a request, an engine's refusal and a link, in Arabic", "[text]") {
  check_in_arabic(request_from_text("{").error().message);
  check_in_arabic(request_from_text("[1]").error().message);
  check_in_arabic(request_from_text(R"({"units": "MB"})").error().message);
  check_in_arabic(request_from_text(R"({"mode": "training", "kv_cache": {"dtype": "f16"}})").error().message);
  check_in_arabic(decode_url_hash("#x=1").error().message);
  check_in_arabic(decode_url_hash("#r=***").error().message);
  const json model = {{"preset", "llama-3.1-8b"}};
  check_in_arabic(estimate_error({{"model", model}, {"gpu", {{"id", "no-such-gpu"}}}}).message);
  check_in_arabic(estimate_error({{"model", {{"preset", "no-such-model"}}}, {"gpu", {{"id", "rtx-4090"}}}}).message);
  // llama.cpp: a quantized V cache without flash attention; GGUF only.
  json llamacpp = {{"model", model}, {"engine", "llama.cpp"}, {"gpus", {"rtx-4090"}}, {"weights", {{"format", "gguf-q4_k_m"}}},
                   {"llama.cpp", {{"flash-attn", "off"}, {"cache-type-v", "q8_0"}}}};
  check_in_arabic(estimate_error(llamacpp).message);
  llamacpp["llama.cpp"] = json::object();
  llamacpp["weights"]["format"] = "awq-int4";
  check_in_arabic(estimate_error(llamacpp).message);
  // vLLM: 3 GPUs do not divide 32 heads; a --max-model-len past the model's.
  check_in_arabic(estimate_error({{"model", model}, {"engine", "vllm"}, {"gpus", {"rtx-4090", "rtx-4090", "rtx-4090"}},
                                  {"vllm", {{"tensor-parallel-size", 3}}}})
                      .message);
  check_in_arabic(estimate_error({{"model", model}, {"engine", "vllm"}, {"gpus", {"h100-80"}}, {"vllm", {{"max-model-len", 1048576}}}})
                      .message);
  check_in_arabic(estimate_error({{"model", model}, {"engine", "vllm"}, {"gpus", {"h100-80", "h100-80"}}}).message);
  // Transformers: device_map none over two GPUs.
  check_in_arabic(estimate_error({{"model", model}, {"engine", "transformers"}, {"gpus", {"rtx-4090", "rtx-4090"}},
                                  {"transformers", {{"device_map", "none"}}}})
                      .message);
  // Training: LoRA on modules the model does not have.
  check_in_arabic(estimate_error({{"mode", "training"}, {"model", {{"parameters", 7000000000}}}, {"gpu", {{"id", "h100-80"}}},
                                  {"training", {{"method", "lora"}}}})
                      .message);
}

TEST_CASE("Errors of a pasted command, a layer list and a typed number, in Arabic", "[text]") {
  for (const char* line : {"", "ollama run llama3", "llama-server -m", "llama-server -m x.gguf --frobnicate",
                           "vllm serve meta-llama/Llama-3.1-8B --max-model-len abc", "vllm serve some/unknown-model"}) {
    const Result<CommandRequest> read = command_request(line, builtin_catalog());
    REQUIRE(!read);
    check_in_arabic(read.error().message);
  }
  const auto layers = [](const char* text) {
    const Result<Request> read = request_from_text(std::string(R"({"mode": "training", "network": )") + text + "}");
    if (!read) return read.error().message;
    return estimate(*read, builtin_catalog()).error().message;
  };
  check_in_arabic(layers(R"({"input": [4096], "layers": [{"type": "linear", "name": "up", "in": 2048, "out": 10}]})"));
  check_in_arabic(layers(R"({"input": [4096], "layers": [{"type": "warp"}]})"));
  check_in_arabic(layers(R"({"input": [3, 8, 8], "layers": [{"type": "conv2d", "out": 4, "kernel": 9}]})"));
  check_in_arabic(layers(R"({"input": "x", "layers": []})"));
  // The number fields' words (src/app/widgets.cpp composes them with the reader's reason).
  for (const char* typed : {"abc", "12 zz", "1e999999", "3.5"}) {
    int64_t count = 0;
    std::string why;
    REQUIRE(!parse_count(typed, count, why));
    check_in_arabic(std::string("\"") + typed + "\": " + why + "; kept 4,096.");
  }
  check_in_arabic("\"99\": outside 1 .. 64; kept 8.");
  int64_t bytes = 0;
  std::string why;
  REQUIRE(!parse_memory_size("12 parsecs", bytes, why));
  check_in_arabic("\"12 parsecs\": " + why + "; kept 24 GB.");
}
