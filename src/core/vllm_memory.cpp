// vLLM's memory on each rank (vllm/v1/worker/gpu_worker.py Worker.determine_available_memory,
// GPUModelRunner.profile_run) and the KV cache it leaves (vllm/v1/core/kv_cache_utils.py): the
// weights each (tensor-parallel rank, pipeline stage) holds, the profiled forward and sampler
// peaks, the non-torch memory, the blocks, and the refusals vLLM prints.
#include "vllm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "units.hpp"

namespace vramfit {

namespace {

// vllm/envs.py VLLM_FUSED_MOE_CHUNK_SIZE: fused_experts() works through the tokens in chunks.
constexpr int64_t kFusedMoeChunkTokens = 32768;
// vllm/model_executor/layers/vocab_parallel_embedding.py DEFAULT_VOCAB_PADDING_SIZE.
constexpr int64_t kVocabPadding = 64;

int64_t pad_to(int64_t value, int64_t multiple) { return ceil_div(value, multiple) * multiple; }

// The KV heads one rank holds: QKVParallelLinear splits them over the ranks and replicates
// them when there are fewer heads than ranks (vllm/model_executor/layers/linear.py,
// QKVParallelLinear.__init__: num_kv_heads = max(1, total_num_kv_heads // tp_size)).
int64_t kv_heads_per_rank(const ModelSpec& m, int64_t tp) { return std::max<int64_t>(1, m.kv_heads / tp); }

// Which pipeline stage holds which layers: vllm/distributed/utils.py get_pp_indices, the
// layers divided evenly and the remainder given to the stages before the last.
std::vector<int64_t> stage_layers(int64_t layers, int64_t pp) {
  std::vector<int64_t> count(static_cast<size_t>(pp), layers / pp);
  const int64_t remaining = layers % pp;
  for (int64_t i = 2; i < remaining + 2; ++i) count[static_cast<size_t>(pp - i)] += 1;
  return count;
}

// One tensor's bytes on one tensor-parallel rank, following the layer type vLLM builds for it
// (vllm/model_executor/layers/linear.py and vocab_parallel_embedding.py).
struct RankShape {
  int64_t row_length, rows;
  enum class Split { replicated, column, row } split;
};

RankShape rank_shape(const ModelSpec& m, const TensorShape& t, int64_t tp) {
  int64_t row_length = t.row_length, rows = t.rows;
  RankShape::Split split = RankShape::Split::replicated;
  switch (t.role) {
    case TensorRole::token_embd:
    case TensorRole::output:
      // VocabParallelEmbedding / ParallelLMHead: the vocabulary padded to 64, split over the ranks.
      rows = ceil_div(pad_to(t.rows, kVocabPadding), tp);
      break;
    case TensorRole::attn_k:
    case TensorRole::attn_v:
      rows = kv_heads_per_rank(m, tp) * (t.rows / std::max<int64_t>(1, m.kv_heads));
      break;
    case TensorRole::attn_qkv: {  // one fused tensor: q split, k and v split or replicated
      const int64_t kv_rows = m.kv_heads * m.head_dim;
      const int64_t q_rows = std::max<int64_t>(0, t.rows - 2 * kv_rows);
      rows = ceil_div(q_rows, tp) + 2 * kv_heads_per_rank(m, tp) * m.head_dim;
      break;
    }
    case TensorRole::attn_q:
    case TensorRole::attn_q_b:
    case TensorRole::attn_kv_b:
    case TensorRole::ffn_gate:
    case TensorRole::ffn_up:
    case TensorRole::ffn_gate_exps:
    case TensorRole::ffn_up_exps:
    case TensorRole::ffn_gate_shexp:
    case TensorRole::ffn_up_shexp:
      rows = ceil_div(t.rows, tp);  // ColumnParallelLinear (FusedMoE: each expert's intermediate)
      split = RankShape::Split::column;
      break;
    case TensorRole::attn_output:
    case TensorRole::ffn_down:
    case TensorRole::ffn_down_exps:
    case TensorRole::ffn_down_shexp:
      row_length = ceil_div(t.row_length, tp);  // RowParallelLinear
      split = RankShape::Split::row;
      break;
    default:
      break;  // ReplicatedLinear (MLA's q_a and kv_a, the router), norms and biases: whole on every rank
  }
  if (t.role == TensorRole::attn_k || t.role == TensorRole::attn_v || t.role == TensorRole::attn_qkv) {
    split = RankShape::Split::column;
  }
  return {row_length, rows, split};
}

int64_t rank_bytes(const StorageType& type, const ModelSpec& m, const TensorShape& t, int64_t tp) {
  const RankShape shape = rank_shape(m, t, tp);
  return storage_bytes(type, shape.row_length, shape.rows, t.copies);
}

// One linear layer's LoRA slots on one rank (vllm/lora/layers/base_linear.py
// BaseLinearLayerWithLoRA.create_lora_weights; column_parallel_linear.py for the merged qkv and
// gate_up slices - one slice per q, k, v, gate and up tensor here; fused_moe.py
// FusedMoEWithLoRA for the experts, per local expert): lora_a is max_lora_rank x the layer's
// input on this rank, lora_b its output on this rank x max_lora_rank, for each of max_loras
// slots. --fully-sharded-loras: column-parallel layers shard lora_a's rank, row-parallel ones
// lora_b's output.
int64_t lora_slot_bytes(const ModelSpec& m, const TensorShape& t, const VllmSettings& s, int64_t tp, int64_t dtype_bytes) {
  const RankShape shape = rank_shape(m, t, tp);
  const int64_t rank = s.max_lora_rank;
  int64_t a_rank = rank, b_rows = shape.rows;
  if (s.fully_sharded_loras && shape.split == RankShape::Split::column) a_rank = ceil_div(rank, tp);
  if (s.fully_sharded_loras && shape.split == RankShape::Split::row) b_rows = ceil_div(t.rows, tp);
  const int64_t elements = sat_add(sat_mul(a_rank, shape.row_length), sat_mul(b_rows, rank));
  return sat_mul(sat_mul(elements, t.copies), s.max_loras, dtype_bytes);
}

// The layers vLLM wraps with LoRA: every linear layer of the decoder (vllm/lora/utils.py
// get_supported_lora_modules: LinearBase and FusedMoE modules), not the norms, biases,
// embeddings or the vision tower.
bool has_lora_slots(const TensorShape& t) {
  return t.layer >= 0 && t.role != TensorRole::vector && !is_embedding_role(t.role) && t.role != TensorRole::vision;
}

// The widest moment of one decoder layer over `tokens` tokens on one rank, in elements of the
// activation dtype. vLLM's layers (vllm/model_executor/models/llama.py LlamaDecoderLayer,
// LlamaAttention, LlamaMLP; qwen2, mistral alike) keep the residual and the layer's input
// while a sub-block runs, and the sub-block's intermediate tensors until it returns:
//   attention: qkv (q + 2 kv wide), the attention output (q wide), o_proj's output;
//   MLP: gate_up (2 ffn), act_fn's output (ffn), down_proj's output.
int64_t layer_peak_elements(const ModelSpec& m, int64_t tp, int64_t tokens, int64_t activation_bytes) {
  const int64_t h = m.hidden_size;
  const int64_t heads = ceil_div(m.attention_heads, tp);
  const int64_t q = heads * (m.uses_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : m.head_dim);
  const int64_t kv = m.uses_mla() ? m.kv_lora_rank + m.qk_rope_head_dim : 2 * kv_heads_per_rank(m, tp) * m.head_dim;
  const int64_t attention = tokens * (3 * h + q + kv + q);
  int64_t mlp = 0;
  if (!m.is_moe() || m.first_dense_layers > 0) {
    const int64_t f = ceil_div(m.intermediate_size, tp);
    mlp = tokens * (3 * h + 3 * f);
  }
  if (m.is_moe()) {
    // FusedMoE (vllm/model_executor/layers/fused_moe/fused_moe.py, fused_experts_impl): per
    // chunk of VLLM_FUSED_MOE_CHUNK_SIZE tokens, intermediate_cache13 (top_k x max(2 ffn, h))
    // and intermediate_cache2 (top_k x ffn); the router's logits (experts wide) and, with
    // shared experts, their output beside the residual, the input and the output.
    const int64_t f = ceil_div(m.moe_intermediate_size, tp);
    const int64_t chunk = std::min(tokens, kFusedMoeChunkTokens);
    const int64_t topk_ids_and_weights = ceil_div(tokens * m.experts_per_token * 8, activation_bytes);
    int64_t moe = tokens * (3 * h + m.experts) + chunk * m.experts_per_token * (std::max(2 * f, h) + f) + topk_ids_and_weights;
    if (m.shared_experts > 0) {
      const int64_t sf = ceil_div(m.shared_experts * m.shared_expert_intermediate_size, tp);
      moe = std::max(moe, tokens * (3 * h + 3 * sf));
      moe += tokens * h;  // the shared experts' output, kept while the routed experts run
    }
    mlp = std::max(mlp, moe);
  }
  return std::max(attention, mlp);
}


// vLLM's KV cache groups for one rank's layers (vllm/v1/core/kv_cache_utils.py,
// _get_kv_cache_groups_uniform_page_size): with the hybrid allocator, the layers of each
// attention type (full, sliding window) form groups of `layers_per_group` layers — the smaller
// type's count, or the larger's when it is under 1.5 times the smaller — the last group of a
// type padded; each group has its own block table over one shared pool of blocks. Without it
// (or with one attention type), all layers are one group.
struct KvGroups {
  int64_t layers_per_group = 0, full = 0, sliding = 0;
};
KvGroups kv_groups(const ModelSpec& m, int64_t first_layer, int64_t layers, bool hybrid) {
  int64_t sliding = 0;
  for (int64_t i = first_layer; i < first_layer + layers; ++i) sliding += m.is_sliding_layer(i) ? 1 : 0;
  const int64_t full = layers - sliding;
  if (!hybrid || sliding == 0) return {layers, layers > 0 ? 1 : 0, 0};
  if (full == 0) return {layers, 0, 1};
  int64_t size = std::min(full, sliding);
  const int64_t most = std::max(full, sliding);
  if (static_cast<double>(most) < 1.5 * static_cast<double>(size)) size = most;
  return {size, ceil_div(full, size), ceil_div(sliding, size)};
}

// Blocks one request of `tokens` needs over all groups (kv_cache_utils
// get_max_concurrency_for_kv_cache_config: each group's spec max_memory_usage_bytes): a full
// group its tokens; a sliding group min(window - 1 + batched tokens, tokens), plus one block
// where the window starts (SlidingWindowSpec.max_memory_usage_bytes); a chunked group (Llama 4)
// min(chunk + batched tokens, tokens) (ChunkedLocalAttentionSpec.max_memory_usage_bytes).
int64_t blocks_per_request(const ModelSpec& m, const KvGroups& g, int64_t tokens, int64_t block_size, int64_t batched_tokens) {
  const int64_t full = g.full * ceil_div(tokens, block_size);
  if (g.sliding == 0) return full;
  if (m.chunked_attention) return full + g.sliding * ceil_div(std::min(m.sliding_window + batched_tokens, tokens), block_size);
  const int64_t window_tokens = std::min(m.sliding_window - 1 + batched_tokens, tokens);
  return full + g.sliding * (ceil_div(window_tokens, block_size) + 1);
}

// The weights and LoRA slots of each pipeline stage (every tensor-parallel rank of a stage holds
// the same shapes), and the first layer of each stage.
struct StageWeights {
  std::vector<int64_t> layers, first_layer, weights, lora;
};

StageWeights stage_weights(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format, int64_t group_size,
                           const VllmSettings& s, int64_t tp, int64_t pp, int64_t b) {
  StageWeights w;
  w.layers = stage_layers(m.layers, pp);
  w.first_layer.assign(static_cast<size_t>(pp), 0);
  for (int64_t st = 1; st < pp; ++st) w.first_layer[static_cast<size_t>(st)] = w.first_layer[static_cast<size_t>(st - 1)] + w.layers[static_cast<size_t>(st - 1)];
  w.weights.assign(static_cast<size_t>(pp), 0);
  w.lora.assign(static_cast<size_t>(pp), 0);
  const int64_t lora_bytes = s.lora_dtype == VllmLoraDtype::float32 ? 4 : s.lora_dtype == VllmLoraDtype::auto_dtype ? b : 2;
  for (const TensorShape& t : enumerate_tensors(m)) {
    StorageType type = tables.storage_types[static_cast<size_t>(storage_type_for_tensor(tables, format, m, t))];
    if (group_size > 0) type = with_group_size(type, group_size);
    const int64_t bytes = rank_bytes(type, m, t, tp);
    int64_t stage = 0;
    if (t.layer >= 0) {
      while (stage + 1 < pp && t.layer >= w.first_layer[static_cast<size_t>(stage + 1)]) ++stage;
    } else if (!is_embedding_role(t.role) && t.role != TensorRole::vision) {
      stage = pp - 1;  // the final norm and lm_head: the last stage (PPMissingLayer elsewhere)
    }
    w.weights[static_cast<size_t>(stage)] += bytes;
    if (s.enable_lora && has_lora_slots(t)) w.lora[static_cast<size_t>(stage)] += lora_slot_bytes(m, t, s, tp, lora_bytes);
    // Tied embeddings: the last stage builds its own lm_head from embed_tokens' weights when
    // it is not also the first (LlamaForCausalLM.__init__, ParallelLMHead.tie_weights).
    if (t.role == TensorRole::token_embd && m.tied_embeddings && pp > 1) w.weights[static_cast<size_t>(pp - 1)] += bytes;
  }
  return w;
}

// KV cache page: one block of one layer (vllm/v1/kv_cache_interface.py
// FullAttentionSpec.page_size_bytes = 2 x block_size x num_kv_heads x head_size x dtype;
// MLAAttentionSpec: one latent of kv_lora_rank + qk_rope_head_dim, no factor 2).
int64_t kv_page_bytes(const ModelSpec& model, const VllmSettings& s, int64_t tp, int64_t b) {
  const int64_t kv_dtype = s.kv_cache_dtype == VllmKvCacheDtype::auto_dtype ? b
                           : s.kv_cache_dtype == VllmKvCacheDtype::bfloat16 || s.kv_cache_dtype == VllmKvCacheDtype::float16 ? 2
                                                                                                                               : 1;
  return model.uses_mla() ? s.block_size * (model.kv_lora_rank + model.qk_rope_head_dim) * kv_dtype
                          : 2 * s.block_size * kv_heads_per_rank(model, tp) * model.head_dim * kv_dtype;
}

// A draft model (draft_model method): its shard of the weights and its rotary cache, loaded
// with the model's; every one of its layers has a page per block in the same pool
// (kv_cache_utils: full-attention layers of different page sizes are one group,
// UniformTypeKVCacheSpecs, whose page is the sum of the layers' pages); the drafter's dummy run
// in profile_run is its own forward pass over the same tokens.
struct DraftShare {
  int64_t weights = 0, pages = 0, peak = 0;
};

DraftShare draft_share(const FormatTables& tables, const VllmDraft& draft, const VllmSettings& s, int64_t tp, int64_t b,
                       int64_t batched_tokens) {
  if (!draft.model) return {};
  const ModelSpec& dm = *draft.model;
  int64_t bytes = 0;
  for (const TensorShape& t : enumerate_tensors(dm)) {
    if (t.role == TensorRole::vision) continue;
    StorageType type = tables.storage_types[static_cast<size_t>(storage_type_for_tensor(tables, *draft.format, dm, t))];
    if (draft.group_size > 0) type = with_group_size(type, draft.group_size);
    bytes += rank_bytes(type, dm, t, tp);
  }
  const int64_t draft_len = dm.usable_context_tokens() > 0 ? dm.usable_context_tokens() : 4096;
  DraftShare d;
  d.weights = static_cast<int64_t>(std::llround(static_cast<double>(bytes) * draft.weights_scale)) +
              sat_mul(draft_len, dm.uses_mla() ? dm.qk_rope_head_dim : dm.head_dim, b);
  d.pages = sat_mul(kv_page_bytes(dm, s, tp, b), dm.layers);
  d.peak = sat_mul(layer_peak_elements(dm, tp, batched_tokens, b), b);
  return d;
}

// What one rank's profile gives, before its blocks are counted.
struct RankInputs {
  const ModelSpec& m;
  const VllmSettings& s;
  const VllmGeneration& g;
  const VllmMemory& r;  // the limits: max_num_batched_tokens, sampler_rows
  int64_t tp, pp, b, rope_cache, page, outside_bytes;
  double weights_scale;
};

VllmRank profile_rank(const RankInputs& in, const StageWeights& w, const DraftShare& draft, int64_t st, int64_t rank,
                      int64_t total) {
  const VllmSettings& s = in.s;
  const VllmGeneration& g = in.g;
  const int64_t b = in.b, T = in.r.max_num_batched_tokens;
  VllmRank k;
  k.tp_rank = rank;
  k.pp_rank = st;
  k.layers = w.layers[static_cast<size_t>(st)];
  k.first_stage = st == 0;
  k.last_stage = st == in.pp - 1;
  k.total = total;
  // Worker.init_device: requested_memory = total_memory x gpu_memory_utilization.
  k.requested = static_cast<int64_t>(static_cast<double>(k.total) * s.gpu_memory_utilization);
  // GPUModelRunner.load_model creates the LoRA slots (load_lora_model) inside the same
  // DeviceMemoryProfiler as the weights: "Model loading took" counts them.
  k.lora = w.lora[static_cast<size_t>(st)];
  k.draft_weights = k.last_stage ? draft.weights : 0;
  k.draft_page_bytes = k.last_stage ? draft.pages : 0;
  k.weights = static_cast<int64_t>(std::llround(static_cast<double>(w.weights[static_cast<size_t>(st)]) * in.weights_scale)) +
              (k.layers > 0 ? in.rope_cache : 0) + k.lora + k.draft_weights;
  // GPUModelRunner.profile_run: _dummy_run(max_num_batched_tokens) — one forward pass of
  // that many tokens; the peak is the widest layer, with the embedding's output before it
  // (the drafter's pass after it: the larger of the two).
  k.forward_peak = k.layers > 0 ? sat_mul(layer_peak_elements(in.m, in.tp, T, b), b) : 0;
  if (k.last_stage) k.forward_peak = std::max(k.forward_peak, draft.peak);
  // Then _dummy_sampler_run on the last stage: logits for sampler_rows requests and one
  // sampler pass with top-k and top-p set (GPUModelRunner._dummy_sampler_run), while the
  // forward pass's hidden states ([T, h]) are still held. compute_logits' output is in the
  // model dtype over the padded vocabulary (b bytes per element); the sampler's own
  // tensors (vllm/v1/sample/sampler.py Sampler.forward) are f32 over the vocabulary:
  //   before 0.11, at its widest the sort of apply_top_k_top_p
  //   (vllm/v1/sample/ops/topk_topp_sampler.py; V0: model_executor/layers/sampler.py
  //   _apply_top_k_top_p): logits.to(float32) 4 B, the sorted values and int64 indices
  //   12 B, and inside torch.sort on CUDA (aten/src/ATen/native/cuda/Sort.cu,
  //   segmented_sort_pairs) the int64 iota it sorts as values and cub's alternate key and
  //   value buffers (DeviceSegmentedRadixSort::SortPairs without a DoubleBuffer) 8 + 12 B:
  //   36 B per element;
  //   from 0.11, top-k/top-p without the sort (FlashInfer, or the Triton kernel in place):
  //   logits.to(float32) 4 B, the probabilities of random_sample 4 B and its exponential
  //   noise q = torch.empty_like(probs) 4 B: 12 B per element.
  if (k.last_stage) {
    const int64_t rows = in.r.sampler_rows;
    const int64_t sampler_bytes = g.sorting_sampler ? 36 : 12;
    k.sampler_peak = sat_add(sat_add(sat_mul(rows, pad_to(in.m.vocab_size, kVocabPadding), b), sat_mul(rows, in.m.vocab_size, sampler_bytes)),
                             sat_mul(T + rows, in.m.hidden_size, b));
  }
  k.activation_peak = std::max(k.forward_peak, k.sampler_peak);
  const bool parallel = in.tp > 1 || in.pp > 1;
  k.non_torch = in.tp > 1 ? g.non_torch_tp : in.pp > 1 ? g.non_torch_pp : g.non_torch;
  // Worker.determine_available_memory: requested_memory - non_kv_cache_memory
  // (vllm/utils/mem_utils.py memory_profiling: weights + torch peak increase + non-torch increase).
  k.kv_available = k.requested - k.non_kv();
  k.kv_page_bytes = in.page;
  const KvGroups groups = kv_groups(in.m, w.first_layer[static_cast<size_t>(st)], k.layers, g.hybrid_kv && !s.disable_hybrid_kv_cache_manager);
  k.layers_per_group = groups.layers_per_group;
  k.full_groups = groups.full;
  k.sliding_groups = groups.sliding;
  // vllm/v1/core/kv_cache_utils.py get_num_blocks: available // page_size // layers per group
  // (every group's block i sits in one tensor per layer slot).
  k.blocks = k.kv_available > 0 && k.layers > 0 ? k.kv_available / sat_add(sat_mul(in.page, k.layers_per_group), k.draft_page_bytes) : 0;
  k.cuda_graphs = s.enforce_eager ? 0 : g.cuda_graphs;
  k.outside_budget = in.outside_bytes + (parallel ? g.context_tp_extra : 0) + k.cuda_graphs;
  return k;
}

// The limits before any memory: --max-model-len, --max-num-seqs, --max-num-batched-tokens and
// the sampler's rows, with EngineArgs' defaults from the first GPU.
void set_limits(VllmMemory& r, const ModelSpec& m, const VllmSettings& s, const std::vector<int64_t>& gpu_total_bytes,
                const std::vector<std::string>& gpu_names) {
  const VllmGeneration& g = r.generation;
  // No --max-model-len: the model's own, rope_scaling included (vllm/config/model.py
  // _get_and_verify_max_len: YaRN's original_max_position_embeddings x factor, linear's
  // max_position_embeddings x factor).
  const int64_t model_len = m.usable_context_tokens();
  r.max_model_len = s.max_model_len > 0 ? s.max_model_len : (model_len > 0 ? model_len : 4096);
  // EngineArgs' defaults come from the first GPU (current_platform.get_device_total_memory()).
  const int64_t first_total = gpu_total_bytes.empty() ? 0 : gpu_total_bytes.front();
  const std::string first_name = gpu_names.empty() ? std::string() : gpu_names.front();
  r.max_num_seqs = s.max_num_seqs > 0 ? s.max_num_seqs : vllm_default_max_num_seqs(g, first_total, first_name);
  r.max_num_batched_tokens = s.max_num_batched_tokens > 0
                                 ? s.max_num_batched_tokens
                                 : vllm_default_max_num_batched_tokens(g, first_total, first_name, r.max_model_len);
  // GPUModelRunner.profile_run -> _dummy_sampler_run: one row of logits per request, at most
  // one request per token (min(max_num_seqs, max_num_batched_tokens)).
  r.sampler_rows = std::min(r.max_num_seqs, r.max_num_batched_tokens);
}

// The pool's figures once every rank is profiled: "GPU KV cache size", the concurrency, the
// longest request that fits and the least --gpu-memory-utilization that serves one. Returns
// the blocks one request of max_model_len needs.
int64_t summarize_pool(VllmMemory& r, const ModelSpec& m, const VllmSettings& s, int64_t page) {
  const int64_t model_len = m.usable_context_tokens();
  r.num_gpu_blocks = -1;
  for (const VllmRank& k : r.ranks) r.num_gpu_blocks = r.num_gpu_blocks < 0 ? k.blocks : std::min(r.num_gpu_blocks, k.blocks);
  r.num_gpu_blocks = std::max<int64_t>(0, r.num_gpu_blocks);
  // "GPU KV cache size": the blocks shared out among the groups (kv_cache_utils
  // _report_kv_cache_config: num_blocks // groups x block_size), the fewest over the stages.
  const KvGroups first_groups{r.ranks.front().layers_per_group, r.ranks.front().full_groups, r.ranks.front().sliding_groups};
  r.kv_tokens = -1;
  for (const VllmRank& k : r.ranks) {
    const int64_t groups = std::max<int64_t>(1, k.full_groups + k.sliding_groups);
    const int64_t tokens = r.num_gpu_blocks / groups * s.block_size;
    r.kv_tokens = r.kv_tokens < 0 ? tokens : std::min(r.kv_tokens, tokens);
  }
  // kv_cache_utils.get_max_concurrency_for_kv_cache_config: blocks over one request's blocks.
  const int64_t request_blocks = blocks_per_request(m, first_groups, r.max_model_len, s.block_size, r.max_num_batched_tokens);
  r.max_concurrency = static_cast<double>(r.num_gpu_blocks) / static_cast<double>(std::max<int64_t>(1, request_blocks));
  // kv_cache_utils.estimate_max_model_len: the longest request whose blocks fit (at most the
  // model's own context).
  int64_t low = 0, high = model_len > 0 ? model_len : std::max<int64_t>(r.max_model_len, 1);
  while (low < high) {
    const int64_t mid = low + (high - low + 1) / 2;
    if (blocks_per_request(m, first_groups, mid, s.block_size, r.max_num_batched_tokens) <= r.num_gpu_blocks) low = mid;
    else high = mid - 1;
  }
  r.longest_model_len = low;
  double min_util = 0;
  for (const VllmRank& k : r.ranks) {
    if (k.total <= 0) continue;
    const KvGroups groups{k.layers_per_group, k.full_groups, k.sliding_groups};
    const int64_t blocks = blocks_per_request(m, groups, r.max_model_len, s.block_size, r.max_num_batched_tokens);
    const int64_t need = sat_add(k.non_kv(), sat_mul(blocks, sat_add(sat_mul(page, k.layers_per_group), k.draft_page_bytes)));
    min_util = std::max(min_util, static_cast<double>(need) / static_cast<double>(k.total));
  }
  r.min_utilization = min_util;
  return request_blocks;
}

// Every rank is checked as vLLM's worker on it checks (each says its own GPU's answer); the
// first refusal is what vLLM prints.
void check_ranks(VllmMemory& r, const VllmSettings& s, int64_t outside_bytes, int64_t request_blocks, int64_t page) {
  const VllmGeneration& g = r.generation;
  const bool parallel = s.tensor_parallel_size > 1 || s.pipeline_parallel_size > 1;
  char line[512];
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    VllmRank& k = r.ranks[i];
    const bool first_refusal = r.refusal.empty();
    const double gib = static_cast<double>(kGiB);
    const int64_t before_snapshot = outside_bytes + (parallel ? g.context_tp_extra : 0);
    k.starts = k.total - before_snapshot >= k.requested && k.kv_available > 0 && k.blocks >= request_blocks;
    k.beyond_total = k.starts && k.requested + k.outside_budget > k.total;
    if (!first_refusal) continue;
    if (k.total - before_snapshot < k.requested) {
      // Worker.init_device refuses to start.
      std::snprintf(line, sizeof line,
                    "GPU %zu: Free memory on device (%.2f/%.2f GiB) on startup is less than desired GPU memory utilization "
                    "(%.2f, %.2f GiB) (the CUDA context takes %.2f GiB first)",
                    i, static_cast<double>(k.total - before_snapshot) / gib, static_cast<double>(k.total) / gib,
                    s.gpu_memory_utilization, static_cast<double>(k.requested) / gib, static_cast<double>(before_snapshot) / gib);
      r.refusal = line;
    } else if (k.kv_available <= 0) {
      std::snprintf(line, sizeof line,
                    "GPU %zu: No available memory for the cache blocks (Available KV cache memory: %.2f GiB). Try increasing "
                    "`gpu_memory_utilization` when initializing the engine.",
                    i, static_cast<double>(k.kv_available) / gib);
      r.refusal = line;
    } else if (k.blocks < request_blocks) {
      // kv_cache_utils.check_enough_kv_cache_memory.
      std::snprintf(line, sizeof line,
                    "To serve at least one request with the model's max seq len (%lld), (%.2f GiB KV cache is needed, which is "
                    "larger than the available KV cache memory (%.2f GiB). Based on the available memory, the estimated maximum "
                    "model length is %lld. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
                    "initializing the engine.",
                    static_cast<long long>(r.max_model_len),
                    static_cast<double>(request_blocks) *
                        static_cast<double>(page * k.layers_per_group + k.draft_page_bytes) / gib,
                    static_cast<double>(k.kv_available) / gib,
                    static_cast<long long>(r.longest_model_len));
      r.refusal = line;
    } else if (k.requested + k.outside_budget > k.total && r.warning.empty()) {
      // Not one of vLLM's checks: CUDA graphs are captured after the KV cache, beyond the
      // budget, and their size here is assumed (the median of H100 logs), so a warning.
      std::snprintf(line, sizeof line,
                    "GPU %zu: the budget (%.2f GiB) and what vLLM uses beyond it (CUDA context, NCCL and graphs, %.2f GiB, "
                    "assumed) exceed the GPU's %.2f GiB: CUDA graph capture may run out of memory; lower "
                    "--gpu-memory-utilization or use --enforce-eager",
                    i, static_cast<double>(k.requested) / gib, static_cast<double>(k.outside_budget) / gib,
                    static_cast<double>(k.total) / gib);
      r.warning = line;
    }
  }
}

}  // namespace

int64_t tensor_parallel_rank_weights(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format, int64_t group_size,
                                     int64_t tp) {
  int64_t total = 0;
  for (const TensorShape& t : enumerate_tensors(m)) {
    StorageType type = tables.storage_types[static_cast<size_t>(storage_type_for_tensor(tables, format, m, t))];
    if (group_size > 0) type = with_group_size(type, group_size);
    total += rank_bytes(type, m, t, tp);
  }
  return total;
}

VllmMemory vllm_memory(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format, int64_t group_size,
                       int64_t activation_bytes, const VllmSettings& s, const std::vector<int64_t>& gpu_total_bytes,
                       const std::vector<std::string>& gpu_names, double weights_scale, int64_t outside_bytes,
                       const VllmDraft& draft) {
  VllmMemory r;
  const int64_t tp = std::max<int64_t>(1, s.tensor_parallel_size);
  const int64_t pp = std::max<int64_t>(1, s.pipeline_parallel_size);
  const int64_t b = std::max<int64_t>(1, activation_bytes);
  r.generation = vllm_generation(s.version_major, s.version_minor);
  set_limits(r, m, s, gpu_total_bytes, gpu_names);
  const StageWeights weights = stage_weights(tables, m, format, group_size, s, tp, pp, b);
  // Weights load with the rotary embedding's cos/sin cache, a buffer of max_position x
  // rotary_dim in the model's dtype on every rank with layers (vllm/model_executor/layers/
  // rotary_embedding.py, RotaryEmbedding._compute_cos_sin_cache; get_rope shares one per shape;
  // the YaRN and linear scaling embeddings cache max_position_embeddings x factor rows).
  const int64_t model_len = m.usable_context_tokens();
  const int64_t rotary_dim = m.uses_mla() ? m.qk_rope_head_dim : m.head_dim;
  const int64_t rope_cache = sat_mul(model_len > 0 ? model_len : 4096, rotary_dim, b);
  const int64_t page = kv_page_bytes(m, s, tp, b);
  const DraftShare drafted = draft_share(tables, draft, s, tp, b, r.max_num_batched_tokens);
  const RankInputs in{m, s, r.generation, r, tp, pp, b, rope_cache, page, outside_bytes, weights_scale};
  for (int64_t st = 0; st < pp; ++st) {
    for (int64_t rank = 0; rank < tp; ++rank) {
      const size_t device = static_cast<size_t>(st * tp + rank);
      r.ranks.push_back(profile_rank(in, weights, drafted, st, rank, device < gpu_total_bytes.size() ? gpu_total_bytes[device] : 0));
    }
  }
  const int64_t request_blocks = summarize_pool(r, m, s, page);
  check_ranks(r, s, outside_bytes, request_blocks, page);
  r.fits = r.refusal.empty() && !r.ranks.empty();
  return r;
}

}  // namespace vramfit
