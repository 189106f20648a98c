#include "header_reads.hpp"

#include <algorithm>
#include <cctype>

#include "gguf.hpp"
#include "safetensors.hpp"

namespace vramfit {

namespace {
bool ends_with_any_case(std::string_view text, std::string_view suffix) {
  if (text.size() < suffix.size()) return false;
  const std::string_view tail = text.substr(text.size() - suffix.size());
  return std::equal(tail.begin(), tail.end(), suffix.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
}
}  // namespace

ModelFileKind model_file_kind(std::string_view name) {
  if (ends_with_any_case(name, ".gguf")) return ModelFileKind::gguf;
  if (ends_with_any_case(name, ".safetensors")) return ModelFileKind::safetensors;
  if (ends_with_any_case(name, ".json")) return ModelFileKind::config;
  return ModelFileKind::unknown;
}

const char* model_file_kind_name(ModelFileKind kind) {
  switch (kind) {
    case ModelFileKind::gguf: return "gguf";
    case ModelFileKind::safetensors: return "safetensors";
    case ModelFileKind::config: return "config";
    case ModelFileKind::unknown: break;
  }
  return "";
}

std::string base_name(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

namespace {
int64_t wanted_read(ModelFileKind kind, int64_t file_size, int64_t previous_length, const uint8_t* prefix,
                    bool header_runs_on) {
  switch (kind) {
    case ModelFileKind::gguf: {
      if (previous_length == 0) return std::min(kFirstGgufReadBytes, file_size);
      const int64_t cap = std::min(GgufLimits::max_header_bytes, file_size);
      if (!header_runs_on || previous_length >= cap) return 0;
      return std::min(previous_length * 4, cap);
    }
    case ModelFileKind::safetensors: {
      if (previous_length == 0) return std::min<int64_t>(8, file_size);
      if (previous_length != 8 || prefix == nullptr) return 0;
      uint64_t header = 0;
      for (int i = 7; i >= 0; --i) header = (header << 8) | prefix[i];
      // Past the format's limit the reader needs only to see the length to refuse it.
      const uint64_t wanted = 8 + std::min<uint64_t>(header, static_cast<uint64_t>(SafetensorsLimits::max_header_bytes) + 1);
      return static_cast<int64_t>(std::min<uint64_t>(wanted, static_cast<uint64_t>(file_size)));
    }
    case ModelFileKind::config:
      return previous_length == 0 ? std::min(file_size, kMaxConfigFileBytes) : 0;
    case ModelFileKind::unknown: break;
  }
  return 0;
}
}  // namespace

int64_t next_header_read(ModelFileKind kind, int64_t file_size, int64_t previous_length, const uint8_t* prefix,
                         bool header_runs_on) {
  file_size = std::max<int64_t>(file_size, 0);
  const int64_t wanted = wanted_read(kind, file_size, previous_length, prefix, header_runs_on);
  if (previous_length == 0) return wanted;         // the first read, even of nothing
  return wanted > previous_length ? wanted : 0;  // only ever longer prefixes
}

}  // namespace vramfit
