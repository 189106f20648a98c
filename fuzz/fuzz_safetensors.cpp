// libFuzzer: safetensors header bytes -> reader -> model (names only) -> estimate.
#include "fuzz_common.hpp"
#include "io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  auto file = read_safetensors(data, static_cast<int64_t>(size), "fuzz.safetensors", static_cast<int64_t>(size));
  if (!file) return 0;
  auto model = model_from_safetensors({*file}, nullptr, {"fuzz.safetensors"});
  if (model) fuzz::estimate_model_file(*model);
  return 0;
}
