// The desktop's Open dialog, drawn with Dear ImGui (GLFW has no native file dialog): a
// folder's sub-folders and model files, a path field, Enter or double-click to open.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "files.hpp"

namespace vramfit {

class FileDialog {
 public:
  void open(const std::string& folder);  // shows the dialog at this folder
  bool is_open() const { return open_; }
  // Draws the dialog while it is open; returns the chosen file's path on the frame it is chosen.
  std::optional<std::string> draw();
  const std::string& folder() const { return folder_; }

 private:
  void go_to(const std::string& folder);
  std::string entry_path(int index) const;  // folder / entry's name

  bool open_ = false, just_opened_ = false;
  std::string folder_, path_field_, error_;
  std::vector<FolderEntry> entries_;
  int selected_ = -1;
};

}  // namespace vramfit
