// The config.json fixtures of tests/fixtures/configs (real files from the models' Hub
// repositories), read as a user's config.json is.
#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "core/model_spec.hpp"
#include "io/hf_config.hpp"

namespace vramfit::test {

inline std::string fixture_text(const std::string& name) {
  std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/configs/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline Result<HfConfigRead> read_fixture(const std::string& name) { return read_hf_config_text(fixture_text(name), name); }

// A fixture read with nothing assumed, at its published count, before and after a round trip
// through vramfit's own keys (links, the app's editor).
inline HfConfigRead read_published(const std::string& file, int64_t published) {
  INFO(file);
  auto read = read_fixture(file);
  REQUIRE(read);
  CHECK(count_parameters(read->spec) == published);
  CHECK(read->assumptions.empty());
  auto again = read_hf_config(write_hf_config(read->spec), "round trip");
  REQUIRE(again);
  CHECK(count_parameters(again->spec) == published);
  CHECK(again->spec.cached_layers() == read->spec.cached_layers());
  CHECK(again->spec.recurrent_state_elements() == read->spec.recurrent_state_elements());
  return *read;
}

}  // namespace vramfit::test
