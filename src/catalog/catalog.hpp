// The built-in catalogs: GPUs, model presets, weight formats. The JSON files in data/ are
// compiled into every binary (cmake/embed.cmake), so the page needs no extra downloads.
#pragma once
#include <string>
#include <vector>

#include "core/fit.hpp"
#include "core/formats.hpp"
#include "core/model_spec.hpp"
#include "core/result.hpp"

namespace vramfit {

struct ModelPreset {
  std::string id, name, family, hf_repo, note;
  int64_t published_parameters = 0;  // from the checkpoint; 0 where none is published
  ModelSpec spec;
};

struct Catalog {
  FormatTables formats;
  std::vector<Gpu> gpus;
  std::vector<ModelPreset> models;

  const Gpu* find_gpu(const std::string& id) const;
  const ModelPreset* find_model(const std::string& id) const;
  // The preset of a Hugging Face repository id (case does not matter), or of a repository whose
  // name extends one (meta-llama/Llama-3.1-8B-Instruct: the shapes of meta-llama/Llama-3.1-8B);
  // nullptr when none.
  const ModelPreset* find_model_by_repo(const std::string& repo) const;
};

// Parsed once, on first use, from the embedded data/ files. A malformed data file is a
// build bug: the tests load the catalog and fail on it.
const Catalog& builtin_catalog();
// Empty when the built-in catalog loaded; else what was wrong with data/.
const std::string& builtin_catalog_error();
Result<Catalog> parse_catalog(const std::string& gpus_json, const std::string& formats_json,
                              const std::string& models_json);

// Raw embedded files ("gpus.json", "weight_formats.json", "models.json"); empty if unknown.
std::string embedded_data_file(const std::string& name);

}  // namespace vramfit
