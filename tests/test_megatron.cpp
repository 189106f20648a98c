// Megatron-LM per rank (src/core/megatron.cpp) against Megatron's own estimator:
// tests/fixtures/megatron/theoretical_memory.json holds what
// megatron/training/theoretical_memory_usage.py's report_theoretical_memory computed for each
// reference launch (validation/megatron/theoretical_memory.py ran it on a Megatron-LM checkout,
// commit in the file). The estimator prints the first pipeline stage (the most loaded rank).
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "catalog/catalog.hpp"
#include "core/megatron.hpp"

using namespace vramfit;
using nlohmann::json;

namespace {

constexpr double kMegabyte = 1024.0 * 1024.0;  // the estimator's NUM_BYTES_IN_MEGABYTE

json estimator_figures() {
  std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/megatron/theoretical_memory.json");
  REQUIRE(in);
  return json::parse(in);
}

MegatronSettings settings_of(const json& c) {
  MegatronSettings s;
  s.world_size = c.at("world_size");
  s.tensor_model_parallel_size = c.at("tp");
  s.pipeline_model_parallel_size = c.at("pp");
  s.expert_model_parallel_size = c.value("ep", 1);
  s.expert_tensor_parallel_size = c.value("etp", 0);
  s.num_layers_per_virtual_pipeline_stage = c.value("vpp_layers", 0);
  s.sequence_parallel = c.at("sp");
  s.use_distributed_optimizer = c.at("dist_opt");
  s.recompute_granularity = c.at("recompute").is_null() ? Recompute::none : Recompute::selective;
  s.micro_batch_size = c.at("mbs");
  s.global_batch_size = c.at("gbs");
  s.seq_length = c.at("seq");
  return s;
}

}  // namespace

TEST_CASE("Megatron: the first stage equals Megatron's theoretical_memory_usage on its reference launches", "[training]") {
  const json figures = estimator_figures();
  REQUIRE(figures.at("configurations").size() == 8);
  for (const json& c : figures.at("configurations")) {
    const std::string name = c.at("name");
    INFO(name << ": " << c.at("printed").get<std::string>());
    const ModelPreset* preset = builtin_catalog().find_model(c.at("model"));
    REQUIRE(preset);
    const auto memory = megatron_memory(preset->spec, settings_of(c));
    REQUIRE(memory);
    CHECK(memory->num_microbatches == c.at("num_microbatches").get<int64_t>());
    CHECK(memory->padded_vocab_size == c.at("padded_vocab_size").get<int64_t>());
    const MegatronRank& first = memory->ranks.front();
    CHECK(first.pipeline_rank == 0);
    // The same arithmetic in another order: equal to a millionth of a MiB.
    CHECK(first.weight_and_optimizer / kMegabyte == Approx(c.at("weight_and_optimizer_mb").get<double>()).margin(1e-6));
    CHECK(first.activations / kMegabyte == Approx(c.at("activation_mb").get<double>()).margin(1e-6));
    CHECK(first.total() / kMegabyte == Approx(c.at("total_mb").get<double>()).margin(1e-6));
  }
}

TEST_CASE("Megatron: every pipeline rank type, its in-flight micro-batches and the checks on sizes", "[training]") {
  const ModelSpec& llama = builtin_catalog().find_model("llama-2-7b")->spec;
  MegatronSettings s;
  s.world_size = 16;
  s.tensor_model_parallel_size = 2;
  s.pipeline_model_parallel_size = 4;
  s.global_batch_size = 16;  // 8 micro-batches of 1 on each of 2 data-parallel ranks
  auto m = megatron_memory(llama, s);
  REQUIRE(m);
  REQUIRE(m->ranks.size() == 3);
  CHECK(m->ranks[0].stage == "first");
  CHECK(m->ranks[1].stage == "middle");
  CHECK(m->ranks[2].stage == "last");
  // 1F1B: stage r keeps pp - r micro-batches in flight (its warm-up plus one).
  CHECK(m->ranks[0].in_flight == 4);
  CHECK(m->ranks[1].in_flight == 3);
  CHECK(m->ranks[2].in_flight == 1);
  // Each stage holds 8 of the 32 layers: attention (q, k, v, o: 4 x 4096^2 at 32 KV heads) and
  // the SwiGLU MLP (3 x 4096 x 11008) split by TP 2, the two RMSNorms of each layer (2 x 4096)
  // replicated, and a quarter of the final norm's 4096 (the estimator divides every replicated
  // parameter by the pipeline size).
  const double layer = 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008;
  CHECK(m->ranks[1].parameters == Approx(8 * layer / 2 + 8 * 2 * 4096.0 + 4096 / 4).epsilon(1e-12));
  // The first stage adds the 32,000 x 4096 embedding, the last its output layer (untied), split by TP.
  CHECK(m->ranks[0].parameters - m->ranks[1].parameters == Approx(32000.0 * 4096 / 2).epsilon(1e-12));
  CHECK(m->ranks[2].parameters - m->ranks[1].parameters == Approx(32000.0 * 4096 / 2).epsilon(1e-12));

  s.pipeline_model_parallel_size = 3;
  auto bad = megatron_memory(llama, s);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "gpu_count");
  s.world_size = 24;
  bad = megatron_memory(llama, s);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "training.megatron.pipeline-model-parallel-size");
}
