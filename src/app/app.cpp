#include "app.hpp"

#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include <algorithm>

#include <imgui_internal.h>

#include "catalog/catalog.hpp"
#include "arabic_ui.hpp"
#include "core/workload.hpp"
#include "engine_view.hpp"
#include "io/hub_ref.hpp"
#include "io/request_json.hpp"
#include "io/url_hash.hpp"
#include "report_text.hpp"
#include "text/display.hpp"
#include "ui_language.hpp"
#include "verdict.hpp"
#include "widgets.hpp"

namespace vramfit {

void App::init(const std::string& hash, bool embed, FitMapRenderer* renderer) {
  embed_ = embed;
  fit_map_.set_renderer(renderer);
  read_typed_digits_as_western();
  use_ui_language(Language::english, false);  // names in Arabic shaped from the first frame
  request_.network_settings.batch = 128;
  if (!hash.empty()) load_hash(hash);  // a malformed hash leaves a notice and the defaults
  dirty_ = true;
  from_location_ = true;  // the first frame writes the canonical hash in place
}

namespace {

// A link may name a model, GPU or weight format this version does not list (a newer version's
// link, a typo): each such name gives way to the default, and the notice says which.
std::string replace_unknown_names(Request& request) {
  const Catalog& catalog = builtin_catalog();
  const Request defaults;
  std::string replaced;
  const auto unknown = [&](const char* what, const std::string& name, const std::string& shown) {
    replaced += (replaced.empty() ? "" : "; ") + std::string(tr(what)) + " '" + name + "'" + tr(": showing ") + shown + tr(" instead");
  };
  if (!request.has_custom_model && !catalog.find_model(request.model_preset)) {
    unknown("model", request.model_preset, catalog.find_model(defaults.model_preset)->name);
    request.model_preset = defaults.model_preset;
  }
  if (request.gpu_capacity_bytes == 0 && !catalog.find_gpu(request.gpu_id)) {
    unknown("GPU", request.gpu_id, catalog.find_gpu(defaults.gpu_id)->name);
    request.gpu_id = defaults.gpu_id;
  }
  for (std::string& id : request.gpu_ids) {
    if (catalog.find_gpu(id)) continue;
    const Gpu* shown = catalog.find_gpu(request.gpu_id);
    unknown("GPU", id, shown ? shown->name : request.gpu_id);
    id = shown ? request.gpu_id : defaults.gpu_id;
  }
  if (!request.has_stored_weights && !catalog.formats.find_format(request.weight_format)) {
    unknown("weights", request.weight_format, catalog.formats.find_format(defaults.weight_format)->label);
    request.weight_format = defaults.weight_format;
  }
  if (replaced.empty()) return "";
  return tr("The link names what this version does not list: ") + replaced + ".";
}

}  // namespace

bool App::load_hash(const std::string& hash) {
  auto decoded = decode_url_hash(hash);
  if (!decoded) {
    // As the notice says: the defaults, not the state an earlier link left.
    notice_ = tr("The link's configuration could not be read (") + decoded.error().message + tr("); showing the defaults.");
    request_ = Request{};
    request_.network_settings.batch = 128;
    inputs_.show_request(request_);
    inputs_.hub().show_source(request_.custom_model_hub);
    dirty_ = true;
    return false;
  }
  request_ = *decoded;
  inputs_.show_request(request_);
  inputs_.hub().show_source(request_.custom_model_hub);
  dirty_ = true;
  from_location_ = true;
  return true;
}

void App::apply_file_fragment(const json& fragment) {
  notice_.clear();  // a new file's notice, or none: never the one an earlier file left
  if (fragment.contains("error")) {
    notice_ = tr("Could not read the file: ") + fragment["error"].value("message", tr("unknown error"));
    return;
  }
  json full = request_to_json(request_);
  full["mode"] = "inference";
  full.erase("training");
  full.erase("network");
  if (fragment.contains("llama.cpp")) {  // a LoRA adapter (one more --lora) or a projector (--mmproj)
    if (request_.engine != Engine::llamacpp) {
      notice_ = tr("This file is loaded beside a model by llama.cpp (--lora, --mmproj): pick llama.cpp as the engine, then open it again.");
      return;
    }
    for (const auto& [key, value] : fragment["llama.cpp"].items()) {
      if (value.is_array()) for (const json& item : value) full["llama.cpp"][key].push_back(item);
      else full["llama.cpp"][key] = value;
    }
  }
  for (const char* key : {"model", "weights"}) {
    if (fragment.contains(key)) full[key] = fragment[key];
  }
  // A LoRA adapter read from the Hub: vLLM's --enable-lora and a --max-lora-rank that holds it.
  if (fragment.contains("vllm") && fragment["vllm"].is_object()) {
    for (const auto& [key, value] : fragment["vllm"].items()) full["vllm"][key] = value;
  }
  if (!fragment.contains("weights") && full.contains("weights")) full["weights"].erase("stored");
  if (full["weights"].value("format", "") == "as_stored" && !fragment.contains("weights")) full["weights"]["format"] = "bf16";
  // A GGUF is answered by llama.cpp, the engine that runs GGUF files, with its own settings
  // (a safetensors checkpoint keeps the engine chosen). The verdict names the engine.
  const bool gguf = fragment.contains("weights") && fragment["weights"].contains("stored") &&
                    fragment["weights"]["stored"].value("source", "") == "gguf";
  const bool to_llamacpp = gguf && request_.engine != Engine::llamacpp;
  if (to_llamacpp) {
    for (const char* engine : {"vllm", "transformers"}) full.erase(engine);
    full.erase("draft");
    full["engine"] = "llama.cpp";
  }
  auto parsed = request_from_json(full);
  if (!parsed) {
    notice_ = tr("The file gave an unusable model: ") + parsed.error().message;
    return;
  }
  const Workload workload = workload_of(request_);  // the context and sequences set, into llama.cpp's -c and -np
  request_ = *parsed;
  if (to_llamacpp) carry_workload(request_, workload);
  if (fragment.contains("assumed") && fragment["assumed"].is_array() && !fragment["assumed"].empty() &&
      fragment["assumed"][0].is_string()) {
    notice_ = tr("Read ") + request_.custom_model_name + tr("; assumed: ") + fragment["assumed"][0].get<std::string>();
  }
  dirty_ = true;
}

void App::hub_answer(const json& answer) {
  inputs_.hub().finished(answer);
  if (answer.contains("error") || !answer.contains("hub") || !answer.contains("model")) return;  // said under the field
  const json& hub = answer["hub"];
  const std::string repo = hub.value("repo", std::string()), file = hub.value("file", std::string());
  const bool gguf = file.size() > 5 && file.compare(file.size() - 5, 5, ".gguf") == 0;
  json fragment = answer;
  fragment.erase("hub");
  // The link carries where the model was read, pinned to its commit (model.hub).
  fragment["model"]["hub"] = hub_ref_text({repo, hub.value("sha", std::string()), gguf ? file : "", ""});
  fragment["model"]["name"] = gguf ? repo + " " + file.substr(file.find_last_of('/') + 1) : repo;
  apply_file_fragment(fragment);
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
  // What was put in place of a request's unknown names, and of a checkpoint format llama.cpp
  // cannot load: both said, one after the other.
  std::string said = replace_unknown_names(request_);
  if (const std::string was = gguf_weights_for_llamacpp(request_); !was.empty()) {
    const FormatTables& formats = builtin_catalog().formats;
    const WeightFormat* from = formats.find_format(was);
    const WeightFormat* to = formats.find_format(request_.weight_format);
    said += std::string(said.empty() ? "" : " ") + tr("llama.cpp loads GGUF files: the weights are now ") +
            (to ? to->label : request_.weight_format) + tr(", in place of ") + (from ? from->label : was) + ".";
  }
  if (!said.empty()) notice_ = std::move(said);
  Request r = request_;
  r.compare_gpus = true;  // the "Which GPUs fit" panel; not part of the shared link
  report_ = estimate(r, builtin_catalog());
  hash_ = encode_url_hash(request_);
  dirty_ = false;
  fit_map_.invalidate();
}

void App::request_glyphs(Platform& platform) {
  // Every character of the interface's language (English: the Arabic switch's).
  std::string text = ui_language_glyphs() + request_.custom_model_name + notice_ + inputs_.text_in_use();
  if (report_) text += report_->model_name;
  if (text != glyph_text_) {
    glyph_text_ = text;
    // A name in Arabic is drawn shaped (src/app/arabic_ui.cpp): its presentation forms too.
    platform.need_glyphs_for(text + display_text(text, DisplayOptions{BaseDirection::left_to_right, false}));
  }
}

void App::frame(Platform& platform) {
  if (first_frame_) inputs_.hub().start(platform);
  use_language(platform);  // before the result is announced: in the language it is shown in
  if (dirty_) {
    recompute();
    // One history entry per settled edit: the first change while a widget is held (a drag, a
    // held stepper) makes an entry, the changes that follow while it is held rewrite it.
    const ImGuiID editing = ImGui::GetActiveID();
    const bool same_edit = editing != 0 && editing == history_edit_id_;
    platform.set_location_hash(hash_, from_location_ || same_edit);
    history_edit_id_ = editing;
    const bool engine = request_.engine != Engine::generic && report_;
    const std::string spoken = engine ? engine_spoken(request_, *report_) : spoken_summary(request_, report_);
    platform.announce(ui_text(spoken));
    from_location_ = false;
  }
  request_glyphs(platform);
  const AppMode mode = app_mode(request_);
  if (mode != shown_mode_) {  // a new mode keeps the tab it has (or the breakdown)
    const bool kept = !((panel_ == Panel::layers && mode != AppMode::layer_list) ||
                        (panel_ == Panel::fit_map && mode == AppMode::layer_list));
    requested_panel_ = static_cast<int>(kept ? panel_ : Panel::breakdown);
    shown_mode_ = mode;
  }
  ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  ImGui::Begin("vramfit", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  // Phones (narrower than 40 em, 640 CSS px at 16 px text): one column that scrolls as a whole —
  // the inputs, then the verdict and the bar, then the tabs. Wider: inputs beside the results.
  const bool phone = viewport->WorkSize.x < em(40.0f);
  draw_top_bar(platform);
  draw_notice();
  if (embed_) {
    dirty_ |= inputs_.draw_compact(request_, platform);
    draw_results(phone);
  } else if (phone) {
    if (ImGui::CollapsingHeader("Inputs", ImGuiTreeNodeFlags_DefaultOpen)) {
      const InputsPanel::Outcome outcome = inputs_.draw(request_, platform, first_frame_);
      dirty_ |= outcome.changed;
      if (outcome.pasted_file) apply_file_fragment(*outcome.pasted_file);
    }
    ImGui::Separator();
    draw_results(phone);
  } else {
    // Inputs beside the results: on the left, or (right to left) on the right; the inputs come
    // first either way (the keyboard's order).
    const float input_width = std::clamp(ImGui::GetContentRegionAvail().x * 0.36f, em(20.0f), em(26.0f));
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float results_width = ImGui::GetContentRegionAvail().x - input_width - gap;
    const ImVec2 origin = ImGui::GetCursorPos();
    const bool mirrored = ui_right_to_left();
    ImGui::SetCursorPos(ImVec2(origin.x + (mirrored ? results_width + gap : 0.0f), origin.y));
    ImGui::BeginChild("inputs", ImVec2(input_width, 0), ImGuiChildFlags_Border, ImGuiWindowFlags_NavFlattened);
    const InputsPanel::Outcome outcome = inputs_.draw(request_, platform, first_frame_);
    ImGui::EndChild();
    dirty_ |= outcome.changed;
    if (outcome.pasted_file) apply_file_fragment(*outcome.pasted_file);
    ImGui::SetCursorPos(ImVec2(origin.x + (mirrored ? 0.0f : input_width + gap), origin.y));
    ImGui::BeginChild("results", ImVec2(results_width, 0), ImGuiChildFlags_Border, ImGuiWindowFlags_NavFlattened);
    draw_results(phone);
    ImGui::EndChild();
  }
  ImGui::End();
  first_frame_ = false;
}

void App::draw_notice() {
  if (notice_.empty()) return;
  // A line of its own under the top bar, moving what follows down: over the page it covered
  // inputs and the Total row.
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(240, 170, 60, 255));
  textf_wrapped_at_spaces("%s", notice_.c_str());
  ImGui::PopStyleColor();
  align_line_end(ImGui::CalcTextSize("Dismiss").x + ImGui::GetStyle().FramePadding.x * 2.0f);
  if (ImGui::SmallButton("Dismiss")) notice_.clear();
}

void App::draw_top_bar(Platform& platform) {
  // The bar wraps: an item that would pass the edge starts a new line; right to left it runs
  // from the right edge.
  ItemRow row;
  auto place = [&row](const char* label) {
    row.place(ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2.0f, ImGui::GetStyle().ItemSpacing.x);
  };
  auto button = [&](const char* label) {
    place(label);
    return ImGui::SmallButton(label);
  };
  place("vramfit");
  ImGui::TextUnformatted("vramfit");
  const char* tagline = embed_ || ImGui::GetMainViewport()->WorkSize.x < em(40.0f) ? "will it fit?" : "will it fit? every figure with its formula";
  place(tagline);
  ImGui::TextDisabled("%s", tagline);
  if (platform.can_open_files() && !embed_) {
    if (button("Open file...")) platform.open_files();
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    platform.open_files_button_at(lo.x, lo.y, hi.x, hi.y, !ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopup));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", platform.open_files_hint());
  }
  // The language: "العربية" in English, "English" in Arabic; then the language's own settings
  // (Arabic: the digits).
  const bool arabic = request_.language != "en";
  if (button(arabic ? "English###language" : kArabicSwitchLabel)) {
    request_.language = arabic ? "en" : "ar";
    dirty_ = true;
  }
  if (const LanguageSupport* support = ui_language_support(); support && support->draw_settings) {
    place(support->settings_label);
    dirty_ |= support->draw_settings(request_);
  }
  const bool gb = request_.units == DisplayUnits::gb;
  if (button(gb ? "GB" : "GiB")) {
    request_.units = gb ? DisplayUnits::gib : DisplayUnits::gb;
    dirty_ = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Units: GB = 10^9 bytes, GiB = 2^30 bytes (click to switch)");
  // Like the units and the digits, the theme's button names the theme shown (its tooltip says a click switches).
  if (button(dark_ ? "Dark" : "Light")) set_dark(!dark_);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Theme: light or dark (click to switch)");
  // A copy that is done now is confirmed now; the page's clipboard answers later (App::copied).
  auto copy = [&](const std::string& text) {
    if (platform.copy_text(text)) copied(true);
  };
  if (button("Copy Markdown")) {
    const bool engine = request_.engine != Engine::generic && report_;
    copy(ui_text(engine ? engine_markdown(request_, *report_) : markdown(request_, report_)));
  }
  if (button("Copy JSON") && report_) copy(report_to_json(*report_).dump(2));
  const std::string link = platform.link_to(hash_);
  if (!link.empty()) {
    if (embed_) {
      if (button("Open full page")) platform.open_link(link);
    } else if (button("Copy link")) {
      copy(link);
    }
  }
  const std::string embed_link = platform.embed_link_to(hash_);
  if (!embed_ && !embed_link.empty()) {
    if (button("Embed")) ImGui::OpenPopup("embed");
    // Under its button (at the pointer, it covered the button), kept on the screen.
    const ImGuiViewport* viewport = ImGui::GetMainViewport();
    const float width = std::min(em(32.0f), viewport->WorkSize.x - em(2.0f));
    const float right = viewport->WorkPos.x + viewport->WorkSize.x - em(1.0f);
    const float left = std::max(viewport->WorkPos.x + em(1.0f), std::min(ImGui::GetItemRectMin().x, right - width));
    ImGui::SetNextWindowPos(ImVec2(left, ImGui::GetItemRectMax().y + em(0.25f)));
    ImGui::SetNextWindowSize(ImVec2(width, 0));
    if (ImGui::BeginPopup("embed")) {
      std::string snippet = embed_snippet(embed_link);
      textf_wrapped_at_spaces("Paste this into your documentation:");
      ImGui::PushTextWrapPos(0.0f);
      ImGui::TextDisabled("%s", snippet.c_str());
      ImGui::PopTextWrapPos();
      if (ImGui::Button("Copy snippet")) {
        copy(snippet);
        ImGui::CloseCurrentPopup();
      }
      ImGui::EndPopup();
    }
  }
  if (ImGui::GetTime() < copy_shown_until_) {
    // Where the buttons end; a refusal says why, in full, on the line under them.
    const char* said = copy_failed_ ? "Not copied: the browser refused the clipboard (an embed's iframe needs allow=\"clipboard-write\")"
                                    : "Copied";
    if (copy_failed_) {
      ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(235, 90, 80, 255));
      text_wrapped_at_spaces(tr(said));
    } else {
      place(tr(said));
      ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(96, 190, 120, 255));
      ImGui::TextUnformatted(tr(said));
    }
    ImGui::PopStyleColor();
  }
}

void App::copied(bool ok) {
  copy_failed_ = !ok;
  copy_shown_until_ = ImGui::GetTime() + (ok ? 2.5 : 8.0);
}

void App::use_language(Platform& platform) {
  Language wanted = request_.language == "en" ? Language::english : Language::arabic;
  if (wanted != Language::english) {
    std::string failure;
    const Platform::Catalog catalog = platform.language_catalog(wanted, failure);
    if (catalog == Platform::Catalog::loading) return;  // drawn as it is until the catalog comes
    if (catalog == Platform::Catalog::failed) {
      if (!catalog_failure_said_) {
        notice_ = "The Arabic interface could not be loaded (" + failure + "); it stays in English.";
      }
      catalog_failure_said_ = true;
      wanted = Language::english;
    }
  }
  const bool arabic_indic_digits = wanted == Language::arabic && request_.language == "ar-u-nu-arab";
  if (wanted == ui_language() && arabic_indic_digits == arabic_indic_digits_) return;
  use_ui_language(wanted, arabic_indic_digits);
  arabic_indic_digits_ = arabic_indic_digits;
  dirty_ = true;  // the result announced again, in the language it is now shown in
}

void App::draw_results(bool phone) {
  if (!report_) {
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(235, 90, 80, 255));
    textf_wrapped_at_spaces("%s", report_.error().message.c_str());
    ImGui::PopStyleColor();
    return;
  }
  const bool engine = request_.engine != Engine::generic;
  // 90 font widths and more (1920 px screens and up): the verdict and its bar beside the
  // tables (or the engine's lines), not one column of tables 60 wide in a third of the width.
  const float width = ImGui::GetContentRegionAvail().x;
  if (phone || embed_ || width < em(90.0f)) {
    if (engine) {
      draw_engine_results(request_, *report_);
      return;
    }
    draw_verdict(request_, *report_);
    draw_tabs(phone);
    return;
  }
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float first_width = (width - gap) * 0.45f, second_width = width - gap - first_width;
  const ImVec2 origin = ImGui::GetCursorPos();
  const bool mirrored = ui_right_to_left();  // the verdict on the reading side
  ImGui::SetCursorPos(ImVec2(origin.x + (mirrored ? second_width + gap : 0.0f), origin.y));
  ImGui::BeginChild("verdict", ImVec2(first_width, 0), ImGuiChildFlags_None, ImGuiWindowFlags_NavFlattened);
  if (engine) draw_engine_verdict(request_, *report_);
  else draw_verdict(request_, *report_);
  ImGui::EndChild();
  ImGui::SetCursorPos(ImVec2(origin.x + (mirrored ? 0.0f : first_width + gap), origin.y));
  ImGui::BeginChild("details", ImVec2(second_width, 0), ImGuiChildFlags_None, ImGuiWindowFlags_NavFlattened);
  if (engine) draw_engine_details(request_, *report_);
  else draw_tabs(phone);
  ImGui::EndChild();
}

void App::draw_tabs(bool phone) {
  const Report& r = *report_;
  if (!ImGui::BeginTabBar("panels", ImGuiTabBarFlags_FittingPolicyScroll)) return;
  auto flags = [this](Panel p) {
    return requested_panel_ == static_cast<int>(p) ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
  };
  // On a phone the page scrolls as a whole; a panel gets a height of its own.
  const float panel_height = phone ? em(26.0f) : 0.0f;
  if (ImGui::BeginTabItem("Breakdown", nullptr, flags(Panel::breakdown))) {
    panel_ = Panel::breakdown;
    draw_breakdown_table(request_, r, panel_height);
    ImGui::EndTabItem();
  }
  if (request_.has_network && ImGui::BeginTabItem("Layers", nullptr, flags(Panel::layers))) {
    panel_ = Panel::layers;
    draw_layer_table(request_, r, panel_height);
    ImGui::EndTabItem();
  }
  if (ImGui::BeginTabItem("Which GPUs fit", nullptr, flags(Panel::gpus))) {
    panel_ = Panel::gpus;
    if (auto gpu = gpu_table_.draw(request_, r, panel_height)) {
      request_.gpu_id = *gpu;
      request_.gpu_capacity_bytes = 0;
      dirty_ = true;
    }
    ImGui::EndTabItem();
  }
  if (!request_.has_network && ImGui::BeginTabItem("Fit map", nullptr, flags(Panel::fit_map))) {
    panel_ = Panel::fit_map;
    if (auto workload = fit_map_.draw(request_, r, panel_height)) {
      apply_workload(request_, *workload);
      dirty_ = true;
    }
    ImGui::EndTabItem();
  }
  requested_panel_ = -1;
  ImGui::EndTabBar();
}

}  // namespace vramfit
