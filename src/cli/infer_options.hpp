// The options of `vramfit infer` (cli.cpp declares them with CLI11; model_files.cpp reads the
// model files they name).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hub_option.hpp"

namespace vramfit {

// Options of `vramfit infer`; each one given on the command line overrides the request.
struct InferOptions {
  std::string gguf_file, index_file;
  std::vector<std::string> safetensors_files;
  std::string request_file, config_file, model, weights, kv, gpu, overhead, units, engine, command, lang;
  std::string draft, draft_weights, draft_gguf, draft_config;  // speculative decoding's draft model
  std::vector<std::string> lora_gguf;  // llama.cpp's --lora adapter files
  std::string mmproj_gguf;             // llama.cpp's --mmproj file
  std::vector<std::string> gpus;
  // engine "transformers": from_pretrained's and generate's arguments
  std::string device_map, attn_implementation, transformers_version, bnb_4bit_compute_dtype;
  std::string sglang_version;  // engine "sglang": the release
  int64_t llama_build = -1;    // engine "llama.cpp": the build number (0: the newest; -1: not given)
  std::vector<int64_t> ollama_free_mib;  // engine "ollama": memory.available per GPU, MiB
  int64_t batch_size = 0, input_length = 0, max_new_tokens = 0;
  int64_t group_size = 0, context = 0, sequences = 0, gpu_count = 0, runtime_mib = -1, prefill_chunk = 0;
  double margin = -1, capacity_gib = 0, host_ram_gib = 0;
  bool no_flash_attention = false, compare = false, as_json = false;
  HubOptions hub;  // --hf, --hf-endpoint, --offline
};

}  // namespace vramfit
