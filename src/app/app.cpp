#include "app.hpp"

#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "catalog/catalog.hpp"
#include "grid.hpp"
#include "io/request_json.hpp"
#include "io/url_hash.hpp"

namespace vramfit {

namespace {

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

const ImU32 kSegmentColours[] = {IM_COL32(76, 139, 245, 255), IM_COL32(46, 184, 138, 255), IM_COL32(242, 171, 60, 255),
                                 IM_COL32(206, 93, 151, 255), IM_COL32(140, 110, 230, 255), IM_COL32(80, 190, 210, 255),
                                 IM_COL32(220, 120, 80, 255), IM_COL32(150, 150, 150, 255)};

std::string bytes_text(int64_t bytes, DisplayUnits units) { return format_bytes(bytes, units); }

// A combo box whose popup starts with a filter field: type to narrow a long list.
//   FilteredCombo combo;
//   if (combo.begin("GPU", preview, filter)) { for (...) if (combo.item(name, id, selected)) ...; combo.end(); }
class FilteredCombo {
 public:
  bool begin(const char* label, const std::string& preview, std::string& filter) {
    if (!ImGui::BeginCombo(label, preview.c_str(), ImGuiComboFlags_HeightLarge)) return false;
    if (ImGui::IsWindowAppearing()) { ImGui::SetKeyboardFocusHere(); filter.clear(); }
    ImGui::SetNextItemWidth(-1);
    ImGui::InputTextWithHint("##filter", "search", &filter);
    lower_filter_ = lower(filter);
    return true;
  }
  // Listed when its name or id contains the filter (any case); true when chosen.
  bool item(const std::string& name, const std::string& id, bool selected) {
    if (!lower_filter_.empty() && lower(name + " " + id).find(lower_filter_) == std::string::npos) return false;
    const bool chosen = ImGui::Selectable(name.c_str(), selected);
    if (selected) ImGui::SetItemDefaultFocus();
    return chosen;
  }
  void end() { ImGui::EndCombo(); }

 private:
  static std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), ::tolower);
    return text;
  }
  std::string lower_filter_;
};

bool int_input(const char* label, int64_t& value, int64_t min, int64_t max, bool logarithmic = true) {
  int64_t v = value;
  bool changed = ImGui::SliderScalar(label, ImGuiDataType_S64, &v, &min, &max, "%lld",
                                     logarithmic ? ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp
                                                 : ImGuiSliderFlags_AlwaysClamp);
  if (changed && v != value) { value = v; return true; }
  return false;
}

// A combo over labelled values; enum_combo() below gives it an enum's.
struct Choice {
  int value;
  const char* label;
};
bool choice_combo(const char* label, int& value, const Choice* choices, size_t count) {
  const char* preview = "";
  for (size_t i = 0; i < count; ++i) if (choices[i].value == value) preview = choices[i].label;
  bool changed = false;
  if (ImGui::BeginCombo(label, preview)) {
    for (size_t i = 0; i < count; ++i) {
      if (ImGui::Selectable(choices[i].label, choices[i].value == value)) { value = choices[i].value; changed = true; }
    }
    ImGui::EndCombo();
  }
  return changed;
}

template <class E, size_t N>
bool enum_combo(const char* label, E& value, const std::pair<E, const char*> (&options)[N]) {
  Choice choices[N];
  for (size_t i = 0; i < N; ++i) choices[i] = {static_cast<int>(options[i].first), options[i].second};
  int chosen = static_cast<int>(value);
  if (!choice_combo(label, chosen, choices, N)) return false;
  value = static_cast<E>(chosen);
  return true;
}

// A titled divider between groups of inputs.
void section(const char* title) {
  ImGui::Spacing();
  ImGui::TextDisabled("%s", title);
  ImGui::Separator();
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

double axis_position(const FitMapAxis& axis, double value) {
  if (axis.max <= axis.min) return 0.0;
  return (std::log2(value) - std::log2(static_cast<double>(axis.min))) /
         (std::log2(static_cast<double>(axis.max)) - std::log2(static_cast<double>(axis.min)));
}

int64_t axis_value_at(const FitMapAxis& axis, double t) {
  const double v = std::exp2(std::log2(static_cast<double>(axis.min)) +
                             t * (std::log2(static_cast<double>(axis.max)) - std::log2(static_cast<double>(axis.min))));
  return std::min(axis.max, std::max(axis.min, static_cast<int64_t>(std::llround(v))));
}

}  // namespace

void App::init(const std::string& hash, bool embed, FitMapRenderer* renderer) {
  embed_ = embed;
  renderer_ = renderer;
  network_text_ = kExampleNetwork;
  request_.network_settings.batch = 128;
  if (!hash.empty() && !load_hash(hash)) {
    // load_hash left the notice; the defaults stand.
  }
  if (request_.has_network) network_text_ = network_to_json(request_.network).dump(2);
  dirty_ = true;
  from_location_ = true;  // the first frame writes the canonical hash in place
}

bool App::load_hash(const std::string& hash) {
  auto decoded = decode_url_hash(hash);
  if (!decoded) {
    notice_ = "The link's configuration could not be read (" + decoded.error().message + "); showing the defaults.";
    return false;
  }
  request_ = *decoded;
  if (request_.has_network) network_text_ = network_to_json(request_.network).dump(2);
  dirty_ = true;
  from_location_ = true;
  return true;
}

void App::apply_file_fragment(const json& fragment) {
  if (fragment.contains("error")) {
    notice_ = "Could not read the file: " + fragment["error"].value("message", std::string("unknown error"));
    return;
  }
  json full = request_to_json(request_);
  full["mode"] = "inference";
  full.erase("training");
  full.erase("network");
  for (const char* key : {"model", "weights"}) {
    if (fragment.contains(key)) full[key] = fragment[key];
  }
  if (!fragment.contains("weights") && full.contains("weights")) full["weights"].erase("stored");
  if (full["weights"].value("format", "") == "as_stored" && !fragment.contains("weights")) full["weights"]["format"] = "bf16";
  auto parsed = request_from_json(full);
  if (!parsed) { notice_ = "The file gave an unusable model: " + parsed.error().message; return; }
  request_ = *parsed;
  if (fragment.contains("assumed") && fragment["assumed"].is_array() && !fragment["assumed"].empty()) {
    notice_ = "Read " + request_.custom_model_name + "; assumed: " + fragment["assumed"][0].get<std::string>();
  }
  dirty_ = true;
}

void App::set_dark(bool dark) {
  dark_ = dark;
  if (dark) ImGui::StyleColorsDark(); else ImGui::StyleColorsLight();
  ImGuiStyle& style = ImGui::GetStyle();
  style.FrameRounding = 4.0f;
  style.GrabRounding = 4.0f;
  style.WindowRounding = 0.0f;
  style.FramePadding = ImVec2(8, 4);
  style.ItemSpacing = ImVec2(8, 6);
}

void App::recompute() {
  Request r = request_;
  r.compare_gpus = true;  // the "Which GPUs fit" panel; not part of the shared link
  report_ = estimate(r, builtin_catalog());
  hash_ = encode_url_hash(request_);
  dirty_ = false;
  map_dirty_ = true;
}

void App::frame(Platform& platform) {
  if (dirty_) {
    recompute();
    platform.set_location_hash(hash_, from_location_);
    platform.announce(spoken_summary());
    from_location_ = false;
  }
  ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  ImGui::Begin("vramfit", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  draw_top_bar(platform);
  if (!notice_.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(240, 170, 60, 255));
    ImGui::TextWrapped("%s", notice_.c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine();
    if (ImGui::SmallButton("dismiss")) notice_.clear();
  }
  const float input_width = embed_ ? 0.0f : std::min(380.0f, ImGui::GetContentRegionAvail().x * 0.42f);
  if (!embed_) {
    ImGui::BeginChild("inputs", ImVec2(input_width, 0), true);
    draw_inputs();
    ImGui::EndChild();
    ImGui::SameLine();
  }
  ImGui::BeginChild("results", ImVec2(0, 0), !embed_);
  draw_results(platform);
  ImGui::EndChild();
  ImGui::End();
}

void App::draw_top_bar(Platform& platform) {
  ImGui::TextUnformatted("vramfit");
  ImGui::SameLine();
  ImGui::TextDisabled(embed_ ? "will it fit?" : "will it fit? every figure with its formula");
  ImGui::SameLine();
  if (platform.can_open_files() && !embed_) {
    if (ImGui::SmallButton("Open file...")) platform.open_files();
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip(platform.is_web() ? "A .gguf, .safetensors or config.json: only its header is read, in the page; dropping one works too"
                                          : "A .gguf, .safetensors or config.json (Ctrl+O); dropping one on the window works too");
    }
    ImGui::SameLine();
  }
  const bool gb = request_.units == DisplayUnits::gb;
  if (ImGui::SmallButton(gb ? "GB" : "GiB")) { request_.units = gb ? DisplayUnits::gib : DisplayUnits::gb; dirty_ = true; }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Units: GB = 10^9 bytes, GiB = 2^30 bytes (click to switch)");
  ImGui::SameLine();
  if (ImGui::SmallButton(dark_ ? "Light" : "Dark")) set_dark(!dark_);
  ImGui::SameLine();
  if (ImGui::SmallButton("Copy Markdown")) platform.copy_text(markdown());
  ImGui::SameLine();
  if (ImGui::SmallButton("Copy JSON") && report_) platform.copy_text(report_to_json(*report_).dump(2));
  if (platform.is_web()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Copy link")) platform.copy_text(platform.page_url() + "#" + hash_);
    ImGui::SameLine();
    if (ImGui::SmallButton(embed_ ? "Open full page" : "Embed")) {
      if (embed_) platform.copy_text(platform.page_url() + "#" + hash_);
      else ImGui::OpenPopup("embed");
    }
    if (ImGui::BeginPopup("embed")) {
      std::string snippet = embed_snippet(platform);
      ImGui::TextUnformatted("Paste this into your documentation:");
      ImGui::InputTextMultiline("##snippet", &snippet, ImVec2(520, 70), ImGuiInputTextFlags_ReadOnly);
      if (ImGui::Button("Copy snippet")) { platform.copy_text(snippet); ImGui::CloseCurrentPopup(); }
      ImGui::EndPopup();
    }
  }
}

void App::draw_inputs() {
  int mode = request_.mode == "inference" ? 0 : (request_.has_network ? 2 : 1);
  const int before = mode;
  ImGui::RadioButton("Inference", &mode, 0);
  ImGui::SameLine();
  ImGui::RadioButton("Training", &mode, 1);
  ImGui::SameLine();
  ImGui::RadioButton("Layer list", &mode, 2);
  if (mode != before) {
    request_.mode = mode == 0 ? "inference" : "training";
    request_.has_network = mode == 2;
    if (mode == 2) {
      auto parsed = json::parse(network_text_, nullptr, false);
      auto net = network_from_json(parsed, "network");
      if (net) request_.network = *net;
      else { request_.network = *network_from_json(json::parse(std::string(kExampleNetwork)), "network"); network_text_ = kExampleNetwork; }
    }
    dirty_ = true;
  }
  ImGui::Separator();
  if (mode == 0) draw_inference_inputs();
  else if (mode == 1) draw_training_inputs();
  else draw_network_inputs();

  section("GPU");
  const Catalog& catalog = builtin_catalog();
  const Gpu* gpu = catalog.find_gpu(request_.gpu_id);
  std::string preview = request_.gpu_capacity_bytes > 0 ? "Custom" : (gpu ? gpu->name : request_.gpu_id);
  FilteredCombo gpus;
  if (gpus.begin("GPU", preview, gpu_filter_)) {
    for (const Gpu& g : catalog.gpus) {
      if (gpus.item(g.name + "  (" + format_bytes(g.total_bytes, DisplayUnits::gb) + ")", g.id, g.id == request_.gpu_id)) {
        request_.gpu_id = g.id;
        request_.gpu_capacity_bytes = 0;
        dirty_ = true;
      }
    }
    gpus.end();
  }
  double custom_gib = request_.gpu_capacity_bytes > 0 ? static_cast<double>(request_.gpu_capacity_bytes) / static_cast<double>(kGiB) : 0.0;
  if (ImGui::InputDouble("Custom GiB", &custom_gib, 0, 0, "%.2f")) {
    if (custom_gib > 0.001 && custom_gib < 1048576.0) {
      request_.gpu_capacity_bytes = static_cast<int64_t>(custom_gib * static_cast<double>(kGiB));
      dirty_ = true;
    } else if (custom_gib == 0.0) {
      request_.gpu_capacity_bytes = 0;
      dirty_ = true;
    }
  }
  help_marker("A GPU that is not in the catalog: its memory in GiB (0 = use the catalog GPU).");
  if (!request_.has_network) {
    if (int_input("GPU count", request_.settings.gpu_count, 1, kMaxGpuCount, false)) {
      request_.training.gpu_count = request_.settings.gpu_count;
      dirty_ = true;
    }
    help_marker(request_.mode == "inference" ? "Tensor parallel: weights and KV heads split over the GPUs."
                                             : "Data-parallel GPUs: ZeRO/FSDP shard over them.");
  }
}

bool App::draw_model_picker() {
  const Catalog& catalog = builtin_catalog();
  section("Model");
  std::string preview = request_.has_custom_model ? (request_.custom_model_name.empty() ? "Custom" : request_.custom_model_name) : "";
  if (!request_.has_custom_model) {
    const ModelPreset* p = catalog.find_model(request_.model_preset);
    preview = p ? p->name : request_.model_preset;
  }
  FilteredCombo models;
  bool picked = false;
  if (models.begin("Model", preview, model_filter_)) {
    for (const ModelPreset& m : catalog.models) {
      if (models.item(m.name, m.id, !request_.has_custom_model && m.id == request_.model_preset)) {
        request_.model_preset = m.id;
        request_.has_custom_model = false;
        dirty_ = true;
        picked = true;
      }
    }
    models.end();
  }
  return picked;
}

void App::draw_inference_inputs() {
  const Catalog& catalog = builtin_catalog();
  if (draw_model_picker()) {
    request_.has_stored_weights = false;
    if (request_.weight_format == "as_stored") request_.weight_format = "bf16";
  }
  if (ImGui::CollapsingHeader("Paste a config.json")) {
    ImGui::InputTextMultiline("##config", &config_text_, ImVec2(-1, ImGui::GetTextLineHeight() * 8));
    if (ImGui::Button("Use this config")) {
      const auto fragment = read_config_fragment_json(config_text_, "pasted config.json");
      config_status_ = fragment.contains("error") ? fragment["error"].value("message", std::string()) : "";
      if (!fragment.contains("error")) apply_file_fragment(fragment);
    }
    if (!config_status_.empty()) ImGui::TextWrapped("%s", config_status_.c_str());
    ImGui::TextDisabled("Or drop a .gguf, .safetensors or config.json on the window.");
  }
  section("Weights and cache");
  if (request_.has_stored_weights) {
    ImGui::Text("Weights: as stored in %s", request_.stored_weights.file.c_str());
    if (ImGui::SmallButton("Use a format instead")) { request_.has_stored_weights = false; request_.weight_format = "bf16"; dirty_ = true; }
  } else {
    const WeightFormat* f = catalog.formats.find_format(request_.weight_format);
    FilteredCombo formats;
    if (formats.begin("Weights", f ? f->label : request_.weight_format, format_filter_)) {
      for (const WeightFormat& w : catalog.formats.formats) {
        if (formats.item(w.label, w.id, w.id == request_.weight_format)) { request_.weight_format = w.id; dirty_ = true; }
      }
      formats.end();
    }
  }
  static const char* const kv_types[] = {"f16", "bf16", "f32", "fp8", "q8_0", "q5_1", "q5_0", "q4_1", "q4_0", "iq4_nl"};
  if (ImGui::BeginCombo("KV cache", request_.kv_cache_dtype.c_str())) {
    for (const char* t : kv_types) {
      if (ImGui::Selectable(t, request_.kv_cache_dtype == t)) { request_.kv_cache_dtype = t; dirty_ = true; }
    }
    ImGui::EndCombo();
  }
  section("Workload");
  InferenceSettings& s = request_.settings;
  if (int_input("Context", s.context_tokens, 1, kMaxContextTokens)) dirty_ = true;
  help_marker("Tokens per sequence held in the KV cache (prompt + output).");
  if (int_input("Sequences", s.concurrent_sequences, 1, 1024)) dirty_ = true;
  help_marker("Sequences served at once; each has its own KV cache.");
  section("Overhead");
  int overhead = s.overhead == OverheadModel::engine ? 0 : 1;
  if (ImGui::RadioButton("Engine", &overhead, 0)) { s.overhead = OverheadModel::engine; dirty_ = true; }
  ImGui::SameLine();
  if (ImGui::RadioButton("Articles (margin only)", &overhead, 1)) { s.overhead = OverheadModel::articles; dirty_ = true; }
  if (ImGui::Checkbox("Flash attention", &s.flash_attention)) dirty_ = true;
  float margin = static_cast<float>(s.margin_fraction * 100.0);
  if (ImGui::SliderFloat("Margin", &margin, 0.0f, 30.0f, "%.0f%%")) { s.margin_fraction = std::round(margin) / 100.0; dirty_ = true; }
  help_marker("Safety margin on top of everything: the articles advise 10-30%.");
}

void App::draw_training_inputs() {
  draw_model_picker();
  TrainingSettings& t = request_.training;
  section("Method");
  if (enum_combo("Method", t.method, {{FineTuning::full, "Full fine-tuning"}, {FineTuning::lora, "LoRA"}, {FineTuning::qlora, "QLoRA (NF4 base)"}})) dirty_ = true;
  if (t.method != FineTuning::full) {
    if (int_input("LoRA rank", t.lora_rank, 1, 1024)) dirty_ = true;
    static const char* const names[] = {"q", "k", "v", "o", "gate", "up", "down"};
    for (int i = 0; i < 7; ++i) {
      bool on = (t.lora_targets & (1u << i)) != 0;
      if (i) ImGui::SameLine();
      if (ImGui::Checkbox(names[i], &on)) {
        const uint32_t next = on ? (t.lora_targets | (1u << i)) : (t.lora_targets & ~(1u << i));
        if (next != 0) { t.lora_targets = next; dirty_ = true; }
      }
    }
    if (t.method == FineTuning::qlora && ImGui::Checkbox("Double quantization", &t.qlora_double_quant)) dirty_ = true;
  }
  if (enum_combo("Precision", t.recipe, {{PrecisionRecipe::mixed_bf16, "Mixed bf16 (fp32 master)"}, {PrecisionRecipe::mixed_fp16, "Mixed fp16 (ZeRO paper)"},
                                         {PrecisionRecipe::amp_bf16, "torch.autocast bf16"}, {PrecisionRecipe::amp_fp16, "torch.autocast fp16"},
                                         {PrecisionRecipe::bf16, "Pure bf16"}, {PrecisionRecipe::fp32, "fp32"}})) dirty_ = true;
  if (enum_combo("Optimizer", t.optimizer, {{Optimizer::adamw, "AdamW"}, {Optimizer::adam, "Adam"}, {Optimizer::adam_8bit, "8-bit Adam"},
                                            {Optimizer::adafactor, "Adafactor"}, {Optimizer::lion, "Lion"},
                                            {Optimizer::sgd_momentum, "SGD + momentum"}, {Optimizer::sgd, "SGD"}})) dirty_ = true;
  if (ImGui::Checkbox("foreach temporary", &t.foreach_transient)) dirty_ = true;
  help_marker("torch.optim's foreach Adam holds one more state-sized tensor during step().");
  if (enum_combo("Sharding", t.sharding, {{Sharding::none, "None (DDP)"}, {Sharding::zero1, "ZeRO-1"}, {Sharding::zero2, "ZeRO-2"},
                                          {Sharding::zero3, "ZeRO-3"}, {Sharding::fsdp, "FSDP full shard"}})) dirty_ = true;
  section("Workload");
  if (int_input("Micro-batch", t.micro_batch, 1, kMaxMicroBatch)) dirty_ = true;
  help_marker("Sequences per GPU per forward pass. Gradient accumulation adds no memory: it sums into the same gradients.");
  if (int_input("Sequence", t.sequence_length, 1, kMaxTrainingSequence)) dirty_ = true;
  if (ImGui::Checkbox("Flash attention", &t.flash_attention)) dirty_ = true;
  ImGui::SameLine();
  if (ImGui::Checkbox("Dropout", &t.dropout)) dirty_ = true;
  if (enum_combo("Recompute", t.recompute, {{Recompute::none, "None"}, {Recompute::selective, "Selective (attention)"}, {Recompute::full, "Full (checkpointing)"}})) dirty_ = true;
  float margin = static_cast<float>(t.margin_fraction * 100.0);
  if (ImGui::SliderFloat("Margin", &margin, 0.0f, 30.0f, "%.0f%%")) { t.margin_fraction = std::round(margin) / 100.0; dirty_ = true; }
}

void App::draw_network_inputs() {
  NetworkSettings& ns = request_.network_settings;
  section("Network (JSON)");
  ImGui::InputTextMultiline("##network", &network_text_, ImVec2(-1, ImGui::GetTextLineHeight() * 14));
  if (ImGui::Button("Apply")) {
    auto parsed = json::parse(network_text_, nullptr, false);
    auto net = parsed.is_discarded() ? Result<Network>(make_error("network.bad_json", "network", "not valid JSON"))
                                     : network_from_json(parsed, "network");
    network_status_ = net ? "" : net.error().message;
    if (net) { request_.network = *net; dirty_ = true; }
  }
  ImGui::SameLine();
  if (ImGui::Button("Article 003 example")) {
    network_text_ = kExampleNetwork;
    request_.network = *network_from_json(json::parse(std::string(kExampleNetwork)), "network");
    ns.batch = 128;
    network_status_.clear();
    dirty_ = true;
  }
  if (!network_status_.empty()) ImGui::TextWrapped("%s", network_status_.c_str());
  section("Training");
  if (int_input("Batch", ns.batch, 1, kMaxNetworkBatch)) dirty_ = true;
  int rule = ns.rule == ActivationRule::autograd ? 0 : 1;
  if (ImGui::RadioButton("Autograd", &rule, 0)) { ns.rule = ActivationRule::autograd; dirty_ = true; }
  ImGui::SameLine();
  if (ImGui::RadioButton("Layer outputs", &rule, 1)) { ns.rule = ActivationRule::layer_outputs; dirty_ = true; }
  help_marker("Autograd: what PyTorch saves for backward (checked against PyTorch). Layer outputs: the articles' rule, each layer's output once.");
  if (enum_combo("Optimizer", ns.optimizer, {{Optimizer::adamw, "AdamW"}, {Optimizer::adam, "Adam"}, {Optimizer::sgd_momentum, "SGD + momentum"},
                                             {Optimizer::sgd, "SGD"}, {Optimizer::adam_8bit, "8-bit Adam"}, {Optimizer::adafactor, "Adafactor"},
                                             {Optimizer::lion, "Lion"}})) {
    request_.training.optimizer = ns.optimizer;
    dirty_ = true;
  }
  float margin = static_cast<float>(ns.margin_fraction * 100.0);
  if (ImGui::SliderFloat("Margin", &margin, 0.0f, 30.0f, "%.0f%%")) { ns.margin_fraction = std::round(margin) / 100.0; dirty_ = true; }
}

void App::draw_results(Platform& platform) {
  (void)platform;
  if (!report_) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(235, 90, 80, 255));
    ImGui::TextWrapped("%s", report_.error().message.c_str());
    ImGui::PopStyleColor();
    return;
  }
  const Report& r = *report_;
  const DisplayUnits u = request_.units;
  const bool training = request_.mode == "training";
  const bool fits = training ? r.training_fit.fits : r.fit.fits;
  const int64_t capacity = training ? r.training_fit.capacity_bytes : r.fit.capacity_bytes;
  const int64_t headroom = training ? r.training_fit.headroom_bytes : r.fit.headroom_bytes;
  ImGui::Text("%s", r.model_name.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("on %s", r.gpu.name.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, fits ? IM_COL32(70, 200, 120, 255) : IM_COL32(235, 90, 80, 255));
  ImGui::SetWindowFontScale(1.35f);
  ImGui::Text("%s  %s of %s", fits ? "FITS" : "DOES NOT FIT", bytes_text(r.breakdown.total_bytes, u).c_str(),
              bytes_text(capacity, u).c_str());
  ImGui::SetWindowFontScale(1.0f);
  ImGui::PopStyleColor();
  ImGui::SameLine();
  ImGui::TextDisabled(fits ? "headroom %s" : "short by %s", bytes_text(std::llabs(headroom), u).c_str());
  draw_stacked_bar();
  if (!training) {
    ImGui::Text("Longest context: %s tokens   Most sequences: %s   Fewest GPUs: %s", with_thousands(r.fit.max_context_tokens).c_str(),
                with_thousands(r.fit.max_concurrent_sequences).c_str(),
                r.fit.min_gpus > 0 ? std::to_string(r.fit.min_gpus).c_str() : "> 64");
  } else if (request_.has_network) {
    ImGui::Text("Largest batch: %s   Parameters: %s", with_thousands(r.training_fit.max_batch).c_str(),
                with_thousands(r.network.parameters).c_str());
  } else {
    ImGui::Text("Largest micro-batch: %s   Longest sequence: %s   Trainable: %s of %s", with_thousands(r.training_fit.max_batch).c_str(),
                with_thousands(r.training_fit.max_sequence_length).c_str(), with_thousands(r.training.trainable_parameters).c_str(),
                with_thousands(r.training.parameters).c_str());
  }
  if (ImGui::BeginTabBar("panels")) {
    auto flags = [this](Panel p) {
      return requested_panel_ == static_cast<int>(p) ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
    };
    if (ImGui::BeginTabItem("Breakdown", nullptr, flags(Panel::breakdown))) { panel_ = Panel::breakdown; draw_breakdown(); ImGui::EndTabItem(); }
    if (request_.has_network && ImGui::BeginTabItem("Layers", nullptr, flags(Panel::layers))) { panel_ = Panel::layers; draw_layers(); ImGui::EndTabItem(); }
    if (ImGui::BeginTabItem("Which GPUs fit", nullptr, flags(Panel::gpus))) { panel_ = Panel::gpus; draw_gpus(); ImGui::EndTabItem(); }
    if (!request_.has_network && ImGui::BeginTabItem("Fit map", nullptr, flags(Panel::fit_map))) { panel_ = Panel::fit_map; draw_fit_map(); ImGui::EndTabItem(); }
    requested_panel_ = -1;
    ImGui::EndTabBar();
  }
}

void App::draw_stacked_bar() {
  const Report& r = *report_;
  const bool training = request_.mode == "training";
  const int64_t capacity = training ? r.training_fit.capacity_bytes : r.fit.capacity_bytes;
  const double scale_bytes = static_cast<double>(std::max(capacity, r.breakdown.total_bytes));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x, height = 22.0f;
  dl->AddRectFilled(p, ImVec2(p.x + width, p.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
  float x = p.x;
  int index = 0;
  std::string hovered;
  for (const BreakdownItem& item : r.breakdown.items) {
    const float w = static_cast<float>(static_cast<double>(item.bytes) / scale_bytes * width);
    const ImU32 colour = kSegmentColours[index++ % 8];
    if (w > 0.5f) dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + w, p.y + height), colour);
    if (ImGui::IsMouseHoveringRect(ImVec2(x, p.y), ImVec2(x + w, p.y + height))) {
      hovered = item.label + ": " + format_bytes(item.bytes, request_.units);
    }
    x += w;
  }
  const float cap_x = p.x + static_cast<float>(static_cast<double>(capacity) / scale_bytes * width);
  dl->AddLine(ImVec2(cap_x, p.y - 3), ImVec2(cap_x, p.y + height + 3), ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
  ImGui::Dummy(ImVec2(width, height));
  if (!hovered.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hovered.c_str());
  // Legend, wrapping onto more lines when the panel is narrow.
  index = 0;
  const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
  for (const BreakdownItem& item : r.breakdown.items) {
    const float h = ImGui::GetTextLineHeight();
    if (index > 0 && ImGui::GetCursorScreenPos().x + h + ImGui::CalcTextSize(item.label.c_str()).x > right) ImGui::NewLine();
    const ImVec2 q = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(q.x, q.y + 3), ImVec2(q.x + h - 6, q.y + h - 3), kSegmentColours[index++ % 8]);
    ImGui::Dummy(ImVec2(h - 4, h));
    ImGui::SameLine();
    ImGui::TextUnformatted(item.label.c_str());
    ImGui::SameLine(0, 14);
  }
  if (ImGui::GetCursorScreenPos().x + ImGui::CalcTextSize("| = GPU capacity").x > right) ImGui::NewLine();
  ImGui::TextDisabled("| = GPU capacity");
}

void App::draw_breakdown() {
  const Report& r = *report_;
  const DisplayUnits u = request_.units;
  const int64_t capacity = request_.mode == "training" ? r.training_fit.capacity_bytes : r.fit.capacity_bytes;
  Grid grid;
  if (!grid.begin("breakdown", {{"Item", 0}, {"Memory", 110}, {"of GPU", 70}}, true)) return;
  struct Walk {
    Grid& grid;
    DisplayUnits u;
    int64_t capacity;
    void item(const BreakdownItem& it, int depth) {
      grid.row();
      grid.cell(0);
      // Top-level rows open with their formula showing; deeper rows open on a click.
      const ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanFullWidth | (depth == 0 ? ImGuiTreeNodeFlags_DefaultOpen : 0);
      const bool open = ImGui::TreeNodeEx(it.id.c_str(), flags, "%s", it.label.c_str());
      grid.cell(1);
      ImGui::TextUnformatted(format_bytes(it.bytes, u).c_str());
      grid.cell(2);
      ImGui::Text("%.1f%%", capacity > 0 ? 100.0 * static_cast<double>(it.bytes) / static_cast<double>(capacity) : 0.0);
      if (open) {
        grid.row();
        grid.cell(0);
        ImGui::PushTextWrapPos(grid.wrap_x(0));
        ImGui::TextDisabled("= %s", it.formula.c_str());
        if (!it.note.empty()) ImGui::TextWrapped("%s", it.note.c_str());
        ImGui::PopTextWrapPos();
        for (const BreakdownItem& child : it.children) item(child, depth + 1);
        ImGui::TreePop();
      }
    }
  } walk{grid, u, capacity};
  for (const BreakdownItem& it : r.breakdown.items) walk.item(it, 0);
  grid.row();
  grid.cell(0);
  ImGui::TextUnformatted("Total");
  grid.cell(1);
  ImGui::TextUnformatted(format_bytes(r.breakdown.total_bytes, u).c_str());
  grid.cell(2);
  ImGui::Text("%.1f%%", capacity > 0 ? 100.0 * static_cast<double>(r.breakdown.total_bytes) / static_cast<double>(capacity) : 0.0);
  grid.end();
  for (const std::string& w : r.breakdown.warnings) ImGui::TextWrapped("warning: %s", w.c_str());
  for (const std::string& a : r.breakdown.assumptions) ImGui::TextWrapped("assumed: %s", a.c_str());
}

void App::draw_gpus() {
  const Report& r = *report_;
  const DisplayUnits u = request_.units;
  const bool training = request_.mode == "training";
  Grid grid;
  if (!grid.begin("gpus", {{"GPU", 0}, {"Memory", 90}, {"Needed", 90}, {"Headroom", 90}, {"Verdict", 110}}, false)) return;
  for (const GpuVerdict& v : r.gpus) {
    const bool fits = training ? v.training_fit.fits : v.fit.fits;
    const int64_t cap = training ? v.training_fit.capacity_bytes : v.fit.capacity_bytes;
    const int64_t need = training ? v.training_fit.required_bytes : v.fit.required_bytes;
    const int64_t room = training ? v.training_fit.headroom_bytes : v.fit.headroom_bytes;
    const int64_t min_gpus = training ? v.training_fit.min_gpus : v.fit.min_gpus;
    grid.row();
    if (grid.row_selectable(("##" + v.gpu->id).c_str(), v.gpu->id == request_.gpu_id)) {
      request_.gpu_id = v.gpu->id;
      request_.gpu_capacity_bytes = 0;
      dirty_ = true;
    }
    grid.cell(0);
    ImGui::TextUnformatted(v.gpu->name.c_str());
    grid.cell(1);
    ImGui::TextUnformatted(format_bytes(cap, u).c_str());
    grid.cell(2);
    ImGui::TextUnformatted(format_bytes(need, u).c_str());
    grid.cell(3);
    ImGui::TextUnformatted(format_bytes(room, u).c_str());
    grid.cell(4);
    if (fits) ImGui::TextColored(ImVec4(0.3f, 0.8f, 0.5f, 1), "fits");
    else if (min_gpus > 0) ImGui::TextColored(ImVec4(0.95f, 0.7f, 0.25f, 1), "needs %lld", static_cast<long long>(min_gpus));
    else ImGui::TextColored(ImVec4(0.9f, 0.35f, 0.3f, 1), "no");
  }
  grid.end();
}

void App::draw_fit_map() {
  const Report& r = *report_;
  const bool training = request_.mode == "training";
  FitMapAxis x, y;
  if (training) {
    x = {128, std::max<int64_t>(r.prepared.model.max_context_tokens > 0 ? r.prepared.model.max_context_tokens : 32768, 1024), 128};
    x.max = std::min<int64_t>(x.max, 131072);
    y = {1, 256, 64};
  } else {
    x = {256, std::max<int64_t>(r.prepared.model.max_context_tokens > 0 ? r.prepared.model.max_context_tokens : 131072, 4096), 192};
    x.max = std::min(x.max, kMaxContextTokens);
    y = {1, 256, 96};
  }
  const int64_t capacity = training ? r.training_fit.capacity_bytes : r.fit.capacity_bytes;
  if (map_dirty_ || !map_valid_) {
    map_ = training ? training_fit_map(r.prepared.model, request_.training, r.training, capacity, x, y)
                    : inference_fit_map(r.prepared, request_.settings, capacity, x, y);
    if (renderer_) renderer_->upload(map_);
    map_dirty_ = false;
    map_valid_ = true;
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float axis_w = 70.0f, axis_h = 34.0f;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 p0(origin.x + axis_w, origin.y + 4), p1(origin.x + std::max(avail.x, axis_w + 100.0f) - 8,
                                                         origin.y + std::max(avail.y - axis_h, 120.0f));
  const int64_t cur_x = training ? request_.training.sequence_length : request_.settings.context_tokens;
  const int64_t cur_y = training ? request_.training.micro_batch : request_.settings.concurrent_sequences;
  float mu = static_cast<float>(axis_position(x, static_cast<double>(cur_x)));
  float mv = static_cast<float>(axis_position(y, static_cast<double>(cur_y)));
  if (mu < 0 || mu > 1 || mv < 0 || mv > 1) mu = mv = -1.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (renderer_) {
    renderer_->draw(dl, p0.x, p0.y, p1.x, p1.y, mu, mv, dark_);
  } else {
    dl->AddRectFilled(p0, p1, IM_COL32(60, 60, 60, 255));
  }
  // Axes: ticks at powers of two.
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (int64_t v = 1; v <= x.max; v *= 2) {
    if (v < x.min) continue;
    const float t = static_cast<float>(axis_position(x, static_cast<double>(v)));
    const float px = p0.x + t * (p1.x - p0.x);
    dl->AddLine(ImVec2(px, p1.y), ImVec2(px, p1.y + 4), text);
    const int step = (x.max / x.min) > 256 ? 4 : 2;
    int log = 0;
    for (int64_t w = v; w > 1; w /= 2) ++log;
    if (log % step == 0) {
      const std::string label = v >= 1024 ? std::to_string(v / 1024) + "K" : std::to_string(v);
      dl->AddText(ImVec2(px - 8, p1.y + 5), text, label.c_str());
    }
  }
  for (int64_t v = 1; v <= y.max; v *= 2) {
    if (v < y.min) continue;
    const float t = static_cast<float>(axis_position(y, static_cast<double>(v)));
    const float py = p1.y - t * (p1.y - p0.y);
    dl->AddLine(ImVec2(p0.x - 4, py), ImVec2(p0.x, py), text);
    dl->AddText(ImVec2(p0.x - 40, py - 7), text, std::to_string(v).c_str());
  }
  dl->AddText(ImVec2(p0.x + (p1.x - p0.x) * 0.5f - 60, p1.y + 18), text, training ? "sequence length (tokens)" : "context (tokens)");
  dl->AddText(ImVec2(origin.x, p0.y), text, training ? "batch" : "seqs");
  ImGui::SetCursorScreenPos(p0);
  ImGui::InvisibleButton("map", ImVec2(p1.x - p0.x, p1.y - p0.y));
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetMousePos();
    const double tu = std::clamp((m.x - p0.x) / (p1.x - p0.x), 0.0f, 1.0f);
    const double tv = std::clamp((p1.y - m.y) / (p1.y - p0.y), 0.0f, 1.0f);
    const int64_t xv = axis_value_at(x, tu), yv = axis_value_at(y, tv);
    int64_t total = 0;
    if (training) {
      TrainingSettings s = request_.training;
      s.sequence_length = xv;
      s.micro_batch = yv;
      total = retotal_training_bytes(r.prepared.model, s, r.training);
    } else {
      InferenceSettings s = request_.settings;
      s.context_tokens = xv;
      s.concurrent_sequences = yv;
      total = inference_memory(r.prepared, s).total;
    }
    ImGui::SetTooltip("%s %s tokens x %s %s\n%s of %s (%.0f%%): %s\nclick to use this workload", training ? "sequence" : "context",
                      with_thousands(xv).c_str(), with_thousands(yv).c_str(), training ? "micro-batch" : "sequences",
                      format_bytes(total, request_.units).c_str(), format_bytes(capacity, request_.units).c_str(),
                      100.0 * static_cast<double>(total) / static_cast<double>(std::max<int64_t>(capacity, 1)),
                      total <= capacity ? "fits" : "does not fit");
    if (ImGui::IsItemClicked()) {
      if (training) { request_.training.sequence_length = xv; request_.training.micro_batch = yv; }
      else { request_.settings.context_tokens = xv; request_.settings.concurrent_sequences = yv; }
      dirty_ = true;
    }
  }
}

void App::draw_layers() {
  const Report& r = *report_;
  Grid grid;
  if (!grid.begin("layers", {{"Layer", 0}, {"Type", 100}, {"Output shape", 150}, {"Parameters", 100}, {"Activations", 100}}, true)) {
    return;
  }
  for (const LayerRow& row : r.network.layers) {
    grid.row();
    grid.cell(0);
    ImGui::TextUnformatted(row.name.c_str());
    if (ImGui::IsItemHovered() && !row.keeps.empty()) ImGui::SetTooltip("keeps %s", row.keeps.c_str());
    grid.cell(1);
    ImGui::TextUnformatted(row.type.c_str());
    grid.cell(2);
    ImGui::TextUnformatted(shape_text(row.output_shape).c_str());
    grid.cell(3);
    ImGui::TextUnformatted(with_thousands(row.parameters).c_str());
    grid.cell(4);
    ImGui::TextUnformatted(format_bytes(row.activation_bytes, request_.units).c_str());
  }
  grid.end();
}

// The verdict in one line; `strong` marks the model and the verdict ("**" in Markdown).
std::string App::headline(const char* strong) const {
  if (!report_) return "vramfit: " + report_.error().message;
  const Report& r = *report_;
  const bool training = request_.mode == "training";
  const bool fits = training ? r.training_fit.fits : r.fit.fits;
  return strong + r.model_name + strong + " on " + r.gpu.name + ": " + strong + (fits ? "fits" : "does not fit") + strong +
         " (" + format_bytes(r.breakdown.total_bytes, request_.units) + " of " +
         format_bytes(training ? r.training_fit.capacity_bytes : r.fit.capacity_bytes, request_.units) + ")";
}

std::string App::spoken_summary() const {
  std::string text = headline("") + ".";
  if (report_) {
    for (const BreakdownItem& item : report_->breakdown.items) text += " " + item.label + ": " + format_bytes(item.bytes, request_.units) + ".";
  }
  return text;
}

std::string App::markdown() const {
  if (!report_) return headline("") + "\n";
  const Report& r = *report_;
  std::string md = headline("**") + "\n\n";
  md += "| item | memory | formula |\n| --- | ---: | --- |\n";
  for (const BreakdownItem& item : r.breakdown.items) {
    md += "| " + item.label + " | " + format_bytes(item.bytes, request_.units) + " | " + item.formula + " |\n";
  }
  md += "| **total** | **" + format_bytes(r.breakdown.total_bytes, request_.units) + "** | " +
        with_thousands(r.breakdown.total_bytes) + " B |\n";
  return md;
}

std::string App::embed_snippet(const Platform& platform) const {
  std::string base = platform.page_url();
  const size_t slash = base.find_last_of('/');
  if (slash != std::string::npos) base = base.substr(0, slash + 1);
  return "<iframe src=\"" + base + "embed.html#" + hash_ +
         "\" width=\"760\" height=\"460\" style=\"border:0\" title=\"vramfit\" loading=\"lazy\"></iframe>";
}

}  // namespace vramfit
