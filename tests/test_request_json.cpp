// The request JSON: every field round-trips; bad input is an error naming the field.
#include "helpers.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

TEST_CASE("every request field round-trips", "[request]") {
  const json full = {
      {"v", 1}, {"mode", "inference"}, {"model", {{"preset", "qwen3-8b"}}},
      {"weights", {{"format", "gptq-int4"}, {"group_size", 64}}}, {"kv_cache", {{"dtype", "q8_0"}}},
      {"context_tokens", 32768}, {"concurrent_sequences", 4},
      {"overhead", {{"model", "articles"}, {"runtime_bytes", 123456789}, {"prefill_chunk_tokens", 2048},
                    {"flash_attention", false}, {"margin_fraction", 0.25}}},
      {"gpu", {{"id", "l40s"}}}, {"gpu_count", 2}, {"compare_gpus", true}, {"units", "GiB"}};
  auto parsed = request_from_json(full);
  REQUIRE(parsed);
  CHECK(request_to_json(*parsed) == full);

  const json custom_gpu = {{"gpu", {{"capacity_bytes", 1234567890}}}};
  auto parsed_gpu = request_from_json(custom_gpu);
  REQUIRE(parsed_gpu);
  CHECK(parsed_gpu->gpu_capacity_bytes == 1234567890);
  CHECK(request_to_json(*parsed_gpu)["gpu"] == custom_gpu["gpu"]);
}

TEST_CASE("a custom model round-trips through its config", "[request]") {
  const ModelSpec& spec = preset("gemma-2-9b").spec;
  const json request = {{"model", {{"config", write_hf_config(spec)}}}};
  auto parsed = request_from_json(request);
  REQUIRE(parsed);
  REQUIRE(parsed->has_custom_model);
  CHECK(count_parameters(parsed->custom_model) == count_parameters(spec));
  CHECK(parsed->custom_model.sliding_layers == spec.sliding_layers);
  auto again = request_from_json(request_to_json(*parsed));
  REQUIRE(again);
  CHECK(request_to_json(*again) == request_to_json(*parsed));
}

TEST_CASE("a custom model's name and stored weights round-trip", "[request]") {
  const json request = {
      {"model", {{"config", write_hf_config(preset("llama-3.2-1b").spec)}, {"name", "my-model.gguf"}}},
      {"weights", {{"format", "as_stored"},
                   {"stored", {{"source", "gguf"}, {"file", "my-model.gguf"}, {"parameters", 1235814400},
                               {"replicated_bytes", 1000},
                               {"by_type", {{{"type", "q4_k"}, {"elements", 1000000}, {"tensors", 10}, {"bytes", 562500},
                                             {"replicated_bytes", 0}},
                                            {{"type", "f32"}, {"elements", 250}, {"tensors", 2}, {"bytes", 1000},
                                             {"replicated_bytes", 1000}}}},
                               {"read", {"general.architecture = llama"}}, {"derived", json::array()},
                               {"assumed", {"something"}}, {"warnings", {"a file warning"}}}}}}};
  auto parsed = request_from_json(request);
  REQUIRE(parsed);
  CHECK(parsed->custom_model_name == "my-model.gguf");
  CHECK(parsed->stored_weights.by_type.size() == 2);
  const json out = request_to_json(*parsed);
  CHECK(out["model"]["name"] == "my-model.gguf");
  CHECK(out["weights"] == request["weights"]);
  const Report report = estimate_ok(request);
  CHECK(report.memory.weights == 563500);
  CHECK(std::find(report.breakdown.warnings.begin(), report.breakdown.warnings.end(), "a file warning") !=
        report.breakdown.warnings.end());
  CHECK(report.model_name == "my-model.gguf");
}

TEST_CASE("a model read on the Hub carries its pinned id (model.hub); a revision not a commit is refused", "[request][hub]") {
  const json config = write_hf_config(preset("llama-3.2-1b").spec);
  const std::string pinned = "org/Tiny-GGUF@0123456789abcdef0123456789abcdef01234567:tiny-Q4_K_M.gguf";
  auto parsed = request_from_json({{"model", {{"config", config}, {"name", "org/Tiny-GGUF"}, {"hub", pinned}}}});
  REQUIRE(parsed);
  CHECK(parsed->custom_model_hub == pinned);
  CHECK(request_to_json(*parsed)["model"]["hub"] == pinned);
  CHECK(request_from_json(request_to_json(*parsed))->custom_model_hub == pinned);
  for (const json& bad : {json("org/Tiny-GGUF"), json("org/Tiny-GGUF@main"), json("not an id"), json(7)}) {
    auto refused = request_from_json({{"model", {{"config", config}, {"hub", bad}}}});
    REQUIRE(!refused);
    CHECK(refused.error().field == "model.hub");
  }
  auto preset_with_hub = request_from_json({{"model", {{"preset", "qwen3-8b"}, {"hub", pinned}}}});
  REQUIRE(!preset_with_hub);
  CHECK(preset_with_hub.error().field == "model.hub");
  // Without it, nothing is written.
  CHECK(!request_to_json(*request_from_json({{"model", {{"config", config}}}}))["model"].contains("hub"));
}

TEST_CASE("what reading a config assumed reaches the report", "[request][config]") {
  json config = write_hf_config(preset("llama-3.2-1b").spec);
  config.erase("num_key_value_heads");
  config["num_attention_heads"] = 32;
  config["head_dim"] = 64;
  const Report r = estimate_ok({{"model", {{"config", config}}}});
  bool found = false;
  for (const std::string& a : r.breakdown.assumptions) found = found || a.find("num_key_value_heads missing") != std::string::npos;
  CHECK(found);
}

TEST_CASE("defaults are those documented", "[request]") {
  auto r = request_from_json(json::object());
  REQUIRE(r);
  CHECK(r->model_preset == "llama-3.1-8b");
  CHECK(r->weight_format == "bf16");
  CHECK(r->kv_cache_dtype == "f16");
  CHECK(r->settings.context_tokens == 8192);
  CHECK(r->settings.concurrent_sequences == 1);
  CHECK(r->settings.margin_fraction == 0.10);
  CHECK(r->settings.runtime_bytes == 512 * kMiB);
  CHECK(r->gpu_id == "rtx-4090");
}

TEST_CASE("bad requests name the field", "[request][errors]") {
  struct Case { json request; const char* id; const char* field; };
  const Case cases[] = {
      {json::array(), "request.not_object", ""},
      {{{"contxt_tokens", 5}}, "request.unknown_field", "contxt_tokens"},
      {{{"", 5}}, "request.unknown_field", "\"\""},  // an empty key, named as JSON writes it
      {{{"mode", "training"}, {"training", {{"", 1}}}}, "request.unknown_field", "training.\"\""},
      {{{"context_tokens", 0}}, "request.out_of_range", "context_tokens"},
      {{{"context_tokens", -5}}, "request.out_of_range", "context_tokens"},
      {{{"context_tokens", 1.5}}, "request.wrong_type", "context_tokens"},
      {{{"context_tokens", "8k"}}, "request.wrong_type", "context_tokens"},
      {{{"context_tokens", int64_t(1) << 40}}, "request.out_of_range", "context_tokens"},
      {{{"concurrent_sequences", 100000}}, "request.out_of_range", "concurrent_sequences"},
      {{{"overhead", {{"margin_fraction", 0.31}}}}, "request.out_of_range", "overhead.margin_fraction"},
      {{{"overhead", {{"margin_fraction", -0.01}}}}, "request.out_of_range", "overhead.margin_fraction"},
      {{{"overhead", {{"model", "magic"}}}}, "request.bad_value", "overhead.model"},
      {{{"overhead", 3}}, "request.wrong_type", "overhead"},
      {{{"gpu_count", 0}}, "request.out_of_range", "gpu_count"},
      {{{"gpu_count", 65}}, "request.out_of_range", "gpu_count"},
      {{{"gpu", {{"id", "rtx-4090"}, {"capacity_bytes", 5}}}}, "request.bad_value", "gpu"},
      {{{"gpu", {{"capacity_bytes", 0}}}}, "request.out_of_range", "gpu.capacity_bytes"},
      {{{"model", {{"preset", "a"}, {"config", json::object()}}}}, "request.bad_value", "model"},
      {{{"weights", {{"group_size", 100}}}}, "request.bad_value", "weights.group_size"},
      {{{"v", 2}}, "request.unsupported_version", "v"},
      {{{"mode", "serving"}}, "request.bad_value", "mode"},
      {{{"mode", "training"}, {"kv_cache", {{"dtype", "f16"}}}}, "request.bad_value", "kv_cache"},
      {{{"mode", "training"}, {"context_tokens", 4096}}, "request.bad_value", "context_tokens"},
      {{{"training", json::object()}}, "request.bad_value", "training"},
      {{{"network", json::object()}}, "request.bad_value", "network"},
      {{{"mode", "training"}, {"training", {{"optimizer", "adamm"}}}}, "request.bad_value", "training.optimizer"},
      {{{"mode", "training"}, {"training", {{"recipe", "fp8"}}}}, "request.bad_value", "training.recipe"},
      {{{"mode", "training"}, {"training", {{"sharding", "zero4"}}}}, "request.bad_value", "training.sharding"},
      {{{"mode", "training"}, {"training", {{"method", "dora"}}}}, "request.bad_value", "training.method"},
      {{{"mode", "training"}, {"training", {{"recompute", "some"}}}}, "request.bad_value", "training.recompute"},
      {{{"mode", "training"}, {"training", {{"micro_batch", 0}}}}, "request.out_of_range", "training.micro_batch"},
      {{{"mode", "training"}, {"training", {{"sequence_length", 1.5}}}}, "request.wrong_type", "training.sequence_length"},
      {{{"mode", "training"}, {"training", {{"lora", {{"rank", 0}}}}}}, "request.out_of_range", "training.lora.rank"},
      {{{"mode", "training"}, {"training", {{"lora", {{"targets", {"q", "qkv"}}}}}}}, "request.bad_value", "training.lora.targets"},
      {{{"mode", "training"}, {"training", {{"batch", 4}}}}, "request.unknown_field", "training.batch"},
      {{{"mode", "training"}, {"training", {{"margin_fraction", 0.5}}}}, "request.out_of_range", "training.margin_fraction"},
      {{{"units", "MB"}}, "request.bad_value", "units"},
      {{{"compare_gpus", "yes"}}, "request.wrong_type", "compare_gpus"},
  };
  for (const Case& c : cases) {
    INFO(c.request.dump());
    auto r = request_from_json(c.request);
    REQUIRE_FALSE(r);
    CHECK(r.error().id == c.id);
    CHECK(r.error().field == c.field);
    CHECK(r.error().message.find(c.field) != std::string::npos);
  }
}

TEST_CASE("unknown catalog ids name the field", "[request][errors]") {
  CHECK(estimate_error({{"model", {{"preset", "llama-9"}}}}).field == "model.preset");
  CHECK(estimate_error({{"weights", {{"format", "q4"}}}}).field == "weights.format");
  CHECK(estimate_error({{"kv_cache", {{"dtype", "int3"}}}}).field == "kv_cache.dtype");
  CHECK(estimate_error({{"gpu", {{"id", "rtx-9999"}}}}).field == "gpu.id");
}

TEST_CASE("malformed JSON text is an error value, not a crash", "[request][errors]") {
  for (const char* text : {"", "{", "{\"context_tokens\": NaN}", "[1,2", "\xff\xfe", "{\"v\":1}}"}) {
    INFO(text);
    auto r = request_from_text(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().id == "request.bad_json");
  }
  const json reply = json::parse(estimate_json("{oops"));
  CHECK(reply["error"]["id"] == "request.bad_json");
}

TEST_CASE("per-GPU rows of the weights add up to their parent; 1-D tensors whole on every GPU", "[request][kv]") {
  // Article-004-like tensor parallelism: Llama 3.1 70B in Q4_K_M on two GPUs.
  const Report r = estimate_ok({{"model", {{"preset", "llama-3.1-70b"}}}, {"weights", {{"format", "gguf-q4_k_m"}}},
                                {"gpu_count", 2}, {"gpu", {{"id", "rtx-3090"}}}});
  const BreakdownItem* weights = find_item(r.breakdown, "weights");
  REQUIRE(weights);
  int64_t sum = 0;
  for (const BreakdownItem& row : weights->children) {
    INFO(row.label << " " << row.formula);
    CHECK(row.bytes <= weights->bytes);   // a child never exceeds its parent
    CHECK(row.formula.find("per GPU") != std::string::npos);
    sum += row.bytes;
  }
  CHECK(sum == weights->bytes);
  // The F32 row is the 1-D tensors (norms): whole on each GPU.
  const WeightsSummary& w = r.prepared.weights;
  int64_t replicated = 0;
  for (const WeightsByType& row : w.by_type) replicated += row.replicated_bytes;
  CHECK(replicated == w.replicated_bytes);
  CHECK(weights->bytes == w.replicated_bytes + (w.bytes - w.replicated_bytes + 1) / 2);
  // A request with only the total of 1-D tensors (older links): placed in the f32 row.
  json old = {{"weights", {{"format", "as_stored"},
                           {"stored", {{"source", "gguf"}, {"parameters", 1000}, {"replicated_bytes", 400},
                                       {"by_type", {{{"type", "q4_k"}, {"elements", 1024}, {"tensors", 1}, {"bytes", 576}},
                                                    {{"type", "f32"}, {"elements", 100}, {"tensors", 1}, {"bytes", 400}}}}}}}},
              {"gpu_count", 2}, {"model", {{"config", write_hf_config(preset("llama-3.2-1b").spec)}}}};
  const Report o = estimate_ok(old);
  const BreakdownItem* ow = find_item(o.breakdown, "weights");
  REQUIRE(ow);
  REQUIRE(ow->children.size() == 2);
  CHECK(ow->children[0].bytes == 288);  // 576 / 2
  CHECK(ow->children[1].bytes == 400);  // whole on each GPU
  CHECK(ow->bytes == 688);
}

TEST_CASE("a context past the trained one but within rope_scaling warns what it is; past both, that it is too long", "[request][context]") {
  std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/configs/qwen2.5-7b-instruct-yarn.json");
  std::stringstream text;
  text << in.rdbuf();
  const json config = json::parse(text.str());
  auto warnings_at = [&](int64_t context) {
    return estimate_ok({{"model", {{"config", config}}}, {"context_tokens", context}, {"gpu", {{"id", "h100-80"}}}}).breakdown.warnings;
  };
  auto has = [](const std::vector<std::string>& all, const char* part) {
    return std::any_of(all.begin(), all.end(), [&](const std::string& w) { return w.find(part) != std::string::npos; });
  };
  CHECK_FALSE(has(warnings_at(32768), "context"));
  CHECK(has(warnings_at(65536), "within what rope_scaling stretches RoPE to (131,072)"));
  CHECK(has(warnings_at(200000), "exceeds the context rope_scaling allows (131,072 tokens; trained on 32,768)"));
  const Report r = estimate_ok({{"model", {{"config", config}}}, {"gpu", {{"id", "h200"}}}});
  CHECK(r.fit.max_context_tokens > 32768);  // the longest context counts the stretched one
}

TEST_CASE("language: en, ar or ar-u-nu-arab, written only when not English", "[request]") {
  CHECK(request_from_text(R"({"v":1})")->language == "en");
  for (const char* code : {"en", "ar", "ar-u-nu-arab"}) {
    const auto r = request_from_text(std::string(R"({"v":1,"language":")") + code + "\"}");
    REQUIRE(r);
    CHECK(r->language == code);
    CHECK(request_to_json(*r).contains("language") == (std::string(code) != "en"));
  }
  const auto bad = request_from_text(R"({"v":1,"language":"fr"})");
  REQUIRE(!bad);
  CHECK(bad.error().field == "language");
}
