#include "model_files.hpp"

#include <algorithm>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "io/header_reads.hpp"
#include "io/hf_config.hpp"
#include "io/hub_ref.hpp"
#include "io/model_file.hpp"

namespace vramfit {

namespace {

// Reads the first bytes of a file, up to `limit`.
bool read_prefix(const std::string& path, int64_t limit, std::vector<uint8_t>& bytes, int64_t& file_size) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  file_size = static_cast<int64_t>(in.tellg());
  in.seekg(0);
  bytes.resize(static_cast<size_t>(std::min(file_size, limit)));
  return static_cast<bool>(in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())));
}

// The size of a file in bytes; -1 when it cannot be opened.
int64_t file_size_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  return in ? static_cast<int64_t>(in.tellg()) : -1;
}

// A GGUF file's header, read under the header-reading policy every front end follows
// (io/header_reads.hpp).
Result<GgufFile> read_gguf_header(const std::string& path) {
  std::vector<uint8_t> bytes;
  int64_t size = file_size_of(path);
  if (size < 0) return make_error("io", "", "cannot read " + path);
  Result<GgufFile> gguf = make_error("", "", "");
  for (int64_t length = next_header_read(ModelFileKind::gguf, size, 0, nullptr, false);;) {
    if (!read_prefix(path, length, bytes, size)) return make_error("io", "", "cannot read " + path);
    gguf = read_gguf(bytes.data(), static_cast<int64_t>(bytes.size()), base_name(path), size);
    const bool runs_on = !gguf && gguf.error().id == "gguf.truncated";
    length = next_header_read(ModelFileKind::gguf, size, length, bytes.data(), runs_on);
    if (length == 0) break;
  }
  return gguf;
}

// The model a GGUF file describes.
Result<ModelFileRead> read_gguf_file(const std::string& path, const Catalog& catalog) {
  auto gguf = read_gguf_header(path);
  if (!gguf) return gguf.error();
  return model_from_gguf(catalog.formats, *gguf, base_name(path));
}

}  // namespace

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

// --draft-gguf (llama.cpp's -md): the draft model's weights from its file.
bool read_draft_file(const InferOptions& o, const Catalog& catalog, Request& request, std::ostream& err) {
  if (o.draft_gguf.empty()) return true;
  auto read = read_gguf_file(o.draft_gguf, catalog);
  auto draft = std::make_shared<Request>(request.draft ? *request.draft : Request{});
  std::optional<Error> e = read ? apply_model_file(*draft, *read) : read.error();
  if (!e && request.engine != Engine::llamacpp && request.engine != Engine::vllm) {
    e = make_error("request.bad_value", "draft", "a draft model (speculative decoding) is for engine llama.cpp or vllm");
  }
  if (e) {
    err << "error: --draft-gguf: " << e->message << "\n";
    return false;
  }
  request.draft = draft;
  return true;
}

// --lora-gguf (llama.cpp's --lora): each adapter's pairs from its header; --mmproj-gguf
// (--mmproj): the projector's weights and its vision tower's sizes.
bool read_lora_files(const InferOptions& o, const Catalog& catalog, Request& request, std::ostream& err) {
  for (const std::string& path : o.lora_gguf) {
    auto fail = [&](const std::string& message) {
      err << "error: --lora-gguf: " << message << "\n";
      return false;
    };
    if (request.engine != Engine::llamacpp) return fail("a LoRA adapter file is for engine llama.cpp");
    auto gguf = read_gguf_header(path);
    if (!gguf) return fail(gguf.error().message);
    auto lora = lora_from_gguf(catalog.formats, *gguf, base_name(path));
    if (!lora) return fail(lora.error().message);
    request.llamacpp.lora.push_back(std::move(lora).value());
  }
  if (!o.mmproj_gguf.empty()) {  // --mmproj-gguf (llama.cpp's --mmproj)
    auto fail = [&](const std::string& message) {
      err << "error: --mmproj-gguf: " << message << "\n";
      return false;
    };
    if (request.engine != Engine::llamacpp) return fail("a multimodal projector file is for engine llama.cpp");
    auto gguf = read_gguf_header(o.mmproj_gguf);
    if (!gguf) return fail(gguf.error().message);
    auto mmproj = mmproj_from_gguf(catalog.formats, *gguf, base_name(o.mmproj_gguf));
    if (!mmproj) return fail(mmproj.error().message);
    request.llamacpp.mmproj = std::move(mmproj).value();
    request.llamacpp.has_mmproj = true;
  }
  return true;
}

// --gguf / --safetensors / --safetensors-index: read headers only, as the page does.
bool read_model_files(const InferOptions& o, const Catalog& catalog, Request& request, std::ostream& err) {
  auto fail = [&](const char* option, const Error& e) {
    err << "error: " << option << ": " << e.message << "\n";
    return false;
  };
  json config;
  bool has_config = false;
  if (!o.config_file.empty()) {  // the architecture beside --safetensors / --safetensors-index
    std::string text;
    read_file(o.config_file, text);
    config = parse_json(text);
    has_config = !config.is_discarded();
  }
  Result<ModelFileRead> read = make_error("", "", "");
  const char* option = "";
  if (!o.gguf_file.empty()) {
    option = "--gguf";
    read = read_gguf_file(o.gguf_file, catalog);
  } else if (!o.safetensors_files.empty()) {
    option = "--safetensors";
    std::vector<SafetensorsFile> shards;
    std::vector<std::string> names;
    for (const std::string& path : o.safetensors_files) {
      std::vector<uint8_t> bytes;
      int64_t size = file_size_of(path);
      if (size < 0) return fail(option, make_error("io", "", "cannot read " + path));
      // The header-reading policy every front end follows (io/header_reads.hpp): the length, then the header.
      for (int64_t length = next_header_read(ModelFileKind::safetensors, size, 0, nullptr, false);;) {
        if (!read_prefix(path, length, bytes, size)) return fail(option, make_error("io", "", "cannot read " + path));
        length = next_header_read(ModelFileKind::safetensors, size, length, bytes.data(), false);
        if (length == 0) break;
      }
      auto file = read_safetensors(bytes.data(), static_cast<int64_t>(bytes.size()), base_name(path), size);
      if (!file) return fail(option, file.error());
      shards.push_back(std::move(file).value());
      names.push_back(base_name(path));
    }
    read = model_from_safetensors(shards, has_config ? &config : nullptr, names);
  } else if (!o.index_file.empty()) {
    option = "--safetensors-index";
    if (!has_config) return fail(option, make_error("io", "", "needs --config: the index lists no shapes"));
    std::string text;
    if (!read_file(o.index_file, text)) return fail(option, make_error("io", "", "cannot read " + o.index_file));
    auto index = read_safetensors_index(text, base_name(o.index_file));
    if (!index) return fail(option, index.error());
    read = model_from_safetensors_index(*index, config, base_name(o.index_file));
  } else {
    return true;
  }
  if (!read) return fail(option, read.error());
  if (auto e = apply_model_file(request, *read)) return fail(option, *e);
  return true;
}

bool resolve_vllm_model(const std::string& model, const Catalog& catalog, std::string& gguf_file, std::string& config_file,
                        std::string& preset, std::string* hub_id, std::ostream& err) {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  const std::string wanted = lower(model);
  if (wanted.size() > 5 && wanted.compare(wanted.size() - 5, 5, ".gguf") == 0) {
    gguf_file = model;
    return true;
  }
  std::string text;
  if (read_file(model + "/config.json", text)) {
    config_file = model + "/config.json";
    return true;
  }
  const ModelPreset* best = catalog.find_model_by_repo(model);
  if (!best && hub_id && parse_hub_ref(model)) {
    *hub_id = model;
    return true;
  }
  if (!best) {
    err << "error: " << model << ": no preset has this model: give its config.json with "
        << "--config, a preset with -m (vramfit models), or the local folder vLLM reads\n";
    return false;
  }
  if (lower(best->hf_repo) != wanted) err << "note: " << model << " is read as the preset " << best->id << " (" << best->hf_repo << "): the same shapes\n";
  preset = best->id;
  return true;
}

// A config.json as the request's model; a quantized checkpoint is sized in the format it is
// stored in, unless -w says otherwise (stored_format_wanted false).
void config_into_request(const json& config, const std::string& name, bool stored_format_wanted, json& request) {
  request["model"] = {{"config", config}, {"name", name}};
  auto read = read_hf_config(config, name);
  if (read && !read->stored_format.empty() && stored_format_wanted) {
    request["weights"]["format"] = read->stored_format;
    if (read->stored_group_size > 0) request["weights"]["group_size"] = read->stored_group_size;
  }
}

}  // namespace vramfit
