#include "catalog.hpp"

#include <cctype>
#include <cmath>

#include "io/json.hpp"

#include "embedded_catalog_files.hpp"
#include "io/hf_config.hpp"

namespace vramfit {

const Gpu* Catalog::find_gpu(const std::string& id) const {
  for (const Gpu& g : gpus) if (g.id == id) return &g;
  return nullptr;
}

const ModelPreset* Catalog::find_model(const std::string& id) const {
  for (const ModelPreset& m : models) if (m.id == id) return &m;
  return nullptr;
}

const ModelPreset* Catalog::find_model_by_repo(const std::string& repo) const {
  auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  const std::string wanted = lower(repo);
  const ModelPreset* best = nullptr;
  for (const ModelPreset& p : models) {
    const std::string own = lower(p.hf_repo);
    if (own.empty()) continue;
    if (wanted == own) return &p;
    if (wanted.rfind(own + "-", 0) == 0 && (!best || best->hf_repo.size() < p.hf_repo.size())) best = &p;
  }
  return best;
}

namespace {

Error data_error(const std::string& file, const std::string& what) {
  return make_error("catalog.invalid", file, file + ": " + what);
}

template <class T>
T get_or(const json& object, const char* key, T fallback) {
  if (!object.contains(key) || object.at(key).is_null()) return fallback;
  return object.at(key).get<T>();
}

int storage_ref(const FormatTables& t, const json& object, const char* key) {
  if (!object.contains(key)) return -1;
  return t.find_storage(object.at(key).get<std::string>());
}

Result<FormatTables> parse_formats(const json& root) {
  FormatTables t;
  for (const json& s : root.at("storage_types")) {
    StorageType type;
    type.id = s.at("id").get<std::string>();
    type.label = s.at("label").get<std::string>();
    type.grouped = get_or<bool>(s, "grouped", false);
    if (type.grouped) {
      type.bits = s.at("bits").get<int64_t>();
      type.group_overhead_bits = s.at("group_overhead_bits").get<int64_t>();
      type.block_elements = 128;  // replaced by the request's group size
      type.block_bits = 128 * type.bits + type.group_overhead_bits;
    } else {
      type.block_elements = s.at("block_elements").get<int64_t>();
      type.block_bits = 8 * s.at("block_bytes").get<int64_t>();
    }
    type.super_block_blocks = get_or<int64_t>(s, "super_block_blocks", 0);
    type.super_block_bytes = get_or<int64_t>(s, "super_block_bytes", 0);
    type.per_tensor_bytes = get_or<int64_t>(s, "per_tensor_bytes", 0);
    type.per_input_row_bytes = get_or<int64_t>(s, "per_input_row_bytes", 0);
    type.per_output_row_bytes = get_or<int64_t>(s, "per_output_row_bytes", 0);
    type.ggml_type = get_or<int>(s, "ggml_type", -1);
    type.note = get_or<std::string>(s, "note", "");
    // bitsandbytes quantizes the flattened tensor in blocks of 64.
    type.blocks_span_rows = type.id == "nf4" || type.id == "nf4_dq" || type.id == "fp4";
    t.storage_types.push_back(type);
  }
  t.gguf_fallback.assign(t.storage_types.size(), -1);
  for (auto it = root.at("gguf_fallback").begin(); it != root.at("gguf_fallback").end(); ++it) {
    const int from = t.find_storage(it.key()), to = t.find_storage(it.value().get<std::string>());
    if (from < 0 || to < 0) return data_error("weight_formats.json", "gguf_fallback names an unknown type: " + it.key());
    t.gguf_fallback[static_cast<size_t>(from)] = to;
  }
  for (auto it = root.at("gguf_mixes").begin(); it != root.at("gguf_mixes").end(); ++it) {
    GgufMix mix;
    mix.id = it.key();
    mix.base = storage_ref(t, it.value(), "base");
    mix.output = storage_ref(t, it.value(), "output");
    mix.experts = storage_ref(t, it.value(), "experts");
    if (mix.base < 0 || mix.output < 0) return data_error("weight_formats.json", "mix " + mix.id + " names an unknown type");
    for (const json& r : get_or<json>(it.value(), "rules", json::array())) {
      GgufMixRule rule;
      rule.tensor = r.at("tensor").get<std::string>();
      rule.layers = get_or<std::string>(r, "layers", "");
      rule.cond = get_or<std::string>(r, "cond", "");
      rule.type = storage_ref(t, r, "type");
      if (rule.type < 0) return data_error("weight_formats.json", "mix " + mix.id + ": a rule names an unknown type");
      mix.rules.push_back(rule);
    }
    t.mixes.push_back(mix);
  }
  for (const json& f : root.at("formats")) {
    WeightFormat format;
    format.id = f.at("id").get<std::string>();
    format.label = f.at("label").get<std::string>();
    format.group_size = get_or<int64_t>(f, "group_size", 0);
    if (f.contains("mix")) {
      const std::string mix = f.at("mix").get<std::string>();
      for (size_t i = 0; i < t.mixes.size(); ++i) if (t.mixes[i].id == mix) format.mix = static_cast<int>(i);
      if (format.mix < 0) return data_error("weight_formats.json", "format " + format.id + " names an unknown mix");
      format.default_type = t.mixes[static_cast<size_t>(format.mix)].base;
    } else {
      format.default_type = storage_ref(t, f, "default");
      if (format.default_type < 0) return data_error("weight_formats.json", "format " + format.id + " has an unknown default");
      const json keep = get_or<json>(f, "keep", json::object());
      format.token_embd_type = storage_ref(t, keep, "token_embd");
      format.output_type = storage_ref(t, keep, "output");
      format.vector_type = storage_ref(t, keep, "vector");
      format.router_type = storage_ref(t, keep, "router");
      format.experts_type = storage_ref(t, keep, "experts");
    }
    t.formats.push_back(format);
  }
  return t;
}

}  // namespace

Result<Catalog> parse_catalog(const std::string& gpus_text, const std::string& formats_text,
                              const std::string& models_text) {
  const json gpus = parse_json(gpus_text);
  const json formats = parse_json(formats_text);
  const json models = parse_json(models_text);
  if (gpus.is_discarded()) return data_error("gpus.json", "not valid JSON");
  if (formats.is_discarded()) return data_error("weight_formats.json", "not valid JSON");
  if (models.is_discarded()) return data_error("models.json", "not valid JSON");
  // The data files are ours and tested; a file edited into the wrong shape (json::at or
  // get<T> throwing) is reported, not a crash, wherever exceptions are on.
  return guard_exceptions(
      [&]() -> Result<Catalog> {
        Catalog c;
        auto tables = parse_formats(formats);
        if (!tables) return tables.error();
        c.formats = std::move(tables).value();
        for (const json& g : gpus.at("gpus")) {
          Gpu gpu;
          gpu.id = g.at("id").get<std::string>();
          gpu.name = g.at("name").get<std::string>();
          gpu.vendor = g.at("vendor").get<std::string>();
          gpu.segment = g.at("segment").get<std::string>();
          gpu.basis = get_or<std::string>(g, "basis", "");    // the page's catalog leaves these out
          gpu.source = get_or<std::string>(g, "source", "");  // (tests/test_catalog.cpp: every GPU has both)
          gpu.total_bytes = g.at("capacity_mib").get<int64_t>() * kMiB;
          gpu.usable_fraction = get_or<double>(g, "usable_fraction", 1.0);
          gpu.bf16_tflops = get_or<double>(g, "bf16_tflops", 0.0);
          gpu.fp16_acc_tflops = get_or<double>(g, "fp16_acc_tflops", 0.0);
          gpu.fp8_tflops = get_or<double>(g, "fp8_tflops", 0.0);
          gpu.int8_tops = get_or<double>(g, "int8_tops", 0.0);
          gpu.cuda_total_bytes = static_cast<int64_t>(std::llround(get_or<double>(g, "cuda_total_gib", 0.0) * static_cast<double>(kGiB)));
          gpu.bandwidth_gbs = g.at("bandwidth_gbs").get<double>();
          c.gpus.push_back(gpu);
        }
        for (const json& m : models.at("models")) {
          ModelPreset preset;
          preset.id = m.at("id").get<std::string>();
          preset.name = m.at("name").get<std::string>();
          preset.family = m.at("family").get<std::string>();
          preset.hf_repo = get_or<std::string>(m, "hf_repo", "");
          preset.note = get_or<std::string>(m, "note", "");
          preset.published_parameters = get_or<int64_t>(m, "published_parameters", 0);
          auto read = read_hf_config(m.at("config"), "models.json: " + preset.id);
          if (!read) return read.error();
          preset.spec = read->spec;
          c.models.push_back(preset);
        }
        return c;
      },
      [](const char* what) -> Result<Catalog> { return data_error("data/", std::string("unexpected shape: ") + what); });
}

std::string embedded_data_file(const std::string& name) {
  for (const EmbeddedFile& f : embedded_catalog_files()) {
    if (name == f.name) return std::string(f.data, f.size);
  }
  return {};
}

namespace {
struct LoadedCatalog {
  Catalog catalog;
  std::string error;
};

const LoadedCatalog& loaded_catalog() {
  static const LoadedCatalog loaded = [] {
    auto parsed = parse_catalog(embedded_data_file("gpus.json"), embedded_data_file("weight_formats.json"),
                                embedded_data_file("models.json"));
    if (!parsed) return LoadedCatalog{Catalog{}, parsed.error().message};
    return LoadedCatalog{std::move(parsed).value(), ""};
  }();
  return loaded;
}
}  // namespace

const Catalog& builtin_catalog() { return loaded_catalog().catalog; }
const std::string& builtin_catalog_error() { return loaded_catalog().error; }

}  // namespace vramfit
