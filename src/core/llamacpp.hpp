// llama.cpp's memory, device by device, the way llama.cpp (and Ollama, LM Studio, koboldcpp,
// which run it) allocates it: which layers each GPU holds, and the buffers llama.cpp prints
// at load time (model, KV, compute, output) for each GPU and for the host.
//
// Every term follows llama.cpp's source (ggml-org/llama.cpp, 2025-2026 master); the function
// is named beside each. Settings carry llama.cpp's own flag names and meanings.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "formats.hpp"
#include "model_spec.hpp"

namespace vramfit {

enum class LlamaSplitMode { none, layer, row };  // -sm / --split-mode
enum class LlamaFlashAttn { off, on, automatic };  // -fa / --flash-attn on|off|auto

// A model's weight bytes the way llama.cpp places them: by layer, with the experts apart
// (they can stay on the CPU), and the input and output layers.
struct LlamaCppWeights {
  int64_t input = 0;                   // token_embd: always in host memory
  int64_t output = 0;                  // output_norm and output (lm_head): the output layer
  bool output_is_token_embd = false;   // tied embeddings: the output layer copies token_embd
  std::vector<int64_t> layer;          // blk.N.*, experts excluded
  std::vector<int64_t> layer_experts;  // blk.N.ffn_{gate,up,down}_exps
  std::vector<int64_t> layer_vectors;  // of `layer`, the 1-D tensors (not split by -sm row)
};

// A LoRA adapter file (--lora FNAME): llama_adapter_lora_init_impl (src/llama-adapter.cpp) puts
// each A/B pair in the buffer of the model tensor it adapts, in the file's own types (norms
// skipped), and prints one "LoRA buffer size" per device.
struct LlamaCppLora {
  std::string file;
  int64_t rank = 0;             // the pairs' inner dimension (lora_a's ne[1])
  LlamaCppWeights pairs;        // their bytes by the adapted tensor's place: token_embd (CPU), output, blk.N, experts
};

// A multimodal projector file (--mmproj FNAME, clip.* keys): mtmd_init_from_file -> clip_init loads
// its tensors into one backend — the first GPU (clip_ctx: ggml_backend_init_by_type(GPU)) or the
// CPU with --no-mmproj-offload — and reserves a compute graph for the largest image.
struct LlamaCppMmproj {
  std::string file;
  std::string projector;        // clip.projector_type ("mlp", "gemma3", "qwen2vl_merger", ...)
  int64_t weight_bytes = 0;     // every tensor of the file at its ggml type's size
  int64_t image_size = 0, patch_size = 0;            // clip.vision.image_size / patch_size
  int64_t hidden = 0, intermediate = 0, heads = 0;   // clip.vision.embedding_length / feed_forward_length / attention.head_count
  // An audio encoder (clip.has_audio_encoder, clip.audio.* keys; Qwen2-Audio, Ultravox, Voxtral):
  // Whisper's encoder over clip_ctx's warmup of warmup_audio_size = 3000 mel frames, held here as
  // image_size 3000 and patch_size 2 (conv2's stride): 1,500 positions.
  bool audio = false;
  int64_t merge = 0;            // clip.vision.spatial_merge_size (clip_hparams::n_merge; Qwen-VL's default 2)
  // Qwen3-VL's graph (clip.projector_type qwen3vl_merger: Qwen3-VL, Qwen3.5, Qwen3.6's projectors).
  bool qwen3vl() const { return projector == "qwen3vl_merger"; }
  // The side of the square image clip_ctx warms up with, the graph it reserves: image_size, but
  // Qwen-VL's load_hparams calls set_warmup_n_tokens(46*46): 46 merged tokens a side, each
  // n_merge x n_merge patches (1,472 px at 16-px patches).
  int64_t warmup_side() const { return qwen3vl() ? 46 * patch_size * (merge > 0 ? merge : 2) : image_size; }
  int64_t patches() const {
    if (patch_size <= 0) return 0;
    const int64_t side = warmup_side() / patch_size;
    return audio ? side : side * side;
  }
};

struct LlamaCppSettings {
  int64_t ctx_size = 0;        // -c / --ctx-size: KV cells for all sequences together (0: the model's trained context)
  int64_t batch_size = 2048;   // -b / --batch-size (logical batch)
  int64_t ubatch_size = 512;   // -ub / --ubatch-size (physical batch: what one graph computes)
  int64_t parallel = 1;        // -np / --parallel: sequences sharing one unified KV cache
  std::string cache_type_k = "f16";  // -ctk / --cache-type-k
  std::string cache_type_v = "f16";  // -ctv / --cache-type-v
  LlamaFlashAttn flash_attn = LlamaFlashAttn::automatic;
  int64_t n_gpu_layers = -1;   // -ngl / --n-gpu-layers: -1 = all (llama.cpp's default)
  LlamaSplitMode split_mode = LlamaSplitMode::layer;
  std::vector<double> tensor_split;  // -ts / --tensor-split; empty: in proportion to each GPU's free memory
  int64_t main_gpu = 0;        // -mg / --main-gpu (split modes none and row)
  int64_t n_cpu_moe = 0;       // --n-cpu-moe N: the experts of the first N layers stay on the CPU
  bool cpu_moe = false;        // --cpu-moe: the experts of every layer stay on the CPU
  bool no_kv_offload = false;  // -nkvo / --no-kv-offload: the KV cache in host memory
  bool swa_full = false;       // --swa-full: sliding-window layers keep the whole context
  // The draft model of speculative decoding (-md, Request::draft): its flags.
  int64_t gpu_layers_draft = -1;          // -ngld / --gpu-layers-draft: -1 = all
  std::string cache_type_k_draft = "f16";  // -ctkd / --cache-type-k-draft
  std::string cache_type_v_draft = "f16";  // -ctvd / --cache-type-v-draft
  std::vector<LlamaCppLora> lora;          // --lora FNAME (and --lora-scaled FNAME SCALE), one per file
  bool has_mmproj = false;                 // --mmproj FNAME
  LlamaCppMmproj mmproj;
  bool no_mmproj_offload = false;          // --no-mmproj-offload: the projector on the CPU
  // Not flags: which llama.cpp runs. The build number its log prints ("build: 9140 (1e4579fbb)";
  // 0: the newest) and the program (llama-server, llama-cli, llama-bench, llama-perplexity ...;
  // "libllama" for a program calling the library itself, as llama-cpp-python does). What they
  // change: llamacpp_reserved_outputs.
  int64_t build = 0;
  std::string tool = "llama-server";
  // Set with a draft model (-md): the target's context reserves room for the drafted tokens
  // (llamacpp_reserved_outputs); the draft's own settings (llamacpp_draft_settings) clear it.
  bool with_draft = false;
};

// The first build whose llama-server and llama-cli reserve the prompt graph's logits for the
// outputs a step can ask for rather than for every token of the ubatch (PR #23861, "llama: limit
// max outputs of llama_context", in the release notes of b9460).
constexpr int64_t kLlamaCppOutputsMaxBuild = 9460;

// The outputs the prompt graph is reserved for: llama_context::sched_reserve reserves it with
// n_outputs_pp = min(n_tokens, cparams.n_outputs_max), and each output is n_vocab f32 logits on
// the output layer's device. cparams.n_outputs_max is n_batch unless the program sets it
// (llama_context::llama_context: 0 = n_batch), so every token of the ubatch before b9460 and in
// the other programs. From b9460 server_context::load_model sets it (server_output_limits, then
// common_speculative_get_output_limits): one output per sequence (-np), 1 + --draft-max (16) per
// sequence with a draft model, at most -b; the draft's context, one per sequence. The new llama-cli
// runs the server's context (its compute buffers equal llama-server's in a b10950 log).
int64_t llamacpp_reserved_outputs(const LlamaCppSettings& settings);

// The KV cache types llama.cpp accepts (common/arg.cpp, kv_cache_types).
bool is_llamacpp_cache_type(const std::string& type);

// One device's buffers, as llama.cpp prints them.
struct LlamaCppBuffers {
  std::string device;          // "CUDA0", "CUDA1", "ROCm0", "MTL0" ... or "CPU" for the host
  bool mapped_model = false;   // the model buffer maps the file ("MTL0_Mapped": Metal wraps mmapped memory)
  int64_t model = 0;           // load_tensors: <dev> model buffer size
  int64_t kv = 0;              // llama_kv_cache: <dev> KV buffer size
  int64_t rs = 0;              // llama_memory_recurrent: <dev> RS buffer size (recurrent layers' states)
  int64_t compute = 0;         // llama_context: <dev> compute buffer size
  int64_t output = 0;          // llama_context: <dev> output buffer size (host only)
  int64_t experts = 0;         // of `model`, the MoE expert tensors (a token reads experts_per_token of them)
  int64_t lora = 0;            // llama_adapter_lora_init_impl: <dev> LoRA buffer size, all adapters
  int64_t mmproj = 0;          // --mmproj: the projector's weights and its image graph (on one device)
  int64_t layers = 0;          // repeating layers held (the output layer not counted)
  bool output_layer = false;   // holds the output layer (final norm + lm_head)
  int64_t total() const { return model + lora + mmproj + kv + rs + compute + output; }
};

struct LlamaCppMemory {
  std::vector<LlamaCppBuffers> gpus;  // one per GPU given
  std::string host_buffer = "CUDA_Host";  // the host buffer type of the first GPU's backend (output, host compute)
  LlamaCppBuffers host;                // CPU_Mapped model, CPU KV, host compute, output
  int64_t n_ctx = 0;                   // KV cells after llama.cpp's padding to 256
  int64_t swa_cells = 0;               // cells of each sliding-window layer (0: none)
  int64_t rs_cells = 0;                // recurrent states kept, max(1, n_seq_max) (0: no recurrent layer)
  int64_t kq_mask = 0;                 // the attention masks' F32 inputs, n_kv x n_tokens each (host compute)
  int64_t ubatch_tokens = 0;           // tokens of the graph llama.cpp reserves (min(n_ctx, -ub))
  int64_t reserved_outputs = 0;        // of them, the outputs whose logits it reserves (llamacpp_reserved_outputs)
  int64_t offloaded_layers = 0;        // "offloaded N/M layers to GPU"
  int64_t layer_slots = 0;             // M: the repeating layers and the output layer
  bool flash_attention = true;         // after -fa auto is resolved
  std::vector<std::vector<int64_t>> lora_by_device;  // per --lora file: its bytes on each GPU, then the host
  int64_t mmproj_compute = 0;          // of the projector's device's `mmproj`, the image graph (estimated)
  int64_t mmproj_host_input = 0;       // of the host's `mmproj` when the projector is on a GPU: the warmup image and its positions
};

// The backend llama.cpp drives each GPU with ("CUDA", "ROCm" or "MTL", one per GPU in order),
// as its buffers are named: each backend numbers its own devices (ggml_backend_dev_name: CUDA0,
// ROCm0; ggml-metal-device.m formats its device "MTL%d"). CUDA and ROCm (ggml-cuda built for
// HIP) pin host memory for the output and the host's compute buffer ("CUDA_Host", "ROCm_Host");
// Metal has no host buffer type of its own, so those are the CPU's, and its model buffer wraps the
// mmapped file ("MTL0_Mapped model buffer size" in llama.cpp's logs on Apple silicon). Empty or
// all "CUDA": the names llamacpp_memory gives.
void name_llamacpp_devices(LlamaCppMemory& memory, const std::vector<std::string>& backends);

// From a weight format's per-tensor types (the same rules as the breakdown's weights).
LlamaCppWeights llamacpp_weights(const FormatTables& tables, const ModelSpec& model, const WeightFormat& format);

// gpu_free_bytes: the memory free on each GPU before loading (llama.cpp's default
// --tensor-split divides the layers in proportion to it). Its size is the GPU count.
LlamaCppMemory llamacpp_memory(const FormatTables& tables, const ModelSpec& model, const LlamaCppWeights& weights,
                               const LlamaCppSettings& settings, const std::vector<int64_t>& gpu_free_bytes);

// Speculative decoding with a draft model (-md). llama.cpp loads the draft after the target
// and gives it one context of its own: common/speculative.cpp common_base_params_to_speculative
// copies the target's settings with -ngld and -ctkd/-ctvd, and common_speculative_init_result
// sets the draft context's n_ctx to the target context's (its -np sequences kept). So the
// draft's buffers are a model's buffers under those settings; its default layer split follows
// the memory still free on each GPU once the target is loaded (ggml_backend_dev_memory).
struct LlamaCppDraft {
  const ModelSpec* model = nullptr;         // nullptr: no draft model
  const LlamaCppWeights* weights = nullptr;
};
LlamaCppSettings llamacpp_draft_settings(const LlamaCppSettings& target_settings, int64_t target_n_ctx);
LlamaCppMemory llamacpp_draft_memory(const FormatTables& tables, const LlamaCppDraft& draft, const LlamaCppSettings& settings,
                                     const LlamaCppMemory& target, const std::vector<int64_t>& gpu_free_bytes);

// Whether llama.cpp starts, and what is left: each GPU holds its buffers plus the runtime
// llama.cpp does not print (CUDA context, cuBLAS workspace: runtime_bytes, an assumption); the
// host holds its buffers (mapped model pages are counted: they are read on every token). That
// is the engine's own test: llama.cpp fails to allocate or it does not (no margin in it). The
// safety margin is the user's reserve on top (margin_fraction x what a GPU holds), said apart:
// kept or not, never a reason the engine would not start.
struct LlamaCppFit {
  std::vector<int64_t> gpu_use;      // per GPU: buffers + draft + runtime
  std::vector<int64_t> gpu_margin;   // per GPU: margin_fraction x gpu_use
  std::vector<int64_t> gpu_capacity; // per GPU, usable
  int64_t host_need = 0;
  double margin_fraction = 0;
  bool fits = false;                 // llama.cpp starts: every GPU's use <= its capacity (and the host's)
  bool keeps_margin = false;         // it starts and every GPU keeps its margin free
  int64_t max_gpu_layers = 0;        // the most -ngl (0 .. layers + 1) that starts
  int64_t max_ctx_size = 0;          // the longest -c (a multiple of 256) that starts; 0: not even 256
  int64_t max_gpu_layers_with_margin = 0;  // the same with every GPU's margin kept free
  int64_t max_ctx_size_with_margin = 0;
  bool gpu_starts(size_t g) const { return gpu_use[g] <= gpu_capacity[g]; }
  bool gpu_keeps_margin(size_t g) const { return gpu_use[g] + gpu_margin[g] <= gpu_capacity[g]; }
};
// With a draft model, every GPU and the host also hold the draft's buffers, at every -ngl and -c tried.
LlamaCppFit llamacpp_fit(const FormatTables& tables, const ModelSpec& model, const LlamaCppWeights& weights,
                         const LlamaCppSettings& settings, const std::vector<int64_t>& gpu_capacity,
                         int64_t host_capacity, int64_t runtime_bytes, double margin_fraction, const LlamaCppDraft& draft = {});

// An upper bound on decode speed for one sequence: a token reads every weight it uses once
// (MoE: experts_per_token of each layer's experts; the input embedding: one row) and the KV
// cache up to its position, each device at its memory bandwidth, one device after another (a
// layer split is a pipeline: the devices take turns). No run decodes faster; how much slower
// a real run is (kernel efficiency, launch overhead, the sampler) is not modelled.
struct LlamaCppDecodeBound {
  double tokens_per_second_empty = 0;  // at the start of a sequence (weights only)
  double tokens_per_second_full = 0;   // with the whole KV cache to read
  std::vector<int64_t> gpu_bytes_per_token;  // weights read per token on each GPU
  int64_t host_bytes_per_token = 0;
};
LlamaCppDecodeBound llamacpp_decode_bound(const ModelSpec& model, const LlamaCppWeights& weights, const LlamaCppMemory& memory,
                                          const std::vector<double>& gpu_bandwidth_gbs, double host_bandwidth_gbs);

// An upper bound on prompt processing speed: each token of a prompt of `prompt_tokens` costs
// its layers' FLOPs (prefill_flops_per_token; the output layer computes the last token's
// logits only), each GPU at the tensor rate of the kernels llama.cpp runs on these weights
// (gpu_tera_ops: INT8 for quantized types, its MMQ kernels; FP16 with FP16 accumulation for F16),
// the devices one after another (a layer split passes each micro-batch through them in turn).
// The host's layers are left out — its throughput is not known — so with layers on the CPU the
// bound is looser. tokens_per_second is 0 when a GPU holding layers has no such rate.
struct LlamaCppPrefillBound {
  double tokens_per_second = 0;
  int64_t prompt_tokens = 0;
  int64_t host_layers_left_out = 0;
};
LlamaCppPrefillBound llamacpp_prefill_bound(const ModelSpec& model, const LlamaCppMemory& memory,
                                            const std::vector<double>& gpu_tera_ops, int64_t prompt_tokens);

// The lines llama.cpp prints for these buffers, to compare with a log ("   4403.49 MiB").
std::vector<std::string> llamacpp_log_lines(const LlamaCppMemory& memory);

}  // namespace vramfit
