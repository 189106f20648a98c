// Model files on the desktop's disk: reading a file's header bytes into request fields (what
// the page does with File.slice) and listing a folder for the Open dialog.
#pragma once
#include <string>
#include <vector>

#include "io/json.hpp"

namespace vramfit {

// The header bytes of a .gguf, .safetensors or config .json -> {"model": ..., "weights": ...}
// or {"error": {...}}: read_model_file_header_json (report/estimate.hpp) over the file, so it
// reads what the CLI and the page read (io/header_reads.hpp).
json read_model_file(const std::string& path);

struct FolderEntry {
  std::string name;
  bool is_folder = false;
  long long size_bytes = 0;  // files only
};

// A folder as the Open dialog lists it: sub-folders, then model files (.gguf, .safetensors,
// .json), each sorted by name; hidden entries (".name") and other files left out. On failure
// (missing, not a folder, no permission) the list is empty and error says why.
std::vector<FolderEntry> list_model_folder(const std::string& folder, std::string& error);

}  // namespace vramfit
