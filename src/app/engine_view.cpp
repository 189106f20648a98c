#include "engine_view.hpp"
#include "engines/engine_answer.hpp"

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

// The long flag name and its meaning, on hovering the last item (the field's label): a "(?)"
// marker after a flag's name would not fit beside the narrowest inputs panel.
void tip(const char* text) {
  if (tooltip_wanted()) wrapped_tooltip(text);
}

namespace {
const char* const kCacheTypes[] = {"f16", "bf16", "f32", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"};
}  // namespace

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
bool EngineInputs::version_field(const char* label, Settings& settings, bool (*parse)(const std::string&, Settings&),
                                 std::string (*text)(const Settings&)) {
  const ImGuiID id = ImGui::GetID(label);
  if (version_id_ != id) version_text_ = text(settings);
  ImGui::InputText(label, &version_text_);
  if (ImGui::IsItemActive()) version_id_ = id;
  if (!ImGui::IsItemDeactivatedAfterEdit()) {
    if (!ImGui::IsItemActive() && version_id_ == id) version_id_ = 0;
    return false;
  }
  version_id_ = 0;
  Settings next = settings;
  if (!parse(version_text_, next)) return false;
  settings = next;
  return true;
}

// The engines' version fields (src/app/engines/vllm.cpp, transformers.cpp).
template bool EngineInputs::version_field<VllmSettings>(const char*, VllmSettings&, bool (*)(const std::string&, VllmSettings&),
                                                        std::string (*)(const VllmSettings&));
template bool EngineInputs::version_field<TransformersSettings>(const char*, TransformersSettings&,
                                                                bool (*)(const std::string&, TransformersSettings&),
                                                                std::string (*)(const TransformersSettings&));

// Speculative decoding's draft model (Request::draft): a preset in a weight format of its own
// (llama.cpp: a GGUF format, as -md loads), or none.
bool EngineInputs::draw_draft(Request& request) {
  const Catalog& catalog = builtin_catalog();
  const Request* draft = request.draft.get();
  const ModelPreset* current = draft && !draft->has_custom_model ? catalog.find_model(draft->model_preset) : nullptr;
  const std::string preview = !draft ? "none" : current ? current->name : draft->custom_model_name;
  bool changed = false;
  FilteredCombo combo;
  const bool gguf_only = request.engine == Engine::llamacpp;
  if (combo.begin("Draft model", preview, draft_filter_)) {
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

// The GPUs in device order: gpu_count x the GPU of the GPU section, or a list, one by one.
bool EngineInputs::draw_gpu_list(Request& request) {
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
    if (combo.begin(label.c_str(), gpu ? gpu->name + "  (" + memory(gpu->total_bytes) + ")" : request.gpu_ids[i], gpu_filter_)) {
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
bool EngineInputs::draw_command_box(Request& request) {
  if (!ImGui::CollapsingHeader("Paste a command")) return false;
  ImGui::InputTextMultiline("##command", &command_text_, ImVec2(-1, ImGui::GetTextLineHeight() * 4));
  bool changed = false;
  if (ImGui::Button("Use this command")) {
    auto command = command_request(command_text_, builtin_catalog());
    if (!command) {
      command_status_ = command.error().message;
    } else {
      json j = request_to_json(request);
      j.merge_patch(command->fields);
      if (command->fields.contains("model") && j.contains("weights")) j["weights"].erase("stored");
      command_status_.clear();
      for (const std::string& note : command->notes) command_status_ += note + ". ";
      auto parsed = request_from_json(j);
      if (!parsed) {
        command_status_ = parsed.error().message;
      } else {
        request = *parsed;
        changed = true;
      }
    }
  }
  if (!command_status_.empty()) text_wrapped_at_spaces(command_status_);
  text_wrapped_at_spaces_disabled(
      "e.g. llama-server -m x.gguf -c 32768 -ngl 99 -fa on -ctk q8_0, or vllm serve "
      "meta-llama/Llama-3.1-8B-Instruct -tp 2 --max-model-len 32768");
  return changed;
}

bool EngineInputs::draw(Request& request) {
  bool changed = false;
  switch (request.engine) {
    case Engine::llamacpp: changed |= draw_llamacpp(request); break;
    case Engine::vllm: changed |= draw_vllm(request); break;
    case Engine::transformers: changed |= draw_transformers(request); break;
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

}  // namespace vramfit
