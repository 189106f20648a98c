#include "app.hpp"

#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include <algorithm>

#include "catalog/catalog.hpp"
#include "io/request_json.hpp"
#include "io/url_hash.hpp"
#include "report_text.hpp"
#include "verdict.hpp"
#include "widgets.hpp"

namespace vramfit {

void App::init(const std::string& hash, bool embed, FitMapRenderer* renderer) {
  embed_ = embed;
  fit_map_.set_renderer(renderer);
  request_.network_settings.batch = 128;
  if (!hash.empty()) load_hash(hash);  // a malformed hash leaves a notice; the defaults stand
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
  inputs_.show_request(request_);
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
  if (!parsed) {
    notice_ = "The file gave an unusable model: " + parsed.error().message;
    return;
  }
  request_ = *parsed;
  if (fragment.contains("assumed") && fragment["assumed"].is_array() && !fragment["assumed"].empty() &&
      fragment["assumed"][0].is_string()) {
    notice_ = "Read " + request_.custom_model_name + "; assumed: " + fragment["assumed"][0].get<std::string>();
  }
  dirty_ = true;
}

void App::set_dark(bool dark) {
  dark_ = dark;
  if (dark) ImGui::StyleColorsDark();
  else ImGui::StyleColorsLight();
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
  fit_map_.invalidate();
}

void App::frame(Platform& platform) {
  if (dirty_) {
    recompute();
    platform.set_location_hash(hash_, from_location_);
    platform.announce(spoken_summary(request_, report_));
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
  if (!embed_) {
    const float input_width = std::min(em(24.0f), ImGui::GetContentRegionAvail().x * 0.42f);
    ImGui::BeginChild("inputs", ImVec2(input_width, 0), true);
    const InputsPanel::Outcome outcome = inputs_.draw(request_);
    ImGui::EndChild();
    ImGui::SameLine();
    dirty_ |= outcome.changed;
    if (outcome.pasted_file) apply_file_fragment(*outcome.pasted_file);
  }
  ImGui::BeginChild("results", ImVec2(0, 0), !embed_);
  draw_results();
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
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", platform.open_files_hint());
    ImGui::SameLine();
  }
  const bool gb = request_.units == DisplayUnits::gb;
  if (ImGui::SmallButton(gb ? "GB" : "GiB")) {
    request_.units = gb ? DisplayUnits::gib : DisplayUnits::gb;
    dirty_ = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Units: GB = 10^9 bytes, GiB = 2^30 bytes (click to switch)");
  ImGui::SameLine();
  if (ImGui::SmallButton(dark_ ? "Light" : "Dark")) set_dark(!dark_);
  ImGui::SameLine();
  if (ImGui::SmallButton("Copy Markdown")) platform.copy_text(markdown(request_, report_));
  ImGui::SameLine();
  if (ImGui::SmallButton("Copy JSON") && report_) platform.copy_text(report_to_json(*report_).dump(2));
  const std::string link = platform.link_to(hash_);
  if (!link.empty()) {
    ImGui::SameLine();
    if (embed_) {
      if (ImGui::SmallButton("Open full page")) platform.open_link(link);
    } else if (ImGui::SmallButton("Copy link")) {
      platform.copy_text(link);
    }
  }
  const std::string embed_link = platform.embed_link_to(hash_);
  if (!embed_ && !embed_link.empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Embed")) ImGui::OpenPopup("embed");
    if (ImGui::BeginPopup("embed")) {
      std::string snippet = embed_snippet(embed_link);
      ImGui::TextUnformatted("Paste this into your documentation:");
      ImGui::InputTextMultiline("##snippet", &snippet, ImVec2(em(32.0f), em(4.5f)), ImGuiInputTextFlags_ReadOnly);
      if (ImGui::Button("Copy snippet")) {
        platform.copy_text(snippet);
        ImGui::CloseCurrentPopup();
      }
      ImGui::EndPopup();
    }
  }
}

void App::draw_results() {
  if (!report_) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(235, 90, 80, 255));
    ImGui::TextWrapped("%s", report_.error().message.c_str());
    ImGui::PopStyleColor();
    return;
  }
  const Report& r = *report_;
  draw_verdict(request_, r);
  if (!ImGui::BeginTabBar("panels")) return;
  auto flags = [this](Panel p) {
    return requested_panel_ == static_cast<int>(p) ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
  };
  if (ImGui::BeginTabItem("Breakdown", nullptr, flags(Panel::breakdown))) {
    panel_ = Panel::breakdown;
    draw_breakdown_table(request_, r);
    ImGui::EndTabItem();
  }
  if (request_.has_network && ImGui::BeginTabItem("Layers", nullptr, flags(Panel::layers))) {
    panel_ = Panel::layers;
    draw_layer_table(request_, r);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Which GPUs fit", nullptr, flags(Panel::gpus))) {
    panel_ = Panel::gpus;
    if (auto gpu = gpu_table_.draw(request_, r)) {
      request_.gpu_id = *gpu;
      request_.gpu_capacity_bytes = 0;
      dirty_ = true;
    }
    ImGui::EndTabItem();
  }
  if (!request_.has_network && ImGui::BeginTabItem("Fit map", nullptr, flags(Panel::fit_map))) {
    panel_ = Panel::fit_map;
    if (auto workload = fit_map_.draw(request_, r, dark_)) {
      apply_workload(request_, *workload);
      dirty_ = true;
    }
    ImGui::EndTabItem();
  }
  requested_panel_ = -1;
  ImGui::EndTabBar();
}

}  // namespace vramfit
