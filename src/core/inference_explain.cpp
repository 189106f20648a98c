// The inference breakdown as text: every item of inference_memory() with its formula and
// the numbers in it. Kept apart from the arithmetic (inference.cpp), which the page builds
// for speed; this part is built for size.
#include <algorithm>
#include <string>
#include <vector>

#include "inference.hpp"

namespace vramfit {

namespace {

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

// Each storage type's bytes on one GPU: its 1-D tensors whole, the rest split. Each share is
// rounded down and the bytes that leaves over go one to a row, so the rows add up exactly to
// the per-GPU total (`per_gpu`, which rounds the split part up once).
std::vector<int64_t> per_gpu_shares(const WeightsSummary& weights, int64_t gpus, int64_t per_gpu) {
  std::vector<int64_t> shares;
  int64_t sum = 0;
  for (const WeightsByType& w : weights.by_type) {
    shares.push_back(gpus > 1 ? w.replicated_bytes + (w.bytes - w.replicated_bytes) / gpus : w.bytes);
    sum += shares.back();
  }
  for (size_t i = 0; sum < per_gpu && !shares.empty(); i = (i + 1) % shares.size()) {
    ++shares[i];
    ++sum;
  }
  return shares;
}

// Weights: the parameters in their stored layouts, one row per storage type.
BreakdownItem weights_item(const FormatTables& tables, const PreparedInference& p, const InferenceSettings& s,
                           const InferenceMemory& m) {
  const ModelSpec& model = p.model;
  const int64_t gpus = s.gpu_count;
  const std::string per_gpu = gpus > 1 ? " / " + plural(gpus, "GPU", "GPUs") : "";
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
    const std::vector<int64_t> shares = per_gpu_shares(p.weights, gpus, m.weights);
    for (size_t i = 0; i < p.weights.by_type.size(); ++i) {
      const WeightsByType& w = p.weights.by_type[i];
      const StorageType& t = tables.storage_types[static_cast<size_t>(w.storage_type)];
      BreakdownItem row{"weights." + t.id, t.label, shares[i], "", t.note, {}};
      row.formula = n(w.elements) + " elements in " + plural(w.tensors, "tensor", "tensors") + " x " +
                    per_element(t) + " = " + n(w.bytes) + " B";
      if (gpus > 1) {
        row.formula += " in the whole model; per GPU: " + (w.replicated_bytes > 0 ? n(w.replicated_bytes) + " B of 1-D tensors + " : std::string()) +
                       n(w.bytes - w.replicated_bytes) + " B / " + n(gpus) + " = " + n(shares[i]) + " B";
      }
      weights.children.push_back(row);
    }
  }
  if (model.vision.kind != VisionKind::none) {
    int64_t tower = 0;
    for (const TensorShape& t : enumerate_tensors(model)) tower += t.role == TensorRole::vision ? t.elements() : 0;
    weights.note += " Of these, " + n(tower) + " parameters are the " +
                    (model.vision.kind == VisionKind::whisper ? "audio" : "vision") + " tower and projector, kept in 16 bits.";
  }
  if (model.is_moe()) {
    weights.note += " MoE: all " + n(p.weights.parameters) + " parameters are resident although only " +
                    n(p.weights.active_parameters) + " are active per token.";
  }
  return weights;

}

// What the KV cache says beyond its formula: per token, encoder-decoder, MLA, GQA, tensor parallelism.
std::string kv_notes(const PreparedInference& p, const InferenceSettings& s, const InferenceMemory& m, int64_t bytes_per_token) {
  const ModelSpec& model = p.model;
  const int64_t gpus = s.gpu_count;
  std::string note;
  if (!model.is_recurrent()) note = n(bytes_per_token) + " B per token of context (all layers" + (gpus > 1 ? ", one GPU" : std::string()) + ").";
  if (model.is_encoder_decoder()) {
    note += " Encoder-decoder: the " + n(model.encoder_layers) + " encoder layers cache nothing; each of the " +
               n(p.full_attention_layers) + " decoder layers caches its self-attention over the output and its "
               "cross-attention over the input, so the context is input + output tokens.";
  }
  if (model.uses_mla()) {
    note += " Multi-head latent attention caches one compressed latent per token instead of per-head keys and values";
    note += gpus > 1 ? "; the latent is not split by tensor parallelism, every GPU holds it all." : ".";
  } else if (model.kv_heads < model.attention_heads && !model.is_recurrent()) {
    note += " Grouped-query attention: " + n(model.kv_heads) + " KV heads serve " +
               n(model.attention_heads) + " query heads, a " + n(model.attention_heads / model.kv_heads) +
               "x smaller cache.";
  }
  if (!model.uses_mla() && !model.is_recurrent() && gpus > 1) {
    note += model.kv_heads % gpus == 0
                   ? " Tensor parallelism: " + n(model.kv_heads) + " KV heads / " + n(gpus) + " GPUs = " +
                         n(m.kv_heads_per_gpu) + " per GPU."
                   : " Tensor parallelism over more GPUs than KV heads: heads are replicated, " +
                         n(m.kv_heads_per_gpu) + " per GPU.";
  }

  return note;
}

// The KV cache (or a recurrent model's state), by kind of layer.
BreakdownItem kv_item(const PreparedInference& p, const InferenceSettings& s, const InferenceMemory& m) {
  const ModelSpec& model = p.model;
  const int64_t gpus = s.gpu_count;
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
  // A recurrent layer's fixed state per sequence: every layer of Mamba and RWKV, Jamba's Mamba layers.
  const int64_t state_layers = model.recurrent_layer_count();
  auto state_line = [&]() {
    return plural(state_layers, "layer", "layers") + " x " +
        (model.mixer == Mixer::mamba
             ? "((" + n(model.ssm_conv_kernel) + " - 1) conv + " + n(model.ssm_state) + " SSM) x " + n(model.ssm_inner) + " d_inner"
         : model.mixer == Mixer::delta_net
             ? "((" + n(model.ssm_conv_kernel) + " - 1) x " + n(model.linear_conv_dim()) + " conv + " + n(model.linear_value_heads) +
                   " heads x " + n(model.linear_key_head_dim) + " x " + n(model.linear_value_head_dim) + " state)"
             : "5 x " + n(model.hidden_size) + " hidden") +
        " x 4 B (fp32)" + (gpus > 1 ? " / " + n(gpus) + " GPUs" : std::string()) + " x " +
        plural(s.concurrent_sequences, "sequence", "sequences");
  };
  if (model.encoder_only) {
    kv.formula = "0 B: an encoder (BERT and its kin) reads the whole input in one pass and caches no keys or values";
  } else if (model.is_recurrent()) {
    kv.label = "Recurrent state";
    kv.formula = state_line() + " = " + n(m.kv_cache) + " B";
    kv.note = (model.mixer == Mixer::mamba ? std::string("Mamba") : std::string("RWKV")) +
              " keeps no keys or values: each sequence carries a fixed state (llama.cpp's r and s buffers, "
              "transformers' cache), the same at any context length.";
  } else if (p.sliding_layers == 0 && p.cross_attention_layers == 0 && state_layers == 0) {
    kv.formula = kv_line(p.full_attention_layers, s.context_tokens) + " = " + n(m.kv_cache) + " B";
  } else {
    // Layers of two kinds: sliding-window layers hold at most the window; Mllama's
    // cross-attention layers one image's tiles, whatever the context; Jamba's Mamba layers a
    // fixed state.
    const bool cross = p.cross_attention_layers > 0, state = state_layers > 0;
    const int64_t other_layers = cross ? p.cross_attention_layers : p.sliding_layers;
    const int64_t other_tokens = cross ? p.cross_attention_tokens : std::min(s.context_tokens, model.sliding_window);
    const int64_t full = sat_mul(s.concurrent_sequences, m.kv_bytes_per_token_per_layer, p.full_attention_layers, s.context_tokens);
    const int64_t other = m.kv_cache - full;
    const std::string other_label = state ? "Recurrent layers (fixed state)" : cross ? "Cross-attention layers" : "Sliding-window layers";
    kv.formula = n(full) + " B (full-attention layers) + " + n(other) +
                 (state ? " B (recurrent layers' state) = " : cross ? " B (cross-attention layers) = " : " B (sliding-window layers) = ") +
                 n(m.kv_cache) + " B";
    if (p.full_attention_layers > 0) {
      kv.children.push_back({"kv_cache.full", "Full-attention layers", full,
                             kv_line(p.full_attention_layers, s.context_tokens) + " = " + n(full) + " B", "", {}});
    }
    kv.children.push_back({state ? "kv_cache.state" : cross ? "kv_cache.cross" : "kv_cache.sliding", other_label, other,
                           (state ? state_line() : kv_line(other_layers, other_tokens)) + " = " + n(other) + " B",
                           state ? "These layers keep no keys or values: each sequence carries a fixed state, the same at any "
                                   "context length."
                           : cross ? "These layers attend to one image: its " + n(model.vision.tiles) + " tiles x " +
                                         n(model.vision.patches_per_tile()) + " patches, whatever the context."
                                   : "These layers attend to the last " + n(model.sliding_window) +
                                         " tokens only, so they hold min(context, window) tokens.",
                           {}});
  }
  kv.note += kv_notes(p, s, m, bytes_per_token);
  return kv;
}

// The engine's own memory: the CUDA context and the compute buffer of one prefill chunk.
BreakdownItem overhead_item(const PreparedInference& p, const InferenceSettings& s, const InferenceMemory& m) {
  const ModelSpec& model = p.model;
  const int64_t gpus = s.gpu_count;
  const std::string per_gpu = gpus > 1 ? " / " + plural(gpus, "GPU", "GPUs") : "";
  const int64_t compute = m.compute_buffer();
  BreakdownItem overhead{"overhead", "Runtime and compute buffers", m.runtime + compute,
                         n(m.runtime) + " B runtime + " + n(compute) + " B compute buffer = " +
                             n(m.runtime + compute) + " B",
                         "Memory the engine needs besides weights and cache.", {}};
  overhead.children.push_back({"overhead.runtime", "CUDA context and runtime", m.runtime,
                               n(m.runtime) + " B (setting runtime_bytes)",
                               "CUDA context, cuBLAS/cuDNN workspaces and allocator slack, per GPU. "
                               "Assumed 512 MiB by default; measure yours as nvidia-smi's used memory "
                               "minus torch.cuda.memory_reserved().", {}});
  const bool vision_peak = m.vision_encoder > m.activations + m.attention_scores;
  BreakdownItem buffer{"overhead.compute", "Compute buffer", compute,
                       n(m.logits) + " B logits + " +
                           (m.vision_encoder > 0 ? "max(" + n(m.activations + m.attention_scores) + " B text prefill, " +
                                                       n(m.vision_encoder) + " B vision encoder)"
                                                 : n(m.activations) + " B activations + " + n(m.attention_scores) +
                                                       " B attention scores") +
                           " = " + n(compute) + " B",
                       "Peak working memory of one forward pass over a prefill chunk of " +
                           plural(m.prefill_tokens, "token", "tokens") +
                           (vision_peak ? std::string("; here the vision encoder's pass over an image is larger.") : std::string(".")),
                       {}};
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
  if (m.vision_encoder > 0) {
    const VisionTower& v = model.vision;
    const int64_t patches = v.patches_per_image();
    const bool audio = v.kind == VisionKind::whisper;
    const std::string unit = audio ? " positions" : " patches";
    buffer.children.push_back(
        {"overhead.compute.vision", audio ? "Audio encoder" : "Vision encoder", m.vision_encoder,
         n(patches) + unit + " x " + std::to_string(p.activation_bytes) + " B x (5 x " + n(v.hidden) + " hidden + 2 x " +
             n(v.intermediate) + " intermediate)" +
             (s.flash_attention ? std::string()
                                : " + " + n(patches) + " x " + n(patches) + unit + " x " + n(v.heads) + " heads x 4 B") +
             " = " + n(m.vision_encoder) + " B",
         audio ? "One 30 s clip (" + n(v.channels) + " mel bins) through one layer of the audio tower (" + n(patches) +
                     " positions); its tokens also take context in the KV cache."
               : "One image through one layer of the vision tower (" + n(v.image_size) + " px, " + n(v.patch) +
                     " px patches); the image's tokens also take context in the KV cache.",
         {}});
  }
  overhead.children.push_back(buffer);
  return overhead;
}

// Contexts past what the model was trained for, and GPU counts engines refuse.
void add_warnings(Breakdown& b, const PreparedInference& p, const InferenceSettings& s) {
  const ModelSpec& model = p.model;
  const int64_t gpus = s.gpu_count;
  if (model.scaled_context_tokens > 0 && s.context_tokens > model.usable_context_tokens()) {
    b.warnings.push_back("context_tokens (" + n(s.context_tokens) + ") exceeds the context rope_scaling allows (" +
                         n(model.scaled_context_tokens) + " tokens; trained on " + n(model.max_context_tokens) + ").");
  } else if (model.max_context_tokens > 0 && s.context_tokens > model.usable_context_tokens()) {
    b.warnings.push_back("context_tokens (" + n(s.context_tokens) + ") exceeds the model's trained context (" +
                         n(model.max_context_tokens) + " tokens).");
  } else if (model.scaled_context_tokens > 0 && s.context_tokens > model.max_context_tokens) {
    b.warnings.push_back("context_tokens (" + n(s.context_tokens) + ") is past the trained " + n(model.max_context_tokens) +
                         " tokens, within what rope_scaling stretches RoPE to (" + n(model.scaled_context_tokens) +
                         "): the memory is as computed; quality there is the scaling's.");
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
}

}  // namespace

Breakdown explain_inference(const FormatTables& tables, const PreparedInference& p,
                            const InferenceSettings& s, const InferenceMemory& m) {
  Breakdown b;
  b.mode = "inference";
  b.gpu_count = s.gpu_count;
  b.total_bytes = m.total;
  b.items.push_back(weights_item(tables, p, s, m));
  b.items.push_back(kv_item(p, s, m));
  if (s.overhead == OverheadModel::engine) {
    b.items.push_back(overhead_item(p, s, m));
  } else {
    b.assumptions.push_back("Overhead model 'articles': no runtime or compute buffer, only the margin "
                            "on top of weights and KV cache, as the articles compute.");
  }
  b.items.push_back({"margin", "Safety margin", m.margin,
                     format_percent(s.margin_fraction) + " x " + n(m.subtotal) + " B = " + n(m.margin) + " B",
                     "Headroom against fragmentation and unexpected allocations; the articles advise 10-30% "
                     "and never filling a GPU to 100%.", {}});
  add_warnings(b, p, s);
  return b;
}

}  // namespace vramfit
