#include "report/engines.hpp"

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


// A tensor rate of the GPU catalog (TFLOPS or TOPS, 0: not known) and its name.
struct TensorRate {
  double Gpu::*rate = nullptr;  // nullptr: none in the catalog for these weights
  const char* name = "";
};

// The rate of the kernels llama.cpp runs on a weight type (ggml-cuda.cu ggml_cuda_mul_mat:
// quantized types through its MMQ kernels on INT8 tensor cores; F16 through cuBLAS with FP16
// compute; BF16 and F32 with FP32 accumulation, F32 no faster than BF16).
TensorRate llamacpp_rate(const std::string& type) {
  if (type == "f16") return {&Gpu::fp16_acc_tflops, "FP16 with FP16 accumulation (cuBLAS)"};
  if (type == "bf16" || type == "f32") return {&Gpu::bf16_tflops, "BF16 with FP32 accumulation (cuBLAS)"};
  return {&Gpu::int8_tops, "INT8 (llama.cpp's quantized MMQ kernels)"};
}

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

// Each device's value of a Gpu field, in device order.
std::vector<double> per_device(const std::vector<Gpu>& devices, double Gpu::*field) {
  std::vector<double> values;
  for (const Gpu& gpu : devices) values.push_back(field ? gpu.*field : 0.0);
  return values;
}

// The weights' main storage type: the format's, or the type holding most of a file's bytes.
std::string main_weight_type(const Request& request, const Catalog& catalog, const WeightFormat* format) {
  if (format) return catalog.formats.storage_types[static_cast<size_t>(format->default_type)].id;
  std::string type;
  int64_t most = -1;
  for (const StoredWeights::Row& row : request.stored_weights.by_type) {
    if (row.bytes > most) {
      most = row.bytes;
      type = row.type;
    }
  }
  return type;
}

// The GPUs in device order: the request's list, else `count` x the request's GPU.
std::optional<Error> resolve_devices(const Request& request, const Catalog& catalog, int64_t count, const Gpu& gpu_given,
                                     EngineReport& report) {
  if (request.gpu_ids.empty()) {
    report.devices.assign(static_cast<size_t>(count), gpu_given);
    return std::nullopt;
  }
  for (size_t i = 0; i < request.gpu_ids.size(); ++i) {
    const Gpu* gpu = catalog.find_gpu(request.gpu_ids[i]);
    if (!gpu) {
      return make_error("request.unknown_gpu", "gpus[" + std::to_string(i) + "]",
                        "gpus[" + std::to_string(i) + "]: no GPU '" + request.gpu_ids[i] + "' (vramfit gpus lists them)");
    }
    report.devices.push_back(*gpu);
  }
  return std::nullopt;
}

// The draft model of speculative decoding, estimated as a model of its own (its preset, config
// or file, in its own weight format) with the engine's GPU; an error names the draft's field.
Result<Report> estimate_draft(const Request& request, const Catalog& catalog) {
  Request d = *request.draft;
  d.mode = Mode::inference;
  d.engine = Engine::generic;
  d.draft.reset();
  d.gpu_id = request.gpu_id;
  d.gpu_capacity_bytes = request.gpu_capacity_bytes;
  auto draft = estimate(d, catalog);
  if (!draft) {
    Error e = draft.error();
    e.field = "draft." + e.field;
    e.message = "draft." + e.message;
    return e;
  }
  return draft;
}

// A model's weights where llama.cpp places them: a GGUF file's own bytes by layer, or a gguf-*
// format's. `prefix` names the model in errors ("" for the model, "draft." for the draft).
Result<LlamaCppWeights> llamacpp_placed_weights(const Request& request, const Catalog& catalog, const ModelSpec& model,
                                                const std::string& prefix) {
  const StoredWeights& stored = request.stored_weights;
  if (request.has_stored_weights && (!stored.has_layers || stored.source != "gguf")) {
    return make_error("request.bad_value", prefix + "weights.stored",
                      prefix + "weights.stored: llama.cpp loads GGUF files; this model's weights come from " +
                          (stored.source.empty() ? std::string("a file") : stored.source) +
                          " without llama.cpp's layer placement");
  }
  // A GGUF's blocks: the model's layers, and its MTP layers when the file holds them.
  const int64_t blocks = static_cast<int64_t>(stored.by_layer.layer.size());
  if (request.has_stored_weights && blocks != model.layers && blocks != model.layers + model.mtp_layers) {
    return make_error("request.bad_value", prefix + "weights.stored.by_layer",
                      prefix + "weights.stored.by_layer: " + std::to_string(blocks) +
                          " layers, but the model has " + std::to_string(model.layers));
  }
  if (request.has_stored_weights) return stored.by_layer;
  const WeightFormat* format = catalog.formats.find_format(request.weight_format);
  if (!format || format->id.rfind("gguf-", 0) != 0) {
    return make_error("request.bad_value", prefix + "weights.format",
                      prefix + "weights.format: llama.cpp loads GGUF files: choose a gguf-* format (got '" +
                          request.weight_format + "')");
  }
  return llamacpp_weights(catalog.formats, model, *format);
}

// engine "llama.cpp": the GPUs in device order, llama.cpp's buffers on each and the host, and
// what fits (core/llamacpp).
std::optional<Error> estimate_llamacpp(const Request& request, const Catalog& catalog, const WeightFormat* format,
                                       Report& report) {
  auto placed = llamacpp_placed_weights(request, catalog, report.prepared.model, "");
  if (!placed) return placed.error();
  const LlamaCppWeights& weights = *placed;
  const LlamaCppSettings& l = request.llamacpp;
  for (const auto& [v_type, flag] : {std::pair<const std::string*, const char*>{&l.cache_type_v, "cache-type-v"},
                                     {&l.cache_type_v_draft, "cache-type-v-draft"}}) {
    if (l.flash_attn == LlamaFlashAttn::off && *v_type != "f16" && *v_type != "bf16" && *v_type != "f32") {
      // llama_context::llama_context: "quantized V cache was requested, but this requires Flash Attention"
      return make_error("request.bad_value", std::string("llama.cpp.") + flag,
                        std::string("llama.cpp.") + flag + ": a quantized V cache needs flash attention (llama.cpp refuses -fa off with a " +
                            *v_type + " V cache)");
    }
  }
  // llama_adapter_lora_init_impl: "LoRA tensor '...' does not exist in base model (hint: maybe wrong base model?)".
  for (size_t i = 0; i < l.lora.size(); ++i) {
    const LlamaCppWeights& pairs = l.lora[i].pairs;
    int64_t last = static_cast<int64_t>(pairs.layer.size()) - 1;
    while (last >= 0 && pairs.layer[static_cast<size_t>(last)] == 0 && pairs.layer_experts[static_cast<size_t>(last)] == 0) --last;
    if (last >= report.prepared.model.layers || (!report.prepared.model.is_moe() && std::any_of(pairs.layer_experts.begin(),
                                                                                              pairs.layer_experts.end(),
                                                                                              [](int64_t b) { return b > 0; }))) {
      const std::string field = "llama.cpp.lora[" + std::to_string(i) + "]";
      return make_error("request.bad_value", field,
                        field + ": " + l.lora[i].file + " adapts tensors the model does not have (layer " + std::to_string(last) +
                            " of " + std::to_string(report.prepared.model.layers) +
                            "): llama.cpp says \"does not exist in base model (hint: maybe wrong base model?)\"");
    }
  }
  std::optional<Report> draft;
  std::optional<LlamaCppWeights> draft_weights;
  if (request.draft) {
    auto d = estimate_draft(request, catalog);
    if (!d) return d.error();
    draft = std::move(d).value();
    auto dw = llamacpp_placed_weights(*request.draft, catalog, draft->prepared.model, "draft.");
    if (!dw) return dw.error();
    draft_weights = std::move(dw).value();
    // common/speculative.cpp common_speculative_are_compatible: the vocabularies may differ by
    // SPEC_VOCAB_MAX_SIZE_DIFFERENCE (128) tokens at most.
    const int64_t difference = std::llabs(draft->prepared.model.vocab_size - report.prepared.model.vocab_size);
    if (difference > 128) {
      return make_error("request.bad_value", "draft.model",
                        "draft.model: llama.cpp: draft model vocab must closely match target model to use speculation but target "
                        "vocab size " + std::to_string(report.prepared.model.vocab_size) + " does not match draft vocab size " +
                            std::to_string(draft->prepared.model.vocab_size) + " - difference " + std::to_string(difference) +
                            ", max allowed 128");
    }
  }
  auto engine = std::make_shared<EngineReport>();
  EngineReport& e = *engine;
  report.engine = engine;
  if (auto error = resolve_devices(request, catalog, request.settings.gpu_count, report.gpu, e)) return error;
  if (l.main_gpu >= static_cast<int64_t>(e.devices.size())) {
    return make_error(
        "request.out_of_range", "llama.cpp.main-gpu",
        "llama.cpp.main-gpu: " + std::to_string(l.main_gpu) + " is not one of the " + std::to_string(e.devices.size()) + " GPUs");
  }
  std::vector<int64_t> capacity;
  for (const Gpu& gpu : e.devices) capacity.push_back(gpu.usable_bytes());
  e.llamacpp = llamacpp_memory(catalog.formats, report.prepared.model, weights, l, capacity);
  LlamaCppDraft with_draft;
  if (draft) {
    with_draft = {&draft->prepared.model, &*draft_weights};
    e.llamacpp_draft = llamacpp_draft_memory(catalog.formats, with_draft, l, e.llamacpp, capacity);
    e.draft_name = draft->model_name;
    e.draft_parameters = draft->prepared.weights.parameters;
    e.draft_weight_bytes = draft->prepared.weights.bytes;
    e.assumptions.push_back("draft model " + draft->model_name + ": one llama.cpp context of the target's " +
                            std::to_string(e.llamacpp.n_ctx) + " cells for its -np " + std::to_string(l.parallel) +
                            " sequence(s) (common_speculative_init_result, llama.cpp 2026 master; builds before it made one "
                            "draft context per slot, of -cd cells); -ngld " +
                            (l.gpu_layers_draft < 0 ? std::string("all") : std::to_string(l.gpu_layers_draft)) +
                            ", -ctkd " + l.cache_type_k_draft + ", -ctvd " + l.cache_type_v_draft);
  }
  e.llamacpp_decode = llamacpp_decode_bound(report.prepared.model, weights, e.llamacpp,
                                            per_device(e.devices, &Gpu::bandwidth_gbs), request.host_bandwidth_gbs);
  e.llamacpp_fit = llamacpp_fit(catalog.formats, report.prepared.model, weights, l, capacity, request.host_memory_bytes,
                                request.settings.runtime_bytes, request.settings.margin_fraction, with_draft);
  if (l.has_mmproj) {
    e.assumptions.push_back("--mmproj " + l.mmproj.file + ": its weights (the file's tensors) on " +
                            (l.no_mmproj_offload || e.devices.empty() ? std::string("the CPU") : std::string("CUDA0")) +
                            (l.mmproj.audio ? ", and one 30 s clip's graph, " : ", and one image's graph, ") +
                            format_bytes(e.llamacpp.mmproj_compute, DisplayUnits::gib) + " for " + std::to_string(l.mmproj.patches()) +
                            (l.mmproj.audio ? " positions" : " patches") +
                            (l.mmproj.qwen3vl() ? " of clip's warmup image: vramfit's estimate of the tensors one Qwen3-VL encoder layer holds at once, "
                                                  "not clip's own allocator (checked against two logs: 2.6 % and 3.8 % under)"
                                                : ": vramfit's estimate of one encoder layer in f32, not clip's own allocator (not checked against a log)"));
  } else if (report.prepared.model.vision.kind != VisionKind::none) {
    report.breakdown.assumptions.push_back("llama.cpp: the image or audio tower and projector live in a separate mmproj GGUF "
                                           "(llama-server --mmproj); they are not in these buffers.");
  }
  const TensorRate rate = llamacpp_rate(main_weight_type(request, catalog, format));
  e.prefill_rate = rate.name;
  e.llamacpp_prefill =
      llamacpp_prefill_bound(report.prepared.model, e.llamacpp, per_device(e.devices, rate.rate), e.llamacpp.n_ctx);
  return std::nullopt;
}

json llamacpp_to_json(const Report& r) {
  const EngineReport& en = *r.engine;
  auto buffers = [](const LlamaCppBuffers& b) {
    return json{{"device", b.device},       {"model_bytes", b.model},     {"expert_bytes", b.experts}, {"lora_bytes", b.lora}, {"mmproj_bytes", b.mmproj},
                {"kv_bytes", b.kv},         {"rs_bytes", b.rs},           {"compute_bytes", b.compute}, {"output_bytes", b.output},
                {"total_bytes", b.total()}, {"layers", b.layers},         {"output_layer", b.output_layer}};
  };
  const LlamaCppMemory& m = en.llamacpp;
  const LlamaCppFit& f = en.llamacpp_fit;
  json devices = json::array();
  for (size_t g = 0; g < m.gpus.size(); ++g) {
    json d = buffers(m.gpus[g]);
    d["gpu"] = {{"id", en.devices[g].id}, {"name", en.devices[g].name}};
    d["runtime_bytes"] = r.request.settings.runtime_bytes;
    d["draft_bytes"] = g < en.llamacpp_draft.gpus.size() ? en.llamacpp_draft.gpus[g].total() : 0;
    d["use_bytes"] = f.gpu_use[g];        // buffers + draft + runtime: what llama.cpp's start needs
    d["margin_bytes"] = f.gpu_margin[g];  // the user's reserve on top
    d["capacity_bytes"] = f.gpu_capacity[g];
    d["fits"] = f.gpu_starts(g);
    d["keeps_margin"] = f.gpu_keeps_margin(g);
    devices.push_back(d);
  }
  json draft = nullptr;
  if (!en.draft_name.empty()) {
    const LlamaCppMemory& dm = en.llamacpp_draft;
    json draft_gpus = json::array();
    for (const LlamaCppBuffers& b : dm.gpus) draft_gpus.push_back(buffers(b));
    draft = {{"name", en.draft_name},          {"parameters", en.draft_parameters}, {"weight_bytes", en.draft_weight_bytes},
             {"n_ctx", dm.n_ctx},              {"offloaded_layers", dm.offloaded_layers}, {"layer_slots", dm.layer_slots},
             {"flash_attention", dm.flash_attention}, {"gpus", draft_gpus}, {"host", buffers(dm.host)},
             {"log_lines", llamacpp_log_lines(dm)}};
  }
  return {{"name", "llama.cpp"},
          {"draft", draft},
          {"mmproj_compute_bytes", m.mmproj_compute},
          {"n_ctx", m.n_ctx},
          {"swa_cells", m.swa_cells},
          {"ubatch_tokens", m.ubatch_tokens},
          {"offloaded_layers", m.offloaded_layers},
          {"layer_slots", m.layer_slots},
          {"flash_attention", m.flash_attention},
          {"gpus", devices},
          {"host",
           [&] {
             json h = buffers(m.host);
             h["need_bytes"] = f.host_need;
             h["capacity_bytes"] = r.request.host_memory_bytes;  // 0: not checked
             h["fits"] = r.request.host_memory_bytes <= 0 || f.host_need <= r.request.host_memory_bytes;
             return h;
           }()},
          {"fits", f.fits},  // llama.cpp starts (its own allocations; no margin)
          {"margin_fraction", f.margin_fraction},
          {"keeps_margin", f.keeps_margin},
          {"max_gpu_layers", f.max_gpu_layers},
          {"max_ctx_size", f.max_ctx_size},
          {"max_gpu_layers_with_margin", f.max_gpu_layers_with_margin},
          {"max_ctx_size_with_margin", f.max_ctx_size_with_margin},
          {"log_lines", llamacpp_log_lines(m)},
          {"decode_bound",
           {{"tokens_per_second_empty_cache", en.llamacpp_decode.tokens_per_second_empty},
            {"tokens_per_second_full_cache", en.llamacpp_decode.tokens_per_second_full},
            {"gpu_bytes_per_token", en.llamacpp_decode.gpu_bytes_per_token},
            {"host_bytes_per_token", en.llamacpp_decode.host_bytes_per_token},
            {"host_bandwidth_gbs", r.request.host_bandwidth_gbs}}},
          {"prefill_bound",
           {{"tokens_per_second", en.llamacpp_prefill.tokens_per_second},
            {"prompt_tokens", en.llamacpp_prefill.prompt_tokens},
            {"host_layers_left_out", en.llamacpp_prefill.host_layers_left_out},
            {"tensor_rate", en.prefill_rate}}}};
}
// The weight shapes vLLM shards: the format's, or for a checkpoint read from its file (no
// format), bf16's scaled by the file's own bytes (its tensors are the format's, in its own types).
struct VllmWeightShapes {
  const WeightFormat* format = nullptr;
  double scale = 1.0;
};
VllmWeightShapes vllm_weight_shapes(const Catalog& catalog, const WeightFormat* format, const ModelSpec& model, int64_t file_bytes) {
  if (format) return {format, 1.0};
  const WeightFormat* bf16 = catalog.formats.find_format("bf16");
  const int64_t as_bf16 = summarize_weights(catalog.formats, *bf16, model, 0).bytes;
  return {bf16, as_bf16 > 0 ? static_cast<double>(file_bytes) / static_cast<double>(as_bf16) : 1.0};
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
std::optional<Error> estimate_vllm(const Request& request, const Catalog& catalog, const WeightFormat* format, Report& report) {
  const VllmSettings& v = request.vllm;
  const ModelSpec& m = report.prepared.model;
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
  // Speculative decoding (--speculative-config): a draft model's weights and KV pages join the
  // model's; ngram and suffix propose from the tokens already seen, on the CPU.
  std::optional<Report> draft;
  VllmDraft draft_in;
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
  if (request.draft) {
    if (v.pipeline_parallel_size > 1) {
      return make_error("request.bad_value", "vllm.pipeline-parallel-size",
                        "vllm.pipeline-parallel-size: a draft model with pipeline parallelism is not modelled");
    }
    auto d = estimate_draft(request, catalog);
    if (!d) return d.error();
    draft = std::move(d).value();
    if (auto e = verify_heads(draft->prepared.model, v.tensor_parallel_size, "draft.model")) return e;
    const VllmWeightShapes shapes = vllm_weight_shapes(catalog, catalog.formats.find_format(request.draft->weight_format),
                                                       draft->prepared.model, draft->prepared.weights.bytes);
    draft_in = {&draft->prepared.model, shapes.format, request.draft->group_size, shapes.scale};
  }
  auto engine = std::make_shared<EngineReport>();
  EngineReport& e = *engine;
  report.engine = engine;
  if (auto error = resolve_devices(request, catalog, world, report.gpu, e)) return error;
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
  const VllmWeightShapes shapes = vllm_weight_shapes(catalog, format, m, report.prepared.weights.bytes);
  if (!format) {
    e.assumptions.push_back("weights per rank: the file's " + with_thousands(report.prepared.weights.bytes) +
                            " bytes, sharded in the proportions of the model's bf16 tensors");
  }
  std::vector<int64_t> totals;
  std::vector<std::string> names;
  for (const Gpu& gpu : e.devices) {
    names.push_back(gpu.name);
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

// engine "transformers": the GPUs in CUDA order, accelerate's device map over them and the
// host, generate's peak on each (core/transformers).
std::optional<Error> estimate_transformers(const Request& request, const Catalog& catalog, const WeightFormat* format,
                                           Report& report) {
  const ModelSpec& m = report.prepared.model;
  if (m.parameters_only > 0) {
    return make_error("request.bad_value", "model",
                      "model: Transformers' memory follows the model's modules; give a preset or a config, not only a parameter count");
  }
  if (!format || format->id.rfind("gguf-", 0) == 0 || format->id == "mxfp4-moe") {
    return make_error("request.bad_value", "weights.format",
                      "weights.format: Transformers loads safetensors checkpoints (fp32, fp16, bf16, bitsandbytes, GPTQ, AWQ, fp8); "
                      "got '" + request.weight_format + "'");
  }
  const TransformersSettings& t = request.transformers;
  auto engine = std::make_shared<EngineReport>();
  EngineReport& e = *engine;
  report.engine = engine;
  if (auto error = resolve_devices(request, catalog, request.settings.gpu_count, report.gpu, e)) return error;
  if (t.device_map == TransformersDeviceMap::none && e.devices.size() > 1) {
    return make_error("request.bad_value", "transformers.device_map",
                      "transformers.device_map: none puts the whole model on one GPU; use auto, balanced_low_0 or sequential "
                      "to spread it over " + std::to_string(e.devices.size()) + " GPUs");
  }
  // Each GPU's free memory for the model: its total (CUDA's, where known) less the CUDA context.
  std::vector<int64_t> free;
  for (const Gpu& gpu : e.devices) {
    const int64_t total = gpu.cuda_visible_bytes();
    free.push_back(std::max<int64_t>(0, total - request.settings.runtime_bytes));
  }
  const int64_t activation = report.prepared.activation_bytes;
  e.transformers = transformers_memory(catalog.formats, m, *format, request.group_size, activation, t, free, request.host_memory_bytes);
  e.transformers_fit =
      transformers_fit(catalog.formats, m, *format, request.group_size, activation, t, free, request.host_memory_bytes);
  e.transformers_decode_tokens_per_second =
      transformers_decode_bound(e.transformers, per_device(e.devices, &Gpu::bandwidth_gbs), request.host_bandwidth_gbs);
  e.prefill_rate = "BF16 with FP32 accumulation (PyTorch's GEMMs)";
  e.transformers_prefill_tokens_per_second =
      transformers_prefill_bound(m, e.transformers, per_device(e.devices, &Gpu::bf16_tflops), t.input_length);
  const TransformersGeneration& g = e.transformers.generation;
  e.assumptions.push_back("transformers " + transformers_version_text(t) + ": " +
                          (g.legacy_cache ? "generate keeps tuple caches (before 4.42): the old and new caches overlap each step"
                                          : "generate keeps a DynamicCache (4.42 and later): one layer's old tensor at a time") +
                          "; " +
                          (g.all_prompt_logits ? "logits for every prompt token (before 4.45)" : "logits for the last token only (4.45 and later)") +
                          " (the boundary releases are assumed from the release history)");
  e.assumptions.push_back("every layer keeps every token in the cache (DynamicCache), sliding-window layers too");
  e.assumptions.push_back("before the model: the CUDA context, " + format_bytes(request.settings.runtime_bytes, DisplayUnits::gib) +
                          " per GPU (overhead.runtime_bytes), outside torch.cuda.max_memory_allocated");
  if (request.host_memory_bytes <= 0 && e.transformers.host.weights > 0) {
    e.assumptions.push_back("the host's RAM is not checked (host.memory_bytes 0): offloaded modules are assumed to fit it");
  }
  return std::nullopt;
}

json transformers_to_json(const Report& r) {
  const EngineReport& en = *r.engine;
  const TransformersMemory& m = en.transformers;
  json gpus = json::array();
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const TransformersDevice& d = m.gpus[i];
    const int64_t capacity = i < en.devices.size() ? en.devices[i].cuda_visible_bytes() : 0;
    const int64_t need = d.peak() + r.request.settings.runtime_bytes;
    gpus.push_back({{"gpu", {{"id", en.devices[i].id}, {"name", en.devices[i].name}}},
                    {"index", d.index},
                    {"layers", d.layers()},
                    {"first_layer", d.layers() > 0 ? d.first_layer : -1},
                    {"last_layer", d.layers() > 0 ? d.last_layer : -1},
                    {"embeddings", d.embeddings},
                    {"lm_head", d.lm_head},
                    {"weights_bytes", d.weights},
                    {"buffers_bytes", d.buffers},
                    {"offloaded_layer_bytes", d.executed_offload},
                    {"kv_bytes", d.kv},
                    {"prefill_peak_bytes", d.prefill_peak},
                    {"decode_peak_bytes", d.decode_peak},
                    {"max_memory_allocated_bytes", d.peak()},
                    {"max_memory_bytes", i < m.max_memory.size() ? m.max_memory[i] : 0},
                    {"runtime_bytes", r.request.settings.runtime_bytes},
                    {"need_bytes", need},
                    {"capacity_bytes", capacity},
                    {"fits", need <= capacity}});
  }
  const TransformersSettings& t = r.request.transformers;
  return {{"name", "transformers"},
          {"version", transformers_version_text(t)},
          {"gpus", gpus},
          {"host",
           {{"weights_bytes", m.host.weights + m.host.buffers},
            {"capacity_bytes", r.request.host_memory_bytes},
            {"fits", r.request.host_memory_bytes <= 0 || m.host.weights + m.host.buffers <= r.request.host_memory_bytes}}},
          {"kv_bytes_per_token", m.kv_bytes_per_token},
          {"footprint_bytes", m.footprint},
          {"fits", m.fits},
          {"refusal", m.refusal},
          {"max_batch_size", en.transformers_fit.max_batch_size},
          {"max_new_tokens", en.transformers_fit.max_new_tokens},
          {"log_lines", transformers_log_lines(m)},
          {"assumptions", en.assumptions},
          {"decode_bound", {{"tokens_per_second", en.transformers_decode_tokens_per_second},
                            {"host_bandwidth_gbs", r.request.host_bandwidth_gbs}}},
          {"prefill_bound",
           {{"tokens_per_second", en.transformers_prefill_tokens_per_second},
            {"prompt_tokens", t.input_length},
            {"tensor_rate", en.prefill_rate}}}};
}

}  // namespace

const EngineParts* engine_parts(Engine engine) {
  static const EngineParts llamacpp{estimate_llamacpp, llamacpp_to_json};
  static const EngineParts vllm{estimate_vllm, vllm_to_json};
  static const EngineParts transformers{estimate_transformers, transformers_to_json};
  switch (engine) {
    case Engine::llamacpp: return &llamacpp;
    case Engine::vllm: return &vllm;
    case Engine::transformers: return &transformers;
    default: return nullptr;
  }
}

}  // namespace vramfit
