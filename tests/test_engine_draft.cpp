// A draft model for speculative decoding (Request::draft), against each engine's own rules:
//   llama.cpp  common/speculative.cpp common_base_params_to_speculative (the target's settings with
//              -ngld, -ctkd, -ctvd), common_speculative_init_result (one draft context of the
//              target's n_ctx), common_speculative_are_compatible (vocabularies within 128 tokens)
//   vLLM       vllm/v1/spec_decode/draft_model.py (the draft's weights and KV layers beside the
//              model's), vllm/config/speculative.py (--speculative-config)
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli/cli.hpp"
#include "core/llamacpp.hpp"
#include "io/engine_command.hpp"
#include "io/gguf.hpp"
#include "io/model_file.hpp"
#include "io/request_json.hpp"
#include "report/command_request.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"
#include "helpers.hpp"
#include "support/model_file_writers.hpp"
#include "support/published_gguf.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

// Llama 3.1 70B (Q4_K_M) over two RTX 3090s with Llama 3.2 1B (Q8_0) drafting.
json llamacpp_request() {
  return {{"model", {{"preset", "llama-3.1-70b"}}},
          {"weights", {{"format", "gguf-q4_k_m"}}},
          {"engine", "llama.cpp"},
          {"llama.cpp", {{"ctx-size", 16384}, {"parallel", 2}}},
          {"draft", {{"model", {{"preset", "llama-3.2-1b"}}}, {"weights", {{"format", "gguf-q8_0"}}}}},
          {"gpus", {"rtx-3090", "rtx-3090"}}};
}

Report estimated(const json& request) {
  auto r = request_from_json(request);
  if (!r) FAIL(r.error().message);
  auto report = estimate(*r, builtin_catalog());
  if (!report) FAIL(report.error().message);
  return std::move(report).value();
}

std::string error_field(const json& request) {
  auto r = request_from_json(request);
  if (!r) return r.error().field;
  auto report = estimate(*r, builtin_catalog());
  return report ? std::string("(none)") : report.error().field;
}

}  // namespace

TEST_CASE("llama.cpp's draft model: a model's buffers under -ngld, -ctkd/-ctvd at the target's n_ctx", "[llamacpp]") {
  json request = llamacpp_request();
  request["llama.cpp"]["gpu-layers-draft"] = 10;
  request["llama.cpp"]["cache-type-k-draft"] = "q8_0";
  const Report report = estimated(request);
  const EngineReport& e = *report.engine;
  CHECK(e.draft_name == "Llama 3.2 1B");
  CHECK(e.draft_parameters == 1'235'814'400);

  // The draft's settings are the target's with the draft's flags, its context the target's n_ctx.
  const LlamaCppSettings d = llamacpp_draft_settings(report.request.llamacpp, e.llamacpp.n_ctx);
  CHECK(d.ctx_size == 16384);
  CHECK(d.n_gpu_layers == 10);
  CHECK(d.cache_type_k == "q8_0");
  CHECK(d.cache_type_v == "f16");
  CHECK(d.parallel == 2);
  // Its layers, from the model card (meta-llama/Llama-3.2-1B config.json: hidden 2048, 8 KV heads
  // of 64, FFN 8192) in Q8_0 (ggml-common.h block_q8_0: 34 B per 32 values): q and o 2048 x 2048,
  // k and v 2048 x 512, gate, up and down 2048 x 8192, and two F32 norms of 2048.
  const int64_t layer_bytes = (2 * 2048LL * 2048 + 2 * 2048LL * 512 + 3 * 2048LL * 8192) / 32 * 34 + 2 * 2048 * 4;
  CHECK(layer_bytes == 64'634'880);
  // llama-model.cpp load_tensors: of the 17 slots (16 layers and the output layer, il = 16),
  // -ngld 10 puts slots 7..16 on the GPUs (i_gpu_start = 16 + 1 - 10), divided by the free memory
  // each GPU has once the target is loaded: slot il goes to the first GPU whose cumulative share
  // exceeds (il - 7) / 10 (std::upper_bound over the normalised splits).
  std::vector<double> splits;
  double free_total = 0;
  for (size_t g = 0; g < 2; ++g) {
    free_total += static_cast<double>(e.devices[g].usable_bytes() - e.llamacpp.gpus[g].total());
    splits.push_back(free_total);
  }
  std::vector<int64_t> layers_on(2, 0);
  size_t output_on = 0;
  for (int il = 7; il <= 16; ++il) {
    const size_t g = (il - 7) / 10.0 < splits[0] / free_total ? 0 : 1;
    if (il == 16) output_on = g;
    else layers_on[g] += 1;
  }
  // The output layer: the output norm and, the embedding being tied, token_embd again
  // (TENSOR_DUPLICATED: 128,256 x 2048 in Q8_0).
  const int64_t token_embd = 128256LL * 2048 / 32 * 34;
  REQUIRE(e.llamacpp_draft.gpus.size() == 2);
  for (size_t g = 0; g < 2; ++g) {
    CHECK(e.llamacpp_draft.gpus[g].layers == layers_on[g]);
    CHECK(e.llamacpp_draft.gpus[g].output_layer == (g == output_on));
    CHECK(e.llamacpp_draft.gpus[g].model == layers_on[g] * layer_bytes + (g == output_on ? token_embd + 2048 * 4 : 0));
    CHECK(e.llamacpp_draft.gpus[g].compute > 0);
  }
  // The host keeps token_embd (the input layer is always on the CPU) and the first 7 layers.
  CHECK(e.llamacpp_draft.host.model == token_embd + 7 * layer_bytes);
  // -ngld 10 of 17 slots: 7 layers (and token_embd) stay on the host.
  CHECK(e.llamacpp_draft.offloaded_layers == 10);
  CHECK(e.llamacpp_draft.host.layers == 7);
  // KV: 16,384 cells x 16 layers, K q8_0 (8 heads x 64 = 512 values: 16 blocks of 34 B) and V f16
  // (1,024 B); the host's 7 layers keep theirs on the host (their device).
  CHECK(e.llamacpp_draft.host.kv + e.llamacpp_draft.gpus[0].kv + e.llamacpp_draft.gpus[1].kv == 16384LL * 16 * (16 * 34 + 1024));
  // The draft context's output buffer: -np 2 rows of the draft's 128,256 logits.
  CHECK(e.llamacpp_draft.host.output == 2LL * 128256 * 4);

  // What each GPU holds grows by the draft's buffers and nothing else: the same request without
  // the draft, estimated on its own, uses exactly that much less; the host likewise.
  json alone_request = request;
  alone_request.erase("draft");
  const Report alone = estimated(alone_request);
  // Per GPU that is the draft's layers (above), the KV of those layers (16,384 cells x 1,568 B)
  // and the draft context's compute buffer.
  for (size_t g = 0; g < 2; ++g) {
    const int64_t draft_model = layers_on[g] * layer_bytes + (g == output_on ? token_embd + 2048 * 4 : 0);
    const int64_t draft_kv = 16384LL * layers_on[g] * (16 * 34 + 1024);
    CHECK(e.llamacpp_fit.gpu_use[g] - alone.engine->llamacpp_fit.gpu_use[g] == draft_model + draft_kv + e.llamacpp_draft.gpus[g].compute);
  }
  CHECK(e.llamacpp_fit.host_need - alone.engine->llamacpp_fit.host_need == e.llamacpp_draft.host.total());

  // The report's JSON carries the draft's buffers and the lines llama.cpp prints for it.
  const json out = report_to_json(report);
  const json& draft_json = out.at("engine").at("draft");
  CHECK(draft_json.at("name") == "Llama 3.2 1B");
  CHECK(draft_json.at("n_ctx") == 16384);
  CHECK(out.at("engine").at("gpus")[1].at("draft_bytes") == e.llamacpp_draft.gpus[1].total());
  CHECK(draft_json.at("log_lines")[0] == "load_tensors: offloaded 10/17 layers to GPU");
}

TEST_CASE("llama.cpp's draft model takes its share in every -ngl and -c the fit tries", "[llamacpp]") {
  json request = llamacpp_request();
  request["gpus"] = {"rtx-4090"};
  request["model"]["preset"] = "llama-3.1-8b";
  request["weights"]["format"] = "gguf-q8_0";
  request["llama.cpp"]["ctx-size"] = 131072;
  json without = request;
  without.erase("draft");
  const Report alone = estimated(without);
  const Report with_draft = estimated(request);
  CHECK(with_draft.engine->llamacpp_fit.max_ctx_size < alone.engine->llamacpp_fit.max_ctx_size);
  // At the longest context that fits with the draft, target + draft fit; 256 cells more do not.
  request["llama.cpp"]["ctx-size"] = with_draft.engine->llamacpp_fit.max_ctx_size;
  CHECK(estimated(request).engine->llamacpp_fit.fits);
  request["llama.cpp"]["ctx-size"] = with_draft.engine->llamacpp_fit.max_ctx_size + 256;
  CHECK_FALSE(estimated(request).engine->llamacpp_fit.fits);
  CHECK(with_draft.engine->llamacpp_fit.max_gpu_layers <= alone.engine->llamacpp_fit.max_gpu_layers);
}

TEST_CASE("a draft model in a request: JSON both ways, errors naming the draft's field", "[llamacpp]") {
  const json request = llamacpp_request();
  auto r = request_from_json(request);
  REQUIRE(r);
  REQUIRE(r->draft);
  CHECK(r->draft->model_preset == "llama-3.2-1b");
  CHECK(r->draft->weight_format == "gguf-q8_0");
  auto again = request_from_json(request_to_json(*r));
  REQUIRE(again);
  CHECK(request_to_json(*again) == request_to_json(*r));
  CHECK(request_to_json(*r).at("draft").at("model").at("preset") == "llama-3.2-1b");

  json bad = request;
  bad["draft"]["model"]["preset"] = "no-such-model";
  CHECK(error_field(bad) == "draft.model.preset");
  bad = request;
  bad["draft"]["weights"]["format"] = "awq-int4";  // llama.cpp loads GGUF files
  CHECK(error_field(bad) == "draft.weights.format");
  bad = request;
  bad["draft"]["model"]["preset"] = "qwen2.5-0.5b";  // 151,936 tokens against Llama's 128,256
  CHECK(error_field(bad) == "draft.model");
  bad = request;
  bad["draft"] = {{"weights", {{"format", "gguf-q8_0"}}}};
  CHECK(error_field(bad) == "draft.model");
  bad = request;
  bad["draft"]["extra"] = 1;
  CHECK(error_field(bad) == "draft.extra");
  bad = request;
  bad["engine"] = "transformers";
  bad.erase("llama.cpp");
  CHECK(error_field(bad) == "draft");
  bad = request;
  bad["llama.cpp"]["flash-attn"] = "off";
  bad["llama.cpp"]["cache-type-v-draft"] = "q4_0";  // a quantized V cache needs flash attention, the draft's too
  CHECK(error_field(bad) == "llama.cpp.cache-type-v-draft");
  bad = request;
  bad["llama.cpp"]["cache-type-k-draft"] = "q3_k";
  CHECK(error_field(bad) == "llama.cpp.cache-type-k-draft");
}

TEST_CASE("llama-server's draft flags: -md, -ngld, -ctkd, -ctvd; --draft-max is set aside", "[llamacpp]") {
  auto command = read_engine_command(
      "llama-server -m Llama-3.3-70B-Q4_K_M.gguf -md Llama-3.2-1B-Q8_0.gguf -ngld all -ctkd q8_0 --cache-type-v-draft q8_0 "
      "--draft-max 16 --draft-min 4 -c 32768");
  REQUIRE(command);
  CHECK(command->model_file == "Llama-3.3-70B-Q4_K_M.gguf");
  CHECK(command->draft_file == "Llama-3.2-1B-Q8_0.gguf");
  const json& l = command->request.at("llama.cpp");
  CHECK(l.at("gpu-layers-draft") == -1);
  CHECK(l.at("cache-type-k-draft") == "q8_0");
  CHECK(l.at("cache-type-v-draft") == "q8_0");
  CHECK(command->ignored == std::vector<std::string>{"--draft-max 16", "--draft-min 4"});
  CHECK(engine_flag_values("llama.cpp", "-md") == 1);
  CHECK(engine_flag_values("llama.cpp", "-ngld") == 1);
}

TEST_CASE("vramfit infer reads -md's GGUF file like --draft-gguf and prints the draft's lines", "[llamacpp][cli]") {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / ("vramfit-draft-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const fs::path file = folder / "Llama-3.2-1B-Q8_0.gguf";
  {
    // Llama 3.2 1B in Q8_0 as llama.cpp writes it (its card, llama.cpp's names and types).
    const auto bytes = llama_3_2_1b_gguf("Q8_0");
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::ostringstream from_file, err;
  const int status = run_cli({"infer", "-m", "llama-3.1-8b", "-w", "gguf-q4_k_m", "--cmd",
                              "llama-server -c 8192 -md " + file.string() + " -ngld 99"},
                             from_file, err);
  INFO(err.str());
  CHECK(status == 0);
  CHECK(from_file.str().find("draft (-md): Llama-3.2-1B-Q8_0.gguf") != std::string::npos);
  CHECK(from_file.str().find("and for the draft model:") != std::string::npos);
  // The file's bytes and the preset in the same format place the same buffers (the file's 32
  // rope frequencies, 128 B, do not show in MiB).
  std::ostringstream from_preset, err2;
  CHECK(run_cli({"infer", "-m", "llama-3.1-8b", "-w", "gguf-q4_k_m", "--draft", "llama-3.2-1b", "--draft-weights", "gguf-q8_0",
                 "--cmd", "llama-server -c 8192 -ngld 99"},
                from_preset, err2) == 0);
  auto lines_after = [](const std::string& text) { return text.substr(text.find("and for the draft model:")); };
  CHECK(lines_after(from_file.str()) == lines_after(from_preset.str()));
  std::ostringstream out3, err3;
  CHECK(run_cli({"infer", "-m", "llama-3.1-8b", "--draft-gguf", file.string()}, out3, err3) == 2);
  CHECK(err3.str().find("--draft-gguf: a draft model (speculative decoding) is for engine llama.cpp or vllm") != std::string::npos);
  fs::remove_all(folder);
}

// vLLM: vllm/v1/spec_decode/draft_model.py DraftModelProposer.load_model (the draft loads inside
// the model's DeviceMemoryProfiler; its Attention layers join the forward context and the KV pool).
namespace {

json vllm_request() {
  return {{"model", {{"preset", "llama-3.1-8b"}}},
          {"weights", {{"format", "bf16"}}},
          {"gpu", {{"id", "h100-80"}}},
          {"engine", "vllm"},
          {"vllm", {{"max-model-len", 32768}, {"speculative-config", {{"method", "draft_model"}, {"num_speculative_tokens", 5}}}}},
          {"draft", {{"model", {{"preset", "llama-3.2-1b"}}}, {"weights", {{"format", "bf16"}}}}}};
}

}  // namespace

TEST_CASE("vLLM's draft model: its shard in 'Model loading took', its layers' pages in every KV block", "[vllm]") {
  json without = vllm_request();
  without.erase("draft");
  without["vllm"].erase("speculative-config");
  for (int64_t tp : {1, 2}) {
    json with = vllm_request();
    with["vllm"]["tensor-parallel-size"] = tp;
    without["vllm"]["tensor-parallel-size"] = tp;
    with["gpu_count"] = tp;
    without["gpu_count"] = tp;
    const Report a = estimated(without), b = estimated(with);
    const VllmRank& alone = a.engine->vllm.ranks.front();
    const VllmRank& drafted = b.engine->vllm.ranks.front();
    // Llama 3.2 1B in bf16, its tied embedding once: 1,235,814,400 x 2 B over the ranks (the 1-D
    // norms on every rank), and its rotary cache: 131,072 positions x 64 x 2 B.
    const ModelSpec& draft = preset("llama-3.2-1b").spec;
    int64_t shard = 0;
    for (const TensorShape& t : enumerate_tensors(draft)) {
      const int64_t bytes = 2 * t.row_length * t.rows * t.copies;
      shard += t.row_length == t.row_length * t.rows * t.copies ? bytes : bytes / tp;
    }
    CHECK(drafted.draft_weights == shard + 131072LL * 64 * 2);
    CHECK(drafted.weights - alone.weights == drafted.draft_weights);
    // 16 layers x 2 (K, V) x 16 tokens x its 8 KV heads over the ranks x 64 x 2 B.
    CHECK(drafted.draft_page_bytes == 16LL * 2 * 16 * (8 / tp) * 64 * 2);
    CHECK(drafted.blocks == drafted.kv_available / (drafted.kv_page_bytes * drafted.layers_per_group + drafted.draft_page_bytes));
    CHECK(b.engine->vllm.kv_tokens < a.engine->vllm.kv_tokens);
    CHECK(b.engine->draft_name == "Llama 3.2 1B");
  }
  const json out = report_to_json(estimated(vllm_request()));
  CHECK(out.at("engine").at("draft").at("method") == "draft_model");
  CHECK(out.at("engine").at("draft").at("num_speculative_tokens") == 5);
  CHECK(out.at("engine").at("ranks")[0].at("draft_weights_bytes").get<int64_t>() > 0);
}

TEST_CASE("vLLM's --speculative-config: JSON both ways, the methods it models, errors naming the field", "[vllm]") {
  auto r = request_from_json(vllm_request());
  REQUIRE(r);
  CHECK(r->vllm.speculative_method == VllmSpeculativeMethod::draft_model);
  CHECK(r->vllm.num_speculative_tokens == 5);
  auto again = request_from_json(request_to_json(*r));
  REQUIRE(again);
  CHECK(request_to_json(*again) == request_to_json(*r));

  json ngram = vllm_request();
  ngram.erase("draft");
  ngram["vllm"]["speculative-config"]["method"] = "ngram";
  CHECK(error_field(ngram) == "(none)");  // on the CPU: the same GPU memory as without it
  json bad = vllm_request();
  bad["vllm"]["speculative-config"]["method"] = "deepseek_mtp";
  CHECK(error_field(bad) == "vllm.speculative-config.method");
  bad["vllm"]["speculative-config"]["method"] = "lookahead";
  CHECK(error_field(bad) == "vllm.speculative-config.method");
  bad = vllm_request();
  bad["vllm"].erase("speculative-config");
  CHECK(error_field(bad) == "vllm.speculative-config");
  bad = vllm_request();
  bad["vllm"]["speculative-config"].erase("num_speculative_tokens");
  CHECK(error_field(bad) == "vllm.speculative-config.num_speculative_tokens");
  bad = vllm_request();
  bad.erase("draft");
  CHECK(error_field(bad) == "draft");
  bad = vllm_request();
  bad["vllm"]["speculative-config"]["method"] = "ngram";
  CHECK(error_field(bad) == "draft");
  bad = vllm_request();
  bad["vllm"]["pipeline-parallel-size"] = 2;
  bad["gpu_count"] = 2;
  CHECK(error_field(bad) == "vllm.pipeline-parallel-size");
}

TEST_CASE("vllm serve --speculative-config: its model becomes the draft, read as a preset like the model", "[vllm][cli]") {
  auto command = read_engine_command(
      "vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config "
      "'{\"model\": \"meta-llama/Llama-3.2-1B-Instruct\", \"num_speculative_tokens\": 5}'");
  REQUIRE(command);
  CHECK(command->draft_model == "meta-llama/Llama-3.2-1B-Instruct");
  CHECK(command->request.at("vllm").at("speculative-config") == json{{"method", "draft_model"}, {"num_speculative_tokens", 5}});
  auto eagle = read_engine_command("vllm serve x --speculative-config '{\"model\": \"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\", \"num_speculative_tokens\": 3}'");
  REQUIRE(eagle);
  CHECK(eagle->request.at("vllm").at("speculative-config").at("method") == "eagle3");  // vLLM detects it by name
  auto unknown = read_engine_command("vllm serve x --speculative-config '{\"model\": \"y\", \"quantization\": \"fp8\"}'");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().field == "command.--speculative-config");
  CHECK(engine_flag_values("vllm", "--speculative-config") == 1);

  const std::string line = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768 --speculative-config "
                           "'{\"model\": \"meta-llama/Llama-3.2-1B-Instruct\", \"num_speculative_tokens\": 5}'";
  auto fields = command_request(line, builtin_catalog());
  REQUIRE(fields);
  CHECK(fields->fields.at("draft") == json{{"model", {{"preset", "llama-3.2-1b"}}}});
  std::ostringstream pasted, err;
  CHECK(run_cli({"infer", "-g", "h100-80", "--json", "--cmd", line}, pasted, err) == 0);
  json request = vllm_request();
  request["draft"]["model"]["preset"] = "llama-3.2-1b";
  const json from_request = report_to_json(estimated(request));
  const json from_command = json::parse(pasted.str());
  CHECK(from_command.at("engine").at("kv_tokens") == from_request.at("engine").at("kv_tokens"));
  CHECK(from_command.at("engine").at("draft") == from_request.at("engine").at("draft"));
}
