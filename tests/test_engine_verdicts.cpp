// One answer per engine, said in two parts that are never mixed (issue 33): whether the engine
// starts (its own allocations against the memory it sees, no margin: llama.cpp fails to
// allocate or it does not; vLLM's worker checks; Transformers runs out of memory or not), and,
// apart, whether the margin the user keeps on top of that is left. Each device's own answer
// agrees with the verdict.
#include <sstream>

#include "cli/text_report.hpp"
#include "io/request_json.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"
#include "helpers.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

Report estimated(const json& request) { return estimate_ok(request); }

std::string printed(const Report& report) {
  std::ostringstream out;
  print_report(out, report);
  return out.str();
}

// The case the issue reported: Llama 3.1 70B Q4_K_M on two RTX 3090s at -c 16384, where the
// buffers llama.cpp itself prints come to about 22.3 GiB of each card's 24 GiB.
json seventy_b_on_two_3090s(double margin) {
  return {{"model", {{"preset", "llama-3.1-70b"}}},
          {"weights", {{"format", "gguf-q4_k_m"}}},
          {"engine", "llama.cpp"},
          {"llama.cpp", {{"ctx-size", 16384}}},
          {"overhead", {{"margin_fraction", margin}}},
          {"gpus", {"rtx-3090", "rtx-3090"}}};
}

}  // namespace

TEST_CASE("llama.cpp starts where its buffers and the runtime fit; the margin is said apart and never decides it", "[llamacpp]") {
  const Report r = estimated(seventy_b_on_two_3090s(0.10));
  const LlamaCppFit& f = r.engine->llamacpp_fit;
  REQUIRE(f.gpu_use.size() == 2);
  for (size_t g = 0; g < 2; ++g) {
    // What llama.cpp prints for the device (model + KV + compute), well under the card's 24 GiB.
    const double printed_gib = static_cast<double>(r.engine->llamacpp.gpus[g].total()) / static_cast<double>(kGiB);
    CHECK(printed_gib > 21.5);
    CHECK(printed_gib < 23.0);
    CHECK(f.gpu_starts(g));
    CHECK_FALSE(f.gpu_keeps_margin(g));  // 10 % of ~23 GiB is more than is left
  }
  CHECK(f.fits);
  CHECK_FALSE(f.keeps_margin);
  // Every layer starts on the GPUs; the margin asks for fewer, and for a shorter -c.
  CHECK(f.max_gpu_layers == r.engine->llamacpp.layer_slots);
  CHECK(f.max_gpu_layers_with_margin < f.max_gpu_layers);
  CHECK(f.max_ctx_size >= 16384);
  CHECK(f.max_ctx_size_with_margin < 16384);

  // The longest -c with the margin kept keeps it; 256 cells more do not (and still start).
  json at_limit = seventy_b_on_two_3090s(0.10);
  at_limit["llama.cpp"]["ctx-size"] = f.max_ctx_size_with_margin;
  CHECK(estimated(at_limit).engine->llamacpp_fit.keeps_margin);
  at_limit["llama.cpp"]["ctx-size"] = f.max_ctx_size_with_margin + 256;
  CHECK_FALSE(estimated(at_limit).engine->llamacpp_fit.keeps_margin);
  CHECK(estimated(at_limit).engine->llamacpp_fit.fits);

  // A margin of 0 is allowed: the verdict does not move, the margin is kept, the limits agree.
  const Report none = estimated(seventy_b_on_two_3090s(0.0));
  const LlamaCppFit& n = none.engine->llamacpp_fit;
  CHECK(n.fits);
  CHECK(n.keeps_margin);
  CHECK(n.gpu_use == f.gpu_use);
  CHECK(n.max_ctx_size == f.max_ctx_size);
  CHECK(n.max_ctx_size_with_margin == n.max_ctx_size);

  // The CLI says the two parts apart, per device and in the verdict.
  const std::string text = printed(r);
  CHECK(text.find("starts, margin not kept") != std::string::npos);
  CHECK(text.find("\nSTARTS on 2 GPUs: headroom ") != std::string::npos);
  CHECK(text.find("less than the margin (10%, ") != std::string::npos);
  CHECK(text.find("DOES NOT FIT") == std::string::npos);
  CHECK(printed(none).find("the margin kept (0%, 0 B)") != std::string::npos);

  // The report's JSON: each device's use and margin apart.
  const json out = report_to_json(r);
  const json& gpu = out.at("engine").at("gpus")[0];
  CHECK(gpu.at("fits") == true);
  CHECK(gpu.at("keeps_margin") == false);
  CHECK(gpu.at("use_bytes").get<int64_t>() + gpu.at("margin_bytes").get<int64_t>() > gpu.at("capacity_bytes").get<int64_t>());
  CHECK(out.at("engine").at("max_ctx_size_with_margin") == f.max_ctx_size_with_margin);
}

TEST_CASE("llama.cpp that does not start says so on the device that overflows", "[llamacpp]") {
  json request = seventy_b_on_two_3090s(0.0);
  request["llama.cpp"]["ctx-size"] = 131072;
  const Report r = estimated(request);
  const LlamaCppFit& f = r.engine->llamacpp_fit;
  CHECK_FALSE(f.fits);
  bool some_gpu_refuses = false;
  for (size_t g = 0; g < f.gpu_use.size(); ++g) some_gpu_refuses = some_gpu_refuses || !f.gpu_starts(g);
  CHECK(some_gpu_refuses);
  const std::string text = printed(r);
  CHECK(text.find("\nDOES NOT START on 2 GPUs\n") != std::string::npos);
}

TEST_CASE("vLLM: one verdict, and each rank's own answer agrees with it", "[vllm]") {
  // The README's second question: Llama 3.1 70B in BF16 on two H100s at --max-model-len 32768 does not start.
  json refused = {{"model", {{"preset", "llama-3.1-70b"}}},       {"weights", {{"format", "bf16"}}},
                  {"gpu", {{"id", "h100-80"}}},                    {"engine", "vllm"},
                  {"vllm", {{"tensor-parallel-size", 2}, {"max-model-len", 32768}}}};
  const Report no = estimated(refused);
  CHECK_FALSE(no.engine->vllm.fits);
  for (const VllmRank& k : no.engine->vllm.ranks) CHECK_FALSE(k.starts);
  CHECK(printed(no).find("DOES NOT START") != std::string::npos);

  // An 8B model at --gpu-memory-utilization 0.99: vLLM's checks pass on every rank, and CUDA
  // graphs beyond the budget may not fit: a warning on a rank that starts, never a red "does not fit".
  json tight = {{"model", {{"preset", "llama-3.1-8b"}}}, {"weights", {{"format", "bf16"}}}, {"gpu", {{"id", "h100-80"}}},
                {"engine", "vllm"}, {"vllm", {{"max-model-len", 8192}, {"gpu-memory-utilization", 0.99}}}};
  const Report yes = estimated(tight);
  CHECK(yes.engine->vllm.fits);
  REQUIRE_FALSE(yes.engine->vllm.ranks.empty());
  for (const VllmRank& k : yes.engine->vllm.ranks) {
    CHECK(k.starts);
    CHECK(k.beyond_total);
  }
  CHECK_FALSE(yes.engine->vllm.warning.empty());
  const std::string text = printed(yes);
  CHECK(text.find("starts, over the GPU after it") != std::string::npos);
  CHECK(text.find("  no headroom: ") != std::string::npos);  // not a negative headroom
  CHECK(text.find(" over on GPU 0\n") != std::string::npos);
  CHECK(text.find("\nSTARTS on 1 GPU\n") != std::string::npos);

  // At the default 0.90 the rank starts and what is left beside the budget is said with the margin.
  tight["vllm"]["gpu-memory-utilization"] = 0.90;
  const std::string usual = printed(estimated(tight));
  CHECK(usual.find("  headroom ") != std::string::npos);
  CHECK(usual.find(" on GPU 0, ") != std::string::npos);
}

TEST_CASE("Transformers: runs or not on its peak; the headroom and the margin apart", "[transformers]") {
  json request = {{"model", {{"preset", "llama-3.1-8b"}}}, {"weights", {{"format", "bf16"}}}, {"gpu", {{"id", "rtx-4090"}}},
                  {"engine", "transformers"}, {"overhead", {{"margin_fraction", 0.0}}}};
  const Report r = estimated(request);
  CHECK(r.engine->transformers.fits);
  CHECK(printed(r).find("  headroom ") != std::string::npos);
  CHECK(printed(r).find("the margin kept (0%, 0 B)") != std::string::npos);
}
