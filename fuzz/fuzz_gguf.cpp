// libFuzzer: GGUF header bytes -> reader -> model -> estimate.
#include "fuzz_common.hpp"
#include "io/gguf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  auto gguf = read_gguf(data, static_cast<int64_t>(size), "fuzz.gguf", static_cast<int64_t>(size));
  if (!gguf) return 0;
  auto model = model_from_gguf(builtin_catalog().formats, *gguf, "fuzz.gguf");
  if (model) fuzz::estimate_model_file(*model);
  return 0;
}
