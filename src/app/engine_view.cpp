#include "engine_view.hpp"

#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include <algorithm>
#include <cstdio>

#include "catalog/catalog.hpp"
#include "core/units.hpp"
#include "io/request_json.hpp"
#include "report/command_request.hpp"
#include "report/engines.hpp"
#include "ui_language.hpp"
#include "verdict.hpp"
#include "widgets.hpp"

namespace vramfit {

namespace {


// The inputs' own text: a pasted command and what reading it said.
struct CommandBox {
  std::string text, status;
};
CommandBox g_command;
std::string g_gpu_filter, g_draft_filter;

// The long flag name and its meaning, on hovering the last item (the field's label): a "(?)"
// marker after a flag's name would not fit beside the narrowest inputs panel.
void tip(const char* text) {
  if (tooltip_wanted()) wrapped_tooltip(text);
}

const char* const kCacheTypes[] = {"f16", "bf16", "f32", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"};

bool cache_type_combo(const char* label, std::string& type) {
  bool changed = false;
  if (ImGui::BeginCombo(label, type.c_str())) {
    for (const char* t : kCacheTypes) {
      if (ImGui::Selectable(t, type == t)) {
        type = t;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

// A release typed as text ("0.19.0", "4.46.2"), read when the edit settles; bad text keeps the old one.
template <class Settings>
bool version_field(const char* label, Settings& settings, bool (*parse)(const std::string&, Settings&),
                   std::string (*text)(const Settings&)) {
  static std::string editing;
  static ImGuiID editing_id = 0;
  const ImGuiID id = ImGui::GetID(label);
  if (editing_id != id) editing = text(settings);
  ImGui::InputText(label, &editing);
  if (ImGui::IsItemActive()) editing_id = id;
  if (!ImGui::IsItemDeactivatedAfterEdit()) {
    if (!ImGui::IsItemActive() && editing_id == id) editing_id = 0;
    return false;
  }
  editing_id = 0;
  Settings next = settings;
  if (!parse(editing, next)) return false;
  settings = next;
  return true;
}

// Speculative decoding's draft model (Request::draft): a preset in a weight format of its own
// (llama.cpp: a GGUF format, as -md loads), or none.
bool draw_draft_inputs(Request& request) {
  const Catalog& catalog = builtin_catalog();
  const Request* draft = request.draft.get();
  const ModelPreset* current = draft && !draft->has_custom_model ? catalog.find_model(draft->model_preset) : nullptr;
  const std::string preview = !draft ? "none" : current ? current->name : draft->custom_model_name;
  bool changed = false;
  FilteredCombo combo;
  const bool gguf_only = request.engine == Engine::llamacpp;
  if (combo.begin("Draft model", preview, g_draft_filter)) {
    if (combo.item("none", "none", !draft)) {
      request.draft.reset();
      changed = true;
    }
    for (const ModelPreset& m : catalog.models) {
      if (!combo.item(m.name, m.id, current == &m)) continue;
      auto next = std::make_shared<Request>(draft ? *draft : Request{});
      next->has_custom_model = false;
      next->has_stored_weights = false;
      next->model_preset = m.id;
      if (gguf_only && next->weight_format.rfind("gguf-", 0) != 0) next->weight_format = "gguf-q8_0";
      request.draft = next;
      changed = true;
    }
    combo.end();
  }
  tip(gguf_only ? "-md / --model-draft: a small model of the same vocabulary drafts tokens the model verifies."
                : "--speculative-config's model: a small model of the same vocabulary drafts tokens the model verifies.");
  if (!gguf_only && changed) {  // vLLM: the draft_model method comes and goes with the draft model
    VllmSettings& v = request.vllm;
    v.speculative_method = request.draft ? VllmSpeculativeMethod::draft_model : VllmSpeculativeMethod::none;
    v.num_speculative_tokens = request.draft ? std::max<int64_t>(v.num_speculative_tokens, 5) : 0;
  }
  if (!gguf_only && request.draft) {
    changed |= number_field("draft tokens", request.vllm.num_speculative_tokens, 1, 64, Steps::by_one);
    tip("--speculative-config's num_speculative_tokens: tokens drafted per step.");
  }
  if (!request.draft || request.draft->has_stored_weights) return changed;
  std::string format = request.draft->weight_format;
  const WeightFormat* shown = catalog.formats.find_format(format);
  if (ImGui::BeginCombo("Draft weights", shown ? shown->label.c_str() : format.c_str())) {
    for (const WeightFormat& f : catalog.formats.formats) {
      if (gguf_only != (f.id.rfind("gguf-", 0) == 0)) continue;
      if (ImGui::Selectable(f.label.c_str(), f.id == format)) format = f.id;
    }
    ImGui::EndCombo();
  }
  if (format != request.draft->weight_format) {
    auto next = std::make_shared<Request>(*request.draft);
    next->weight_format = format;
    request.draft = next;
    changed = true;
  }
  if (gguf_only) {
    LlamaCppSettings& l = request.llamacpp;
    changed |= number_field("-ngld", l.gpu_layers_draft, -1, 1000, Steps::by_one);
    tip("--gpu-layers-draft: the draft's layers on the GPUs; -1: all.");
    changed |= cache_type_combo("-ctkd", l.cache_type_k_draft);
    tip("--cache-type-k-draft: the draft's K cache type.");
    changed |= cache_type_combo("-ctvd", l.cache_type_v_draft);
    tip("--cache-type-v-draft: the draft's V cache type.");
  }
  return changed;
}

bool draw_llamacpp_inputs(Request& request) {
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
  changed |= draw_draft_inputs(request);
  return changed;
}

bool draw_vllm_inputs(Request& request) {
  VllmSettings& v = request.vllm;
  bool changed = version_field<VllmSettings>("vLLM version", v, parse_vllm_version, vllm_version_text);
  tip("`vllm --version`: its profiling changed across releases.");
  changed |= number_field("-tp", v.tensor_parallel_size, 1, kMaxGpuCount, Steps::by_one);
  tip("--tensor-parallel-size");
  changed |= number_field("-pp", v.pipeline_parallel_size, 1, kMaxGpuCount, Steps::by_one);
  tip("--pipeline-parallel-size");
  changed |= number_field("--max-model-len", v.max_model_len, 0, kMaxContextTokens, Steps::doubling);
  tip("Tokens of one request; 0: the model's.");
  int64_t percent = static_cast<int64_t>(v.gpu_memory_utilization * 100.0 + 0.5);
  if (number_field("GPU memory %", percent, 1, 100, Steps::by_one)) {
    v.gpu_memory_utilization = static_cast<double>(percent) / 100.0;
    changed = true;
  }
  tip("--gpu-memory-utilization, in percent: vLLM's share of the GPU's memory.");
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
  changed |= draw_draft_inputs(request);
  return changed;
}

bool draw_transformers_inputs(Request& request) {
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

// The GPUs in device order: gpu_count x the GPU of the GPU section, or a list, one by one.
bool draw_gpu_list(Request& request) {
  bool changed = false;
  const Catalog& catalog = builtin_catalog();
  if (request.gpu_ids.empty()) {
    // vLLM runs one rank per GPU: -tp x -pp of them; the others take the GPU count.
    const int64_t count = request.engine == Engine::vllm ? request.vllm.tensor_parallel_size * request.vllm.pipeline_parallel_size
                                                         : request.settings.gpu_count;
    text_wrapped_at_spaces_disabled(tr("GPUs: ") + std::to_string(count) + tr(" x the GPU below") +
                                    tr(request.engine == Engine::vllm ? " (-tp x -pp)." : " (GPU count)."));
    if (ImGui::SmallButton("List GPUs one by one")) {
      request.gpu_ids.assign(static_cast<size_t>(count), request.gpu_id);
      changed = true;
    }
    return changed;
  }
  auto memory = [](int64_t bytes) { return format_bytes(bytes, DisplayUnits::gib, 1); };
  for (size_t i = 0; i < request.gpu_ids.size(); ++i) {
    ImGui::PushID(static_cast<int>(i));
    const Gpu* gpu = catalog.find_gpu(request.gpu_ids[i]);
    const std::string label = "GPU " + std::to_string(i);
    FilteredCombo combo;
    if (combo.begin(label.c_str(), gpu ? gpu->name + "  (" + memory(gpu->total_bytes) + ")" : request.gpu_ids[i], g_gpu_filter)) {
      for (const Gpu& g : catalog.gpus) {
        if (combo.item(g.name + "  (" + memory(g.total_bytes) + ")", g.id, g.id == request.gpu_ids[i])) {
          request.gpu_ids[i] = g.id;
          changed = true;
        }
      }
      combo.end();
    }
    ImGui::PopID();
  }
  ItemRow row;
  row.place("Add a GPU", RowItem::button);
  if (request.gpu_ids.size() < static_cast<size_t>(kMaxGpuCount) && ImGui::SmallButton("Add a GPU")) {
    request.gpu_ids.push_back(request.gpu_ids.back());
    changed = true;
  }
  row.place("Remove the last GPU", RowItem::button);
  if (ImGui::SmallButton("Remove the last GPU")) {
    request.gpu_ids.pop_back();
    changed = true;
  }
  return changed;
}

// A pasted `llama-server ...` / `vllm serve ...` line becomes the request's engine settings.
bool draw_command_box(Request& request) {
  if (!ImGui::CollapsingHeader("Paste a command")) return false;
  ImGui::InputTextMultiline("##command", &g_command.text, ImVec2(-1, ImGui::GetTextLineHeight() * 4));
  bool changed = false;
  if (ImGui::Button("Use this command")) {
    auto command = command_request(g_command.text, builtin_catalog());
    if (!command) {
      g_command.status = command.error().message;
    } else {
      json j = request_to_json(request);
      j.merge_patch(command->fields);
      if (command->fields.contains("model") && j.contains("weights")) j["weights"].erase("stored");
      g_command.status.clear();
      for (const std::string& note : command->notes) g_command.status += note + ". ";
      auto parsed = request_from_json(j);
      if (!parsed) {
        g_command.status = parsed.error().message;
      } else {
        request = *parsed;
        changed = true;
      }
    }
  }
  if (!g_command.status.empty()) text_wrapped_at_spaces(g_command.status);
  text_wrapped_at_spaces_disabled(
      "e.g. llama-server -m x.gguf -c 32768 -ngl 99 -fa on -ctk q8_0, or vllm serve "
      "meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-model-len 32768");
  return changed;
}

}  // namespace

bool draw_engine_inputs(Request& request) {
  bool changed = false;
  switch (request.engine) {
    case Engine::llamacpp: changed |= draw_llamacpp_inputs(request); break;
    case Engine::vllm: changed |= draw_vllm_inputs(request); break;
    case Engine::transformers: changed |= draw_transformers_inputs(request); break;
    default: return false;
  }
  changed |= draw_gpu_list(request);
  // The margin: the user's reserve, shown apart from what the engine needs to start.
  changed |= margin_input(request.settings.margin_fraction);
  tip("Your reserve on top of what the engine holds: its own segment in each bar, never part of whether the engine starts.");
  if (request.engine != Engine::vllm) {
    changed |= memory_field("Host RAM (GiB)", request.host_memory_bytes, 0, kGiB * 1024 * 64);
    tip("The host's memory for what stays on the CPU (0: not checked).");
  }
  if (request.engine != Engine::transformers) changed |= draw_command_box(request);
  return changed;
}

namespace {

// --- results ---------------------------------------------------------------------------

struct Part {
  const char* name;
  int64_t bytes;
  ImU32 colour;
};
const ImU32 kWeights = IM_COL32(86, 145, 222, 255), kKv = IM_COL32(96, 190, 120, 255), kWork = IM_COL32(170, 120, 220, 255),
            kOther = IM_COL32(242, 171, 60, 255), kMore = IM_COL32(150, 150, 150, 255), kDraft = IM_COL32(64, 180, 190, 255),
            kLora = IM_COL32(220, 110, 160, 255), kMmproj = IM_COL32(200, 190, 80, 255);
const ImU32 kFits = IM_COL32(96, 190, 120, 255), kDoesNotFit = IM_COL32(235, 90, 80, 255), kTight = IM_COL32(242, 171, 60, 255);
// The safety margin's colour, as the generic breakdown draws it (verdict.cpp).
const ImU32 kMargin = IM_COL32(206, 93, 151, 255);

// One device (a GPU, a vLLM rank, the host): its parts against its capacity (0: not checked),
// whether the engine starts on it (its own allocations, no margin) and, apart, the margin the
// user keeps on top (margin_fraction x what it uses), its own segment of the bar.
struct DeviceRow {
  std::string name;
  std::vector<Part> parts;
  int64_t capacity = 0;
  bool fits = true;            // the engine starts on it
  int64_t margin = 0;          // the user's reserve on top of the parts
  std::string warning;         // it starts, but something beyond the engine's own checks may not fit
  int64_t need() const {
    int64_t sum = 0;
    for (const Part& p : parts) sum += p.bytes;
    return sum;
  }
  bool keeps_margin() const { return capacity <= 0 || need() + margin <= capacity; }
  ImU32 colour() const { return !fits ? kDoesNotFit : !warning.empty() || !keeps_margin() ? kTight : kFits; }
};

int64_t margin_of(int64_t uses, double fraction) { return std::llround(static_cast<double>(uses) * fraction); }

// An engine's answer as the app shows it and Copy Markdown and screen readers say it.
struct EngineAnswer {
  bool fits = false;
  std::string verdict;             // "llama.cpp: FITS on 2 GPUs and the host"
  std::vector<std::string> facts;  // under the verdict
  std::vector<Part> legend;        // the parts' names and colours
  std::vector<DeviceRow> devices;
  std::vector<std::string> limits;   // what fits, the speed bounds
  std::string printer;               // "llama.cpp", "vLLM", "your script"
  std::vector<std::string> printed;  // the lines it prints
  std::vector<std::string> assumptions;
};

std::string per_second(const char* what, double value, const std::string& rate) {
  char text[160];
  std::string number;
  if (value >= 1000.0) {
    number = with_thousands(static_cast<int64_t>(value));
  } else {
    std::snprintf(text, sizeof text, "%.1f", value);
    number = text;
  }
  return std::string(what) + ": at most " + number + " tokens/s (an upper bound)" + (rate.empty() ? "" : " at " + rate);
}

std::string devices_text(size_t count) { return std::to_string(count) + (count == 1 ? " GPU" : " GPUs"); }

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
                         margin_of(k.uses(), request.settings.margin_fraction),
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
         margin_of(d.peak() + request.settings.runtime_bytes, request.settings.margin_fraction)});
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

EngineAnswer engine_answer(const Request& request, const Report& report) {
  EngineAnswer a;
  if (!report.engine) return a;
  const EngineReport& e = *report.engine;
  switch (request.engine) {
    case Engine::llamacpp: a = llamacpp_answer(request, e); break;
    case Engine::vllm: a = vllm_answer(request, e); break;
    case Engine::transformers: a = transformers_answer(request, e); break;
    default: break;
  }
  a.assumptions = e.assumptions;
  return a;
}

// "24.51 GB of 25.77 GB" and what that means: the engine's start, then the margin apart.
std::string amount(const Request& request, const DeviceRow& d) {
  std::string text = format_bytes(d.need(), request.units) +
                     (d.capacity > 0 ? tr(" of ") + format_bytes(d.capacity, request.units) : std::string(tr(" (capacity not checked)")));
  if (!d.fits) return text + tr(": does not start");
  if (d.capacity <= 0) return text;
  if (!d.warning.empty()) return text + ": " + tr(d.warning.c_str());
  return text + (d.keeps_margin() ? tr(", margin kept: ") : tr(", less than the margin: ")) + format_bytes(d.margin, request.units) +
         tr(" of margin, ") + format_bytes(d.capacity - d.need(), request.units) + tr(" left");
}

// One device: its name, "need of capacity", and a bar of its parts, then its margin, against its capacity.
void device_bar(const Request& request, const DeviceRow& d) {
  align_line_end(d.name.c_str());
  ImGui::TextUnformatted(d.name.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, d.colour());
  text_wrapped_at_spaces(amount(request, d));
  ImGui::PopStyleColor();
  const double scale = static_cast<double>(std::max<int64_t>(1, std::max(d.capacity, d.need() + d.margin)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x, height = em(1.0f);
  dl->AddRectFilled(p, ImVec2(p.x + width, p.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
  float x = p.x;
  std::string hovered;
  std::vector<Part> parts = d.parts;
  if (d.capacity > 0 && d.margin > 0) parts.push_back({"margin", d.margin, kMargin});
  for (const Part& part : parts) {
    const float w = static_cast<float>(static_cast<double>(part.bytes) / scale * width);
    if (w > 0.5f) dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + w, p.y + height), part.colour);
    if (ImGui::IsMouseHoveringRect(ImVec2(x, p.y), ImVec2(x + w, p.y + height))) {
      hovered = std::string(part.name) + ": " + format_bytes(part.bytes, request.units);
    }
    x += w;
  }
  if (d.capacity > 0) {
    const float cap = p.x + static_cast<float>(static_cast<double>(d.capacity) / scale * width);
    dl->AddLine(ImVec2(cap, p.y - 2), ImVec2(cap, p.y + height + 2), ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
  }
  ImGui::Dummy(ImVec2(width, height));
  if (!hovered.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hovered.c_str());
}

void legend(const std::vector<Part>& parts) {
  ItemRow row;
  for (const Part& part : parts) legend_entry(row, part.colour, part.name);
}

// Under the verdict, apart from it: whether the margin is kept where the engine starts, on the
// GPU with the least left.
std::string headroom_line(const Request& request, const EngineAnswer& a) {
  const DeviceRow* fullest = nullptr;
  for (const DeviceRow& d : a.devices) {
    if (d.capacity <= 0 || d.margin <= 0 && d.parts.empty()) continue;
    if (!fullest || d.capacity - d.need() < fullest->capacity - fullest->need()) fullest = &d;
  }
  if (!a.fits || !fullest) return "";
  const int64_t left = fullest->capacity - fullest->need();
  if (left < 0) return tr("Headroom: none, ") + format_bytes(-left, request.units) + tr(" over on ") + fullest->name + tr(" (the warning above)");
  const int percent = static_cast<int>(request.settings.margin_fraction * 100 + 0.5);
  return std::string(tr(fullest->keeps_margin() ? "Headroom: the margin is kept on every GPU (" : "Headroom: less than the margin (")) +
         std::to_string(percent) + "%, " + tr("set under Margin (%)") + "): " + format_bytes(left, request.units) +
         tr(" left on ") + fullest->name;
}

}  // namespace

void draw_engine_results(const Request& request, const Report& report) {
  const EngineAnswer a = engine_answer(request, report);
  if (a.verdict.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, a.fits ? kFits : kDoesNotFit);
  text_wrapped_at_spaces(a.verdict);
  ImGui::PopStyleColor();
  const std::string headroom = headroom_line(request, a);
  if (!headroom.empty()) text_wrapped_at_spaces(headroom);
  text_wrapped_at_spaces_disabled(tr("The engine's own allocation answers; Engine, in the inputs, switches to another."));
  draw_warnings(report);
  for (const std::string& fact : a.facts) text_wrapped_at_spaces(fact);
  legend(a.legend);
  for (const DeviceRow& d : a.devices) device_bar(request, d);
  section("What fits");
  for (const std::string& line : a.limits) text_wrapped_at_spaces(line);
  section((std::string(tr("What ")) + tr(a.printer.c_str()) + tr(" will print")).c_str());
  for (const std::string& line : a.printed) text_wrapped_at_spaces(line);
  if (!a.assumptions.empty()) {
    section("Assumed");
    for (const std::string& line : a.assumptions) text_wrapped_at_spaces_disabled(line);
  }
}

namespace {

// The same answer as Markdown (Copy Markdown; screen readers hear it without the code block).
std::string answer_text(const Request& request, const Report& report, bool markdown) {
  const EngineAnswer a = engine_answer(request, report);
  // In Arabic the lines are translated as a whole (ui_text); the pieces composed here first.
  std::string out = (markdown ? "**" + report.model_name + "**, " : report.model_name + ", ") + ui_text(a.verdict) + "\n";
  const std::string headroom = headroom_line(request, a);
  if (!headroom.empty()) out += headroom + "\n";
  for (const std::string& warning : report.breakdown.warnings) out += "warning: " + warning + "\n";
  for (const std::string& fact : a.facts) out += fact + "\n";
  for (const DeviceRow& d : a.devices) {
    out += "- " + ui_text(d.name) + ": " + amount(request, d);
    std::string parts;
    for (const Part& p : d.parts) {
      if (p.bytes > 0) parts += std::string(parts.empty() ? "" : tr(", ")) + tr(p.name) + " " + format_bytes(p.bytes, request.units);
    }
    out += (parts.empty() ? "" : " (" + parts + ")") + "\n";
  }
  for (const std::string& line : a.limits) out += "- " + line + "\n";
  if (markdown) {
    out += "\nWhat " + a.printer + " will print:\n\n```\n";
    for (const std::string& line : a.printed) out += line + "\n";
    out += "```\n";
  }
  return out;
}

}  // namespace

std::string engine_markdown(const Request& request, const Report& report) { return answer_text(request, report, true); }
std::string engine_spoken(const Request& request, const Report& report) { return answer_text(request, report, false); }

}  // namespace vramfit
