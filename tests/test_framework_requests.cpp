// The training frameworks as request JSON (issue 35): Megatron-LM, DeepSpeed and torchtune read
// from a request as the CLI reads them from its options and files, their answers re-runnable from
// the request they echo, and their mistakes named by the request's field.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"
#include "helpers.hpp"
#include "report/engine_requests.hpp"
#include "report/estimate.hpp"
#include "report/framework_requests.hpp"

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

namespace {

const char* kZero3Config = R"({"bf16": {"enabled": "auto"}, "train_micro_batch_size_per_gpu": "auto",
  "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}, "reduce_bucket_size": "auto",
                        "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto"}})";
const char* kQloraLine =
    "tune run lora_finetune_single_device --config llama3_1/8B_qlora_single_device "
    "model._component_=torchtune.models.llama3_1.qlora_llama3_1_8b batch_size=2 tokenizer.max_seq_len=2048";

json deepspeed_request() {
  return {{"mode", "training"}, {"model", {{"preset", "llama-2-7b"}}}, {"gpu", {{"id", "a100-80"}}}, {"gpu_count", 8},
          {"training", {{"framework", "deepspeed"},
                        {"deepspeed", {{"config", json::parse(kZero3Config)}, {"nodes", 2}, {"version", "0.14.2"}}}}}};
}

json torchtune_request() {
  return {{"mode", "training"}, {"model", {{"preset", "llama-3.1-8b"}}}, {"gpu", {{"id", "rtx-4090"}}},
          {"training", {{"framework", "torchtune"}, {"torchtune", {{"command", kQloraLine}}}}}};
}

json cli_json(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = run_cli(args, out, err);
  INFO(err.str());
  REQUIRE(status == 0);
  return json::parse(out.str());
}

json answer(const json& request) { return json::parse(estimate_any_engine_json(request.dump())); }

}  // namespace

TEST_CASE("A DeepSpeed request gives what train --deepspeed gives for the same ds_config file", "[training]") {
  char path[] = "/tmp/vramfit-dsreq-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  { std::ofstream(path) << kZero3Config; }
  const json from_file = cli_json({"train", "-m", "llama-2-7b", "-g", "a100-80", "-n", "8", "--nodes", "2", "--deepspeed", path,
                                   "--deepspeed-version", "0.14.2", "--json"});
  std::remove(path);
  const json from_request = answer(deepspeed_request());
  REQUIRE_FALSE(from_request.contains("error"));
  CHECK(from_request.at("deepspeed") == from_file.at("deepspeed"));
  CHECK(from_request.at("breakdown") == from_file.at("breakdown"));
  CHECK(from_request.at("deepspeed").at("version") == "0.14.2");
  CHECK(from_request.at("deepspeed").at("gpus_per_node") == 4);
  // The answer's request, run again, gives the same answer; so does the CLI's --request.
  CHECK(answer(from_request.at("request")) == from_request);
  const json echo = from_request.at("request");
  CHECK(echo.at("training").at("deepspeed") == deepspeed_request().at("training").at("deepspeed"));
  CHECK_FALSE(echo.at("training").contains("sharding"));
}

TEST_CASE("A torchtune request gives what train --torchtune gives for the same tune command", "[training]") {
  const json from_line = cli_json({"train", "-m", "llama-3.1-8b", "-g", "rtx-4090", "--torchtune", kQloraLine, "--json"});
  const json from_request = answer(torchtune_request());
  REQUIRE_FALSE(from_request.contains("error"));
  CHECK(from_request.at("torchtune") == from_line.at("torchtune"));
  CHECK(from_request.at("fit") == from_line.at("fit"));
  CHECK(answer(from_request.at("request")) == from_request);
  for (const char* key : {"method", "micro_batch", "sequence_length", "sharding"}) {
    CHECK_FALSE(from_request.at("request").at("training").contains(key));
  }
}

TEST_CASE("The frameworks' requests name the field they get wrong", "[training]") {
  auto field_of = [](const json& request) {
    const json reply = answer(request);
    REQUIRE(reply.contains("error"));
    return reply.at("error").at("field").get<std::string>();
  };
  json r = deepspeed_request();
  r["training"]["deepspeed"]["config"]["zero_optimization"]["stage"] = 4;
  CHECK(field_of(r) == "training.deepspeed.config.zero_optimization.stage");
  r = deepspeed_request();
  r["training"]["deepspeed"]["nodes"] = 3;  // 8 GPUs over 3 nodes
  CHECK(field_of(r) == "training.deepspeed.nodes");
  r["training"]["deepspeed"]["nodes"] = 0;
  CHECK(field_of(r) == "training.deepspeed.nodes");
  r = deepspeed_request();
  r["training"]["deepspeed"]["version"] = "latest";
  CHECK(field_of(r) == "training.deepspeed.version");
  r = deepspeed_request();
  r["training"]["deepspeed"]["stage"] = 2;
  CHECK(field_of(r) == "training.deepspeed.stage");
  r = deepspeed_request();
  r["training"]["deepspeed"]["config"] = "ds_config.json";
  CHECK(field_of(r) == "training.deepspeed.config");
  r = deepspeed_request();
  r["training"]["sharding"] = "zero2";
  CHECK(field_of(r) == "training.sharding");
  r = deepspeed_request();
  r["gpu"] = {{"id", "no-such-gpu"}};
  CHECK(field_of(r) == "gpu.id");
  r = torchtune_request();
  r["training"]["torchtune"]["command"] = "tune run knowledge_distillation_single_device";
  CHECK(field_of(r) == "training.torchtune.command");
  r = torchtune_request();
  r["training"]["micro_batch"] = 4;
  CHECK(field_of(r) == "training.micro_batch");
  r = torchtune_request();
  r["training"]["torchtune"] = {{"line", kQloraLine}};
  CHECK(field_of(r) == "training.torchtune");
  // Without mode "training" it is not a framework's request; estimate() reads it (and refuses
  // the framework, naming it).
  r = deepspeed_request();
  r.erase("mode");
  CHECK_FALSE(is_separate_framework_request(r));
}

TEST_CASE("vramfit infer --request answers a framework's request file as train --request does", "[cli]") {
  char path[] = "/tmp/vramfit-ttreq-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  { std::ofstream(path) << torchtune_request().dump(); }
  const json infer = cli_json({"infer", "--request", path, "--json"});
  const json train = cli_json({"train", "--request", path, "--json"});
  CHECK(infer == train);
  // Text: torchtune's own metric line.
  std::ostringstream out, err;
  REQUIRE(run_cli({"train", "--request", path}, out, err) == 0);
  CHECK(out.str().find("peak_memory_alloc: ") != std::string::npos);
  // The file holds the framework's settings; --torchtune beside it is refused.
  std::ostringstream o2, e2;
  CHECK(run_cli({"train", "--request", path, "--torchtune", kQloraLine}, o2, e2) == 2);
  CHECK(e2.str().find("leave out --deepspeed, --torchtune and --llamafactory") != std::string::npos);
  std::remove(path);
}

TEST_CASE("estimate_json (the page's module) refuses the frameworks' requests, naming training.framework", "[training]") {
  json megatron = {{"mode", "training"}, {"model", {{"preset", "llama-2-7b"}}}, {"gpu_count", 8},
                   {"training", {{"framework", "megatron"}, {"megatron", {{"tensor-model-parallel-size", 2}}}}}};
  for (const json& request : {deepspeed_request(), torchtune_request(), megatron}) {
    const json reply = json::parse(estimate_json(request.dump()));
    REQUIRE(reply.contains("error"));
    CHECK(reply.at("error").at("field") == "training.framework");
    const std::string framework = request.at("training").at("framework").get<std::string>();
    CHECK(reply.at("error").at("message") == "training.framework: " + framework +
                                                 " is answered by the CLI and the estimator module; the page's module does "
                                                 "not answer it yet");
    // The estimator module's estimate() answers it.
    CHECK_FALSE(answer(request).contains("error"));
  }
}
