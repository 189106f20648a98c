// The one header-reading policy (src/io/header_reads.cpp) that the CLI, the desktop app and the
// page's JavaScript API follow: what each reads first, when it reads more, where it stops.
#include <vector>

#include "helpers.hpp"
#include "io/gguf.hpp"
#include "io/header_reads.hpp"
#include "io/safetensors.hpp"

using namespace vramfit;

TEST_CASE("model files are told apart by extension, in any case", "[reads]") {
  CHECK(model_file_kind("Meta-Llama-3.1-8B-Instruct-Q4_K_M.GGUF") == ModelFileKind::gguf);
  CHECK(model_file_kind("model-00001-of-00004.safetensors") == ModelFileKind::safetensors);
  CHECK(model_file_kind("config.JSON") == ModelFileKind::config);
  CHECK(model_file_kind("pytorch_model.bin") == ModelFileKind::unknown);
  CHECK(model_file_kind("gguf") == ModelFileKind::unknown);
  CHECK(std::string(model_file_kind_name(ModelFileKind::config)) == "config");
  CHECK(base_name("/models/qwen/config.json") == "config.json");
  CHECK(base_name("C:\\models\\x.gguf") == "x.gguf");
  CHECK(base_name("x.gguf") == "x.gguf");
}

TEST_CASE("a GGUF is read from 1 MiB up, 4x while the header runs on, up to 256 MiB", "[reads]") {
  const int64_t gib = int64_t(40) << 30;  // a 40 GiB file: only its header is read
  CHECK(next_header_read(ModelFileKind::gguf, gib, 0, nullptr, false) == (int64_t(1) << 20));
  CHECK(next_header_read(ModelFileKind::gguf, gib, int64_t(1) << 20, nullptr, false) == 0);  // the header ended
  CHECK(next_header_read(ModelFileKind::gguf, gib, int64_t(1) << 20, nullptr, true) == (int64_t(4) << 20));
  CHECK(next_header_read(ModelFileKind::gguf, gib, int64_t(64) << 20, nullptr, true) == GgufLimits::max_header_bytes);
  CHECK(next_header_read(ModelFileKind::gguf, gib, GgufLimits::max_header_bytes, nullptr, true) == 0);
  // A small file is read whole, once.
  CHECK(next_header_read(ModelFileKind::gguf, 5000, 0, nullptr, false) == 5000);
  CHECK(next_header_read(ModelFileKind::gguf, 5000, 5000, nullptr, true) == 0);
  CHECK(next_header_read(ModelFileKind::gguf, 0, 0, nullptr, false) == 0);  // an empty file: one read of nothing
}

TEST_CASE("a safetensors file is read as its 8-byte length, then that header", "[reads]") {
  std::vector<uint8_t> length(8, 0);
  length[0] = 0x10;  // 0x2710 = 10,000 bytes of header
  length[1] = 0x27;
  const int64_t file = int64_t(5) << 30;
  CHECK(next_header_read(ModelFileKind::safetensors, file, 0, nullptr, false) == 8);
  CHECK(next_header_read(ModelFileKind::safetensors, file, 8, length.data(), false) == 8 + 10000);
  CHECK(next_header_read(ModelFileKind::safetensors, file, 8 + 10000, length.data(), false) == 0);
  // A header longer than the file: read to the end, and the reader says what is wrong.
  CHECK(next_header_read(ModelFileKind::safetensors, 9000, 8, length.data(), false) == 9000);
  // A stated length past the format's limit: one byte past the limit, enough to refuse it.
  std::vector<uint8_t> huge(8, 0xff);
  huge[7] = 0x7f;
  CHECK(next_header_read(ModelFileKind::safetensors, file, 8, huge.data(), false) ==
        8 + SafetensorsLimits::max_header_bytes + 1);
  CHECK(next_header_read(ModelFileKind::safetensors, 5, 0, nullptr, false) == 5);  // shorter than the length field
  CHECK(next_header_read(ModelFileKind::safetensors, 5, 5, length.data(), false) == 0);
}

TEST_CASE("a config.json is read whole, up to 64 MiB; a larger one is refused by name", "[reads]") {
  const int64_t twenty_mib = int64_t(20) << 20;  // opens in the CLI, on the desktop and in the page alike
  CHECK(next_header_read(ModelFileKind::config, twenty_mib, 0, nullptr, false) == twenty_mib);
  CHECK(next_header_read(ModelFileKind::config, twenty_mib, twenty_mib, nullptr, false) == 0);
  CHECK(next_header_read(ModelFileKind::config, int64_t(65) << 20, 0, nullptr, false) == kMaxConfigFileBytes);
  const std::string text = "{}";
  const json too_large = read_model_file_json("config.json", reinterpret_cast<const uint8_t*>(text.data()), 2,
                                              int64_t(65) << 20);
  REQUIRE(too_large.contains("error"));
  CHECK(too_large["error"]["id"] == "file.too_large");
  CHECK(too_large["error"]["message"].get<std::string>().find("config.json") != std::string::npos);
}

TEST_CASE("the reading loop over a GGUF whose header passes the first slice reads it whole", "[reads]") {
  // A GGUF header longer than 1 MiB: a string value of 1.5 MiB in the metadata.
  std::vector<uint8_t> file;
  auto u32 = [&](uint32_t v) { for (int i = 0; i < 4; ++i) file.push_back(static_cast<uint8_t>(v >> (8 * i))); };
  auto u64 = [&](uint64_t v) { for (int i = 0; i < 8; ++i) file.push_back(static_cast<uint8_t>(v >> (8 * i))); };
  auto str = [&](const std::string& s) { u64(s.size()); file.insert(file.end(), s.begin(), s.end()); };
  file.insert(file.end(), {'G', 'G', 'U', 'F'});
  u32(3);
  u64(0);  // tensors
  u64(1);  // metadata keys
  str("general.description");
  u32(8);  // string
  str(std::string(3 << 19, 'x'));
  std::vector<int64_t> reads;
  const json result = read_model_file_header_json("long.gguf", static_cast<int64_t>(file.size()) + (int64_t(1) << 30),
                                                  [&](int64_t length, std::vector<uint8_t>& bytes) {
                                                    reads.push_back(length);
                                                    const int64_t n = std::min<int64_t>(length, static_cast<int64_t>(file.size()));
                                                    bytes.assign(file.begin(), file.begin() + n);
                                                    return true;
                                                  });
  REQUIRE(reads.size() == 2);
  CHECK(reads[0] == (int64_t(1) << 20));
  CHECK(reads[1] == (int64_t(4) << 20));
  // The header was read whole: what is wrong now is the model (no architecture), not truncation.
  REQUIRE(result.contains("error"));
  CHECK(result["error"]["id"] != "gguf.truncated");
}
