// One request: everything a front end can ask. The same struct is the CLI's --request file,
// the JS API's argument, the URL hash and the app's state (JSON in src/io/request_json).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inference.hpp"
#include "llamacpp.hpp"
#include "transformers.hpp"
#include "vllm.hpp"
#include "model_spec.hpp"
#include "network.hpp"
#include "megatron.hpp"
#include "training.hpp"
#include "units.hpp"

namespace vramfit {

constexpr int kRequestVersion = 1;

// Weights exactly as a model file stores them (GGUF tensor infos, safetensors headers),
// summed per storage type. Used instead of a weight format when a file was read.
struct StoredWeights {
  struct Row {
    std::string type;     // storage type id: "q4_k", "bf16", "i32", ...
    int64_t elements = 0;
    int64_t tensors = 0;
    int64_t bytes = 0;
    int64_t replicated_bytes = 0;  // of these, 1-D tensors (on every tensor-parallel GPU)
  };
  std::string source;     // "gguf", "safetensors", "safetensors-index"
  std::string file;       // file name(s), for display
  std::vector<Row> by_type;
  int64_t parameters = 0;
  int64_t replicated_bytes = 0;  // 1-D tensors (norms, biases): on every tensor-parallel GPU
  std::vector<std::string> read, derived, assumed;  // what the reader took, computed, assumed
  std::vector<std::string> warnings;                // e.g. a file shorter than its tensors
  // GGUF files: the bytes by where llama.cpp places them (tensor names blk.N.*, token_embd,
  // the rest with the output layer), for engine "llama.cpp". Empty for other files.
  LlamaCppWeights by_layer;
  bool has_layers = false;
};

// Which engine serves the model (mode "inference"): "generic" is vramfit's engine-neutral
// model (runtime + compute buffer + margin, tensor parallel over gpu_count GPUs);
// "llama.cpp" follows llama.cpp's own allocation, device by device (core/llamacpp); "vllm"
// follows vLLM's profiling and KV budget, rank by rank (core/vllm); "transformers" follows
// Hugging Face Transformers' generate and accelerate's device map (core/transformers).
enum class Engine { generic, llamacpp, vllm, transformers };
constexpr int kEngineCount = 4;
// The engine's name in a request ("engine": ...) and the key of its settings.
inline const char* engine_name(Engine engine) {
  static const char* const names[kEngineCount] = {"generic", "llama.cpp", "vllm", "transformers"};
  return names[static_cast<int>(engine)];
}

// What is estimated: serving a model, or training one (a transformer, or a network given
// layer by layer: Request::has_network). In JSON: "inference" / "training".
enum class Mode { inference, training };

struct Request {
  // Copied, moved and destroyed by one function each (src/core/request.cpp), not inline at every
  // place a Request or a Report ends (the page's module size).
  Request();
  Request(const Request&);
  Request(Request&&) noexcept;
  Request& operator=(const Request&);
  Request& operator=(Request&&) noexcept;
  ~Request();

  int version = kRequestVersion;
  Mode mode = Mode::inference;

  // The model: a preset id, or a spec given inline (as config.json fields).
  std::string model_preset = "llama-3.1-8b";
  bool has_custom_model = false;
  ModelSpec custom_model;
  std::string custom_model_name;       // shown for a custom model (e.g. the file it came from)
  std::string custom_model_hub;        // where it was read on the Hub, pinned: "org/name@<commit>[:file]"
  std::vector<std::string> custom_model_assumptions;  // what reading its config assumed (not serialised)

  std::string weight_format = "bf16";  // id from data/weight_formats.json, or "as_stored"
  bool has_stored_weights = false;     // weight_format "as_stored": the file's own bytes
  StoredWeights stored_weights;
  int64_t group_size = 0;              // grouped formats (GPTQ/AWQ); 0 = the format's default
  std::string kv_cache_dtype = "f16";  // f32, f16, bf16, fp8, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl

  InferenceSettings settings;          // context, sequences, overhead, margin, GPU count

  Engine engine = Engine::generic;
  LlamaCppSettings llamacpp;           // engine "llama.cpp": its flags, under its own names
  VllmSettings vllm;                   // engine "vllm": its flags, under its own names
  TransformersSettings transformers;   // engine "transformers": from_pretrained's and generate's arguments
  std::vector<std::string> gpu_ids;    // engines: the GPUs in device order (CUDA0, CUDA1, ...);
                                       // empty: gpu_count x the GPU above
  // The host as a device: its memory bandwidth for the layers and experts it keeps (engines'
  // decode speed bound). Default: dual-channel DDR5-4800, 2 x 8 B x 4.8 GT/s = 76.8 GB/s.
  double host_bandwidth_gbs = 76.8;
  // The host's memory for an engine's CPU buffers (llama.cpp's CPU_Mapped model, CPU KV, host
  // compute and output): offload fits only if the host holds them. 0: not checked.
  int64_t host_memory_bytes = 0;

  // mode "training": a transformer (the model above) with these settings, or a network
  // given layer by layer (has_network; the model is then unused).
  TrainingSettings training;           // training.gpu_count mirrors settings.gpu_count
  // Which framework allocates the training step: "hf-trainer" (Trainer + PEFT: the settings
  // above) or "megatron" (Megatron-LM per rank: its flags below). In JSON: training.framework.
  TrainingFramework framework = TrainingFramework::hf_trainer;
  MegatronSettings megatron;           // framework "megatron": its arguments, under their own names
  bool has_network = false;
  Network network;
  NetworkSettings network_settings;

  std::string gpu_id = "rtx-4090";     // catalog id, or empty with a custom capacity
  int64_t gpu_capacity_bytes = 0;      // custom GPU (used when > 0)
  bool compare_gpus = false;           // also answer for every catalog GPU

  DisplayUnits units = DisplayUnits::gb;
  // The interface's language as a BCP 47 tag: "en", "ar" (Arabic with the Western digits the
  // articles use) or "ar-u-nu-arab" (Arabic with Arabic-Indic digits: Unicode's numbering
  // extension). A display setting like the units: the estimate ignores it.
  std::string language = "en";

  // Speculative decoding: a second, smaller model that drafts tokens the engine verifies
  // (llama.cpp's -md, vLLM's --speculative-config model). Only its model and weights fields
  // are read (a preset, a config or a file, in its own format); the engine's settings hold the
  // draft's flags (llama.cpp: -ngld, -ctkd, -ctvd). In JSON: "draft": {"model": ..., "weights": ...}.
  std::shared_ptr<const Request> draft;
};

}  // namespace vramfit
