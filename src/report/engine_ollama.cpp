// engine "ollama": Ollama's estimate on the GPUs it picks, its runner's buffers, and the report JSON.
#include "report/engine_ollama.hpp"

#include <algorithm>

#include "core/fit.hpp"
#include "core/units.hpp"
#include "io/request_json.hpp"
#include "report/engine_common.hpp"

namespace vramfit {

namespace {

// Ollama's library for a GPU maker (discover/): CUDA on NVIDIA, ROCm on AMD, Metal on Apple.
std::string ollama_library(const Gpu& gpu) { return gpu.vendor == "Apple" ? "metal" : gpu.vendor == "AMD" ? "rocm" : "cuda"; }

}  // namespace

Result<OllamaReport> estimate_ollama(const Request& request, const Catalog& catalog, const OllamaCommand& command) {
  Request generic = request;
  generic.engine = Engine::generic;
  auto resolved = estimate(generic, catalog);
  if (!resolved) return resolved.error();
  OllamaReport r;
  r.report = std::move(resolved).value();
  r.command = command;
  const ModelSpec& spec = r.report.prepared.model;
  auto weights = llamacpp_placed_weights(request, catalog, spec, "");
  if (!weights) return weights.error();
  // The KV of num_ctx x OLLAMA_NUM_PARALLEL tokens: within the longest context vramfit sizes.
  const OllamaSettings& settings = command.settings;
  const int64_t most_parallel = settings.num_parallel > 0 ? settings.num_parallel : settings.before(10, 0) ? 4 : 1;
  if (settings.num_ctx > kMaxContextTokens / most_parallel) {
    return make_error("request.out_of_range", "ollama.OLLAMA_NUM_PARALLEL",
                      "ollama.OLLAMA_NUM_PARALLEL: num_ctx x OLLAMA_NUM_PARALLEL is above " + std::to_string(kMaxContextTokens) +
                          " tokens of KV cache");
  }
  auto model = ollama_model(spec, *weights, settings);
  if (!model) return model.error();
  r.model = std::move(model).value();

  EngineReport devices;
  if (auto e = resolve_devices(request, catalog, request.settings.gpu_count, r.report.gpu, devices)) return *e;
  r.devices = devices.devices;
  const std::vector<int64_t>& free_mib = command.free_mib;
  if (!free_mib.empty() && free_mib.size() != r.devices.size()) {
    return make_error("request.bad_value", "ollama.free_mib",
                      "ollama.free_mib: " + std::to_string(free_mib.size()) + " values for " + std::to_string(r.devices.size()) + " GPUs");
  }
  std::vector<OllamaGpu> gpus;
  for (size_t i = 0; i < r.devices.size(); ++i) {
    const Gpu& g = r.devices[i];
    if (i > 0 && ollama_library(g) != ollama_library(r.devices[0])) {
      return make_error("request.bad_value", "gpus",
                        "gpus: Ollama estimates one library at a time (ml.ByLibrary); these GPUs mix CUDA, ROCm and Metal");
    }
    gpus.push_back({ollama_library(g), free_mib.empty() ? g.usable_bytes() : free_mib[i] * 1048576LL});
  }
  if (free_mib.empty()) {
    r.assumptions.push_back("memory.available: each GPU's whole memory; Ollama reads what is free when the model loads (less "
                            "the desktop, other models and the driver's own use): give ollama.free_mib (--ollama-free-mib) "
                            "as its log prints it");
  }
  r.estimate = ollama_schedule(r.model, command.settings, gpus);
  // The most that fits: every layer's place grows with num_ctx, so the longest that keeps them all
  // on the GPUs is found by bisection, up to the model's context (Ollama caps num_ctx there).
  {
    OllamaSettings probe = command.settings;
    const int64_t most = std::min(r.model.context_length > 0 ? r.model.context_length : kMaxContextTokens,
                                  kMaxContextTokens / most_parallel);
    int64_t lo = 0, hi = most;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      probe.num_ctx = mid;
      if (ollama_schedule(r.model, probe, gpus).fully_loaded()) lo = mid;
      else hi = mid - 1;
    }
    r.max_num_ctx_on_gpus = lo;
  }

  // The runner: llama.cpp with the estimate's layers, on the GPUs picked, in that order.
  std::vector<int64_t> free_bytes;
  for (size_t g : r.estimate.gpus) free_bytes.push_back(gpus[g].free_bytes);
  r.runner = llamacpp_memory(catalog.formats, spec, *weights, ollama_runner_settings(r.estimate), free_bytes);
  std::vector<std::string> backends;
  for (size_t g : r.estimate.gpus) {
    backends.push_back(gpus[g].library == "metal" ? "MTL" : gpus[g].library == "rocm" ? "ROCm" : "CUDA");
  }
  name_llamacpp_devices(r.runner, backends);
  r.assumptions.push_back("Ollama " + ollama_version_text(command.settings) + "'s estimate (llm/memory.go estimateGPULayers): " +
                          "457 MiB (Metal 512 MiB) and one spare layer held on each GPU, its compute-graph formula for " +
                          r.model.arch + " (fs/ggml/ggml.go GraphSize)");
  r.assumptions.push_back("the runner's buffers: llama.cpp's, as vramfit's llama.cpp engine sizes them for --ctx-size " +
                          std::to_string(r.estimate.num_ctx * r.estimate.num_parallel) + " --parallel " +
                          std::to_string(r.estimate.num_parallel) + " --n-gpu-layers " + std::to_string(r.estimate.layers_offload) +
                          "; the CUDA context is not in them");
  return r;
}

Result<OllamaReport> estimate_ollama_request(const json& request, const Catalog& catalog) {
  json generic = request;
  generic.erase("engine");
  generic.erase("ollama");
  generic.erase("gpus");
  auto command = ollama_settings_from_json(request.contains("ollama") ? request.at("ollama") : json::object());
  if (!command) return command.error();
  if (!command->model_tag.empty()) {
    auto library = ollama_library_model(command->model_tag);
    if (!library) return library.error();
    if (!generic.contains("model")) generic["model"] = {{"preset", library->preset}};
    if (!generic.contains("weights")) generic["weights"] = {{"format", library->format}};
  }
  auto parsed = request_from_json(generic);
  if (!parsed) return parsed.error();
  Request r = std::move(parsed).value();
  if (auto e = read_gpu_ids(request, r)) return *e;
  return estimate_ollama(r, catalog, *command);
}

json ollama_report_to_json(const OllamaReport& a) {
  json j = report_to_json(a.report);
  // The request as it reads back: the generic fields, the engine and its settings, the GPUs.
  j["request"]["engine"] = "ollama";
  j["request"]["ollama"] = ollama_settings_to_json(a.command);
  json ids = json::array();
  for (const Gpu& g : a.devices) ids.push_back(g.id);
  j["request"]["gpus"] = ids;
  const OllamaEstimate& e = a.estimate;
  json gpus = json::array();
  for (size_t k = 0; k < e.gpus.size(); ++k) {
    const Gpu& g = a.devices[e.gpus[k]];
    const LlamaCppBuffers& b = a.runner.gpus[k];
    gpus.push_back({{"gpu", {{"id", g.id}, {"name", g.name}}},
                    {"available_bytes", e.available[k]},
                    {"layers", e.tensor_split.empty() ? 0 : e.tensor_split[k]},
                    {"estimate_bytes", e.allocations[k]},
                    {"runner",
                     {{"device", b.device}, {"model_bytes", b.model}, {"kv_bytes", b.kv}, {"compute_bytes", b.compute},
                      {"total_bytes", b.total()}}}});
  }
  j["engine"] = {{"name", "ollama"},
                 {"version", ollama_version_text(a.command.settings)},
                 {"library", e.library},
                 {"num_ctx", e.num_ctx},
                 {"num_batch", e.num_batch},
                 {"num_parallel", e.num_parallel},
                 {"flash_attention", e.flash_attention},
                 {"kv_cache_type", e.kv_cache_type.empty() ? "f16" : e.kv_cache_type},
                 {"layers_requested", e.layers_requested},
                 {"layers_model", e.layers_model},
                 {"layers_offload", e.layers_offload},
                 {"required_full_bytes", e.required_full},
                 {"required_partial_bytes", e.required_partial},
                 {"kv_bytes", e.kv},
                 {"weights_repeating_bytes", e.weights_repeating},
                 {"weights_nonrepeating_bytes", e.weights_nonrepeating},
                 {"graph_full_bytes", e.graph_full},
                 {"graph_partial_bytes", e.graph_partial},
                 {"gpus", gpus},
                 {"host_runner_bytes", a.runner.host.total()},
                 {"fully_loaded", e.fully_loaded()},
                 {"max_num_ctx_on_gpus", a.max_num_ctx_on_gpus},
                 {"log_line", ollama_offload_line(e)},
                 {"runner_log_lines", llamacpp_log_lines(a.runner)},
                 {"warnings", e.warnings},
                 {"ignored", a.command.ignored},
                 {"assumptions", a.assumptions}};
  return j;
}

}  // namespace vramfit
