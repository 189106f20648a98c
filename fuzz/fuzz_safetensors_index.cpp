// libFuzzer: model.safetensors.index.json text -> reader -> model with a fixed config -> estimate.
#include "fuzz_common.hpp"
#include "io/hf_config.hpp"
#include "io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  auto index = read_safetensors_index(std::string(reinterpret_cast<const char*>(data), size), "fuzz.index.json");
  if (!index) return 0;
  static const json config = write_hf_config(builtin_catalog().find_model("llama-3.2-1b")->spec);
  auto model = model_from_safetensors_index(*index, config, "fuzz.index.json");
  if (model) fuzz::estimate_model_file(*model);
  return 0;
}
