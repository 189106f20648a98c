// How much of a model file to read: the one policy the CLI, the desktop app and the page
// (through the JavaScript API) follow, so a file that opens in one opens in all three.
// Only headers are read, never tensor data:
//   GGUF         the first 1 MiB, then 4x more while the reader says the header runs on
//                (gguf.truncated), up to GgufLimits::max_header_bytes (256 MiB)
//   safetensors  the 8-byte length, then 8 + that length (at most the format's 100 MB + 1,
//                so the reader can say it is too long)
//   config.json  the whole file, up to kMaxConfigFileBytes (64 MiB); a larger one is refused
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace vramfit {

enum class ModelFileKind { unknown, gguf, safetensors, config };

constexpr int64_t kFirstGgufReadBytes = int64_t(1) << 20;
constexpr int64_t kMaxConfigFileBytes = int64_t(64) << 20;

// By the name's extension (any case): .gguf, .safetensors, .json (a config.json).
ModelFileKind model_file_kind(std::string_view name);
// "gguf", "safetensors", "config" ("" for unknown): the kind names read_model_file_json takes.
const char* model_file_kind_name(ModelFileKind kind);
// The part of a path after its last '/' or '\'.
std::string base_name(std::string_view path);

// The length of the next prefix to read, from the start of the file. Before the first read
// (previous_length 0) it is the first length, read even when 0 (an empty file); after that
// it is longer than previous_length, or 0: stop, give the reader's last answer.
//   previous_length  the prefix read last (0 before the first read)
//   prefix           its bytes (may be null when previous_length is 0)
//   header_runs_on   the reader's verdict on that prefix: gguf.truncated
int64_t next_header_read(ModelFileKind kind, int64_t file_size, int64_t previous_length, const uint8_t* prefix,
                         bool header_runs_on);

}  // namespace vramfit
