#include "file_dialog.hpp"

#include <filesystem>

#include <imgui.h>
#include <misc/cpp/imgui_stdlib.h>

#include "core/units.hpp"

namespace vramfit {

void FileDialog::open(const std::string& folder) {
  open_ = just_opened_ = true;
  go_to(folder);
}

void FileDialog::go_to(const std::string& folder) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(folder.empty() ? "." : folder, ec);
  folder_ = ec ? folder : canonical.string();
  entries_ = list_model_folder(folder_, error_);
  path_field_ = folder_;
  selected_ = -1;
}

std::string FileDialog::entry_path(int index) const {
  return (std::filesystem::path(folder_) / entries_[static_cast<size_t>(index)].name).string();
}

std::optional<std::string> FileDialog::draw() {
  if (!open_) return std::nullopt;
  if (just_opened_) {
    ImGui::OpenPopup("Open a model file");
    just_opened_ = false;
  }
  const ImVec2 size(std::min(720.0f, ImGui::GetIO().DisplaySize.x - 40), std::min(480.0f, ImGui::GetIO().DisplaySize.y - 40));
  ImGui::SetNextWindowSize(size, ImGuiCond_Appearing);
  ImGui::SetNextWindowPos(ImVec2(ImGui::GetIO().DisplaySize.x * 0.5f, ImGui::GetIO().DisplaySize.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  std::optional<std::string> chosen;
  if (!ImGui::BeginPopupModal("Open a model file", &open_)) return std::nullopt;
  ImGui::TextDisabled(".gguf, .safetensors or config.json: only the header is read.");
  // The path field: a folder to go to, or a file to open.
  ImGui::SetNextItemWidth(-80);
  if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
  const bool entered = ImGui::InputText("##path", &path_field_, ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  const bool up = ImGui::Button("Up", ImVec2(-1, 0));
  if (up) go_to(std::filesystem::path(folder_).parent_path().string());
  std::string open_path;
  if (entered) {
    std::error_code ec;
    if (std::filesystem::is_directory(path_field_, ec)) go_to(path_field_);
    else open_path = path_field_;
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(0.95f, 0.65f, 0.25f, 1), "%s", error_.c_str());
  const float footer = ImGui::GetFrameHeightWithSpacing();
  if (ImGui::BeginTable("entries", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter,
                        ImVec2(0, -footer))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Name", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed, 90);
    ImGui::TableHeadersRow();
    std::string enter_folder;
    for (int i = 0; i < static_cast<int>(entries_.size()); ++i) {
      const FolderEntry& e = entries_[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const std::string label = (e.is_folder ? e.name + "/" : e.name) + "##" + std::to_string(i);
      if (ImGui::Selectable(label.c_str(), selected_ == i, ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        selected_ = i;
        const std::string full = entry_path(i);
        if (!e.is_folder) path_field_ = full;
        if (ImGui::IsMouseDoubleClicked(0)) {
          if (e.is_folder) enter_folder = full;
          else open_path = full;
        }
      }
      ImGui::TableNextColumn();
      if (!e.is_folder) ImGui::TextDisabled("%s", format_bytes(e.size_bytes, DisplayUnits::gb).c_str());
    }
    ImGui::EndTable();
    if (!enter_folder.empty()) go_to(enter_folder);
  }
  const bool file_selected = selected_ >= 0 && selected_ < static_cast<int>(entries_.size()) && !entries_[static_cast<size_t>(selected_)].is_folder;
  if (!file_selected) ImGui::BeginDisabled();
  if (ImGui::Button("Open")) open_path = entry_path(selected_);
  if (!file_selected) ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGuiKey_Escape)) open_ = false;
  if (!open_path.empty()) {
    chosen = open_path;
    open_ = false;
  }
  if (!open_) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return chosen;
}

}  // namespace vramfit
