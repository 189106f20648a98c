// vLLM in the app: its flags as fields (version, -tp, -pp, --max-model-len, --gpu-memory-utilization,
// --max-num-seqs, --kv-cache-dtype, LoRA, the draft) and its answer (a bar per rank, KV tokens, its lines).
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

bool EngineInputs::draw_vllm(Request& request) {
  VllmSettings& v = request.vllm;
  bool changed = version_field<VllmSettings>("vLLM version", v, parse_vllm_version, vllm_version_text);
  tip("`vllm --version`: its profiling changed across releases.");
  changed |= number_field("-tp", v.tensor_parallel_size, 1, kMaxGpuCount, Steps::by_one);
  tip("--tensor-parallel-size");
  changed |= number_field("-pp", v.pipeline_parallel_size, 1, kMaxGpuCount, Steps::by_one);
  tip("--pipeline-parallel-size");
  changed |= number_field("--max-model-len", v.max_model_len, 0, kMaxContextTokens, Steps::doubling);
  tip("Tokens of one request; 0: the model's.");
  changed |= fraction_field("--gpu-memory-utilization", v.gpu_memory_utilization, 0.01, 1.0);
  tip("vLLM's share of the GPU's memory, a fraction as the flag takes it (0.9), or a percent (90%).");
  changed |= number_field("--max-num-seqs", v.max_num_seqs, 0, kMaxSequences, Steps::doubling);
  tip("0: vLLM's default for the GPU (1024 on GPUs of 70 GiB or more but the A100, else 256).");
  changed |= number_field("batched tokens", v.max_num_batched_tokens, 0, kMaxContextTokens, Steps::doubling);
  tip("--max-num-batched-tokens; 0: vLLM's default for the GPU.");
  changed |= enum_combo("--kv-cache-dtype", v.kv_cache_dtype,
                        {{VllmKvCacheDtype::auto_dtype, "auto"},
                         {VllmKvCacheDtype::fp8, "fp8"},
                         {VllmKvCacheDtype::fp8_e4m3, "fp8_e4m3"},
                         {VllmKvCacheDtype::fp8_e5m2, "fp8_e5m2"},
                         {VllmKvCacheDtype::bfloat16, "bfloat16"},
                         {VllmKvCacheDtype::float16, "float16"}});
  changed |= ImGui::Checkbox("--enforce-eager", &v.enforce_eager);
  changed |= ImGui::Checkbox("--disable-hybrid-kv-cache-manager", &v.disable_hybrid_kv_cache_manager);
  tip("Sliding-window and chunked layers then keep every token, as full-attention layers do.");
  changed |= ImGui::Checkbox("--enable-lora", &v.enable_lora);
  tip("LoRA slots in every linear layer, counted with the weights.");
  if (v.enable_lora) {
    changed |= number_field("--max-loras", v.max_loras, 1, 4096, Steps::doubling);
    tip("Adapters served in one batch: each has a slot on the GPU.");
    changed |= number_field("--max-lora-rank", v.max_lora_rank, 1, 4096, Steps::doubling);
    tip("The largest adapter rank; every slot is this wide.");
  }
  changed |= draw_draft(request);
  return changed;
}

EngineAnswer vllm_answer(const Request& request, const EngineReport& e) {
  const VllmMemory& m = e.vllm;
  EngineAnswer a;
  a.fits = m.fits;
  a.verdict = std::string(m.fits ? "vLLM: STARTS" : "vLLM: DOES NOT START") + " on " + devices_text(m.ranks.size());
  if (!m.fits) a.facts.push_back(m.refusal);
  if (!m.warning.empty()) a.facts.push_back("warning: " + m.warning);
  char text[200];
  std::snprintf(text, sizeof text, "KV cache: %s tokens; %.2fx requests of %s tokens at once",
                with_thousands(m.kv_tokens).c_str(), m.max_concurrency, with_thousands(m.max_model_len).c_str());
  a.facts.push_back(text);
  if (!e.draft_name.empty()) {
    a.facts.push_back("draft model (--speculative-config, " + std::to_string(request.vllm.num_speculative_tokens) + " tokens): " +
                      e.draft_name + ", " + request.draft->weight_format + "; " +
                      format_bytes(m.ranks.back().draft_weights, request.units) + " of each rank's weights");
  }
  a.legend = {{"weights", 0, kWeights},
              {"KV pool", 0, kKv},
              {"activation", 0, kWork},
              {"non-torch", 0, kMore},
              {"context + graphs", 0, kOther},
              {"margin", 0, kMargin}};
  for (size_t i = 0; i < m.ranks.size(); ++i) {
    const VllmRank& k = m.ranks[i];
    a.devices.push_back({"rank " + std::to_string(i) + " " + e.devices[i].name,
                         {{"weights", k.weights, kWeights},
                          {"KV pool", std::max<int64_t>(0, k.kv_available), kKv},
                          {"activation", k.activation_peak, kWork},
                          {"non-torch", k.non_torch, kMore},
                          {"context + graphs", k.outside_budget, kOther}},
                         k.total,
                         k.starts,
                         safety_margin_bytes(k.uses(), request.settings.margin_fraction),
                         k.beyond_total ? "CUDA graphs may not fit beyond the budget" : ""});
  }
  std::snprintf(text, sizeof text, "the longest --max-model-len: %s; the smallest --gpu-memory-utilization: %.3f",
                with_thousands(m.longest_model_len).c_str(), m.min_utilization);
  a.limits.push_back(text);
  if (e.vllm_decode.tokens_per_second_empty > 0)
    a.limits.push_back(per_second("decode", e.vllm_decode.tokens_per_second_empty, ""));
  if (e.vllm_prefill_tokens_per_second > 0)
    a.limits.push_back(per_second("prompt", e.vllm_prefill_tokens_per_second, e.prefill_rate));
  a.printer = "vLLM";
  a.printed = vllm_log_lines(m, request.vllm);
  return a;
}

}  // namespace vramfit
