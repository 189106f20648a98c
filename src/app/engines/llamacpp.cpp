// llama.cpp in the app: its flags as fields (-c, -ngl, -np, -ub, -fa, -ctk/-ctv, -sm, --n-cpu-moe,
// -nkvo, --lora, --mmproj, the draft's) and its answer (a bar per GPU and the host, what fits, its lines).
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

bool EngineInputs::draw_llamacpp(Request& request) {
  LlamaCppSettings& l = request.llamacpp;
  bool changed = number_field("-c", l.ctx_size, 0, kMaxContextTokens, Steps::doubling);
  tip("--ctx-size: KV cells for all sequences together; 0: the model's trained context.");
  changed |= number_field("-ngl", l.n_gpu_layers, -1, 1000, Steps::by_one);
  tip("--n-gpu-layers: repeating layers on the GPUs, then the output layer; -1: all (the default).");
  changed |= number_field("-np", l.parallel, 1, 256, Steps::doubling);
  tip("--parallel: sequences sharing the KV cache.");
  changed |= number_field("-ub", l.ubatch_size, 1, 65536, Steps::doubling);
  tip("--ubatch-size: tokens of one graph (the compute buffers grow with it).");
  changed |= enum_combo("-fa", l.flash_attn,
                        {{LlamaFlashAttn::automatic, "auto"}, {LlamaFlashAttn::on, "on"}, {LlamaFlashAttn::off, "off"}});
  tip("--flash-attn on|off|auto");
  changed |= cache_type_combo("-ctk", l.cache_type_k);
  tip("--cache-type-k: the K cache's type.");
  changed |= cache_type_combo("-ctv", l.cache_type_v);
  tip("--cache-type-v: the V cache's type (quantized needs flash attention).");
  changed |= enum_combo("-sm", l.split_mode,
                        {{LlamaSplitMode::layer, "layer"}, {LlamaSplitMode::row, "row"}, {LlamaSplitMode::none, "none"}});
  tip("--split-mode: how the GPUs share the model.");
  if (builtin_catalog().find_model(request.model_preset) == nullptr || request.has_custom_model ||
      builtin_catalog().find_model(request.model_preset)->spec.is_moe()) {
    changed |= number_field("--n-cpu-moe", l.n_cpu_moe, 0, 1000, Steps::by_one);
    tip("The experts of the first N layers stay in host memory.");
    changed |= ImGui::Checkbox("--cpu-moe", &l.cpu_moe);
  }
  changed |= ImGui::Checkbox("-nkvo", &l.no_kv_offload);
  tip("--no-kv-offload: the KV cache in host memory.");
  // --lora files, added by opening an adapter GGUF (Open file... or a drop).
  for (size_t i = 0; i < l.lora.size(); ++i) {
    ImGui::PushID(static_cast<int>(i));
    text_wrapped_at_spaces("--lora " + l.lora[i].file + tr(" (rank ") + std::to_string(l.lora[i].rank) + ")");
    if (ImGui::SmallButton("Remove adapter")) {
      l.lora.erase(l.lora.begin() + static_cast<std::ptrdiff_t>(i));
      changed = true;
    }
    ImGui::PopID();
  }
  if (l.has_mmproj) {  // --mmproj, added by opening a projector GGUF
    text_wrapped_at_spaces("--mmproj " + l.mmproj.file + " (" + l.mmproj.projector + ")");
    changed |= ImGui::Checkbox("--no-mmproj-offload", &l.no_mmproj_offload);
    tip("The projector on the CPU instead of the first GPU.");
    if (ImGui::SmallButton("Remove projector")) {
      l.has_mmproj = false;
      l.no_mmproj_offload = false;
      changed = true;
    }
  }
  changed |= draw_draft(request);
  // Which llama.cpp (not a flag): its build and program decide what the compute buffer reserves.
  changed |= number_field("build", l.build, 0, 1000000, Steps::by_one);
  tip("llama.cpp's build number, as its log prints it (build: 9460 ...); 0: the newest. From b9460 "
      "llama-server and llama-cli reserve the logits of one output per sequence, not of every token of -ub.");
  text_wrapped_at_spaces(tr("program: ") + l.tool);
  return changed;
}

EngineAnswer llamacpp_answer(const Request& request, const EngineReport& e) {
  const LlamaCppMemory& m = e.llamacpp;
  const LlamaCppFit& f = e.llamacpp_fit;
  EngineAnswer a;
  a.fits = f.fits;
  a.verdict = std::string(f.fits ? "llama.cpp: STARTS" : "llama.cpp: DOES NOT START") + " on " + devices_text(m.gpus.size()) +
              " and the host";
  a.facts.push_back("offloaded " + std::to_string(m.offloaded_layers) + "/" + std::to_string(m.layer_slots) + " layers to GPU; " +
                    with_thousands(m.n_ctx) + " KV cells; flash attention " + (m.flash_attention ? "on" : "off"));
  // With a draft model (-md) its buffers are one part of each device's bar.
  const LlamaCppMemory& d = e.llamacpp_draft;
  const bool draft = !e.draft_name.empty();
  if (draft) {
    a.facts.push_back("draft model (-md): " + e.draft_name + ", " + request.draft->weight_format + "; offloaded " +
                      std::to_string(d.offloaded_layers) + "/" + std::to_string(d.layer_slots) + " layers; " +
                      with_thousands(d.n_ctx) + " KV cells");
  }
  a.legend = {
      {"model", 0, kWeights}, {m.rs_cells > 0 ? "KV, RS" : "KV", 0, kKv}, {"compute", 0, kWork}, {"output", 0, kMore},
      {"CUDA context", 0, kOther}, {"margin", 0, kMargin}};
  if (draft) a.legend.push_back({"draft model", 0, kDraft});
  if (!request.llamacpp.lora.empty()) a.legend.push_back({"LoRA", 0, kLora});
  if (request.llamacpp.has_mmproj) a.legend.push_back({"mmproj", 0, kMmproj});
  for (size_t g = 0; g < m.gpus.size(); ++g) {
    const LlamaCppBuffers& b = m.gpus[g];
    const int64_t draft_bytes = draft ? d.gpus[g].total() : 0;
    const int64_t runtime = std::max<int64_t>(0, f.gpu_use[g] - b.total() - draft_bytes);
    a.devices.push_back({b.device + " " + e.devices[g].name + ", " + std::to_string(b.layers) + tr(" layers"),
                         {{"model", b.model, kWeights},
                          {"LoRA", b.lora, kLora},
                          {"mmproj", b.mmproj, kMmproj},
                          {"KV", b.kv, kKv},
                          {"RS", b.rs, kKv},
                          {"compute", b.compute, kWork},
                          {"output", b.output, kMore},
                          {"draft model", draft_bytes, kDraft},
                          {"CUDA context", runtime, kOther}},
                         f.gpu_capacity[g],
                         f.gpu_starts(g),
                         f.gpu_margin[g]});
  }
  const LlamaCppBuffers& h = m.host;
  a.devices.push_back({"host (CPU_Mapped, CPU KV, host compute)",
                       {{"model", h.model, kWeights},
                        {"LoRA", h.lora, kLora},
                        {"mmproj", h.mmproj, kMmproj},
                        {"KV", h.kv, kKv},
                        {"RS", h.rs, kKv},
                        {"compute", h.compute, kWork},
                        {"output", h.output, kMore},
                        {"draft model", draft ? d.host.total() : 0, kDraft}},
                       request.host_memory_bytes,
                       request.host_memory_bytes <= 0 || f.host_need <= request.host_memory_bytes});
  a.limits.push_back("the most -ngl that starts: " + std::to_string(f.max_gpu_layers) +
                     "; the longest -c: " + with_thousands(f.max_ctx_size));
  if (f.max_gpu_layers_with_margin != f.max_gpu_layers || f.max_ctx_size_with_margin != f.max_ctx_size) {
    a.limits.push_back("with the margin kept: -ngl " + std::to_string(f.max_gpu_layers_with_margin) + ", -c " +
                       with_thousands(f.max_ctx_size_with_margin));
  }
  if (e.llamacpp_decode.tokens_per_second_empty > 0) {
    a.limits.push_back(per_second("decode", e.llamacpp_decode.tokens_per_second_empty, ""));
  }
  if (e.llamacpp_prefill.tokens_per_second > 0) {
    a.limits.push_back(per_second("prompt", e.llamacpp_prefill.tokens_per_second, e.prefill_rate));
  }
  a.printer = "llama.cpp";
  a.printed = llamacpp_log_lines(m);
  if (draft) {
    a.printed.push_back("and for the draft model:");
    for (const std::string& line : llamacpp_log_lines(d)) a.printed.push_back(line);
  }
  return a;
}

}  // namespace vramfit
