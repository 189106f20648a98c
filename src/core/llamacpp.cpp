#include "llamacpp.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "units.hpp"

namespace vramfit {

namespace {

constexpr int64_t kHost = -1;  // device index of the CPU

// The device of layer slot il (0..n_layer; n_layer is the output layer), as
// llama_model::load_tensors() assigns it (src/llama-model.cpp, get_layer_buft_list): the last
// n_gpu_layers slots go to the GPUs, split at the cumulative fractions `splits`.
struct Placement {
  int64_t i_gpu_start = 0;
  int64_t act_gpu_layers = 0;
  std::vector<double> splits;  // cumulative, normalised; one per GPU in use
  std::vector<int64_t> gpu_of_split;

  int64_t device(int64_t il) const {
    if (il < i_gpu_start || il - i_gpu_start >= act_gpu_layers || splits.empty()) return kHost;
    const double at = static_cast<double>(il - i_gpu_start) / static_cast<double>(act_gpu_layers);
    const size_t i = static_cast<size_t>(std::upper_bound(splits.begin(), splits.end(), at) - splits.begin());
    return gpu_of_split[std::min(i, splits.size() - 1)];
  }
};

// blocks: the model's n_layer, its MTP (NextN) layers included when the file holds them.
Placement place_layers(int64_t blocks, const LlamaCppSettings& s, const std::vector<int64_t>& free_bytes) {
  Placement p;
  const int64_t gpus = static_cast<int64_t>(free_bytes.size());
  if (gpus == 0) return p;
  const int64_t slots = blocks + 1;  // the repeating layers and the output layer
  const int64_t ngl = s.n_gpu_layers < 0 ? slots : s.n_gpu_layers;
  p.i_gpu_start = std::max<int64_t>(slots - ngl, 0);
  p.act_gpu_layers = std::min(ngl, slots);
  if (s.split_mode != LlamaSplitMode::layer || gpus == 1) {
    // -sm none and -sm row: the layers' home is the main GPU (llama_model_load: with
    // LLAMA_SPLIT_MODE_NONE only main_gpu is used; with ROW its matrices are split by rows).
    p.splits = {1.0};
    p.gpu_of_split = {std::clamp<int64_t>(s.main_gpu, 0, gpus - 1)};
    return p;
  }
  // Default split: each GPU's free memory (ggml_backend_dev_memory); else -ts as given.
  std::vector<double> weights(static_cast<size_t>(gpus), 0.0);
  const bool given = std::any_of(s.tensor_split.begin(), s.tensor_split.end(), [](double x) { return x > 0.0; });
  for (int64_t g = 0; g < gpus; ++g) {
    weights[static_cast<size_t>(g)] = given ? (static_cast<size_t>(g) < s.tensor_split.size() ? s.tensor_split[static_cast<size_t>(g)] : 0.0)
                                            : static_cast<double>(free_bytes[static_cast<size_t>(g)]);
  }
  double sum = 0.0;
  for (double w : weights) sum += w;
  double running = 0.0;
  for (int64_t g = 0; g < gpus; ++g) {
    running += weights[static_cast<size_t>(g)];
    p.splits.push_back(sum > 0.0 ? running / sum : static_cast<double>(g + 1) / static_cast<double>(gpus));
    p.gpu_of_split.push_back(g);
  }
  return p;
}

int64_t pad_to(int64_t value, int64_t multiple) { return ceil_div(value, multiple) * multiple; }

// The blocks llama.cpp places: the model's layers, and the MTP (NextN) layers a GGUF holds after
// them (block_count counts them: llama_model::load_hparams, LLM_KV_NEXTN_PREDICT_LAYERS).
int64_t placed_blocks(const ModelSpec& m, const LlamaCppWeights& w) {
  return std::max<int64_t>(m.layers, static_cast<int64_t>(w.layer.size()));
}

// The widest activations of one layer while the graph runs over `tokens` tokens, in f32 (the
// graph computes in f32 whatever the weights: llm_build_* in src/models/*.cpp).
int64_t layer_peak(const ModelSpec& m, int64_t tokens, int64_t kv_cells, bool flash_attention) {
  const int64_t q_dim = m.attention_heads * (m.uses_mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : m.head_dim);
  int64_t ffn = m.intermediate_size;
  if (m.is_moe()) {
    ffn = std::max(m.first_dense_layers > 0 ? m.intermediate_size : 0,
                   m.experts_per_token * m.moe_intermediate_size + m.shared_experts * m.shared_expert_intermediate_size);
  }
  // Feed-forward: the residual, the normed input, gate, up and their product (ffn wide).
  const int64_t mlp = 2 * m.hidden_size + 3 * ffn;
  if (flash_attention) return sat_mul(tokens, 4, mlp);
  // Without flash attention one layer's scores are materialised: KQ = n_kv x n_tokens x n_head
  // in f32 (llm_graph_context::build_attn_mha, ggml_mul_mat(k, q) then ggml_soft_max_ext in
  // place), beside q and the residual.
  const int64_t attention = sat_add(sat_mul(kv_cells, m.attention_heads), m.hidden_size + q_dim);
  return sat_mul(tokens, 4, std::max(mlp, attention));
}

std::string mib(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%8.2f MiB", static_cast<double>(bytes) / static_cast<double>(kMiB));
  return text;
}

}  // namespace

bool is_llamacpp_cache_type(const std::string& type) {
  for (const char* known : {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"}) {
    if (type == known) return true;
  }
  return false;
}

LlamaCppWeights llamacpp_weights(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format) {
  LlamaCppWeights w;
  w.layer.assign(static_cast<size_t>(m.layers), 0);
  w.layer_experts.assign(static_cast<size_t>(m.layers), 0);
  w.layer_vectors.assign(static_cast<size_t>(m.layers), 0);
  w.output_is_token_embd = m.tied_embeddings;
  for (const TensorShape& t : enumerate_tensors(m)) {
    if (t.role == TensorRole::vision) continue;  // in the separate mmproj GGUF, not the model's
    const StorageType& type = tables.storage_types[static_cast<size_t>(storage_type_for_tensor(tables, format, m, t))];
    const int64_t bytes = storage_bytes(type, t.row_length, t.rows, t.copies);
    if (is_embedding_role(t.role)) {  // llama.cpp's input layer: token and position tables
      w.input += bytes;
    } else if (t.layer < 0) {
      w.output += bytes;  // output_norm, output
    } else if (is_expert_role(t.role)) {
      w.layer_experts[static_cast<size_t>(t.layer)] += bytes;
    } else {
      w.layer[static_cast<size_t>(t.layer)] += bytes;
      if (t.role == TensorRole::vector) w.layer_vectors[static_cast<size_t>(t.layer)] += bytes;
    }
  }
  if (w.output_is_token_embd) w.output += w.input;
  return w;
}

namespace {

// The buffers of a device: a GPU's, or the host's (kHost).
LlamaCppBuffers& on(LlamaCppMemory& r, int64_t device) { return device == kHost ? r.host : r.gpus[static_cast<size_t>(device)]; }

// Weights (llama_model::load_tensors): token_embd always on the CPU ("there is very little
// benefit to offloading the input layer"); the output layer's tensors where slot n_layer
// goes (with tied embeddings a copy of token_embd, TENSOR_DUPLICATED; on the CPU it is the
// same mapped file range); each block's tensors with its layer, but the experts of the
// layers --cpu-moe / --n-cpu-moe name stay on the CPU (common/arg.cpp: -ot
// blk.N.ffn_(up|down|gate)_exps=CPU); -sm row splits a GPU layer's matrices by rows over
// the GPUs in -ts proportions (ggml_backend_split_buffer_type).
void place_weights(LlamaCppMemory& r, const LlamaCppWeights& w, const LlamaCppSettings& s, const Placement& place,
                   const std::vector<int64_t>& gpu_free_bytes, int64_t blocks) {
  const int64_t gpus = static_cast<int64_t>(r.gpus.size());
  const int64_t output_device = place.device(blocks);
  r.host.model += w.input;
  if (output_device == kHost) r.host.model += w.output - (w.output_is_token_embd ? w.input : 0);
  else on(r, output_device).model += w.output;
  const bool rows_split = s.split_mode == LlamaSplitMode::row && gpus > 1;
  std::vector<double> row_shares;
  if (rows_split) {
    LlamaCppSettings by_ts;
    by_ts.tensor_split = s.tensor_split;
    const Placement proportions = place_layers(blocks, by_ts, gpu_free_bytes);
    double previous = 0.0;
    for (double split : proportions.splits) {
      row_shares.push_back(split - previous);
      previous = split;
    }
  }
  for (int64_t il = 0; il < blocks; ++il) {
    const size_t i = static_cast<size_t>(il);
    const int64_t device = place.device(il);
    const bool experts_on_host = s.cpu_moe || il < s.n_cpu_moe;
    on(r, experts_on_host ? kHost : device).model += w.layer_experts[i];
    on(r, experts_on_host ? kHost : device).experts += w.layer_experts[i];
    if (device == kHost || !rows_split) {
      on(r, device).model += w.layer[i];
      continue;
    }
    const int64_t matrices = w.layer[i] - w.layer_vectors[i];
    on(r, device).model += w.layer_vectors[i];
    int64_t given = 0;
    for (int64_t g = 0; g < gpus; ++g) {
      const int64_t part = g + 1 == gpus ? matrices - given
                                         : static_cast<int64_t>(static_cast<double>(matrices) * row_shares[static_cast<size_t>(g)]);
      r.gpus[static_cast<size_t>(g)].model += part;
      given += part;
    }
  }
}

// LoRA adapters (llama_adapter_lora_init_impl): each pair in the buffer of the tensor it
// adapts — token_embd's on the CPU, the output layer's with it, a layer's (its experts'
// where they are) with that layer.
void place_lora(LlamaCppMemory& r, const LlamaCppSettings& s, const Placement& place, int64_t output_device) {
  const int64_t gpus = static_cast<int64_t>(r.gpus.size());
  for (const LlamaCppLora& adapter : s.lora) {
    std::vector<int64_t> by_device(static_cast<size_t>(gpus) + 1, 0);  // [gpus]: the host
    auto add = [&](int64_t device, int64_t bytes) {
      on(r, device).lora = sat_add(on(r, device).lora, bytes);
      int64_t& on_device = by_device[device == kHost ? static_cast<size_t>(gpus) : static_cast<size_t>(device)];
      on_device = sat_add(on_device, bytes);
    };
    const LlamaCppWeights& a = adapter.pairs;
    add(kHost, a.input);
    add(output_device, a.output);
    for (size_t il = 0; il < a.layer.size(); ++il) {
      const int64_t device = place.device(static_cast<int64_t>(il));
      add(device, a.layer[il]);
      const bool experts_on_host = s.cpu_moe || static_cast<int64_t>(il) < s.n_cpu_moe;
      add(experts_on_host ? kHost : device, il < a.layer_experts.size() ? a.layer_experts[il] : 0);
    }
    r.lora_by_device.push_back(by_device);
  }
}

// A multimodal projector (--mmproj): its weights on the first GPU (or the CPU with
// --no-mmproj-offload), and the graph clip reserves for its warmup image (LlamaCppMmproj::
// warmup_side) — an estimate of the tensors alive at once, said so in the report, not
// llama.cpp's own allocator. Qwen3-VL (tools/mtmd/models/qwen3vl.cpp, clip_graph_qwen3vl::build):
// while a layer's attention runs, the residual, the fused qkv (3 h, alive until v is cast), the
// roped q and k and k cast to f16 for flash attention (clip_graph::build_attn): 6.5 h floats a
// patch; the MLP holds the residual, the normed input or the output, and the up projection:
// 2 h + intermediate. On a GPU the input image (3 f32 planes) and the M-RoPE positions (4 i32 a
// patch) sit in a host buffer. Other projectors: one encoder layer's residual and normed input,
// q, k, v, the attention output (5 h) and the MLP (2 x intermediate), in f32. Without flash
// attention the heads x patches^2 f32 scores are added.
void place_mmproj(LlamaCppMemory& r, const LlamaCppSettings& s) {
  const int64_t gpus = static_cast<int64_t>(r.gpus.size());
  if (s.has_mmproj) {
    const LlamaCppMmproj& p = s.mmproj;
    const int64_t patches = p.patches();
    const bool on_host = s.no_mmproj_offload || gpus == 0;
    if (p.qwen3vl()) {
      r.mmproj_compute = sat_mul(patches, std::max(26 * p.hidden, 8 * p.hidden + 4 * p.intermediate));
      if (!on_host) r.mmproj_host_input = sat_add(sat_mul(p.warmup_side(), p.warmup_side(), 3 * 4), sat_mul(patches, 4 * 4));
    } else {
      r.mmproj_compute = sat_mul(patches, 4, 5 * p.hidden + 2 * p.intermediate);
    }
    if (!r.flash_attention) r.mmproj_compute = sat_add(r.mmproj_compute, sat_mul(patches, patches, p.heads, 4));
    on(r, on_host ? kHost : 0).mmproj = sat_add(p.weight_bytes, r.mmproj_compute);
    r.host.mmproj = sat_add(r.host.mmproj, r.mmproj_host_input);
  }
}

// What the layers' pass leaves for the compute buffers: each device's largest layer, and
// whether the host runs attention (for the attention masks).
struct LayerPass {
  std::vector<int64_t> peak;  // per GPU, then the host
  bool host_attends = false, any_full = false, any_sliding = false;
  int64_t host_layer_peak = 0;
  int64_t& peak_of(int64_t device) { return peak[device == kHost ? peak.size() - 1 : static_cast<size_t>(device)]; }
};

// KV cache (llama_kv_cache::llama_kv_cache): per layer, cells x (K row + V row) in the
// cache types, on the layer's device, or the CPU with -nkvo.
LayerPass place_cache(LlamaCppMemory& r, const FormatTables& tables, const ModelSpec& m, const LlamaCppSettings& s,
                      const Placement& place) {
  LayerPass pass;
  pass.peak.assign(r.gpus.size() + 1, 0);
  const int format_k = tables.find_storage(s.cache_type_k);
  const int format_v = tables.find_storage(s.cache_type_v);
  const StorageType& type_k = tables.storage_types[static_cast<size_t>(format_k >= 0 ? format_k : tables.find_storage("f16"))];
  const StorageType& type_v = tables.storage_types[static_cast<size_t>(format_v >= 0 ? format_v : tables.find_storage("f16"))];
  const int64_t k_width = m.uses_mla() ? m.kv_lora_rank + m.qk_rope_head_dim : m.kv_heads * m.head_dim;
  const int64_t v_width = m.uses_mla() ? m.kv_lora_rank : m.kv_heads * m.head_dim;
  const int64_t per_cell = row_bytes(type_k, k_width) + row_bytes(type_v, v_width);
  // Recurrent layers (Mamba, RWKV, Jamba's Mamba layers, Qwen3-Next's Gated DeltaNet) keep no
  // KV cells: llama_memory_recurrent::llama_memory_recurrent holds mem_size = max(1, n_seq_max)
  // states of n_embd_r() + n_embd_s() values per layer in f32 (type_r, type_s), on the layer's
  // device unless -nkvo; llama_memory_hybrid gives the attention layers their own
  // llama_kv_cache, the recurrent layers filtered out.
  const int64_t state_bytes = sat_mul(m.recurrent_state_elements(), 4);
  if (m.recurrent_layer_count() > 0) r.rs_cells = std::max<int64_t>(1, s.parallel);
  for (int64_t il = 0; il < m.layers; ++il) {
    const bool recurrent = m.is_recurrent_layer(il);
    if (!recurrent) {
      pass.host_attends = pass.host_attends || place.device(il) == kHost;
      (m.is_sliding_layer(il) ? pass.any_sliding : pass.any_full) = true;
    }
    const int64_t cells = recurrent ? 0 : m.is_sliding_layer(il) ? r.swa_cells : r.n_ctx;
    const int64_t layer_device = place.device(il);
    LlamaCppBuffers& memory = on(r, s.no_kv_offload ? kHost : layer_device);
    if (recurrent) memory.rs += sat_mul(r.rs_cells, state_bytes);
    else memory.kv += sat_mul(cells, per_cell);
    int64_t& p = pass.peak_of(layer_device);
    p = std::max(p, layer_peak(m, r.ubatch_tokens, cells, r.flash_attention));
    if (layer_device == kHost) pass.host_layer_peak = std::max(pass.host_layer_peak, p);
  }
  return pass;
}

// Compute buffers (llama_context::graph_reserve): the graph allocator reuses memory, so each
// device needs its largest moment: one of its layers, or on the output layer's device the
// logits of the reserved outputs (n_vocab x n_outputs f32, llamacpp_reserved_outputs) beside
// their normed hidden state.
void size_compute(LlamaCppMemory& r, const ModelSpec& m, const LlamaCppSettings& s, LayerPass& pass, int64_t output_device) {
  const int64_t gpus = static_cast<int64_t>(r.gpus.size());
  // The attention masks (below) are inputs set on the host; a GPU running attention layers (it
  // holds their KV cells) gets its own copy (ggml_backend_sched_split_graph copies a split's
  // inputs from other backends), the F16 cast with flash attention, the F32 mask without, read by
  // each of its attention layers and so alive through them, not at the output.
  r.kq_mask = sat_mul(sat_add(pass.any_full ? r.n_ctx : 0, pass.any_sliding ? r.swa_cells : 0), r.ubatch_tokens, 4);
  for (int64_t g = 0; g < gpus; ++g) {
    if (r.gpus[static_cast<size_t>(g)].kv > 0) pass.peak_of(g) = sat_add(pass.peak_of(g), r.flash_attention ? r.kq_mask / 2 : r.kq_mask);
  }
  int64_t& output_peak = pass.peak_of(output_device);
  r.reserved_outputs = std::min(r.ubatch_tokens, llamacpp_reserved_outputs(s));
  output_peak = std::max(output_peak, sat_mul(r.reserved_outputs, 4, m.vocab_size + m.hidden_size));
  for (int64_t g = 0; g < gpus; ++g) r.gpus[static_cast<size_t>(g)].compute = pass.peak[static_cast<size_t>(g)];
  // The host computes the input embeddings (get_rows on token_embd) for the batch.
  r.host.compute = std::max(pass.peak.back(), sat_mul(r.ubatch_tokens, 4, m.hidden_size));
  // The attention masks (llm_graph_context::build_attn_inp_kv, _iswa): per cache (the full one,
  // the SWA one) an F32 input of n_kv x n_tokens, set on the host (llama_kv_cache::
  // set_input_kq_mask asserts a host buffer), and with flash attention its F16 cast
  // (self_kq_mask_cnv). When every attention layer is on a GPU the input stays in the host's
  // compute buffer beside the embeddings; when the host runs attention, the input lives until
  // its cast (flash attention) or through the attention layers (without), and the cast through them.
  if (!pass.host_attends) {
    r.host.compute = sat_add(r.host.compute, r.kq_mask);
  } else {
    const int64_t cast = r.flash_attention ? r.kq_mask / 2 : 0;
    const int64_t through_layers = r.flash_attention ? cast : r.kq_mask;
    r.host.compute = std::max({r.host.compute, sat_add(r.kq_mask, cast), sat_add(pass.host_layer_peak, through_layers)});
  }
  // Output buffer (llama_context::output_reserve): logits for n_seq_max outputs, f32, on the host.
  r.host.output = sat_mul(std::max<int64_t>(s.parallel, 1), m.vocab_size, 4);
}

}  // namespace

int64_t llamacpp_reserved_outputs(const LlamaCppSettings& s) {
  const bool server_context = s.tool == "llama-server" || s.tool == "llama-cli";
  if (!server_context || (s.build > 0 && s.build < kLlamaCppOutputsMaxBuild)) return s.batch_size;
  const int64_t sequences = std::max<int64_t>(s.parallel, 1);
  return s.with_draft ? std::min(s.batch_size, sequences * (1 + 16)) : sequences;
}

LlamaCppMemory llamacpp_memory(const FormatTables& tables, const ModelSpec& m, const LlamaCppWeights& w,
                               const LlamaCppSettings& s, const std::vector<int64_t>& gpu_free_bytes) {
  LlamaCppMemory r;
  const int64_t gpus = static_cast<int64_t>(gpu_free_bytes.size());
  for (int64_t g = 0; g < gpus; ++g) r.gpus.push_back(LlamaCppBuffers{"CUDA" + std::to_string(g)});
  r.host.device = "CPU";

  // Context: llama_context::llama_context() pads n_ctx to 256; -c 0 is the trained context.
  const int64_t ctx = s.ctx_size > 0 ? s.ctx_size : (m.max_context_tokens > 0 ? m.max_context_tokens : 4096);
  r.n_ctx = pad_to(ctx, 256);
  const int64_t ubatch = std::min(s.batch_size, s.ubatch_size);
  r.ubatch_tokens = std::min(r.n_ctx, ubatch);
  // Sliding-window layers: llama_kv_cache_iswa keeps min(n_ctx, n_swa x n_seq + n_ubatch) cells.
  if (m.sliding_window > 0 && m.sliding_layer_count() > 0) {
    r.swa_cells = s.swa_full ? r.n_ctx : std::min(r.n_ctx, m.sliding_window * s.parallel + ubatch);
  }

  // MTP blocks are placed and loaded like any block, but the main context keeps no KV cache or
  // recurrent state for them (the loops below stop at m.layers): Qwen3.6-27B's MTP GGUF, 65
  // blocks, logs "offloaded 66/66 layers", KV for 16 layers and RS for its 48 Gated DeltaNet layers.
  const int64_t blocks = placed_blocks(m, w);
  const Placement place = place_layers(blocks, s, gpu_free_bytes);
  r.layer_slots = blocks + 1;
  for (int64_t il = 0; il <= blocks; ++il) {
    const int64_t d = place.device(il);
    if (d != kHost) ++r.offloaded_layers;
    if (il == blocks) on(r, d).output_layer = true;
    else on(r, d).layers += 1;
  }
  const int64_t output_device = place.device(blocks);

  // -fa auto: on unless the attention's device and its KV cache's differ (llama_context:
  // "Flash Attention was auto, set to disabled" when -nkvo keeps the cache on the CPU).
  const bool kv_apart = s.no_kv_offload && r.offloaded_layers > 0;
  r.flash_attention = s.flash_attn == LlamaFlashAttn::on || (s.flash_attn == LlamaFlashAttn::automatic && !kv_apart);

  place_weights(r, w, s, place, gpu_free_bytes, blocks);
  place_lora(r, s, place, output_device);
  place_mmproj(r, s);
  LayerPass pass = place_cache(r, tables, m, s, place);
  size_compute(r, m, s, pass, output_device);
  return r;
}

LlamaCppSettings llamacpp_draft_settings(const LlamaCppSettings& target, int64_t target_n_ctx) {
  LlamaCppSettings d = target;
  d.ctx_size = target_n_ctx;
  d.n_gpu_layers = target.gpu_layers_draft;
  d.cache_type_k = target.cache_type_k_draft;
  d.cache_type_v = target.cache_type_v_draft;
  // The target's tensor overrides (--n-cpu-moe, --cpu-moe) give way to the draft's own (-otd, not read).
  d.n_cpu_moe = 0;
  d.cpu_moe = false;
  d.lora.clear();  // the adapters and the projector are the target's
  d.has_mmproj = false;
  d.with_draft = false;  // server_context: the draft's context reserves one output per sequence
  return d;
}

LlamaCppMemory llamacpp_draft_memory(const FormatTables& tables, const LlamaCppDraft& draft, const LlamaCppSettings& s,
                                     const LlamaCppMemory& target, const std::vector<int64_t>& gpu_free_bytes) {
  std::vector<int64_t> free_now = gpu_free_bytes;
  for (size_t g = 0; g < free_now.size() && g < target.gpus.size(); ++g) {
    free_now[g] = std::max<int64_t>(free_now[g] - target.gpus[g].total(), 0);
  }
  return llamacpp_memory(tables, *draft.model, *draft.weights, llamacpp_draft_settings(s, target.n_ctx), free_now);
}

LlamaCppFit llamacpp_fit(const FormatTables& tables, const ModelSpec& m, const LlamaCppWeights& w, const LlamaCppSettings& s,
                         const std::vector<int64_t>& capacity, int64_t host_capacity, int64_t runtime_bytes, double margin,
                         const LlamaCppDraft& draft) {
  // Whether these buffers start (with_margin false) or start with every GPU's margin kept free.
  auto fits = [&](const LlamaCppMemory& r, bool with_margin, LlamaCppFit* out) {
    LlamaCppMemory d;  // the draft's buffers beside the target's (none without a draft)
    if (draft.model) d = llamacpp_draft_memory(tables, draft, s, r, capacity);
    bool all = host_capacity <= 0 || sat_add(r.host.total(), d.host.total()) <= host_capacity;
    if (out) out->host_need = sat_add(r.host.total(), d.host.total());
    for (size_t g = 0; g < r.gpus.size(); ++g) {
      const int64_t draft_bytes = g < d.gpus.size() ? d.gpus[g].total() : 0;
      const int64_t use = sat_add(sat_add(r.gpus[g].total(), draft_bytes), runtime_bytes);
      all = all && sat_add(use, with_margin ? safety_margin_bytes(use, margin) : 0) <= capacity[g];
      if (out) {
        out->gpu_use.push_back(use);
        out->gpu_margin.push_back(safety_margin_bytes(use, margin));
      }
    }
    return all;
  };
  LlamaCppFit f;
  f.gpu_capacity = capacity;
  f.margin_fraction = margin;
  const LlamaCppMemory now = llamacpp_memory(tables, m, w, s, capacity);
  f.fits = fits(now, false, &f);
  f.keeps_margin = f.fits && fits(now, true, nullptr);
  // -ngl: more GPU layers only add to the GPUs, so the most that fit is the first from the top.
  auto most_gpu_layers = [&](bool with_margin) {
    for (int64_t ngl = placed_blocks(m, w) + 1; ngl > 0; --ngl) {
      LlamaCppSettings t = s;
      t.n_gpu_layers = ngl;
      if (fits(llamacpp_memory(tables, m, w, t, capacity), with_margin, nullptr)) return ngl;
    }
    return int64_t(0);
  };
  // -c: the KV cache and the no-flash-attention scores grow with it; binary search over 256s.
  const int64_t limit = m.max_context_tokens > 0 ? m.max_context_tokens : int64_t(1) << 20;
  auto longest_ctx = [&](bool with_margin) {
    auto fits_ctx = [&](int64_t ctx) {
      LlamaCppSettings t = s;
      t.ctx_size = ctx;
      return fits(llamacpp_memory(tables, m, w, t, capacity), with_margin, nullptr);
    };
    int64_t lo = 0, hi = ceil_div(limit, 256);  // in units of 256 cells
    if (!fits_ctx(256)) hi = 0;
    while (lo < hi) {
      const int64_t mid = (lo + hi + 1) / 2;
      if (fits_ctx(mid * 256)) lo = mid;
      else hi = mid - 1;
    }
    return std::min(lo * 256, limit);
  };
  f.max_gpu_layers = most_gpu_layers(false);
  f.max_ctx_size = longest_ctx(false);
  f.max_gpu_layers_with_margin = margin > 0 ? most_gpu_layers(true) : f.max_gpu_layers;
  f.max_ctx_size_with_margin = margin > 0 ? longest_ctx(true) : f.max_ctx_size;
  return f;
}

LlamaCppDecodeBound llamacpp_decode_bound(const ModelSpec& m, const LlamaCppWeights& w, const LlamaCppMemory& r,
                                          const std::vector<double>& gpu_bandwidth_gbs, double host_bandwidth_gbs) {
  LlamaCppDecodeBound b;
  const double used = m.is_moe() && m.experts > 0 ? static_cast<double>(m.experts_per_token) / static_cast<double>(m.experts) : 1.0;
  auto read = [used](const LlamaCppBuffers& d, int64_t not_read) {
    return static_cast<int64_t>(static_cast<double>(d.model - d.experts - not_read) + static_cast<double>(d.experts) * used);
  };
  double empty = 0.0, full = 0.0;  // seconds per token
  for (size_t g = 0; g < r.gpus.size(); ++g) {
    const int64_t bytes = read(r.gpus[g], 0);
    b.gpu_bytes_per_token.push_back(bytes);
    const double per_second = (g < gpu_bandwidth_gbs.size() ? gpu_bandwidth_gbs[g] : 0.0) * 1e9;
    if (per_second <= 0.0) return LlamaCppDecodeBound{};
    empty += static_cast<double>(bytes) / per_second;
    full += static_cast<double>(bytes + r.gpus[g].kv) / per_second;
  }
  // The host reads one row of token_embd, not all of it (get_rows).
  b.host_bytes_per_token = read(r.host, w.input);
  if (b.host_bytes_per_token > 0 || r.host.kv > 0) {
    if (host_bandwidth_gbs <= 0.0) return LlamaCppDecodeBound{};
    empty += static_cast<double>(b.host_bytes_per_token) / (host_bandwidth_gbs * 1e9);
    full += static_cast<double>(b.host_bytes_per_token + r.host.kv) / (host_bandwidth_gbs * 1e9);
  }
  b.tokens_per_second_empty = empty > 0.0 ? 1.0 / empty : 0.0;
  b.tokens_per_second_full = full > 0.0 ? 1.0 / full : 0.0;
  return b;
}

LlamaCppPrefillBound llamacpp_prefill_bound(const ModelSpec& m, const LlamaCppMemory& memory,
                                            const std::vector<double>& rates, int64_t prompt_tokens) {
  LlamaCppPrefillBound b;
  b.prompt_tokens = prompt_tokens;
  b.host_layers_left_out = memory.host.layers;
  const std::vector<int64_t> active = active_parameters_per_layer(m);
  // The layers in load_tensors' order: the host's first, then each GPU's run of them.
  int64_t layer = memory.host.layers;
  double seconds = 0;
  for (size_t g = 0; g < memory.gpus.size(); ++g) {
    const double flops = prefill_flops_per_token(m, active, layer, memory.gpus[g].layers, prompt_tokens);
    layer += memory.gpus[g].layers;
    if (flops <= 0) continue;
    const double rate = g < rates.size() ? rates[g] * 1e12 : 0.0;
    if (rate <= 0) return b;  // not known: no bound
    seconds += flops / rate;
  }
  b.tokens_per_second = seconds > 0 ? 1.0 / seconds : 0;
  return b;
}

void name_llamacpp_devices(LlamaCppMemory& memory, const std::vector<std::string>& backends) {
  for (size_t g = 0; g < memory.gpus.size() && g < backends.size(); ++g) {
    const auto before = std::count(backends.begin(), backends.begin() + static_cast<std::ptrdiff_t>(g), backends[g]);
    memory.gpus[g].device = backends[g] + std::to_string(before);
    memory.gpus[g].mapped_model = backends[g] == "MTL";
  }
  if (!backends.empty()) memory.host_buffer = backends.front() == "MTL" ? "CPU" : backends.front() + "_Host";
}

std::vector<std::string> llamacpp_log_lines(const LlamaCppMemory& r) {
  std::vector<std::string> lines;
  const std::string host = r.gpus.empty() ? "CPU" : r.host_buffer;
  lines.push_back("load_tensors: offloaded " + std::to_string(r.offloaded_layers) + "/" + std::to_string(r.layer_slots) +
                  " layers to GPU");
  for (const LlamaCppBuffers& g : r.gpus) {
    if (g.model > 0) lines.push_back("load_tensors: " + g.device + (g.mapped_model ? "_Mapped" : "") + " model buffer size = " + mib(g.model));
  }
  lines.push_back("load_tensors: CPU_Mapped model buffer size = " + mib(r.host.model));
  for (const std::vector<int64_t>& adapter : r.lora_by_device) {
    for (size_t d = 0; d < adapter.size(); ++d) {
      if (adapter[d] <= 0) continue;
      const std::string device = d < r.gpus.size() ? r.gpus[d].device : "CPU";
      lines.push_back("llama_adapter_lora_init_impl: " + device + " LoRA buffer size = " + mib(adapter[d]));
    }
  }
  for (const LlamaCppBuffers& g : r.gpus) {
    if (g.kv > 0) lines.push_back("llama_kv_cache: " + g.device + " KV buffer size = " + mib(g.kv));
  }
  if (r.host.kv > 0) lines.push_back("llama_kv_cache: CPU KV buffer size = " + mib(r.host.kv));
  for (const LlamaCppBuffers& g : r.gpus) {
    if (g.rs > 0) lines.push_back("llama_memory_recurrent: " + g.device + " RS buffer size = " + mib(g.rs));
  }
  if (r.host.rs > 0) lines.push_back("llama_memory_recurrent: CPU RS buffer size = " + mib(r.host.rs));
  lines.push_back("llama_context: " + host + " output buffer size = " + mib(r.host.output));
  for (const LlamaCppBuffers& g : r.gpus) {
    if (g.compute > 0) lines.push_back("llama_context: " + g.device + " compute buffer size = " + mib(g.compute));
  }
  lines.push_back("llama_context: " + host + " compute buffer size = " + mib(r.host.compute));
  return lines;
}

}  // namespace vramfit
