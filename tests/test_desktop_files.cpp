// The desktop app's model files on disk: the Open dialog's folder listing and reading a
// file's header into request fields (src/platform/desktop/files.cpp).
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "helpers.hpp"
#include "io/header_reads.hpp"
#include "platform/desktop/files.hpp"

using namespace vramfit;
namespace fs = std::filesystem;

namespace {
// A fresh folder under the system's temporary folder, removed at the end of the test.
struct TempFolder {
  fs::path path;
  TempFolder() {
    path = fs::temp_directory_path() / ("vramfit-test-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempFolder() { std::error_code ec; fs::remove_all(path, ec); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};
}  // namespace

TEST_CASE("the Open dialog lists folders, then model files, by name; nothing else", "[desktop]") {
  TempFolder dir;
  fs::create_directories(dir.path / "zeta");
  fs::create_directories(dir.path / "alpha");
  fs::create_directories(dir.path / ".hidden");
  dir.write("model.safetensors", "12345678");
  dir.write("config.json", "{}");
  dir.write("b.GGUF", "GGUF");
  dir.write("notes.txt", "no");
  dir.write(".secret.json", "{}");
  std::string error;
  const auto entries = list_model_folder(dir.path.string(), error);
  CHECK(error.empty());
  REQUIRE(entries.size() == 5);
  CHECK(entries[0].name == "alpha");
  CHECK(entries[0].is_folder);
  CHECK(entries[1].name == "zeta");
  CHECK(entries[2].name == "b.GGUF");
  CHECK(entries[3].name == "config.json");
  CHECK(entries[4].name == "model.safetensors");
  CHECK(entries[4].size_bytes == 8);
  CHECK_FALSE(entries[4].is_folder);

  const auto missing = list_model_folder((dir.path / "nope").string(), error);
  CHECK(missing.empty());
  CHECK(error.find("nope") != std::string::npos);
}

TEST_CASE("a model file on disk reads into request fields; errors name the file", "[desktop]") {
  CHECK(model_file_kind("/m/Model.GGUF") == ModelFileKind::gguf);
  CHECK(model_file_kind("a.safetensors") == ModelFileKind::safetensors);
  CHECK(model_file_kind("config.json") == ModelFileKind::config);
  CHECK(model_file_kind("weights.bin") == ModelFileKind::unknown);

  const std::string config = std::string(VRAMFIT_FIXTURES_DIR) + "/configs/falcon-7b.json";
  const auto fragment = read_model_file(config);
  INFO(fragment.dump());
  REQUIRE_FALSE(fragment.contains("error"));
  CHECK(fragment["model"]["name"] == "falcon-7b.json");
  CHECK(fragment["model"]["config"]["num_hidden_layers"] == 32);

  TempFolder dir;
  CHECK(read_model_file((dir.path / "absent.gguf").string())["error"]["message"].get<std::string>().find("absent.gguf") != std::string::npos);
  CHECK(read_model_file(dir.path.string() + "/")["error"].is_object());  // a folder, not a file
  dir.write("weights.bin", "x");
  CHECK(read_model_file((dir.path / "weights.bin").string())["error"]["message"].get<std::string>().find("not a .gguf") != std::string::npos);
  dir.write("short.gguf", "GGUF");
  CHECK(read_model_file((dir.path / "short.gguf").string())["error"].is_object());
}
