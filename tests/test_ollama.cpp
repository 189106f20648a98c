// Ollama (issue 36): its own estimate (llm/memory.go at v0.12.10), checked field by field on the
// "offload" lines of public logs in validation/engines/ollama.json: each field vramfit computes,
// printed as Ollama prints it, equals the log's. Also its settings read by their own names, the
// library tags, and what it refuses.
#include <map>
#include <regex>
#include <sstream>

#include "cli/cli.hpp"
#include "core/ollama.hpp"
#include "helpers.hpp"
#include "io/ollama_settings.hpp"
#include "report/engine_ollama.hpp"
#include "report/engine_requests.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

// key=value and key="value" pairs of a logged line, as slog's text handler writes them.
std::map<std::string, std::string> fields_of(const std::string& line) {
  std::map<std::string, std::string> out;
  static const std::regex pair(R"(([A-Za-z_.]+)=(\"[^\"]*\"|[^ ]+))");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), pair); it != std::sregex_iterator(); ++it) {
    std::string value = (*it)[2];
    if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
    out[(*it)[1]] = value;
  }
  return out;
}

const char* const kCompared[] = {"layers.model", "layers.offload", "layers.split", "memory.required.full",
                                 "memory.required.partial", "memory.required.kv", "memory.required.allocations",
                                 "memory.weights.total", "memory.weights.repeating", "memory.weights.nonrepeating",
                                 "memory.graph.full", "memory.graph.partial"};

}  // namespace

TEST_CASE("Ollama's estimate: every printed field of each public log, as Ollama prints it", "[ollama]") {
  const json points = validation_data("engines/ollama.json").at("points");
  REQUIRE(points.size() >= 5);  // issue 36: five points per engine
  for (const json& point : points) {
    const std::string id = point.at("id").get<std::string>();
    INFO(id);
    auto answer = estimate_ollama_request(point.at("request"), builtin_catalog());
    REQUIRE(answer);
    const auto logged = fields_of(point.at("log").get<std::string>());
    const auto ours = fields_of(ollama_offload_line(answer->estimate));
    for (const char* field : kCompared) {
      if (!logged.count(field)) continue;
      INFO(field << ": logged " << logged.at(field) << ", vramfit " << ours.at(field));
      const bool missed = point.contains("misses") && point.at("misses").contains(field);
      CHECK((ours.at(field) == logged.at(field)) != missed);
    }
  }
}

TEST_CASE("Ollama's layer placement: a worked example by hand", "[ollama]") {
  // Ten 1 GiB blocks, no KV to speak of (num_ctx 1 on 1 KV head of width 1), a 512 MiB output
  // layer, GraphSize's fallback graph (an architecture with no formula: GQA 1 x the KV's 40 B / 6 = 6 B).
  OllamaModel m;
  m.arch = "unmodelled";
  m.blocks = 10;
  m.embedding = 64;
  m.heads = m.heads_kv = 1;
  m.key_length = m.value_length = 1;
  m.vocab = 100;
  m.block_bytes.assign(10, 1024 * 1048576LL);
  m.output_bytes = 512 * 1048576LL;
  OllamaSettings s;
  s.num_ctx = 1;
  s.num_batch = 1;
  // 6 GiB free: 457 MiB minimum + the spare 1 GiB layer (+ its 4 B of KV) leave 4.55 GiB, so
  // four 1 GiB layers (each must leave room: free > used + layer) and not the output layer.
  const OllamaEstimate e = ollama_estimate_gpu_layers(m, s, {{"cuda", 6 * 1024 * 1048576LL}});
  const int64_t kv = 4;  // 1 token x (1 + 1) x 1 head x 2 bytes
  CHECK(e.kv == 10 * kv);
  CHECK(e.layers_offload == 4);
  const int64_t graph = 10 * kv / 6;
  CHECK(e.graph_partial == graph);
  CHECK(e.allocations[0] == 457 * 1048576LL + (1024 * 1048576LL + kv) * 5 + graph);
  CHECK(e.required_full == 457 * 1048576LL + (1024 * 1048576LL + kv) * 11 + 512 * 1048576LL + graph);
  CHECK(e.required_partial == e.allocations[0]);
  // num_gpu 2: two layers and no more, the rest overflow.
  s.num_gpu = 2;
  CHECK(ollama_estimate_gpu_layers(m, s, {{"cuda", 6 * 1024 * 1048576LL}}).layers_offload == 2);
  // A GPU without room for the minimum, the graph and two layers gets none.
  s.num_gpu = -1;
  const OllamaEstimate none = ollama_estimate_gpu_layers(m, s, {{"cuda", 2 * 1024 * 1048576LL}});
  CHECK(none.layers_offload == 0);
  CHECK(none.required_partial == 0);
  CHECK(none.allocations[0] == 0);
}

TEST_CASE("format.HumanBytes2: Ollama's way of printing bytes", "[ollama]") {
  CHECK(ollama_human_bytes(0) == "0 B");
  CHECK(ollama_human_bytes(1023) == "1023 B");
  CHECK(ollama_human_bytes(1536) == "1.5 KiB");
  CHECK(ollama_human_bytes(896 * 1048576LL) == "896.0 MiB");
  CHECK(ollama_human_bytes(1024 * 1048576LL) == "1.0 GiB");
  CHECK(ollama_human_bytes(static_cast<int64_t>(78.6 * 1073741824.0)) == "78.6 GiB");
}

TEST_CASE("Ollama's settings by their names: environment, PARAMETER lines, the run tag", "[ollama]") {
  auto c = read_ollama_words({"OLLAMA_NUM_PARALLEL=4", "OLLAMA_FLASH_ATTENTION=true", "OLLAMA_KV_CACHE_TYPE=Q8_0",
                              "OLLAMA_HOST=0.0.0.0", "ollama", "run", "llama3.1:8b", "--verbose"});
  REQUIRE(c);
  CHECK(c->settings.num_parallel == 4);
  CHECK(c->settings.flash_attention == true);
  CHECK(c->settings.kv_cache_type == "q8_0");
  CHECK(c->model_tag == "llama3.1:8b");
  CHECK(c->ignored == std::vector<std::string>{"OLLAMA_HOST", "--verbose"});
  auto p = read_ollama_words({"PARAMETER", "num_ctx", "16384", "PARAMETER", "num_gpu", "20"});
  REQUIRE(p);
  CHECK(p->settings.num_ctx == 16384);
  CHECK(p->settings.num_gpu == 20);
  // What Ollama itself would ignore or cannot read is an error naming it here.
  auto overhead = read_ollama_words({"OLLAMA_GPU_OVERHEAD=8G", "ollama", "serve"});
  REQUIRE_FALSE(overhead);
  CHECK(overhead.error().field == "OLLAMA_GPU_OVERHEAD");
  auto unknown = ollama_settings_from_json({{"OLLAMA_TURBO", 1}});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().field == "ollama.OLLAMA_TURBO");
  auto flash = ollama_settings_from_json({{"OLLAMA_FLASH_ATTENTION", "yes"}});
  REQUIRE_FALSE(flash);
  CHECK(flash.error().field == "ollama.OLLAMA_FLASH_ATTENTION");
  // A PARAMETER line without a name (the fuzzer's find: PARAMETER "" "\r-u 20") is an error
  // naming the command, not one with an empty field.
  auto nameless = read_ollama_words({"OLLAMA_SCHED_SPREAD=true", "ollama", "serve", "PARAMETER", "", "\r\"-u 20", "PARAMETER", "numhc", "a"});
  REQUIRE_FALSE(nameless);
  CHECK(nameless.error().field == "command");
  // free_mib within the CLI's range (the request fuzzer's find: 1.8e113 MiB reached an int64 cast).
  for (const json& mib : {json(0), json(0.5), json(1.8e113), json(16777217)}) {
    auto free = ollama_settings_from_json({{"free_mib", {mib}}});
    REQUIRE_FALSE(free);
    CHECK(free.error().field == "ollama.free_mib");
  }
  CHECK(ollama_settings_from_json({{"free_mib", {15769, 16777216}}}));
  // The releases whose estimator this is.
  CHECK(ollama_settings_from_json({{"version", "0.9.6"}}));
  CHECK(ollama_settings_from_json({{"version", "0.12.10"}}));
  CHECK_FALSE(ollama_settings_from_json({{"version", "0.12.11"}}));
  CHECK_FALSE(ollama_settings_from_json({{"version", "0.30.0"}}));
}

TEST_CASE("Ollama library tags: the preset and the quantization the tag names", "[ollama]") {
  auto a = ollama_library_model("llama3.1:8b");
  REQUIRE(a);
  CHECK(a->preset == "llama-3.1-8b");
  CHECK(a->format == "gguf-q4_k_m");
  auto b = ollama_library_model("qwen2.5:14b-instruct-q8_0");
  REQUIRE(b);
  CHECK(b->preset == "qwen2.5-14b");
  CHECK(b->format == "gguf-q8_0");
  auto c = ollama_library_model("llama3.2");
  REQUIRE(c);
  CHECK(c->preset == "llama-3.2-3b");
  auto d = ollama_library_model("mistral:7b-instruct-fp16");
  REQUIRE(d);
  CHECK(d->format == "gguf-f16");
  auto none = ollama_library_model("frobnicator:9b");
  REQUIRE_FALSE(none);
  CHECK(none.error().field == "ollama.model");
}

TEST_CASE("Ollama: what its estimate does not size, and num_ctx past the model's context", "[ollama]") {
  // Qwen3 loads in Ollama's own engine at 0.12: not this estimate.
  auto qwen3 = estimate_ollama_request({{"model", {{"preset", "qwen3-8b"}}}, {"weights", {{"format", "gguf-q4_k_m"}}}},
                                       builtin_catalog());
  REQUIRE_FALSE(qwen3);
  CHECK(qwen3.error().message.find("own engine") != std::string::npos);
  // num_ctx above the trained context: Ollama warns and uses the model's.
  auto capped = estimate_ollama_request({{"ollama", {{"model", "llama3.2:1b"}, {"num_ctx", 1000000}}}}, builtin_catalog());
  REQUIRE(capped);
  CHECK(capped->estimate.num_ctx == capped->report.prepared.model.max_context_tokens);
  REQUIRE(capped->estimate.warnings.size() == 1);
  CHECK(capped->estimate.warnings[0].find("requested context size too large for model") == 0);
}

TEST_CASE("Ollama's scheduler: the fewest GPUs that hold every layer, or all with OLLAMA_SCHED_SPREAD", "[ollama]") {
  const json request = {{"ollama", {{"model", "llama3.1:8b"}}}, {"gpus", {"rtx-4090", "rtx-4090"}}};
  auto packed = estimate_ollama_request(request, builtin_catalog());
  REQUIRE(packed);
  CHECK(packed->estimate.gpus.size() == 1);
  CHECK(packed->estimate.layers_offload == 33);
  json spread_request = request;
  spread_request["ollama"]["OLLAMA_SCHED_SPREAD"] = true;
  auto spread = estimate_ollama_request(spread_request, builtin_catalog());
  REQUIRE(spread);
  REQUIRE(spread->estimate.gpus.size() == 2);
  CHECK(spread->estimate.tensor_split[0] + spread->estimate.tensor_split[1] == 33);
  // Several GPUs: the partial graph on each (memory.graph.full printed as the partial).
  CHECK(spread->estimate.graph_full == spread->estimate.graph_partial);
  // The runner then splits llama.cpp's layers as the estimate did.
  CHECK(spread->runner.gpus.size() == 2);
  CHECK(spread->runner.offloaded_layers == 33);
}

TEST_CASE("vramfit infer with Ollama's environment and run tag: its line, the runner's, in English and Arabic", "[cli]") {
  std::ostringstream o1, e1;
  REQUIRE(run_cli({"infer", "-g", "a100-80", "--ollama-free-mib", "80486", "--cmd",
                   "OLLAMA_NUM_PARALLEL=4 OLLAMA_KEEP_ALIVE=1h PARAMETER num_ctx 2048 ollama run llama3.2:3b"},
                  o1, e1) == 0);
  const std::string text = o1.str();
  INFO(text << e1.str());
  CHECK(text.find("on Ollama 0.12.10, gguf-q4_k_m, num_ctx 2048, OLLAMA_NUM_PARALLEL 4") != std::string::npos);
  CHECK(text.find("layers.offload=29") != std::string::npos);
  CHECK(text.find("memory.required.kv=\"896.0 MiB\"") != std::string::npos);
  CHECK(text.find("llama_kv_cache") != std::string::npos);
  CHECK(e1.str().find("note: OLLAMA_KEEP_ALIVE does not change memory: not read") != std::string::npos);
  std::ostringstream o2, e2;
  REQUIRE(run_cli({"infer", "-g", "rtx-4080", "--engine", "ollama", "--cmd", "ollama run qwen2.5:14b", "--json"}, o2, e2) == 0);
  const json j = json::parse(o2.str()).at("engine");
  CHECK(j.at("name") == "ollama");
  CHECK(j.at("layers_model") == 49);
  CHECK(j.at("num_ctx") == 4096);
  std::ostringstream o3, e3;
  REQUIRE(run_cli({"infer", "-g", "rtx-4080", "--cmd", "ollama run qwen2.5:14b", "--lang", "ar"}, o3, e3) == 0);
  CHECK(o3.str().find(" على Ollama ") != std::string::npos);
  std::ostringstream o4, e4;
  CHECK(run_cli({"infer", "--cmd", "OLLAMA_GPU_OVERHEAD=8G ollama run llama3.1:8b"}, o4, e4) == 2);
  CHECK(e4.str().find("OLLAMA_GPU_OVERHEAD") != std::string::npos);
}

TEST_CASE("Ollama's release boundaries: the weights fields at 0.6.1 and 0.6.3, the layer order at 0.7.0", "[ollama]") {
  const auto estimate_at = [](const std::string& version) {
    auto a = estimate_ollama_request({{"ollama", {{"model", "qwen2.5:72b-instruct-q4_K_S"}, {"num_ctx", 2048}, {"free_mib", {24576}}, {"version", version}}},
                                      {"gpus", {"rx-7900-xtx"}}},
                                     builtin_catalog());
    REQUIRE(a);
    return a->estimate;
  };
  const OllamaEstimate v0_6_0 = estimate_at("0.6.0"), v0_6_1 = estimate_at("0.6.1"), v0_6_3 = estimate_at("0.6.3"),
                       v0_7_0 = estimate_at("0.7.0");
  // Before 0.6.1 the total held every layer's KV and "repeating" was the total less the output.
  CHECK(v0_6_0.weights_total == v0_6_1.weights_repeating + v0_6_0.kv);
  CHECK(v0_6_0.weights_repeating == v0_6_0.weights_total - v0_6_0.weights_nonrepeating);
  CHECK(v0_6_1.weights_total == v0_6_1.weights_repeating);
  CHECK(v0_6_3.weights_total == v0_6_3.weights_repeating + v0_6_3.weights_nonrepeating);
  // Q4_K_S gives some layers more bits: from 0.7.0 the last layers go first, and a GPU that holds
  // only some layers holds other ones. The July 2024 log (0.3.0) prints 23.7 GiB; the same
  // estimate in 0.7.0's order is 23.6 GiB.
  CHECK(v0_6_3.layers_offload > 0);
  CHECK(v0_6_3.layers_offload < v0_6_3.layers_model);
  CHECK(ollama_human_bytes(estimate_at("0.3.0").required_partial) == "23.7 GiB");
  CHECK(ollama_human_bytes(v0_6_3.required_partial) == "23.7 GiB");
  CHECK(ollama_human_bytes(v0_7_0.required_partial) == "23.6 GiB");
}

TEST_CASE("An Ollama request file: the CLI and the API's entry answer alike, and the answer's request reads back", "[cli]") {
  const std::string file = std::string(VRAMFIT_GOLDEN_DIR) + "/ollama_qwen25_14b_rtx4080.json";
  std::ostringstream out, err;
  REQUIRE(run_cli({"infer", "--request", file, "--json"}, out, err) == 0);
  const json answer = json::parse(out.str());
  CHECK(answer.at("engine").at("layers_offload") == 49);
  CHECK(answer.at("request").at("engine") == "ollama");
  // The request the answer states gives the same answer (as the JavaScript API's estimate() is
  // checked against the CLI on every golden request).
  CHECK(json::parse(estimate_any_engine_json(answer.at("request").dump())) == answer);
  // The file is the whole request: a model option beside it is refused, not merged silently.
  std::ostringstream o2, e2;
  CHECK(run_cli({"infer", "--request", file, "-m", "llama-3.1-8b"}, o2, e2) == 2);
  CHECK(e2.str().find("the file holds the whole request") != std::string::npos);
}

TEST_CASE("Ollama on Apple silicon: Metal's 512 MiB minimum, no partial-graph overhead, the working set as available", "[ollama]") {
  auto mac = estimate_ollama_request({{"ollama", {{"model", "llama3.1:8b"}}}, {"gpus", {"apple-m2-24"}}}, builtin_catalog());
  REQUIRE(mac);
  const OllamaEstimate& e = mac->estimate;
  CHECK(e.library == "metal");
  // Metal's recommendedMaxWorkingSetSize (2/3 of 24 GB) is what Ollama reads as free on a Mac.
  CHECK(e.available[0] == mac->devices[0].usable_bytes());
  CHECK(e.graph_partial == e.graph_full);  // "on metal there's no partial offload overhead"
  auto cuda = estimate_ollama_request({{"ollama", {{"model", "llama3.1:8b"}, {"free_mib", {16384}}}}, {"gpus", {"rtx-4090"}}},
                                      builtin_catalog());
  REQUIRE(cuda);
  REQUIRE(e.fully_loaded());
  REQUIRE(cuda->estimate.fully_loaded());
  // Same model and settings: the GPU's total differs by the minimum (512 vs 457 MiB) alone.
  CHECK(e.allocations[0] - cuda->estimate.allocations[0] == (512 - 457) * 1048576LL);
  CHECK(mac->runner.gpus[0].device == "MTL0");
}

TEST_CASE("Ollama's longest num_ctx with every layer on the GPUs: one token more puts a layer on the CPU", "[ollama]") {
  const json request = {{"ollama", {{"model", "qwen2.5:14b"}, {"free_mib", {15769}}}}, {"gpus", {"rtx-4080"}}};
  auto a = estimate_ollama_request(request, builtin_catalog());
  REQUIRE(a);
  const int64_t most = a->max_num_ctx_on_gpus;
  REQUIRE(most > 2048);
  REQUIRE(most < a->model.context_length);
  json at = request, past = request;
  at["ollama"]["num_ctx"] = most;
  past["ollama"]["num_ctx"] = most + 1;
  CHECK(estimate_ollama_request(at, builtin_catalog())->estimate.fully_loaded());
  CHECK_FALSE(estimate_ollama_request(past, builtin_catalog())->estimate.fully_loaded());
}

TEST_CASE("Ollama's own engine by release: Qwen 3 on the llama.cpp runner before 0.12.0, MoE before 0.12.2", "[ollama]") {
  const auto at = [](const std::string& preset, const std::string& version) {
    return estimate_ollama_request({{"model", {{"preset", preset}}}, {"weights", {{"format", "gguf-q4_k_m"}}},
                                    {"ollama", {{"version", version}}}, {"gpus", {"h100-80"}}},
                                   builtin_catalog());
  };
  CHECK(at("qwen3-8b", "0.11.11"));
  CHECK_FALSE(at("qwen3-8b", "0.12.0"));
  CHECK(at("qwen3-8b", "0.12.5"));   // the one release whose list left Qwen 3 out
  CHECK_FALSE(at("qwen3-8b", "0.12.6"));
  CHECK(at("qwen3-30b-a3b", "0.12.1"));
  CHECK_FALSE(at("qwen3-30b-a3b", "0.12.2"));
  CHECK_FALSE(at("gpt-oss-20b", "0.11.4"));  // its own graph rules at every release: not modelled
}

TEST_CASE("Ollama's scheduler by release: OLLAMA_NUM_PARALLEL unset (4, 2, then 1) and one GPU or all before 0.11.5", "[ollama]") {
  const auto at = [](const json& request, const std::string& version) {
    json r = request;
    r["ollama"]["version"] = version;
    auto a = estimate_ollama_request(r, builtin_catalog());
    REQUIRE(a);
    return a->estimate;
  };
  const json small = {{"ollama", {{"model", "llama3.2:3b"}}}, {"gpus", {"h100-80"}}};
  CHECK(at(small, "0.6.8").num_parallel == 4);
  CHECK(at(small, "0.9.6").num_parallel == 2);
  CHECK(at(small, "0.10.0").num_parallel == 1);
  // Too large for four sequences on a small GPU: 0.6 falls back to one.
  const json tight = {{"ollama", {{"model", "llama3.1:8b"}, {"num_ctx", 32768}}}, {"gpus", {"rtx-4060"}}};
  CHECK(at(tight, "0.6.8").num_parallel == 1);
  // A 70B in Q4_K_M needs two 24 GB GPUs of three: 0.11.4 takes all three, 0.11.5 the fewest.
  const json big = {{"ollama", {{"model", "llama3.1:70b"}, {"OLLAMA_NUM_PARALLEL", 1}}}, {"gpus", {"rtx-3090", "rtx-3090", "rtx-3090"}}};
  CHECK(at(big, "0.11.4").gpus.size() == 3);
  CHECK(at(big, "0.11.5").gpus.size() == 2);
}

TEST_CASE("Ollama's layers.split as each release prints it: 11,11,11,11 before 0.11.5, a Go list from it", "[ollama]") {
  const auto line_at = [](const std::string& version) {
    auto a = estimate_ollama_request({{"ollama", {{"model", "llama3.1:70b"}, {"OLLAMA_NUM_PARALLEL", 1}, {"OLLAMA_SCHED_SPREAD", true},
                                                  {"version", version}}},
                                      {"gpus", {"rtx-3090", "rtx-3090", "rtx-3090"}}},
                                     builtin_catalog());
    REQUIRE(a);
    return ollama_offload_line(a->estimate);
  };
  CHECK(line_at("0.11.4").find("layers.split=27,27,27 ") != std::string::npos);
  CHECK(line_at("0.11.5").find("layers.split=\"[27 27 27]\" ") != std::string::npos);
  auto one = estimate_ollama_request({{"ollama", {{"model", "llama3.2:3b"}}}, {"gpus", {"h100-80"}}}, builtin_catalog());
  REQUIRE(one);
  CHECK(ollama_offload_line(one->estimate).find("layers.split=[29] ") != std::string::npos);
}

TEST_CASE("Ollama's output layer with num_gpu reached: left out of the estimate before 0.7.1, counted on the CPU from it", "[ollama]") {
  const auto at = [](const std::string& version) {
    auto a = estimate_ollama_request({{"ollama", {{"model", "llama3.1:8b"}, {"num_gpu", 32}, {"version", version}}}, {"gpus", {"rtx-4090"}}},
                                     builtin_catalog());
    REQUIRE(a);
    return a->estimate;
  };
  const OllamaEstimate before = at("0.7.0"), after = at("0.7.1");
  CHECK(before.layers_offload == 32);
  CHECK(after.layers_offload == 32);
  // 0.7.0: every repeating layer placed counts as "fully loaded" (the full graph) and the output
  // layer is in no total; 0.7.1: not fully loaded (the partial graph) and the output on the CPU.
  CHECK(before.allocations[0] - before.graph_full == after.allocations[0] - after.graph_partial);
  CHECK(after.required_full - after.required_partial == after.weights_nonrepeating);
  CHECK(before.required_full == before.required_partial);
}
