// validation/engines: public engine logs, each run through vramfit with the request that
// describes it; the error of every quantity is printed (docs/engines.md's accuracy tables come
// from this output). Each file states its goals per quantity (median and worst |error| over the
// points) and the test holds every quantity to them. A point that misses a goal is listed under
// its "misses" with why: it is left out of that quantity's median and worst, and it must still
// miss (a listed miss that now meets the goal fails, so the list stays true). What is exact by
// construction (llama.cpp's model, KV, RS and output buffers) must match to the printed 0.01 MiB.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "helpers.hpp"
#include "io/request_json.hpp"
#include "report/engines.hpp"
#include "report/estimate.hpp"

using namespace vramfit;

namespace {

struct Scored {
  std::string point, quantity;
  double error = 0;       // (vramfit - measured) / measured
  bool listed_miss = false;
};

double median_of(std::vector<double> list) {
  std::sort(list.begin(), list.end());
  const size_t n = list.size();
  return n == 0 ? 0.0 : n % 2 ? list[n / 2] : (list[n / 2 - 1] + list[n / 2]) / 2.0;
}

// Per quantity: the median and worst |error| over the points that do not list it as a miss,
// printed (the docs' tables) and held to the file's goals; each listed miss must still miss.
void check_goals(const char* engine, const json& goals, const std::vector<Scored>& scored) {
  std::map<std::string, std::vector<double>> errors;
  for (const Scored& s : scored) {
    if (!s.listed_miss) errors[s.quantity].push_back(std::abs(s.error));
  }
  std::printf("  %s, per quantity: median / worst |error| (listed misses apart)\n", engine);
  for (const auto& [quantity, list] : errors) {
    const double median = median_of(list), worst = *std::max_element(list.begin(), list.end());
    std::printf("    %-16s n=%zu  median %5.1f%%  worst %5.1f%%\n", quantity.c_str(), list.size(), 100.0 * median, 100.0 * worst);
    if (!goals.contains(quantity) || !goals.at(quantity).is_object()) continue;  // exact: checked point by point
    const json& goal = goals.at(quantity);
    INFO(engine << " " << quantity << ": goal " << 100.0 * goal.at("median").get<double>() << " % median, "
                << 100.0 * goal.at("worst").get<double>() << " % worst (" << goal.at("why").get<std::string>() << ")");
    CHECK(median <= goal.at("median").get<double>());
    CHECK(worst <= goal.at("worst").get<double>());
  }
  for (const Scored& s : scored) {
    if (!s.listed_miss || !goals.contains(s.quantity) || !goals.at(s.quantity).is_object()) continue;  // exact: point by point
    INFO(s.point << " lists " << s.quantity << " as a miss, but its error " << 100.0 * s.error
                 << " % now meets the goal: take it off the list");
    CHECK(std::abs(s.error) > goals.at(s.quantity).at("worst").get<double>());
  }
}

bool listed_miss(const json& point, const std::string& quantity) {
  if (!point.contains("misses") || !point.at("misses").contains(quantity)) return false;
  INFO(point.at("id").get<std::string>() << ": a miss needs its reason (why)");
  CHECK(!point.at("misses").at(quantity).value("why", "").empty());
  return true;
}

json goals_of(const char* file) { return test::validation_data(std::string("engines/") + file).at("goals"); }

// Each point of validation/engines/<file>: its request, estimated as vramfit does, to `check`.
template <class Check>
size_t for_each_point(const char* file, Check check) {
  const json data = test::validation_data(std::string("engines/") + file);
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
  std::vector<Scored> scored;
  for_each_point("llamacpp.json", [&](const json& point, const Report& report) {
    for (const auto& [quantity, measured] : point.at("measured_mib").items()) {
      const double estimated = estimated_mib(report, quantity);
      const double error = (estimated - measured.get<double>()) / measured.get<double>();
      std::printf("  %-40s %-16s measured %9.2f MiB  vramfit %9.2f MiB  %+6.1f%%\n", point.at("id").get<std::string>().c_str(),
                  quantity.c_str(), measured.get<double>(), estimated, 100.0 * error);
      const std::string kind = quantity.substr(quantity.find('.') + 1) + (quantity.rfind("CPU.", 0) == 0 ? " (host)" : "");
      const bool miss = listed_miss(point, kind);
      scored.push_back({point.at("id").get<std::string>(), kind, error, miss});
      INFO(quantity << ": measured " << measured.get<double>() << " MiB, vramfit " << estimated << " MiB");
      if (kind.rfind("compute", 0) != 0) {  // exact: as printed, to 0.01 MiB (a listed miss must still miss)
        CHECK((std::abs(estimated - measured.get<double>()) < 0.006) != miss);
      }
    }
  });
  check_goals("llama.cpp", goals_of("llamacpp.json"), scored);
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

}  // namespace

TEST_CASE("vLLM's printed memory, point by point (validation/engines/vllm.json)", "[vllm]") {
  std::vector<Scored> scored;
  for_each_point("vllm.json", [&](const json& point, const Report& report) {
    json measured = point.at("measured_gib");
    if (point.contains("measured_kv_tokens")) measured["kv_tokens"] = point.at("measured_kv_tokens");
    if (point.contains("measured_concurrency")) measured["concurrency"] = point.at("measured_concurrency");
    for (const auto& [quantity, value] : measured.items()) {
      const double m = value.get<double>();
      const double e = vllm_estimated(report, quantity);
      const double error = (e - m) / m;
      std::printf("  %-58s %-13s measured %10.2f  vramfit %10.2f  %+6.1f%%\n", point.at("id").get<std::string>().c_str(),
                  quantity.c_str(), m, e, 100.0 * error);
      scored.push_back({point.at("id").get<std::string>(), quantity, error, listed_miss(point, quantity)});
    }
  });
  check_goals("vLLM", goals_of("vllm.json"), scored);
}

TEST_CASE("Transformers' max_memory_allocated, point by point (validation/engines/transformers.json)", "[transformers]") {
  std::vector<Scored> scored;
  for_each_point("transformers.json", [&](const json& point, const Report& report) {
    const TransformersDevice& gpu0 = report.engine->transformers.gpus.front();
    for (const auto& [quantity, value] : point.at("measured_mb").items()) {
      const double m = value.get<double>();
      const double e = static_cast<double>(quantity == "forward" ? gpu0.prefill_peak : gpu0.peak()) / 1e6;  // MB as printed
      const double error = (e - m) / m;
      std::printf("  %-58s %-9s measured %9.0f MB  vramfit %9.0f MB  %+6.2f%%\n", point.at("id").get<std::string>().c_str(),
                  quantity.c_str(), m, e, 100.0 * error);
      scored.push_back({point.at("id").get<std::string>(), quantity, error, listed_miss(point, quantity)});
    }
  });
  check_goals("Transformers", goals_of("transformers.json"), scored);
}
