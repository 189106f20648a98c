// engine "llama.cpp": its buffers per device and the host, what fits, and its report JSON.
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

namespace {

// The rate of the kernels llama.cpp runs on a weight type (ggml-cuda.cu ggml_cuda_mul_mat:
// quantized types through its MMQ kernels on INT8 tensor cores; F16 through cuBLAS with FP16
// compute; BF16 and F32 with FP32 accumulation, F32 no faster than BF16).
TensorRate llamacpp_rate(const std::string& type) {
  if (type == "f16") return {&Gpu::fp16_acc_tflops, "FP16 with FP16 accumulation (cuBLAS)"};
  if (type == "bf16" || type == "f32") return {&Gpu::bf16_tflops, "BF16 with FP32 accumulation (cuBLAS)"};
  return {&Gpu::int8_tops, "INT8 (llama.cpp's quantized MMQ kernels)"};
}

// engine "llama.cpp": the GPUs in device order, llama.cpp's buffers on each and the host, and
// what fits (core/llamacpp).
std::optional<Error> estimate_llamacpp(const Request& request, const Catalog& catalog, const WeightFormat* format,
                                       Report& report) {
  auto placed = llamacpp_placed_weights(request, catalog, report.prepared.model, "");
  if (!placed) return placed.error();
  const LlamaCppWeights& weights = *placed;
  LlamaCppSettings l = request.llamacpp;
  l.with_draft = request.draft != nullptr;  // llamacpp_reserved_outputs: the drafted tokens' outputs
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
  // Each GPU's backend by its maker: Metal on Apple silicon, ROCm (ggml-cuda built for HIP) on AMD.
  std::vector<std::string> backends;
  for (const Gpu& gpu : e.devices) backends.push_back(gpu.vendor == "Apple" ? "MTL" : gpu.vendor == "AMD" ? "ROCm" : "CUDA");
  name_llamacpp_devices(e.llamacpp, backends);
  if (draft) name_llamacpp_devices(e.llamacpp_draft, backends);
  e.llamacpp_decode = llamacpp_decode_bound(report.prepared.model, weights, e.llamacpp,
                                            per_device(e.devices, &Gpu::bandwidth_gbs), request.host_bandwidth_gbs);
  e.llamacpp_fit = llamacpp_fit(catalog.formats, report.prepared.model, weights, l, capacity, request.host_memory_bytes,
                                request.settings.runtime_bytes, request.settings.margin_fraction, with_draft);
  if (l.has_mmproj) {
    e.assumptions.push_back("--mmproj " + l.mmproj.file + ": its weights (the file's tensors) on " +
                            (l.no_mmproj_offload || e.devices.empty() ? std::string("the CPU") : e.llamacpp.gpus.front().device) +
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

}  // namespace

const EngineParts kLlamaCppParts{estimate_llamacpp, llamacpp_to_json};

}  // namespace vramfit
