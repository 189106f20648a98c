// Hugging Face Transformers' memory in `model.generate(...)`, device by device, the way
// `from_pretrained(..., device_map=...)` places the modules (accelerate's
// infer_auto_device_map) and the way `generate` grows its KV cache and keeps its logits: what
// `torch.cuda.max_memory_allocated(i)` reports after one generate call.
//
// Every term follows the source of transformers (huggingface/transformers), accelerate
// (huggingface/accelerate) and bitsandbytes, named beside each; where it changed across
// releases the release is a setting (`version`).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "formats.hpp"
#include "model_spec.hpp"

namespace vramfit {

// from_pretrained(attn_implementation=...): "sdpa" is the default where PyTorch has it.
enum class TransformersAttention { eager, sdpa, flash_attention_2 };
// from_pretrained(device_map=...): none = one GPU ("cuda:0", or .to("cuda")); auto and
// balanced are the same in transformers (modeling_utils, _get_device_map).
enum class TransformersDeviceMap { none, auto_map, balanced_low_0, sequential };
// BitsAndBytesConfig(bnb_4bit_compute_dtype=...): float32 when not given (BitsAndBytesConfig.__init__).
enum class BnbComputeDtype { float32, float16, bfloat16 };

const char* transformers_attention_name(TransformersAttention a);
bool parse_transformers_attention(const std::string& name, TransformersAttention& out);
const char* transformers_device_map_name(TransformersDeviceMap d);
bool parse_transformers_device_map(const std::string& name, TransformersDeviceMap& out);
const char* bnb_compute_dtype_name(BnbComputeDtype d);
bool parse_bnb_compute_dtype(const std::string& name, BnbComputeDtype& out);

struct TransformersSettings {
  TransformersAttention attn_implementation = TransformersAttention::sdpa;
  TransformersDeviceMap device_map = TransformersDeviceMap::none;
  int64_t batch_size = 1;        // input_ids.shape[0]: the prompts generated together
  int64_t input_length = 512;    // input_ids.shape[1]: prompt tokens (padded to the longest)
  int64_t max_new_tokens = 512;  // generate(max_new_tokens=...)
  BnbComputeDtype bnb_4bit_compute_dtype = BnbComputeDtype::float32;
  // Not an argument: the transformers release (`transformers.__version__`); generate's cache
  // and logits changed across releases (TransformersGeneration). Default: a current release.
  int version_major = 4, version_minor = 57, version_patch = 0;
};

bool parse_transformers_version(const std::string& text, TransformersSettings& out);  // "4.35.2"
std::string transformers_version_text(const TransformersSettings& settings);

// What changed across releases that moves memory.
struct TransformersGeneration {
  // Before 4.38 each attention layer kept a rotary cos/sin cache of max_position_embeddings x
  // head_dim in the default dtype (models/llama/modeling_llama.py 4.35,
  // LlamaRotaryEmbedding._set_cos_sin_cache); later releases compute cos/sin per forward.
  bool rotary_cache_per_layer = false;
  // Before 4.42 generate kept the cache as tuples of tensors (the "legacy" format): every layer's
  // torch.cat makes a new tensor while model_kwargs["past_key_values"] still holds the old one,
  // so the old and new caches are both alive at the end of each step. From 4.42 generate holds
  // a DynamicCache that replaces each layer's tensor as it grows (cache_utils.py,
  // DynamicCache.update): one layer's old tensor at a time.
  bool legacy_cache = false;
  // Before 4.45 the model computed logits for every prompt token and upcast them to float32
  // (LlamaForCausalLM.forward: logits = logits.float()); from 4.45 generate asks for the last
  // position only (num_logits_to_keep / logits_to_keep = 1, GenerationMixin._prepare_generation_config
  // and prepare_inputs_for_generation).
  bool all_prompt_logits = false;
  // 4.45 still upcast the kept logits inside the model; from 4.46 the model returns its own dtype
  // and generate copies the last row to float32 (GenerationMixin._sample:
  // outputs.logits[:, -1, :].to(copy=True, dtype=torch.float32)).
  bool model_upcasts_logits = false;
  // Before 4.22 from_pretrained took device_map "auto" alone and gave infer_auto_device_map each
  // GPU's whole free memory (modeling_utils.py 4.21: max_memory = get_max_memory()), which fills
  // GPU 0, then GPU 1, ...; 4.22 (PR #18349, with accelerate's get_balanced_memory) made "auto"
  // balanced and named the old way "sequential", beside "balanced" and "balanced_low_0".
  bool auto_fills_in_order = false;
};
TransformersGeneration transformers_generation(int major, int minor);

// One device: a GPU (index >= 0) or the CPU (index -1, weights offloaded by accelerate).
struct TransformersDevice {
  int index = 0;                              // CUDA index; -1: "cpu"
  int64_t first_layer = -1, last_layer = -2;  // decoder layers placed here (first > last: none)
  bool embeddings = false;                    // model.embed_tokens
  bool lm_head = false;                       // lm_head (and the final norm)
  int64_t weights = 0;                        // parameters placed here (their storage bytes)
  int64_t buffers = 0;                        // rotary caches (old releases)
  int64_t offloaded_layers = 0;               // GPU 0: decoder layers offloaded to the CPU that run here (their KV lives here)
  bool offloaded_lm_head = false;             // GPU 0: lm_head is offloaded and runs here
  int64_t executed_offload = 0;               // GPU 0: the largest offloaded module, brought in to run
  int64_t kv = 0;                             // the KV cache at the end (input_length + max_new_tokens - 1 tokens)
  int64_t prefill_peak = 0;                   // max allocated over the prompt's forward pass
  int64_t decode_peak = 0;                    // max allocated over the last decoding step
  int64_t peak() const { return prefill_peak > decode_peak ? prefill_peak : decode_peak; }
  int64_t layers() const { return last_layer >= first_layer ? last_layer - first_layer + 1 : 0; }
};

struct TransformersMemory {
  std::vector<TransformersDevice> gpus;  // one per GPU, CUDA index order
  TransformersDevice host;               // weights accelerate offloads to "cpu"
  TransformersGeneration generation;
  int64_t kv_bytes_per_token = 0;   // one token of one sequence, all layers
  int64_t footprint = 0;            // model.get_memory_footprint(): parameters and buffers
  std::vector<int64_t> max_memory;  // accelerate's max_memory per GPU for the device map
  bool mapped = false;              // a device_map was given (model.hf_device_map exists)
  bool fits = false;                // every GPU's peak + CUDA context within it, no disk offload
  std::string refusal;              // why not
};

// gpu_free_bytes: each GPU's memory free for the model (its total less the CUDA context), the
// default of accelerate's max_memory (utils/modeling.py get_max_memory: torch.cuda.mem_get_info).
// host_free_bytes: the CPU's, 0: unlimited. activation_bytes: torch_dtype's size (bnb: 2).
TransformersMemory transformers_memory(const FormatTables& tables, const ModelSpec& model, const WeightFormat& format,
                                       int64_t group_size, int64_t activation_bytes, const TransformersSettings& settings,
                                       const std::vector<int64_t>& gpu_free_bytes, int64_t host_free_bytes);

// The most of something that still fits (every GPU within gpu_free_bytes), 0: not even one.
struct TransformersFit {
  int64_t max_batch_size = 0;  // with this input_length and max_new_tokens
  int64_t max_new_tokens = 0;  // with this batch size and input_length
};
TransformersFit transformers_fit(const FormatTables& tables, const ModelSpec& model, const WeightFormat& format,
                                 int64_t group_size, int64_t activation_bytes, const TransformersSettings& settings,
                                 const std::vector<int64_t>& gpu_free_bytes, int64_t host_free_bytes);

// What a user prints to compare: model.hf_device_map (condensed), model.get_memory_footprint(),
// torch.cuda.max_memory_allocated(i) per GPU.
std::vector<std::string> transformers_log_lines(const TransformersMemory& memory);

// An upper bound on decode speed for one sequence: every weight is read once per token, each
// GPU's at its bandwidth, offloaded layers copied from the host at host_bandwidth_gbs.
double transformers_decode_bound(const TransformersMemory& memory, const std::vector<double>& gpu_bandwidth_gbs,
                                 double host_bandwidth_gbs);

// An upper bound on prompt speed: each prompt token costs its layers' FLOPs
// (prefill_flops_per_token), each GPU running its own layers and GPU 0 the CPU-offloaded ones
// (their weights' trip over PCIe left out), the GPUs in turn, at their dense BF16 rate (PyTorch's
// GEMMs; bitsandbytes dequantizes to 16 bits first). 0 when a GPU's rate is not known.
double transformers_prefill_bound(const ModelSpec& model, const TransformersMemory& memory, const std::vector<double>& gpu_bf16_tflops,
                                  int64_t prompt_tokens);

}  // namespace vramfit
