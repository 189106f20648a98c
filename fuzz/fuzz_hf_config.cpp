// libFuzzer: config.json text -> model spec -> every weight format's summary.
#include "fuzz_common.hpp"
#include "io/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  auto read = read_hf_config_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!read) return 0;
  // Keep the work per input bounded: size only models a real machine could hold.
  if (read->spec.layers > 512 || count_parameters(read->spec) > (int64_t(1) << 44)) return 0;
  // The spec must survive its own config round trip, then size in a few formats.
  auto again = read_hf_config(write_hf_config(read->spec), "fuzz.json");
  fuzz::require(again.ok(), "a read config failed to re-read");
  fuzz::require(count_parameters(again->spec) == count_parameters(read->spec), "config round trip changed the count");
  const FormatTables& tables = builtin_catalog().formats;
  for (const char* id : {"bf16", "gguf-q4_k_m", "gptq-int4", "bnb-nf4-dq"}) {
    const WeightsSummary w = summarize_weights(tables, *tables.find_format(id), read->spec, 0);
    fuzz::require(w.bytes >= 0, "negative weight bytes");
  }
  return 0;
}
