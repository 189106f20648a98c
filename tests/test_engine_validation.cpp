// validation/engines: public engine logs, each run through vramfit with the request that
// describes it; the error of every quantity is printed (the README's accuracy table comes from
// this output). What is exact by construction (model and KV buffers, the output buffer) must
// match to the printed 0.01 MiB; the compute buffers are held to the errors measured and
// reported (not tuned): a regression fails, an improvement shows in the table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include "helpers.hpp"
#include "io/request_json.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"

using namespace vramfit;

namespace {

// The README's accuracy table: per quantity, the median and worst |error| over the points.
void print_error_table(const char* engine, size_t points, std::map<std::string, std::vector<double>>& errors) {
  std::printf("  %s, per quantity: median / worst |error| over %zu points\n", engine, points);
  for (auto& [quantity, list] : errors) {
    std::sort(list.begin(), list.end());
    const size_t n = list.size();
    const double median = n % 2 ? list[n / 2] : (list[n / 2 - 1] + list[n / 2]) / 2.0;
    std::printf("    %-16s n=%zu  median %5.1f%%  worst %5.1f%%\n", quantity.c_str(), n, 100.0 * median, 100.0 * list.back());
  }
}

// Each point of validation/engines/<file>: its request, estimated as vramfit does, to `check`.
template <class Check>
size_t for_each_point(const char* file, Check check) {
  std::ifstream in(std::string(VRAMFIT_SOURCE_DIR) + "/validation/engines/" + file);
  REQUIRE(in);
  const json data = json::parse(in);
  for (const json& point : data.at("points")) {
    INFO(point.at("id").get<std::string>());
    auto request = request_from_json(point.at("request"));
    REQUIRE(request);
    auto report = estimate(*request, builtin_catalog());
    REQUIRE(report);
    check(point, *report);
  }
  return data.at("points").size();
}

double estimated_mib(const Report& r, const std::string& quantity) {
  const std::string device = quantity.substr(0, quantity.find('.'));
  const std::string buffer = quantity.substr(quantity.find('.') + 1);
  const LlamaCppBuffers* b = &r.engine->llamacpp.host;
  for (const LlamaCppBuffers& g : r.engine->llamacpp.gpus) {
    if (g.device == device) b = &g;
  }
  const int64_t bytes = buffer == "model" ? b->model : buffer == "kv" ? b->kv : buffer == "rs" ? b->rs : buffer == "compute" ? b->compute : b->output;
  return static_cast<double>(bytes) / static_cast<double>(kMiB);
}

}  // namespace

TEST_CASE("llama.cpp's printed buffers, point by point (validation/engines/llamacpp.json)", "[llamacpp]") {
  std::map<std::string, std::vector<double>> errors;  // by buffer kind: model, kv, compute, output
  const size_t points = for_each_point("llamacpp.json", [&](const json& point, const Report& report) {
    for (const auto& [quantity, measured] : point.at("measured_mib").items()) {
      const double estimated = estimated_mib(report, quantity);
      const double error = (estimated - measured.get<double>()) / measured.get<double>();
      std::printf("  %-40s %-16s measured %9.2f MiB  vramfit %9.2f MiB  %+6.1f%%\n", point.at("id").get<std::string>().c_str(),
                  quantity.c_str(), measured.get<double>(), estimated, 100.0 * error);
      const std::string kind = quantity.substr(quantity.find('.') + 1) + (quantity.rfind("CPU.", 0) == 0 ? " (host)" : "");
      errors[kind].push_back(std::abs(error));
      INFO(quantity << ": measured " << measured.get<double>() << " MiB, vramfit " << estimated << " MiB");
      if (kind == "model" || kind == "kv" || kind == "kv (host)" || kind == "rs" || kind == "rs (host)" || kind == "output (host)") {
        CHECK(std::abs(estimated - measured.get<double>()) < 0.006);  // as printed, to 0.01 MiB
      } else if (kind == "model (host)") {
        CHECK(std::abs(error) <= 0.032);  // worst today -3.1 %: Q4_K_M's expert types for MoE (a weights-format miss)
      } else if (kind == "compute") {
        CHECK(std::abs(error) <= 0.042);  // worst today -4.1 %
      } else {
        // host compute, worst today -3.7 % (Qwen3.6 27B fully on an RTX 5090: 266 vs 276.29 MiB, about the
        // f32 rows of one ubatch's token embeddings, 512 x 5,120 x 4 B, that its graph keeps on the host; not
        // modelled); -3.0 % and -2.3 % for Qwen3.5 2B and 0.8B on a CPU (the small inputs beside their masks)
        CHECK(std::abs(error) <= 0.038);
      }
    }
  });
  print_error_table("llama.cpp", points, errors);
}

namespace {

// One quantity of vLLM's first rank, in GiB (kv_tokens: tokens).
double vllm_estimated(const Report& r, const std::string& quantity) {
  const VllmRank& k = r.engine->vllm.ranks.front();
  const double gib = static_cast<double>(kGiB);
  if (quantity == "weights") return static_cast<double>(k.weights) / gib;
  if (quantity == "activation") return static_cast<double>(k.activation_peak) / gib;
  if (quantity == "non_torch") return static_cast<double>(k.non_torch) / gib;
  if (quantity == "non_kv") return static_cast<double>(k.non_kv()) / gib;
  if (quantity == "kv_available") return static_cast<double>(k.kv_available) / gib;
  if (quantity == "concurrency") return r.engine->vllm.max_concurrency;
  return static_cast<double>(r.engine->vllm.kv_tokens);
}

// vramfit's stated accuracy per quantity (README "Engines"); a point's listed misses, each with
// its reason, are held to the error recorded for them instead: a regression fails, an
// improvement shows in the printed table. non_torch is a median of such logs, not derived.
double vllm_allowed(const json& point, const std::string& quantity) {
  if (point.contains("misses") && point.at("misses").contains(quantity)) {
    return point.at("misses").at(quantity).at("error_within").get<double>();
  }
  if (quantity == "weights") return 0.01;
  if (quantity == "activation") return 0.07;
  if (quantity == "non_torch") return 0.08;
  if (quantity == "non_kv") return 0.03;
  return 0.015;  // kv_available, kv_tokens, concurrency
}

}  // namespace

TEST_CASE("vLLM's printed memory, point by point (validation/engines/vllm.json)", "[vllm]") {
  std::map<std::string, std::vector<double>> errors;
  const size_t points = for_each_point("vllm.json", [&](const json& point, const Report& report) {
    json measured = point.at("measured_gib");
    if (point.contains("measured_kv_tokens")) measured["kv_tokens"] = point.at("measured_kv_tokens");
    if (point.contains("measured_concurrency")) measured["concurrency"] = point.at("measured_concurrency");
    for (const auto& [quantity, value] : measured.items()) {
      const double m = value.get<double>();
      const double e = vllm_estimated(report, quantity);
      const double error = (e - m) / m;
      std::printf("  %-58s %-13s measured %10.2f  vramfit %10.2f  %+6.1f%%\n", point.at("id").get<std::string>().c_str(),
                  quantity.c_str(), m, e, 100.0 * error);
      errors[quantity].push_back(std::abs(error));
      INFO(quantity << ": measured " << m << ", vramfit " << e);
      CHECK(std::abs(error) <= vllm_allowed(point, quantity));
    }
  });
  print_error_table("vLLM", points, errors);
}

TEST_CASE("Transformers' max_memory_allocated, point by point (validation/engines/transformers.json)", "[transformers]") {
  std::map<std::string, std::vector<double>> errors;
  const size_t points = for_each_point("transformers.json", [&](const json& point, const Report& report) {
    const TransformersDevice& gpu0 = report.engine->transformers.gpus.front();
    for (const auto& [quantity, value] : point.at("measured_mb").items()) {
      const double m = value.get<double>();
      const double e = static_cast<double>(quantity == "forward" ? gpu0.prefill_peak : gpu0.peak()) / 1e6;  // MB as printed
      const double error = (e - m) / m;
      std::printf("  %-58s %-9s measured %9.0f MB  vramfit %9.0f MB  %+6.2f%%\n", point.at("id").get<std::string>().c_str(),
                  quantity.c_str(), m, e, 100.0 * error);
      errors[quantity].push_back(std::abs(error));
      INFO(quantity << ": measured " << m << " MB, vramfit " << e << " MB");
      const double allowed = point.contains("misses") && point.at("misses").contains(quantity)
                                 ? point.at("misses").at(quantity).at("error_within").get<double>()
                                 : 0.05;  // the goal: 5 % (README "Engines")
      CHECK(std::abs(error) <= allowed);
    }
  });
  print_error_table("Transformers", points, errors);
}
