// engine "vllm": its ranks, budget and KV pool, and its report JSON.
#include "report/engine_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "core/llamacpp.hpp"
#include "core/units.hpp"
#include "core/vllm.hpp"
#include "io/engine_json.hpp"
#include "report/networks.hpp"

namespace vramfit {

namespace {

// The rate of vLLM's matmuls for a weight format: 16-bit with FP32 accumulation for BF16/FP16
// weights (FP32 is slower still) and the weight-only formats its kernels dequantize (GPTQ/AWQ
// Marlin, bitsandbytes 4-bit); FP8 and INT8 w8a8 on their own tensor cores; others (GGUF,
// MXFP4, a file's own types): none.
TensorRate vllm_rate(const WeightFormat* format) {
  static const char* const sixteen_bit[] = {"fp32",     "fp16",    "bf16",       "gptq-int4", "gptq-int8",
                                            "awq-int4", "bnb-nf4", "bnb-nf4-dq", "bnb-fp4"};
  const std::string id = format ? format->id : std::string();
  if (std::any_of(std::begin(sixteen_bit), std::end(sixteen_bit), [&](const char* x) { return id == x; })) {
    return {&Gpu::bf16_tflops, "BF16 with FP32 accumulation"};
  }
  if (id == "fp8") return {&Gpu::fp8_tflops, "FP8"};
  if (id == "int8") return {&Gpu::int8_tops, "INT8"};
  return {};
}

// vllm/config/model.py ModelConfig.verify_with_parallel_config: the heads split evenly over the ranks.
std::optional<Error> verify_heads(const ModelSpec& model, int64_t tensor_parallel_size, const std::string& field) {
  if (model.attention_heads % tensor_parallel_size == 0) return std::nullopt;
  return make_error("request.bad_value", field,
                    field + ": Total number of attention heads (" + std::to_string(model.attention_heads) +
                        ") must be divisible by tensor parallel size (" + std::to_string(tensor_parallel_size) + ")");
}

// engine "vllm": tensor-parallel x pipeline-parallel GPUs, vLLM's budget and KV pool on each
// (core/vllm).
// What vLLM refuses at startup for this model and these ranks, as vLLM says it.
std::optional<Error> check_vllm_request(const Request& request, const ModelSpec& m) {
  const VllmSettings& v = request.vllm;
  const int64_t world = v.tensor_parallel_size * v.pipeline_parallel_size;
  if (m.parameters_only > 0) {
    return make_error("request.bad_value", "model",
                      "model: vLLM's memory follows the model's shapes; give a preset or a config, not only a parameter count");
  }
  // vllm/config/model.py _get_and_verify_max_len: no request longer than the model's context,
  // rope_scaling included, unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
  if (v.max_model_len > 0 && m.usable_context_tokens() > 0 && v.max_model_len > m.usable_context_tokens()) {
    return make_error("request.out_of_range", "vllm.max-model-len",
                      "vllm.max-model-len: User-specified max_model_len (" + std::to_string(v.max_model_len) +
                          ") is greater than the derived max_model_len (" + std::to_string(m.usable_context_tokens()) +
                          "); vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1");
  }
  if (auto e = verify_heads(m, v.tensor_parallel_size, "vllm.tensor-parallel-size")) return e;
  if (v.pipeline_parallel_size > m.layers) {
    return make_error("request.bad_value", "vllm.pipeline-parallel-size",
                      "vllm.pipeline-parallel-size: more pipeline stages (" + std::to_string(v.pipeline_parallel_size) +
                          ") than layers (" + std::to_string(m.layers) + ")");
  }
  if (!request.gpu_ids.empty() && static_cast<int64_t>(request.gpu_ids.size()) != world) {
    return make_error("request.bad_value", "gpus",
                      "gpus: vLLM runs one rank per GPU: tensor-parallel-size x pipeline-parallel-size = " +
                          std::to_string(world) + " GPUs, but " + std::to_string(request.gpu_ids.size()) + " are listed");
  }
  return std::nullopt;
}

// Speculative decoding (--speculative-config): a draft model's weights and KV pages join the
// model's; ngram and suffix propose from the tokens already seen, on the CPU. The draft's report,
// or none without a draft model.
Result<std::optional<Report>> vllm_draft(const Request& request, const Catalog& catalog) {
  const VllmSettings& v = request.vllm;
  const VllmSpeculativeMethod method = v.speculative_method;
  if (request.draft && method == VllmSpeculativeMethod::none) {
    return make_error("request.bad_value", "vllm.speculative-config",
                      "vllm.speculative-config: a draft model is served with --speculative-config "
                      "'{\"model\": ..., \"num_speculative_tokens\": N}'; give num_speculative_tokens");
  }
  if (method == VllmSpeculativeMethod::eagle || method == VllmSpeculativeMethod::eagle3 || method == VllmSpeculativeMethod::mtp) {
    return make_error("request.bad_value", "vllm.speculative-config.method",
                      std::string("vllm.speculative-config.method: ") + vllm_speculative_method_name(method) +
                          "'s draft heads are not modelled yet (draft_model, ngram and suffix are)");
  }
  if (method == VllmSpeculativeMethod::draft_model && !request.draft) {
    return make_error("request.bad_value", "draft", "draft: the draft_model method needs the draft's model (--speculative-config's \"model\")");
  }
  if ((method == VllmSpeculativeMethod::ngram || method == VllmSpeculativeMethod::suffix) && request.draft) {
    return make_error("request.bad_value", "draft",
                      std::string("draft: the ") + vllm_speculative_method_name(method) +
                          " method proposes from the tokens already seen: it loads no draft model");
  }
  if (!request.draft) return std::optional<Report>();
  if (v.pipeline_parallel_size > 1) {
    return make_error("request.bad_value", "vllm.pipeline-parallel-size",
                      "vllm.pipeline-parallel-size: a draft model with pipeline parallelism is not modelled");
  }
  auto draft = estimate_draft(request, catalog);
  if (!draft) return draft.error();
  if (auto e = verify_heads(draft->prepared.model, v.tensor_parallel_size, "draft.model")) return *e;
  return std::optional<Report>(std::move(draft).value());
}

// Each GPU's CUDA-visible total (vLLM's total_gpu_memory), else the driver's, said so.
std::vector<int64_t> cuda_visible_totals(EngineReport& e) {
  std::vector<int64_t> totals;
  for (const Gpu& gpu : e.devices) {
    if (gpu.cuda_total_bytes > 0) {
      totals.push_back(gpu.cuda_total_bytes);
      continue;
    }
    totals.push_back(gpu.total_bytes);
    const std::string note = gpu.name +
                             ": its CUDA-visible total (vLLM's total_gpu_memory) is not in the catalog; the driver's "
                             "total is used, and vLLM sees a few hundred MiB less";
    if (gpu.id != "custom" && std::find(e.assumptions.begin(), e.assumptions.end(), note) == e.assumptions.end()) {
      e.assumptions.push_back(note);
    }
  }
  return totals;
}

std::optional<Error> estimate_vllm(const Request& request, const Catalog& catalog, const WeightFormat* format, Report& report) {
  const VllmSettings& v = request.vllm;
  const ModelSpec& m = report.prepared.model;
  if (auto error = check_vllm_request(request, m)) return error;
  auto drafted = vllm_draft(request, catalog);
  if (!drafted) return drafted.error();
  const std::optional<Report>& draft = *drafted;
  VllmDraft draft_in;
  if (draft) {
    const ShardedWeightShapes shapes = sharded_weight_shapes(catalog, catalog.formats.find_format(request.draft->weight_format),
                                                       draft->prepared.model, draft->prepared.weights.bytes);
    draft_in = {&draft->prepared.model, shapes.format, request.draft->group_size, shapes.scale};
  }
  auto engine = std::make_shared<EngineReport>();
  EngineReport& e = *engine;
  report.engine = engine;
  if (auto error = resolve_devices(request, catalog, v.tensor_parallel_size * v.pipeline_parallel_size, report.gpu, e)) return error;
  if (draft) {
    e.draft_name = draft->model_name;
    e.draft_parameters = draft->prepared.weights.parameters;
    e.draft_weight_bytes = draft->prepared.weights.bytes;
    e.assumptions.push_back("draft model " + draft->model_name + " (--speculative-config, " +
                            std::to_string(v.num_speculative_tokens) +
                            " tokens): its shard on each rank in \"Model loading took\" and a page per block for each of its " +
                            std::to_string(draft->prepared.model.layers) +
                            " layers in the KV pool (vllm/v1/spec_decode/draft_model.py); the CUDA graphs it adds are not counted");
  }

  // The weights: the format's per-tensor bytes, sharded as vLLM shards them. A checkpoint's
  // own bytes scale them (its tensors are the format's, in its own types).
  const ShardedWeightShapes shapes = sharded_weight_shapes(catalog, format, m, report.prepared.weights.bytes);
  if (!format) {
    e.assumptions.push_back("weights per rank: the file's " + with_thousands(report.prepared.weights.bytes) +
                            " bytes, sharded in the proportions of the model's bf16 tensors");
  }
  const std::vector<int64_t> totals = cuda_visible_totals(e);
  std::vector<std::string> names;
  for (const Gpu& gpu : e.devices) names.push_back(gpu.name);
  e.vllm = vllm_memory(catalog.formats, m, *shapes.format, request.group_size, report.prepared.activation_bytes, v, totals, names,
                       shapes.scale,
                       request.settings.runtime_bytes, draft_in);
  const VllmGeneration& g = e.vllm.generation;
  const VllmRank& rank0 = e.vllm.ranks.front();
  e.assumptions.push_back("vLLM " + vllm_version_text(v) + ": non_torch_memory " +
                          format_bytes(rank0.non_torch, DisplayUnits::gib) +
                          " per rank, the median of public logs of such releases (not derived)");
  if (!v.enforce_eager) {
    e.assumptions.push_back("CUDA graphs: " + format_bytes(g.cuda_graphs, DisplayUnits::gib) +
                            " per rank outside vLLM's budget, the median of public logs (--enforce-eager: none)");
  }
  e.assumptions.push_back("before vLLM's budget: the CUDA context, " +
                          format_bytes(request.settings.runtime_bytes, DisplayUnits::gib) + " per GPU (overhead.runtime_bytes)" +
                          (v.tensor_parallel_size > 1 || v.pipeline_parallel_size > 1
                               ? " + " + format_bytes(g.context_tp_extra, DisplayUnits::gib) + " for NCCL (median of public logs)"
                               : std::string()));
  e.assumptions.push_back(
      g.sorting_sampler
          ? "sampler: vLLM before 0.11 sorts the vocabulary when profiled (the boundary release is assumed)"
          : "sampler: vLLM 0.11 and later samples without sorting the vocabulary (the boundary release is assumed)");
  e.vllm_decode = vllm_decode_bound(m, e.vllm, v, per_device(e.devices, &Gpu::bandwidth_gbs));
  const TensorRate rate = vllm_rate(format);
  e.prefill_rate = rate.name;
  e.vllm_prefill_tokens_per_second = rate.rate ? vllm_prefill_bound(m, e.vllm, v, per_device(e.devices, rate.rate)) : 0.0;
  return std::nullopt;
}

json vllm_to_json(const Report& r) {
  const EngineReport& en = *r.engine;
  const VllmMemory& m = en.vllm;
  json ranks = json::array();
  for (size_t i = 0; i < m.ranks.size(); ++i) {
    const VllmRank& k = m.ranks[i];
    ranks.push_back({{"gpu", {{"id", en.devices[i].id}, {"name", en.devices[i].name}}},
                     {"tp_rank", k.tp_rank},
                     {"pp_rank", k.pp_rank},
                     {"layers", k.layers},
                     {"total_gpu_memory_bytes", k.total},
                     {"requested_bytes", k.requested},
                     {"weights_bytes", k.weights},
                     {"lora_bytes", k.lora},
                     {"draft_weights_bytes", k.draft_weights},
                     {"draft_page_bytes", k.draft_page_bytes},
                     {"forward_peak_bytes", k.forward_peak},
                     {"sampler_peak_bytes", k.sampler_peak},
                     {"activation_peak_bytes", k.activation_peak},
                     {"non_torch_bytes", k.non_torch},
                     {"non_kv_bytes", k.non_kv()},
                     {"kv_available_bytes", k.kv_available},
                     {"kv_page_bytes", k.kv_page_bytes},
                     {"blocks", k.blocks},
                     {"cuda_graph_bytes", k.cuda_graphs},
                     {"outside_budget_bytes", k.outside_budget},
                     {"used_bytes", k.requested + k.outside_budget}});
  }
  json draft = nullptr;
  if (!en.draft_name.empty()) {
    draft = {{"name", en.draft_name}, {"parameters", en.draft_parameters}, {"weight_bytes", en.draft_weight_bytes},
             {"method", vllm_speculative_method_name(r.request.vllm.speculative_method)},
             {"num_speculative_tokens", r.request.vllm.num_speculative_tokens}};
  }
  return {{"name", "vllm"},
          {"draft", draft},
          {"max_model_len", m.max_model_len},
          {"max_num_seqs", m.max_num_seqs},
          {"max_num_batched_tokens", m.max_num_batched_tokens},
          {"sampler_rows", m.sampler_rows},
          {"ranks", ranks},
          {"num_gpu_blocks", m.num_gpu_blocks},
          {"kv_tokens", m.kv_tokens},
          {"max_concurrency", m.max_concurrency},
          {"longest_max_model_len", m.longest_model_len},
          {"min_gpu_memory_utilization", m.min_utilization},
          {"fits", m.fits},
          {"refusal", m.refusal},
          {"warning", m.warning},
          {"log_lines", vllm_log_lines(m, r.request.vllm)},
          {"assumptions", en.assumptions},
          {"decode_bound",
           {{"tokens_per_second_empty_cache", en.vllm_decode.tokens_per_second_empty},
            {"tokens_per_second_full_cache", en.vllm_decode.tokens_per_second_full}}},
          {"prefill_bound",
           {{"tokens_per_second", en.vllm_prefill_tokens_per_second},
            {"prompt_tokens", m.max_model_len},
            {"tensor_rate", en.prefill_rate}}}};
}

}  // namespace

const EngineParts kVllmParts{estimate_vllm, vllm_to_json};

}  // namespace vramfit
