#include "files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "io/header_reads.hpp"
#include "report/estimate.hpp"

namespace vramfit {

json read_model_file(const std::string& path) {
  const std::string name = base_name(path);
  if (model_file_kind(name) == ModelFileKind::unknown) {
    return {{"error", {{"id", "file.unknown_kind"}, {"message", name + ": not a .gguf, .safetensors or config .json file"}}}};
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {{"error", {{"message", "cannot open " + path + ": not a file"}}}};
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const int64_t size = in ? static_cast<int64_t>(in.tellg()) : -1;
  if (size < 0) return {{"error", {{"message", "cannot open " + path}}}};
  return read_model_file_header_json(name, size, [&](int64_t length, std::vector<uint8_t>& bytes) {
    bytes.resize(static_cast<size_t>(length));
    in.clear();
    in.seekg(0);
    return static_cast<bool>(in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(length)));
  });
}

std::vector<FolderEntry> list_model_folder(const std::string& folder, std::string& error) {
  namespace fs = std::filesystem;
  std::vector<FolderEntry> folders, files;
  error.clear();
  std::error_code ec;
  fs::directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    error = folder + ": " + ec.message();
    return {};
  }
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) {
      error = folder + ": " + ec.message();
      break;
    }
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_error;
    if (it->is_directory(type_error)) {
      folders.push_back({name, true, 0});
    } else if (model_file_kind(name) != ModelFileKind::unknown) {
      std::error_code size_error;
      const auto size = it->file_size(size_error);
      files.push_back({name, false, size_error ? 0 : static_cast<long long>(size)});
    }
  }
  const auto by_name = [](const FolderEntry& a, const FolderEntry& b) { return a.name < b.name; };
  std::sort(folders.begin(), folders.end(), by_name);
  std::sort(files.begin(), files.end(), by_name);
  folders.insert(folders.end(), files.begin(), files.end());
  return folders;
}

}  // namespace vramfit
