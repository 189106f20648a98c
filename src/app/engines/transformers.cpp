// Transformers in the app: generate's settings as fields (version, device_map, attention, batch,
// prompt, max_new_tokens, bitsandbytes' compute dtype) and its answer (a bar per GPU and the host).
#include "app/engine_view.hpp"
#include "engine_answer.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "catalog/catalog.hpp"
#include "core/fit.hpp"
#include "core/units.hpp"
#include "app/ui_language.hpp"
#include "app/verdict.hpp"
#include "app/widgets.hpp"

namespace vramfit {

bool EngineInputs::draw_transformers(Request& request) {
  TransformersSettings& t = request.transformers;
  bool changed = version_field<TransformersSettings>("version", t, parse_transformers_version, transformers_version_text);
  tip("transformers.__version__: generate's cache and logits changed across releases.");
  changed |= enum_combo("device_map", t.device_map,
                        {{TransformersDeviceMap::none, "none (one GPU)"},
                         {TransformersDeviceMap::auto_map, "auto"},
                         {TransformersDeviceMap::balanced_low_0, "balanced_low_0"},
                         {TransformersDeviceMap::sequential, "sequential"}});
  changed |= enum_combo("attention", t.attn_implementation,
                        {{TransformersAttention::sdpa, "sdpa"},
                         {TransformersAttention::flash_attention_2, "flash_attention_2"},
                         {TransformersAttention::eager, "eager"}});
  tip("from_pretrained(attn_implementation=...)");
  changed |= number_field("Batch size", t.batch_size, 1, kMaxSequences, Steps::doubling);
  tip("Prompts generated together: input_ids.shape[0].");
  changed |= number_field("Prompt tokens", t.input_length, 1, kMaxContextTokens, Steps::doubling);
  tip("input_ids.shape[1], padded to the longest prompt.");
  changed |= number_field("max_new_tokens", t.max_new_tokens, 1, kMaxContextTokens, Steps::doubling);
  if (request.weight_format == "bnb-nf4" || request.weight_format == "bnb-nf4-dq" || request.weight_format == "bnb-fp4") {
    changed |= enum_combo(
        "compute dtype", t.bnb_4bit_compute_dtype,
        {{BnbComputeDtype::float32, "float32"}, {BnbComputeDtype::float16, "float16"}, {BnbComputeDtype::bfloat16, "bfloat16"}});
    tip("BitsAndBytesConfig(bnb_4bit_compute_dtype=...): float32 when not given.");
  }
  return changed;
}

EngineAnswer transformers_answer(const Request& request, const EngineReport& e) {
  const TransformersMemory& m = e.transformers;
  const TransformersSettings& t = request.transformers;
  EngineAnswer a;
  a.fits = m.fits;
  a.verdict = std::string(m.fits ? "Transformers: FITS" : "Transformers: DOES NOT FIT") + " on " + devices_text(m.gpus.size()) +
              (m.host.weights > 0 ? " and the host" : "");
  if (!m.fits) a.facts.push_back(m.refusal);
  a.legend = {{"weights", 0, kWeights}, {"KV cache", 0, kKv}, {"activations", 0, kWork}, {"CUDA context", 0, kOther},
              {"margin", 0, kMargin}};
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const TransformersDevice& d = m.gpus[i];
    const Gpu& gpu = e.devices[i];
    const int64_t total = gpu.cuda_visible_bytes();
    const int64_t kept = d.weights + d.buffers;
    // At the prompt's peak the cache holds the prompt; at the last step every token but one.
    const int64_t final_tokens = t.input_length + t.max_new_tokens - 1;
    const int64_t kv = d.peak() == d.decode_peak ? d.kv : d.kv / std::max<int64_t>(1, final_tokens) * t.input_length;
    a.devices.push_back(
        {"cuda:" + std::to_string(i) + " " + gpu.name +
             (d.layers() > 0 ? ", layers " + std::to_string(d.first_layer) + "-" + std::to_string(d.last_layer) : ""),
         {{"weights", kept, kWeights},
          {"KV cache", kv, kKv},
          {"activations", std::max<int64_t>(0, d.peak() - kept - kv), kWork},
          {"CUDA context", request.settings.runtime_bytes, kOther}},
         total,
         d.peak() + request.settings.runtime_bytes <= total,
         safety_margin_bytes(d.peak() + request.settings.runtime_bytes, request.settings.margin_fraction)});
  }
  if (m.host.weights > 0) {
    a.devices.push_back({"host (device_map \"cpu\")",
                         {{"weights", m.host.weights + m.host.buffers, kWeights}},
                         request.host_memory_bytes,
                         request.host_memory_bytes <= 0 || m.host.weights <= request.host_memory_bytes});
  }
  a.limits.push_back("the largest batch: " + std::to_string(e.transformers_fit.max_batch_size) +
                     "; the most max_new_tokens: " + with_thousands(e.transformers_fit.max_new_tokens));
  if (e.transformers_decode_tokens_per_second > 0) {
    a.limits.push_back(per_second("decode", e.transformers_decode_tokens_per_second, ""));
  }
  if (e.transformers_prefill_tokens_per_second > 0) {
    a.limits.push_back(per_second("prompt", e.transformers_prefill_tokens_per_second, e.prefill_rate));
  }
  a.printer = "your script";
  a.printed = transformers_log_lines(m);
  return a;
}

}  // namespace vramfit
