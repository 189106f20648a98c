#include "files.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "api/estimate.hpp"

namespace vramfit {

namespace {
std::string lower_case(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}
bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::string model_file_kind(const std::string& path) {
  const std::string lower = lower_case(path);
  return ends_with(lower, ".gguf") ? "gguf" : ends_with(lower, ".safetensors") ? "safetensors" : ends_with(lower, ".json") ? "config" : "";
}

// Reads as much of the file as its header needs: GGUF from 1 MiB up (x4 while the header
// runs on), safetensors its stated header length, a config the whole file (up to 64 MiB).
json read_model_file(const std::string& path) {
  const std::string kind = model_file_kind(path);
  const std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  if (kind.empty()) return {{"error", {{"message", name + ": not a .gguf, .safetensors or config .json file"}}}};
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return {{"error", {{"message", "cannot open " + path + ": not a file"}}}};
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const int64_t size = in ? static_cast<int64_t>(in.tellg()) : -1;
  if (size < 0) return {{"error", {{"message", "cannot open " + path}}}};
  for (int64_t limit = kind == "gguf" ? (int64_t(1) << 20) : (int64_t(64) << 20);; limit *= 4) {
    std::vector<uint8_t> bytes(static_cast<size_t>(std::min(size, limit)));
    in.seekg(0);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (kind == "safetensors" && bytes.size() >= 8) {
      uint64_t header = 0;
      for (int i = 7; i >= 0; --i) header = (header << 8) | bytes[static_cast<size_t>(i)];
      if (header + 8 > bytes.size() && header + 8 <= static_cast<uint64_t>(size) && header < (uint64_t(100) << 20)) {
        bytes.resize(static_cast<size_t>(header + 8));
        in.seekg(0);
        in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      }
    }
    json result = read_model_file_json(kind, bytes.data(), static_cast<int64_t>(bytes.size()), size, name);
    const bool truncated = result.contains("error") && result["error"].value("id", std::string()) == "gguf.truncated";
    if (!truncated || limit >= size || limit >= (int64_t(256) << 20)) return result;
  }
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
    } else if (!model_file_kind(name).empty()) {
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
