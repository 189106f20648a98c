// engine "sglang": each rank's shard, SGLang's KV pool and request table, and its report JSON.
#include "report/engine_sglang.hpp"

#include "core/units.hpp"
#include "io/request_json.hpp"
#include "core/vllm.hpp"
#include "report/engine_common.hpp"

namespace vramfit {

namespace {

// What SGLang refuses at startup for this model, or what vramfit does not model for it; the
// field is the flag's.
std::optional<Error> check_sglang(const ModelSpec& m, const SglangSettings& s) {
  if (m.parameters_only > 0) {
    return make_error("request.bad_value", "model",
                      "model: SGLang's memory follows the model's shapes; give a preset or a config, not only a parameter count");
  }
  if (m.is_recurrent() || m.is_hybrid() || m.encoder_only || m.is_encoder_decoder() || m.cross_attention_layer_count() > 0) {
    return make_error("request.bad_value", "model",
                      "model: SGLang's pools for recurrent, hybrid, encoder and cross-attention models (MambaPool, the "
                      "encoder's cache) are not modelled yet; decoder-only attention models are");
  }
  if (m.attention_heads % s.tp_size != 0) {
    return make_error("request.bad_value", "sglang.tp-size",
                      "sglang.tp-size: the model's " + std::to_string(m.attention_heads) +
                          " attention heads do not split evenly over " + std::to_string(s.tp_size) + " ranks");
  }
  // model_config.py ModelConfig: a --context-length above the model's is refused unless
  // SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1.
  if (s.context_length > 0 && m.usable_context_tokens() > 0 && s.context_length > m.usable_context_tokens()) {
    return make_error("request.out_of_range", "sglang.context-length",
                      "sglang.context-length: User-specified context_length (" + std::to_string(s.context_length) +
                          ") is greater than the derived context_length (" + std::to_string(m.usable_context_tokens()) +
                          "); SGLang refuses it unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1");
  }
  return std::nullopt;
}

}  // namespace

Result<SglangReport> estimate_sglang(const Request& request, const Catalog& catalog, const SglangCommand& command) {
  Request generic = request;
  generic.engine = Engine::generic;
  auto resolved = estimate(generic, catalog);
  if (!resolved) return resolved.error();
  SglangReport r;
  r.report = std::move(resolved).value();
  r.command = command;
  const SglangSettings& s = command.settings;
  const ModelSpec& m = r.report.prepared.model;
  if (auto e = check_sglang(m, s)) return *e;

  // The GPUs: one replica's tp_size ranks (each --dp replica holds the same on its own GPUs).
  EngineReport devices;
  if (auto e = resolve_devices(request, catalog, s.tp_size * s.dp_size, r.report.gpu, devices)) return *e;
  if (static_cast<int64_t>(devices.devices.size()) != s.tp_size * s.dp_size) {
    return make_error("request.bad_value", "gpus",
                      "gpus: SGLang runs one rank per GPU: tp-size x dp-size = " + std::to_string(s.tp_size * s.dp_size) +
                          " GPUs, but " + std::to_string(devices.devices.size()) + " are listed");
  }
  r.devices = devices.devices;
  std::vector<int64_t> totals;
  for (const Gpu& gpu : r.devices) totals.push_back(gpu.total_bytes);

  const WeightFormat* format = catalog.formats.find_format(request.weight_format);
  const ShardedWeightShapes shapes = sharded_weight_shapes(catalog, format, m, r.report.prepared.weights.bytes);
  r.weights_per_rank = static_cast<int64_t>(
      static_cast<double>(tensor_parallel_rank_weights(catalog.formats, m, *shapes.format, request.group_size, s.tp_size)) * shapes.scale);
  if (!format) {
    r.assumptions.push_back("weights per rank: the file's " + with_thousands(r.report.prepared.weights.bytes) +
                            " bytes, sharded in the proportions of the model's bf16 tensors");
  }
  r.memory = sglang_memory(m, r.report.prepared.activation_bytes, s, totals, r.weights_per_rank, kSglangOverheadBeforeLoading,
                           kSglangOverheadDistributed);

  r.assumptions.push_back("before loading: " + format_bytes(kSglangOverheadBeforeLoading, DisplayUnits::gib) +
                          " of each GPU's total gone (the CUDA context and the driver's reserve)" +
                          (s.tp_size > 1 ? " + " + format_bytes(kSglangOverheadDistributed, DisplayUnits::gib) +
                                               " for NCCL and the custom all-reduce"
                                         : std::string()) +
                          ": medians of public SGLang logs, not derived");
  if (s.mem_fraction_static <= 0) {
    r.assumptions.push_back(
        "--mem-fraction-static " + sglang_fraction_text(r.memory.mem_fraction_static) + ": SGLang " + sglang_version_text(s) +
        (r.memory.defaults.heuristic ? "'s default for this GPU (server_args.py _handle_gpu_memory_settings)"
                                     : "'s default for " + std::to_string(s.tp_size) + " ranks (server_args.py, before PR #10975)"));
  }
  if (m.sliding_window > 0) {
    r.assumptions.push_back("sliding-window layers counted as full attention, as SGLang does for Gemma 2 and 3 (hybrid SWA "
                            "memory disabled); other models' separate SWA pool (--swa-full-tokens-ratio) is not modelled");
  }
  if (m.vision.kind != VisionKind::none) {
    r.assumptions.push_back("multimodal: SGLang releases of 2025 lowered --mem-fraction-static for vision models "
                            "(x0.95, then x0.90, model_runner.py); vramfit does not, since the releases are not pinned down");
  }
  return r;
}

Result<SglangReport> estimate_sglang_request(const json& request, const Catalog& catalog) {
  json generic = request;
  generic.erase("engine");
  generic.erase("sglang");
  generic.erase("gpus");
  auto command = sglang_settings_from_json(request.contains("sglang") ? request.at("sglang") : json::object());
  if (!command) return command.error();
  auto parsed = request_from_json(generic);
  if (!parsed) return parsed.error();
  Request r = std::move(parsed).value();
  if (auto e = read_gpu_ids(request, r)) return *e;
  return estimate_sglang(r, catalog, *command);
}

json sglang_report_to_json(const SglangReport& a) {
  json j = report_to_json(a.report);
  // The request as it reads back: the generic fields, the engine and its flags, the GPUs.
  j["request"]["engine"] = "sglang";
  j["request"]["sglang"] = sglang_settings_to_json(a.command.settings);
  json ids = json::array();
  for (const Gpu& g : a.devices) ids.push_back(g.id);
  j["request"]["gpus"] = ids;
  const SglangMemory& m = a.memory;
  const SglangSettings& s = a.command.settings;
  json ranks = json::array();
  for (size_t i = 0; i < m.ranks.size(); ++i) {
    const SglangRank& k = m.ranks[i];
    ranks.push_back({{"gpu", {{"id", a.devices[i].id}, {"name", a.devices[i].name}}},
                     {"total_bytes", k.total},
                     {"available_before_loading_bytes", k.before_loading},
                     {"weights_bytes", k.weights},
                     {"available_after_loading_bytes", k.after_loading},
                     {"kv_bytes", m.kv_bytes},
                     {"req_to_token_bytes", m.req_to_token_bytes}});
  }
  j["engine"] = {{"name", "sglang"},
                 {"version", sglang_version_text(s)},
                 {"tp_size", s.tp_size},
                 {"dp_size", s.dp_size},
                 {"mem_fraction_static", m.mem_fraction_static},
                 {"default_mem_fraction_static", m.defaults.mem_fraction_static},
                 {"chunked_prefill_size", m.defaults.chunked_prefill_size},
                 {"cuda_graph_max_bs", m.defaults.cuda_graph_max_bs},
                 {"kv_cache_dtype", sglang_kv_cache_dtype_name(s.kv_cache_dtype)},
                 {"context_len", m.context_length},
                 {"cell_bytes", m.cell_bytes},
                 {"kv_budget_bytes", m.rest},
                 {"reserve_bytes", m.reserve},
                 {"max_total_num_tokens", m.max_total_num_tokens},
                 {"max_running_requests", m.max_running_requests},
                 {"max_req_input_len", m.max_req_input_len},
                 {"min_mem_fraction_static_for_context", m.min_fraction_for_context},
                 {"ranks", ranks},
                 {"fits", m.fits},
                 {"refusal", m.refusal},
                 {"warning", m.warning},
                 {"log_lines", sglang_log_lines(m, s, a.report.prepared.model.uses_mla())},
                 {"ignored_flags", a.command.ignored},
                 {"assumptions", a.assumptions}};
  return j;
}

}  // namespace vramfit
