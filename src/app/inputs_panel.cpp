#include "inputs_panel.hpp"

#include <imgui.h>
#include <imgui_internal.h>
#include <misc/cpp/imgui_stdlib.h>

#include "active_fit.hpp"
#include "catalog/catalog.hpp"
#include "core/workload.hpp"
#include "engine_view.hpp"
#include "io/network_json.hpp"
#include "io/request_json.hpp"
#include "io/url_hash.hpp"
#include "report/estimate.hpp"
#include "ui_language.hpp"
#include "widgets.hpp"

namespace vramfit {

const char* const kExampleNetwork = R"({
  "name": "article-003-mlp",
  "input": [2048],
  "dtype": "f32",
  "layers": [
    {"name": "gat", "type": "linear", "out": 4096, "bias": false},
    {"name": "g", "type": "relu"},
    {"name": "up", "type": "linear", "out": 4096, "bias": false},
    {"type": "relu"},
    {"type": "add", "from": "g"},
    {"type": "relu"},
    {"name": "down", "type": "linear", "out": 2048, "bias": false},
    {"type": "relu"},
    {"type": "add", "from": "input"},
    {"name": "out", "type": "linear", "out": 10, "bias": false},
    {"type": "softmax"}
  ]
})";

namespace {
// A layer list through the request's own reader (io/network_json).
Result<Network> read_network(const json& j) {
  if (!j.is_object()) return make_error("network.bad_json", "network", "network: must be a JSON object");
  Network net;
  if (auto e = network_from_json_at(j, "network", net)) return *e;
  return net;
}
Network example_network() { return *read_network(parse_json(kExampleNetwork)); }
}  // namespace

InputsPanel::InputsPanel() : network_text_(kExampleNetwork) {}

void InputsPanel::show_request(const Request& request) {
  if (request.has_network) network_text_ = network_to_json(request.network).dump(2);
}

InputsPanel::Outcome InputsPanel::draw(Request& request, Platform& platform, bool focus_first) {
  Outcome outcome;
  // Every input leaves room on its right for its label and "(?)".
  ImGui::PushItemWidth(-em(7.5f));
  bool changed = draw_mode(request, focus_first);
  ImGui::Separator();
  switch (app_mode(request)) {
    case AppMode::inference: changed |= draw_inference(request, platform, outcome); break;
    case AppMode::training: changed |= draw_training(request); break;
    case AppMode::layer_list: changed |= draw_network(request); break;
  }
  changed |= draw_gpu(request);
  ImGui::PopItemWidth();
  outcome.changed = changed;
  return outcome;
}

bool InputsPanel::draw_mode(Request& request, bool focus_first) {
  const AppMode before = app_mode(request);
  int mode = static_cast<int>(before);
  ItemRow row;
  row.place("Inference", RowItem::radio);
  ImGui::RadioButton("Inference", &mode, static_cast<int>(AppMode::inference));
  if (focus_first) {  // keyboard users see where they are from the start
    ImGui::SetFocusID(ImGui::GetItemID(), ImGui::GetCurrentWindow());
    GImGui->NavDisableHighlight = false;
  }
  row.place("Training", RowItem::radio);
  ImGui::RadioButton("Training", &mode, static_cast<int>(AppMode::training));
  row.place("Layer list", RowItem::radio);
  ImGui::RadioButton("Layer list", &mode, static_cast<int>(AppMode::layer_list));
  const AppMode chosen = static_cast<AppMode>(mode);
  if (chosen == before) return false;
  set_app_mode(request, chosen);
  if (chosen == AppMode::layer_list) {
    auto net = read_network(parse_json(network_text_));
    if (net) {
      request.network = *net;
    } else {
      request.network = example_network();
      network_text_ = kExampleNetwork;
    }
  }
  return true;
}

namespace {

// What each picker shows closed: the embed's row sizes each one to its text.
std::string model_preview(const Request& request) {
  if (request.has_custom_model) return request.custom_model_name.empty() ? "Custom" : request.custom_model_name;
  const ModelPreset* p = builtin_catalog().find_model(request.model_preset);
  return p ? p->name : request.model_preset;
}

std::string weights_preview(const Request& request) {
  const WeightFormat* f = builtin_catalog().formats.find_format(request.weight_format);
  return f ? f->label : request.weight_format;
}

// Memory as the card is sold: "24 GB" cards hold 24 GiB, so the list shows GiB, not 25.8 GB.
std::string gpu_entry(const Gpu& g) { return g.name + "  (" + format_bytes(g.total_bytes, DisplayUnits::gib, 1) + ")"; }

std::string gpu_preview(const Request& request, bool custom) {
  const Gpu* gpu = builtin_catalog().find_gpu(request.gpu_id);
  return custom ? tr("Custom GPU") : (gpu ? gpu_entry(*gpu) : request.gpu_id);
}

}  // namespace

bool InputsPanel::draw_model_picker(Request& request) {
  const Catalog& catalog = builtin_catalog();
  const std::string preview = model_preview(request);
  FilteredCombo models;
  bool picked = false;
  if (models.begin("Model", preview, model_filter_)) {
    for (const ModelPreset& m : catalog.models) {
      if (models.item(m.name, m.id, !request.has_custom_model && m.id == request.model_preset)) {
        request.model_preset = m.id;
        request.has_custom_model = false;
        // A preset has no stored layout and was not read from the Hub (the embed's row and the panel alike).
        request.has_stored_weights = false;
        if (request.weight_format == "as_stored") request.weight_format = "bf16";
        request.custom_model_hub.clear();
        picked = true;
      }
    }
    models.end();
  }
  return picked;
}

bool InputsPanel::draw_inference(Request& request, Platform& platform, Outcome& outcome) {
  bool changed = false;
  section("Model");
  changed |= draw_model_picker(request);
  hub_.draw(platform);
  if (ImGui::CollapsingHeader("Paste a config.json")) {
    ImGui::InputTextMultiline("##config", &config_text_, ImVec2(-1, ImGui::GetTextLineHeight() * 8));
    if (ImGui::Button("Use this config")) {
      json fragment = read_config_fragment_json(config_text_, "pasted config.json");
      config_status_ = fragment.contains("error") ? fragment["error"].value("message", std::string()) : "";
      if (!fragment.contains("error")) {
        // One line of JSON reads better as lines (Dear ImGui's text box does not wrap).
        const json parsed = parse_json(config_text_);
        if (!parsed.is_discarded() && config_text_.find('\n') == std::string::npos) config_text_ = parsed.dump(2);
        outcome.pasted_file = std::move(fragment);
      }
    }
    if (!config_status_.empty()) text_wrapped_at_spaces(config_status_);
    text_wrapped_at_spaces_disabled("Or drop a .gguf, .safetensors or config.json on the window.");
  }
  section("Weights and cache");
  changed |= draw_weights_picker(request);
  // The engine: vramfit's engine-neutral model, or an engine's own allocation with its own
  // settings (app/engine_view).
  section("Engine");
  int engine = static_cast<int>(request.engine);
  const Choice engines[] = {{static_cast<int>(Engine::generic), "vramfit's own model"},
                            {static_cast<int>(Engine::llamacpp), "llama.cpp (Ollama, LM Studio)"},
                            {static_cast<int>(Engine::vllm), "vLLM"},
                            {static_cast<int>(Engine::transformers), "Transformers"}};
  if (choice_combo("Engine", engine, engines, 4)) {
    // The workload set under the engine left (context, sequences) carries into the one picked.
    const Workload workload = workload_of(request);
    request.engine = static_cast<Engine>(engine);
    carry_workload(request, workload);
    changed = true;
  }
  if (request.engine != Engine::generic) {
    changed |= engine_inputs_.draw(request);
    return changed;
  }
  static const char* const kv_types[] = {"f16", "bf16", "f32", "fp8", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"};
  if (ImGui::BeginCombo("KV cache", request.kv_cache_dtype.c_str())) {
    for (const char* t : kv_types) {
      if (ImGui::Selectable(t, request.kv_cache_dtype == t)) {
        request.kv_cache_dtype = t;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  section("Workload");
  InferenceSettings& s = request.settings;
  changed |= number_field("Context", s.context_tokens, 1, kMaxContextTokens, Steps::doubling);
  help_marker("Tokens per sequence held in the KV cache (prompt + output).");
  changed |= number_field("Sequences", s.concurrent_sequences, 1, 1024, Steps::doubling);
  help_marker("Sequences served at once; each has its own KV cache.");
  section("Overhead");
  int overhead = static_cast<int>(s.overhead);
  ItemRow row;
  row.place("Runtime + buffers", RowItem::radio);
  if (ImGui::RadioButton("Runtime + buffers", &overhead, static_cast<int>(OverheadModel::engine))) {
    s.overhead = OverheadModel::engine;
    changed = true;
  }
  row.place("Articles (margin only)", RowItem::radio);
  if (ImGui::RadioButton("Articles (margin only)", &overhead, static_cast<int>(OverheadModel::articles))) {
    s.overhead = OverheadModel::articles;
    changed = true;
  }
  changed |= ImGui::Checkbox("Flash attention", &s.flash_attention);
  changed |= margin_input(s.margin_fraction);
  help_marker("Safety margin on top of everything: the articles advise 10-30%.");
  return changed;
}

bool InputsPanel::draw_training(Request& request) {
  section("Model");
  bool changed = draw_model_picker(request);
  TrainingSettings& t = request.training;
  section("Method");
  changed |= enum_combo("Method", t.method, {{FineTuning::full, "Full fine-tuning"}, {FineTuning::lora, "LoRA"}, {FineTuning::qlora, "QLoRA (NF4 base)"}});
  if (t.method != FineTuning::full) {
    changed |= number_field("LoRA rank", t.lora_rank, 1, 1024, Steps::doubling);
    static const char* const names[] = {"q", "k", "v", "o", "gate", "up", "down"};
    ItemRow row;
    for (int i = 0; i < 7; ++i) {
      bool on = (t.lora_targets & (1u << i)) != 0;
      row.place(names[i], RowItem::radio);
      if (ImGui::Checkbox(names[i], &on)) {
        const uint32_t next = on ? (t.lora_targets | (1u << i)) : (t.lora_targets & ~(1u << i));
        if (next != 0) {  // at least one target stays
          t.lora_targets = next;
          changed = true;
        }
      }
    }
    if (t.method == FineTuning::qlora) changed |= ImGui::Checkbox("Double quantization", &t.qlora_double_quant);
  }
  changed |= enum_combo("Precision", t.recipe, {{PrecisionRecipe::mixed_bf16, "Mixed bf16 (fp32 master)"}, {PrecisionRecipe::mixed_fp16, "Mixed fp16 (ZeRO paper)"},
                                                {PrecisionRecipe::amp_bf16, "torch.autocast bf16"}, {PrecisionRecipe::amp_fp16, "torch.autocast fp16"},
                                                {PrecisionRecipe::bf16, "Pure bf16"}, {PrecisionRecipe::fp32, "fp32"}});
  changed |= enum_combo("Optimizer", t.optimizer, {{Optimizer::adamw, "AdamW"}, {Optimizer::adam, "Adam"}, {Optimizer::adam_8bit, "8-bit Adam"},
                                                   {Optimizer::adafactor, "Adafactor"}, {Optimizer::lion, "Lion"},
                                                   {Optimizer::sgd_momentum, "SGD + momentum"}, {Optimizer::sgd, "SGD"}});
  changed |= ImGui::Checkbox("foreach temporary", &t.foreach_transient);
  help_marker("torch.optim's foreach Adam holds one more state-sized tensor during step().");
  changed |= enum_combo("Sharding", t.sharding, {{Sharding::none, "None (DDP)"}, {Sharding::zero1, "ZeRO-1"}, {Sharding::zero2, "ZeRO-2"},
                                                 {Sharding::zero3, "ZeRO-3"}, {Sharding::fsdp, "FSDP full shard"}});
  section("Workload");
  changed |= number_field("Micro-batch", t.micro_batch, 1, kMaxMicroBatch, Steps::doubling);
  help_marker("Sequences per GPU per forward pass. Gradient accumulation adds no memory: it sums into the same gradients.");
  changed |= number_field("Sequence", t.sequence_length, 1, kMaxTrainingSequence, Steps::doubling);
  ItemRow row;
  row.place("Flash attention", RowItem::radio);
  changed |= ImGui::Checkbox("Flash attention", &t.flash_attention);
  row.place("Dropout", RowItem::radio);
  changed |= ImGui::Checkbox("Dropout", &t.dropout);
  changed |= enum_combo("Recompute", t.recompute, {{Recompute::none, "None"}, {Recompute::selective, "Selective (attention)"}, {Recompute::full, "Full (checkpointing)"}});
  changed |= margin_input(t.margin_fraction);
  return changed;
}

bool InputsPanel::draw_network(Request& request) {
  NetworkSettings& ns = request.network_settings;
  bool changed = false;
  section("Network (JSON)");
  ImGui::InputTextMultiline("##network", &network_text_, ImVec2(-1, ImGui::GetTextLineHeight() * 14));
  ItemRow row;
  row.place("Apply", RowItem::button);
  if (ImGui::Button("Apply")) {
    auto parsed = parse_json(network_text_);
    auto net = parsed.is_discarded() ? Result<Network>(make_error("network.bad_json", "network", "not valid JSON"))
                                     : read_network(parsed);
    network_status_ = net ? "" : net.error().message;
    if (net) {
      request.network = *net;
      changed = true;
    }
  }
  row.place("Article 003 example", RowItem::button);
  if (ImGui::Button("Article 003 example")) {
    network_text_ = kExampleNetwork;
    request.network = example_network();
    ns.batch = 128;
    network_status_.clear();
    changed = true;
  }
  if (!network_status_.empty()) ImGui::TextWrapped("%s", network_status_.c_str());
  section("Training");
  changed |= number_field("Batch", ns.batch, 1, kMaxNetworkBatch, Steps::doubling);
  int rule = static_cast<int>(ns.rule);
  ItemRow rule_row;
  rule_row.place("Autograd", RowItem::radio);
  if (ImGui::RadioButton("Autograd", &rule, static_cast<int>(ActivationRule::autograd))) {
    ns.rule = ActivationRule::autograd;
    changed = true;
  }
  rule_row.place("Layer outputs", RowItem::radio);
  if (ImGui::RadioButton("Layer outputs", &rule, static_cast<int>(ActivationRule::layer_outputs))) {
    ns.rule = ActivationRule::layer_outputs;
    changed = true;
  }
  help_marker("Autograd: what PyTorch saves for backward (checked against PyTorch). Layer outputs: the articles' rule, each layer's output once.");
  if (enum_combo("Optimizer", ns.optimizer, {{Optimizer::adamw, "AdamW"}, {Optimizer::adam, "Adam"}, {Optimizer::sgd_momentum, "SGD + momentum"},
                                             {Optimizer::sgd, "SGD"}, {Optimizer::adam_8bit, "8-bit Adam"}, {Optimizer::adafactor, "Adafactor"},
                                             {Optimizer::lion, "Lion"}})) {
    request.training.optimizer = ns.optimizer;
    changed = true;
  }
  changed |= margin_input(ns.margin_fraction);
  return changed;
}

bool InputsPanel::draw_weights_picker(Request& request) {
  bool changed = false;
  if (request.has_stored_weights) {
    text_wrapped_at_spaces(tr("Weights: as stored in ") + request.stored_weights.file);
    if (ImGui::SmallButton("Use a format instead")) {
      request.has_stored_weights = false;
      request.weight_format = "bf16";
      changed = true;
    }
    return changed;
  }
  const Catalog& catalog = builtin_catalog();
  FilteredCombo formats;
  if (formats.begin("Weights", weights_preview(request), format_filter_)) {
    for (const WeightFormat& w : catalog.formats.formats) {
      if (formats.item(w.label, w.id, w.id == request.weight_format)) {
        request.weight_format = w.id;
        // A GGUF format is answered by llama.cpp, the engine that runs GGUF files, where no
        // engine was chosen (an engine picked by name stays).
        if (w.id.rfind("gguf-", 0) == 0 && request.engine == Engine::generic) {
          const Workload workload = workload_of(request);
          request.engine = Engine::llamacpp;
          carry_workload(request, workload);
        }
        changed = true;
      }
    }
    formats.end();
  }
  return changed;
}

bool InputsPanel::draw_compact(Request& request, Platform& platform) {
  // Model, weights, context and GPU in one row, each as wide as its value needs (no "GGUF Q4_"
  // or "32,76"), wrapping to the next line where the next one does not fit (a narrow embed).
  if (request.mode != Mode::inference) return false;  // a training link keeps its settings
  const ImGuiStyle& style = ImGui::GetStyle();
  const float row = ImGui::GetContentRegionAvail().x;
  const float least = std::max((row - em(1.5f)) / 4.0f, em(9.0f)) * 0.55f;
  const float arrow = ImGui::GetFrameHeight();
  auto combo_width = [&](const std::string& preview) {
    return ImGui::CalcTextSize(preview.c_str()).x + 2.0f * style.FramePadding.x + arrow + style.ItemInnerSpacing.x;
  };
  // The number field: its longest value, then its -, + and <> buttons.
  const float context_width = ImGui::CalcTextSize(with_thousands(kMaxContextTokens).c_str()).x + 2.0f * style.FramePadding.x +
                              2.0f * (arrow + style.ItemInnerSpacing.x) + ImGui::CalcTextSize("<>").x +
                              2.0f * style.FramePadding.x + 2.0f * style.ItemInnerSpacing.x + em(0.5f);
  auto next = [&](bool first, float wanted, const char* label) {
    const float label_width = ImGui::CalcTextSize(label).x + style.ItemInnerSpacing.x;
    const float width = std::min(std::max(wanted, least), row - label_width);
    if (!first) {
      ImGui::SameLine();
      if (ImGui::GetCursorPosX() + width + label_width > ImGui::GetWindowContentRegionMax().x) ImGui::NewLine();
    }
    ImGui::SetNextItemWidth(width);
  };
  bool changed = false;
  next(true, combo_width(model_preview(request)), "Model");
  changed |= draw_model_picker(request);
  if (!request.has_stored_weights) next(false, combo_width(weights_preview(request)), "Weights");
  changed |= draw_weights_picker(request);
  next(false, context_width, "Context");
  changed |= number_field("Context", request.settings.context_tokens, 1, kMaxContextTokens, Steps::doubling);
  next(false, combo_width(gpu_preview(request, request.gpu_capacity_bytes > 0 || custom_gpu_)), "GPU");
  changed |= draw_gpu_picker(request);
  hub_.draw(platform);  // a model by its Hub id, in an embed too (read into the link, which the embed keeps)
  return changed;
}

bool InputsPanel::draw_gpu(Request& request) {
  section("GPU");
  bool changed = draw_gpu_picker(request);
  // Where the engine's own flags or the list of GPUs say how many, the count says so, not a field
  // of its own that could disagree ("GPU count 1" under "-tp 2").
  const bool engine_counts = request.mode == Mode::inference && request.engine != Engine::generic &&
                             (request.engine == Engine::vllm || !request.gpu_ids.empty());
  if (!request.has_network && engine_counts) {
    const int64_t count = !request.gpu_ids.empty() ? static_cast<int64_t>(request.gpu_ids.size())
                                                   : request.vllm.tensor_parallel_size * request.vllm.pipeline_parallel_size;
    text_wrapped_at_spaces_disabled(tr("GPU count: ") + std::to_string(count) +
                                    tr(!request.gpu_ids.empty() ? " (the GPUs listed above)" : " (-tp x -pp)"));
  } else if (!request.has_network) {
    if (number_field("GPU count", request.settings.gpu_count, 1, kMaxGpuCount, Steps::by_one)) {
      request.training.gpu_count = request.settings.gpu_count;
      changed = true;
    }
    help_marker(request.mode == Mode::inference ? "Tensor parallel: weights and KV heads split over the GPUs."
                                                : "Data-parallel GPUs: ZeRO/FSDP shard over them.");
  }
  return changed;
}

bool InputsPanel::draw_gpu_picker(Request& request) {
  bool changed = false;
  const Catalog& catalog = builtin_catalog();
  const bool custom = request.gpu_capacity_bytes > 0 || custom_gpu_;
  FilteredCombo gpus;
  if (gpus.begin("GPU", gpu_preview(request, custom), gpu_filter_)) {
    for (const Gpu& g : catalog.gpus) {
      if (gpus.item(gpu_entry(g), g.id, !custom && g.id == request.gpu_id)) {
        request.gpu_id = g.id;
        request.gpu_capacity_bytes = 0;
        custom_gpu_ = false;
        changed = true;
      }
    }
    if (gpus.item("Custom GPU (its memory in GiB)", "custom", custom)) custom_gpu_ = true;
    gpus.end();
  }
  if (custom) {
    const Gpu* gpu = catalog.find_gpu(request.gpu_id);
    int64_t capacity = request.gpu_capacity_bytes > 0 ? request.gpu_capacity_bytes : (gpu ? gpu->total_bytes : 24 * kGiB);
    if (memory_field("Memory (GiB)", capacity, kMiB, kGiB * 1024 * 1024) || request.gpu_capacity_bytes <= 0) {
      request.gpu_capacity_bytes = capacity;
      changed = true;
    }
    help_marker("A GPU that is not in the catalog: its memory in GiB, all of it usable.");
  }
  return changed;
}

}  // namespace vramfit
