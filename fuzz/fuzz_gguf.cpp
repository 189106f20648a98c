// libFuzzer: GGUF header bytes -> reader -> model -> estimate; the same header as a LoRA
// adapter and a multimodal projector, placed by llama.cpp's rules beside a preset.
#include "fuzz_common.hpp"
#include "core/llamacpp.hpp"
#include "io/gguf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  auto gguf = read_gguf(data, static_cast<int64_t>(size), "fuzz.gguf", static_cast<int64_t>(size));
  if (!gguf) return 0;
  const FormatTables& tables = builtin_catalog().formats;
  auto model = model_from_gguf(tables, *gguf, "fuzz.gguf");
  if (model) fuzz::estimate_model_file(*model);
  LlamaCppSettings settings;
  if (auto lora = lora_from_gguf(tables, *gguf, "fuzz.gguf"); lora && lora->pairs.layer.size() <= 64) settings.lora.push_back(*lora);
  if (auto mmproj = mmproj_from_gguf(tables, *gguf, "fuzz.gguf")) {
    settings.mmproj = *mmproj;
    settings.has_mmproj = true;
  }
  if (!settings.lora.empty() || settings.has_mmproj) {
    const ModelSpec& spec = builtin_catalog().models.front().spec;
    const LlamaCppMemory memory = llamacpp_memory(tables, spec, llamacpp_weights(tables, spec, *tables.find_format("gguf-q4_k_m")),
                                                  settings, {int64_t(24) << 30, int64_t(24) << 30});
    fuzz::require(memory.gpus[0].total() >= 0 && memory.host.total() >= 0, "negative buffers");
  }
  return 0;
}
