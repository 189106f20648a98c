#include "inference.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace vramfit {

namespace {

int64_t kv_heads_on_one_gpu(const ModelSpec& m, int64_t gpus) noexcept {
  if (m.uses_mla()) return 0;
  // Tensor parallelism splits KV heads; with more GPUs than KV heads each GPU keeps one
  // (replicated), as vLLM does (num_kv_heads // tp_size, at least 1).
  return m.kv_heads % gpus == 0 ? m.kv_heads / gpus : ceil_div(m.kv_heads, gpus);
}

int64_t kv_bytes_per_token_per_layer(const PreparedInference& p, int64_t heads_on_gpu) noexcept {
  const ModelSpec& m = p.model;
  if (m.uses_mla()) {
    // MLA caches one compressed latent per token: kv_lora_rank + the decoupled RoPE key
    // (DeepSeek-V2 paper, section 2.1; vLLM and llama.cpp store exactly this).
    return row_bytes(p.kv_type, m.kv_lora_rank + m.qk_rope_head_dim);
  }
  // One key row and one value row of heads x head_dim elements (llama.cpp: n_embd_k_gqa).
  return 2 * row_bytes(p.kv_type, heads_on_gpu * m.head_dim);
}

std::string n(int64_t value) { return with_thousands(value); }

std::string per_element(const StorageType& t) {
  if (t.block_elements == 1 && t.block_bits % 8 == 0) return std::to_string(t.block_bits / 8) + " B";
  if (t.block_bits % 8 == 0) {
    return std::to_string(t.block_bits / 8) + " B per " + std::to_string(t.block_elements);
  }
  return std::to_string(t.block_bits) + " bits per " + std::to_string(t.block_elements);
}

std::string plural(int64_t count, const char* one, const char* many) {
  return n(count) + " " + (count == 1 ? one : many);
}

}  // namespace

PreparedInference prepare_inference(const FormatTables& tables, const ModelSpec& model,
                                    const WeightFormat& format, int64_t group_size,
                                    const StorageType& kv_type) {
  const int default_type = format.mix >= 0 ? tables.mixes[static_cast<size_t>(format.mix)].base
                                           : format.default_type;
  const int64_t activation_bytes = tables.storage_types[static_cast<size_t>(default_type)].id == "f32" ? 4 : 2;
  return prepare_inference(model, summarize_weights(tables, format, model, group_size), activation_bytes, kv_type);
}

PreparedInference prepare_inference(const ModelSpec& model, const WeightsSummary& weights,
                                    int64_t activation_bytes, const StorageType& kv_type) {
  PreparedInference p;
  p.model = model;
  p.weights = weights;
  p.kv_type = kv_type;
  p.activation_bytes = activation_bytes;
  p.sliding_layers = model.sliding_layer_count();
  p.full_attention_layers = model.layers - p.sliding_layers;
  p.attention_heads = model.attention_heads;
  if (model.uses_mla()) {
    p.q_dim = model.attention_heads * (model.qk_nope_head_dim + model.qk_rope_head_dim);
    p.kv_dim = model.attention_heads * (model.qk_nope_head_dim + model.v_head_dim) / 2;
  } else {
    p.q_dim = model.attention_heads * model.head_dim;
    p.kv_dim = model.kv_heads * model.head_dim;
  }
  int64_t ffn = 0;
  if (!model.is_moe() || model.first_dense_layers > 0) ffn = model.intermediate_size;
  if (model.is_moe()) {
    ffn = std::max(ffn, model.experts_per_token * model.moe_intermediate_size +
                            model.shared_experts * model.shared_expert_intermediate_size);
  }
  if (ffn == 0 && model.parameters_only > 0) ffn = 4 * model.hidden_size;  // classic 4h MLP
  p.ffn_dim = ffn;
  return p;
}

InferenceMemory inference_memory(const PreparedInference& p, const InferenceSettings& s) noexcept {
  InferenceMemory m;
  const int64_t gpus = s.gpu_count;
  const int64_t ctx = s.context_tokens;
  const int64_t seqs = s.concurrent_sequences;

  // Weights: matrices split over the GPUs, 1-D tensors replicated on each.
  m.weights = gpus == 1 ? p.weights.bytes
                        : p.weights.replicated_bytes +
                              ceil_div(p.weights.bytes - p.weights.replicated_bytes, gpus);

  // KV cache (article 004): 2 x layers x kv_heads x head_dim x bytes x tokens x sequences;
  // sliding-window layers hold at most the window.
  m.kv_heads_per_gpu = kv_heads_on_one_gpu(p.model, gpus);
  m.kv_bytes_per_token_per_layer = kv_bytes_per_token_per_layer(p, m.kv_heads_per_gpu);
  const int64_t sliding_tokens = std::min(ctx, p.model.sliding_window);
  m.kv_cache = sat_mul(seqs, m.kv_bytes_per_token_per_layer,
                       sat_add(sat_mul(p.full_attention_layers, ctx), sat_mul(p.sliding_layers, sliding_tokens)));

  if (s.overhead == OverheadModel::engine) {
    m.runtime = s.runtime_bytes;
    m.prefill_tokens = std::min(s.prefill_chunk_tokens, ctx * seqs);
    // Logits: one fp32 row of vocab_size per sequence (the next-token distribution).
    m.logits = sat_mul(seqs, p.model.vocab_size, 4);
    // Live activations while one layer runs over a prefill chunk: residual and normed
    // input (2 x hidden), q, k, v, and the MLP's gate, up and product (3 x ffn), in the
    // activation dtype; the split widths are divided over tensor-parallel GPUs.
    m.activations = sat_mul(m.prefill_tokens, p.activation_bytes,
                            sat_add(2 * p.model.hidden_size, (p.q_dim + 2 * p.kv_dim + 3 * p.ffn_dim) / gpus));
    // Without flash attention the fp32 score matrix of one layer is materialised:
    // chunk tokens x heads x cached tokens (llama.cpp KQ tensor, all sequences' cells).
    if (!s.flash_attention) {
      m.attention_scores = sat_mul(m.prefill_tokens, ceil_div(p.attention_heads, gpus), ctx, seqs, 4);
    }
  }
  m.subtotal = sat_add(sat_add(sat_add(m.weights, m.kv_cache), sat_add(m.runtime, m.logits)),
                       sat_add(m.activations, m.attention_scores));
  m.margin = std::llround(static_cast<double>(m.subtotal) * s.margin_fraction);
  m.total = m.subtotal + m.margin;
  return m;
}

Breakdown explain_inference(const FormatTables& tables, const PreparedInference& p,
                            const InferenceSettings& s, const InferenceMemory& m) {
  Breakdown b;
  b.mode = "inference";
  b.gpu_count = s.gpu_count;
  b.total_bytes = m.total;
  const ModelSpec& model = p.model;
  const int64_t gpus = s.gpu_count;
  const std::string per_gpu = gpus > 1 ? " / " + plural(gpus, "GPU", "GPUs") : "";

  // --- Weights ---------------------------------------------------------------------
  BreakdownItem weights{"weights", "Weights", m.weights, "", "", {}};
  if (p.weights.from_parameter_count) {
    const StorageType& t = tables.storage_types[static_cast<size_t>(p.weights.by_type[0].storage_type)];
    weights.formula = n(p.weights.parameters) + " parameters x " + per_element(t) + " (" + t.label +
                      ")" + per_gpu + " = " + n(m.weights) + " B";
    weights.note = "Parameter count only: every parameter stored as " + t.label +
                   " (the articles' rule: parameters x bytes per parameter).";
  } else {
    weights.formula = n(p.weights.parameters) + " parameters in their stored layouts = " +
                      n(p.weights.bytes) + " B";
    if (gpus > 1) {
      weights.formula += "; per GPU: " + n(p.weights.replicated_bytes) + " B of 1-D tensors on every GPU + " +
                         n(p.weights.bytes - p.weights.replicated_bytes) + " B / " + n(gpus) +
                         " = " + n(m.weights) + " B";
    }
    weights.note = p.weights.stored_in.empty()
                       ? "Exact: every tensor of the architecture, counted from its shape, in the "
                         "layout the format gives it (scales and zero points included)."
                       : "Exact: every tensor as " + p.weights.stored_in + " stores it.";
    for (const WeightsByType& w : p.weights.by_type) {
      const StorageType& t = tables.storage_types[static_cast<size_t>(w.storage_type)];
      BreakdownItem row{"weights." + t.id, t.label, w.bytes, "", t.note, {}};
      row.formula = n(w.elements) + " elements in " + plural(w.tensors, "tensor", "tensors") + " x " +
                    per_element(t) + " = " + n(w.bytes) + " B" + (gpus > 1 ? " (whole model)" : "");
      weights.children.push_back(row);
    }
  }
  if (model.is_moe()) {
    weights.note += " MoE: all " + n(p.weights.parameters) + " parameters are resident although only " +
                    n(p.weights.active_parameters) + " are active per token.";
  }
  b.items.push_back(weights);

  // --- KV cache --------------------------------------------------------------------
  BreakdownItem kv{"kv_cache", "KV cache", m.kv_cache, "", "", {}};
  const std::string bytes_label = p.kv_type.block_elements == 1
                                      ? std::to_string(p.kv_type.block_bits / 8) + " B"
                                      : std::to_string(p.kv_type.block_bits / 8) + "/" +
                                            std::to_string(p.kv_type.block_elements) + " B";
  const std::string tail = " x " + bytes_label + " (" + p.kv_type.label + ")";
  auto kv_line = [&](int64_t layers, int64_t tokens) {
    std::string f;
    if (model.uses_mla()) {
      f = plural(layers, "layer", "layers") + " x (" + n(model.kv_lora_rank) + " latent + " +
          n(model.qk_rope_head_dim) + " RoPE)" + tail;
    } else {
      f = "2 x " + plural(layers, "layer", "layers") + " x " + n(m.kv_heads_per_gpu) + " KV heads x " +
          n(model.head_dim) + " head_dim" + tail;
    }
    return f + " x " + plural(tokens, "token", "tokens") + " x " +
           plural(s.concurrent_sequences, "sequence", "sequences");
  };
  const int64_t bytes_per_token = sat_mul(m.kv_bytes_per_token_per_layer, p.full_attention_layers + p.sliding_layers);
  if (p.sliding_layers == 0) {
    kv.formula = kv_line(model.layers, s.context_tokens) + " = " + n(m.kv_cache) + " B";
  } else {
    const int64_t window_tokens = std::min(s.context_tokens, model.sliding_window);
    const int64_t full = sat_mul(s.concurrent_sequences, m.kv_bytes_per_token_per_layer, p.full_attention_layers, s.context_tokens);
    const int64_t sliding = m.kv_cache - full;
    kv.formula = n(full) + " B (full-attention layers) + " + n(sliding) + " B (sliding-window layers) = " +
                 n(m.kv_cache) + " B";
    if (p.full_attention_layers > 0) {
      kv.children.push_back({"kv_cache.full", "Full-attention layers", full,
                             kv_line(p.full_attention_layers, s.context_tokens) + " = " + n(full) + " B", "", {}});
    }
    kv.children.push_back({"kv_cache.sliding", "Sliding-window layers", sliding,
                           kv_line(p.sliding_layers, window_tokens) + " = " + n(sliding) + " B",
                           "These layers attend to the last " + n(model.sliding_window) +
                               " tokens only, so they hold min(context, window) tokens.", {}});
  }
  kv.note = n(bytes_per_token) + " B per token of context (all layers" + (gpus > 1 ? ", one GPU" : std::string()) + ").";
  if (model.uses_mla()) {
    kv.note += " Multi-head latent attention caches one compressed latent per token instead of per-head keys and values";
    kv.note += gpus > 1 ? "; the latent is not split by tensor parallelism, every GPU holds it all." : ".";
  } else if (model.kv_heads < model.attention_heads) {
    kv.note += " Grouped-query attention: " + n(model.kv_heads) + " KV heads serve " +
               n(model.attention_heads) + " query heads, a " + n(model.attention_heads / model.kv_heads) +
               "x smaller cache.";
  }
  if (!model.uses_mla() && gpus > 1) {
    kv.note += model.kv_heads % gpus == 0
                   ? " Tensor parallelism: " + n(model.kv_heads) + " KV heads / " + n(gpus) + " GPUs = " +
                         n(m.kv_heads_per_gpu) + " per GPU."
                   : " Tensor parallelism over more GPUs than KV heads: heads are replicated, " +
                         n(m.kv_heads_per_gpu) + " per GPU.";
  }
  b.items.push_back(kv);

  // --- Overhead ----------------------------------------------------------------------
  if (s.overhead == OverheadModel::engine) {
    const int64_t compute = m.logits + m.activations + m.attention_scores;
    BreakdownItem overhead{"overhead", "Runtime and compute buffers", m.runtime + compute,
                           n(m.runtime) + " B runtime + " + n(compute) + " B compute buffer = " +
                               n(m.runtime + compute) + " B",
                           "Memory the engine needs besides weights and cache.", {}};
    overhead.children.push_back({"overhead.runtime", "CUDA context and runtime", m.runtime,
                                 n(m.runtime) + " B (setting runtime_bytes)",
                                 "CUDA context, cuBLAS/cuDNN workspaces and allocator slack, per GPU. "
                                 "Assumed 512 MiB by default; measure yours as nvidia-smi's used memory "
                                 "minus torch.cuda.memory_reserved().", {}});
    BreakdownItem buffer{"overhead.compute", "Compute buffer", compute,
                         n(m.logits) + " B logits + " + n(m.activations) + " B activations + " +
                             n(m.attention_scores) + " B attention scores = " + n(compute) + " B",
                         "Peak working memory of one forward pass over a prefill chunk of " +
                             plural(m.prefill_tokens, "token", "tokens") + ".", {}};
    buffer.children.push_back({"overhead.compute.logits", "Logits", m.logits,
                               plural(s.concurrent_sequences, "sequence", "sequences") + " x " +
                                   n(model.vocab_size) + " vocab x 4 B (fp32) = " + n(m.logits) + " B",
                               "One next-token distribution per sequence, in fp32 as engines keep logits.", {}});
    buffer.children.push_back(
        {"overhead.compute.activations", "Activations", m.activations,
         n(m.prefill_tokens) + " tokens x " + std::to_string(p.activation_bytes) + " B x (2 x " +
             n(model.hidden_size) + " hidden + (" + n(p.q_dim) + " q + 2 x " + n(p.kv_dim) + " kv + 3 x " +
             n(p.ffn_dim) + " ffn)" + per_gpu + ") = " + n(m.activations) + " B",
         "Tensors alive while one layer runs: residual and normed input, q/k/v projections, and the "
         "MLP's gate, up and their product (the widest layer; MoE: experts per token x expert width).", {}});
    if (!s.flash_attention) {
      buffer.children.push_back(
          {"overhead.compute.attention_scores", "Attention scores", m.attention_scores,
           n(m.prefill_tokens) + " tokens x " + n(ceil_div(p.attention_heads, gpus)) + " heads x " +
               n(s.context_tokens * s.concurrent_sequences) + " cached tokens x 4 B = " +
               n(m.attention_scores) + " B",
           "Without flash attention one layer's fp32 score matrix is materialised (llama.cpp's KQ "
           "tensor); it grows with the context. Flash attention removes it.", {}});
    }
    overhead.children.push_back(buffer);
    b.items.push_back(overhead);
  } else {
    b.assumptions.push_back("Overhead model 'articles': no runtime or compute buffer, only the margin "
                            "on top of weights and KV cache, as the articles compute.");
  }

  // --- Margin ------------------------------------------------------------------------
  b.items.push_back({"margin", "Safety margin", m.margin,
                     format_percent(s.margin_fraction) + " x " + n(m.subtotal) + " B = " + n(m.margin) + " B",
                     "Headroom against fragmentation and unexpected allocations; the articles advise 10-30% "
                     "and never filling a GPU to 100%.", {}});

  // --- Warnings ----------------------------------------------------------------------
  if (model.max_context_tokens > 0 && s.context_tokens > model.max_context_tokens) {
    b.warnings.push_back("context_tokens (" + n(s.context_tokens) + ") exceeds the model's trained context (" +
                         n(model.max_context_tokens) + " tokens).");
  }
  if (!model.uses_mla() && gpus > 1 && model.kv_heads % gpus != 0 && gpus % model.kv_heads != 0) {
    b.warnings.push_back(n(gpus) + " GPUs do not divide " + n(model.kv_heads) +
                         " KV heads; engines reject this tensor-parallel degree.");
  }
  if (model.attention_heads > 0 && gpus > 1 && model.attention_heads % gpus != 0) {
    b.warnings.push_back(n(gpus) + " GPUs do not divide " + n(model.attention_heads) +
                         " attention heads; engines reject this tensor-parallel degree.");
  }
  if (p.kv_type.block_elements > 1) {
    b.assumptions.push_back("Quantized KV cache (" + p.kv_type.label + ") as llama.cpp stores it: " +
                            per_element(p.kv_type) + " elements.");
  }
  return b;
}

}  // namespace vramfit
