// Shared test helpers: run an estimate from request JSON and fetch the figures.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/json.hpp"

#include "report/estimate.hpp"
#include "catalog/catalog.hpp"
#include "io/hf_config.hpp"
#include "io/request_json.hpp"

namespace vramfit::test {

// A file of validation/ (public logs and measurements, with their sources), parsed.
inline json validation_data(const std::string& path) {
  std::ifstream in(std::string(VRAMFIT_SOURCE_DIR) + "/validation/" + path);
  REQUIRE(in);
  return json::parse(in);
}

// The paths of the files in `folder` whose names end in `suffix`, sorted by name.
inline std::vector<std::string> files_in(const std::string& folder, const std::string& suffix) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

inline Report estimate_ok(const json& request_json) {
  auto request = request_from_json(request_json);
  INFO(request_json.dump());
  if (!request) FAIL("request rejected: " << request.error().message);
  auto report = estimate(*request, builtin_catalog());
  if (!report) FAIL("estimate failed: " << report.error().message);
  return std::move(report).value();
}

inline Error estimate_error(const json& request_json) {
  auto request = request_from_json(request_json);
  if (!request) return request.error();
  auto report = estimate(*request, builtin_catalog());
  if (report) FAIL("expected an error for " << request_json.dump());
  return report.error();
}

inline int64_t item_bytes(const Report& report, const std::string& id) {
  const BreakdownItem* item = find_item(report.breakdown, id);
  if (!item) FAIL("no breakdown item " << id);
  return item->bytes;
}

inline const ModelPreset& preset(const std::string& id) {
  const ModelPreset* p = builtin_catalog().find_model(id);
  if (!p) FAIL("no preset " << id);
  return *p;
}

inline const WeightFormat& format(const std::string& id) {
  const WeightFormat* f = builtin_catalog().formats.find_format(id);
  if (!f) FAIL("no format " << id);
  return *f;
}

inline const StorageType& storage(const std::string& id) {
  const int i = builtin_catalog().formats.find_storage(id);
  if (i < 0) FAIL("no storage type " << id);
  return builtin_catalog().formats.storage_types[static_cast<size_t>(i)];
}

}  // namespace vramfit::test
