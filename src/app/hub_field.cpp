#include "hub_field.hpp"

#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include "core/units.hpp"
#include "io/hub_ref.hpp"
#include "ui_language.hpp"
#include "widgets.hpp"

namespace vramfit {

void HubField::start(Platform& platform) {
  available_ = platform.can_read_hub();
  token_ = platform.remembered_hub_token();
  if (const std::string endpoint = platform.default_hub_endpoint(); !endpoint.empty()) endpoint_ = endpoint;
  remember_ = !token_.empty();
}

void HubField::read(Platform& platform, const std::string& id) {
  auto ref = parse_hub_ref(id);
  if (!ref) {  // said here, before anything is asked of the network
    status_ = ref.error().message;
    return;
  }
  reading_ = true;
  status_.clear();
  notes_.clear();
  progress_text_ = tr("Reading the file list...");
  platform.read_hub_model(id, endpoint_, token_);
}

void HubField::progress(const json& p) {
  if (!reading_ || !p.is_object()) return;
  char line[160];
  std::snprintf(line, sizeof line, tr("Read %lld of %lld files, %s"), static_cast<long long>(p.value("files_done", int64_t(0))),
                static_cast<long long>(p.value("files_planned", int64_t(0))),
                format_bytes(p.value("bytes_fetched", int64_t(0)), DisplayUnits::gb).c_str());
  progress_text_ = line;
}

void HubField::finished(const json& answer) {
  reading_ = false;
  if (answer.contains("error") || !answer.contains("hub")) {
    status_ = answer.contains("error") ? answer["error"].value("message", std::string()) : tr("the Hub gave no model");
    return;
  }
  const json& hub = answer["hub"];
  repo_ = hub.value("repo", std::string());
  revision_ = hub.value("sha", std::string());
  chosen_ = hub.value("file", std::string());
  ggufs_.clear();
  if (hub.contains("ggufs") && hub["ggufs"].is_array()) {
    for (const json& g : hub["ggufs"]) {
      ggufs_.push_back({g.value("file", std::string()), g.value("quant", std::string()), g.value("size", int64_t(0))});
    }
  }
  status_.clear();
  notes_.clear();
  for (const json& note : hub.value("notes", json::array())) {
    if (note.is_string()) notes_.push_back(note.get<std::string>());
  }
}

void HubField::show_source(const std::string& pinned_id) {
  if (pinned_id.empty() || reading_) return;
  id_ = pinned_id;
}

void HubField::draw(Platform& platform) {
  if (!available_) return;
  if (!asked_.empty() && !reading_) {
    id_ = asked_;
    asked_.clear();
    read(platform, id_);
  }
  const ImGuiStyle& style = ImGui::GetStyle();
  const char* action = reading_ ? "Cancel" : "Read";
  ImGui::SetNextItemWidth(-(ImGui::CalcTextSize(tr(action)).x + style.FramePadding.x * 2 + style.ItemSpacing.x));
  const bool entered = ImGui::InputTextWithHint("##hub_id", tr("Hugging Face id or URL"), &id_, ImGuiInputTextFlags_EnterReturnsTrue);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s", tr("org/name, org/name@revision, org/name:Q4_K_M or a huggingface.co URL: config.json and the "
                               "weights' headers are read by range requests, never the weights"));
  }
  ImGui::SameLine();
  if (reading_) {
    if (ImGui::Button("Cancel")) platform.cancel_hub_read();
  } else if ((ImGui::Button("Read") || entered) && !id_.empty()) {
    read(platform, id_);
  }
  if (reading_) text_wrapped_at_spaces_disabled(progress_text_);
  if (!status_.empty()) text_wrapped_at_spaces(status_);
  for (const std::string& note : notes_) text_wrapped_at_spaces_disabled(note);  // what the reading chose, and why
  // A GGUF repository's other files (llama.cpp's -hf repo:quant picks one the same way).
  if (ggufs_.size() > 1 && !reading_) {
    auto shown = [](const Gguf& g) { return (g.quant.empty() ? g.file : g.quant) + " (" + format_bytes(g.size, DisplayUnits::gb) + ")"; };
    std::string chosen_label = chosen_;
    for (const Gguf& g : ggufs_) {
      if (g.file == chosen_) chosen_label = shown(g);
    }
    if (ImGui::BeginCombo("GGUF file", chosen_label.c_str())) {
      for (const Gguf& g : ggufs_) {
        const std::string label = shown(g) + "##" + g.file;
        if (ImGui::Selectable(label.c_str(), g.file == chosen_) && g.file != chosen_) {
          HubRef ref{repo_, revision_, g.file, ""};
          id_ = hub_ref_text(ref);
          read(platform, id_);
        }
      }
      ImGui::EndCombo();
    }
  }
  if (ImGui::CollapsingHeader("Hub settings")) {
    ImGui::InputText("Endpoint", &endpoint_);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("The Hub or a mirror, as HF_ENDPOINT names it"));
    const bool typed = ImGui::InputTextWithHint("Token", "hf_...", &token_, ImGuiInputTextFlags_Password);
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s", tr("A read token for gated models: sent only to the endpoint, as a bearer header; kept in "
                                 "this page's memory unless this device is to remember it"));
    }
    if (ImGui::Checkbox("Remember the token on this device", &remember_) || (typed && remember_)) {
      platform.remember_hub_token(remember_ ? token_ : "");
    }
    if (!token_.empty() && ImGui::SmallButton("Forget the token")) {
      token_.clear();
      remember_ = false;
      platform.remember_hub_token("");
    }
  }
}

}  // namespace vramfit
