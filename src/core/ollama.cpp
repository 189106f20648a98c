// Ollama's estimate (llm/memory.go and fs/ggml/ggml.go at v0.12.10), term by term in Ollama's
// integer arithmetic: uint64 products, divisions where Ollama divides.
#include "ollama.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace vramfit {

namespace {

constexpr int64_t kMiB = 1048576;

// convert_hf_to_gguf.py: the llama.cpp architecture a Hugging Face model_type is written as
// (Mistral and Mixtral as "llama"); the others keep their name.
std::string gguf_architecture(const std::string& model_type) {
  static const std::map<std::string, std::string> names = {
      {"mistral", "llama"},      {"mixtral", "llama"},     {"gemma3_text", "gemma3"}, {"qwen2_moe", "qwen2moe"},
      {"qwen3_moe", "qwen3moe"}, {"deepseek_v2", "deepseek2"}, {"deepseek_v3", "deepseek2"}, {"phi", "phi2"},
      {"cohere", "command-r"},   {"gpt_oss", "gptoss"},    {"olmo2", "olmo2"},        {"mllama", "mllama"}};
  auto it = names.find(model_type);
  return it == names.end() ? model_type : it->second;
}

// fs/ggml/ggml.go KV.OllamaEngineRequired, as each release lists it: those architectures load in
// Ollama's own engine. From 0.12.0 that engine sizes memory by a trial allocation
// (llm/server.go ollamaServer.Load), not by this estimate; before it they went through this
// estimate with rules of their own (sliding windows, projectors, gpt-oss's graph) that vramfit
// does not model, so they are refused either way. Qwen 3 joined the list at 0.12.0 (left it at
// 0.12.5 only), Qwen 3 MoE at 0.12.2: before, the llama.cpp runner and this estimate served them.
bool ollama_engine_required(const std::string& arch, const OllamaSettings& s) {
  for (const char* a : {"gemma3", "gemma3n", "gptoss", "gpt-oss", "llama4", "mistral3", "mllama", "qwen25vl", "qwen3vl", "qwen3vlmoe"}) {
    if (arch == a) return true;
  }
  if (arch == "qwen3") return !s.before(12, 0) && !(s.version_minor == 12 && s.version_patch == 5);
  if (arch == "qwen3moe") return !s.before(12, 2);
  return false;
}

// kvCacheBytesPerElement.
double kv_bytes_per_element(const std::string& type) {
  if (type == "q8_0") return 1;
  if (type == "q4_0") return 0.5;
  if (type == "f32") return 4;
  return 2;
}

// ml.DeviceInfo.MinimumMemory.
int64_t minimum_memory(const std::string& library) { return (library == "metal" ? 512 : 457) * kMiB; }

// SupportsFlashAttention: not an embedding model, not gemma2, K and V heads of one width.
bool supports_flash_attention(const OllamaModel& m) {
  return !m.embedding_model && m.arch != "gemma2" && m.key_length != 0 && m.key_length == m.value_length;
}

// The settings as NewLlamaServer and estimateGPULayers apply them: num_ctx capped at the
// model's context ("requested context size too large for model"), num_batch at most num_ctx,
// flash attention and the KV cache type only where the model and the GPUs take them.
void apply_settings(const OllamaModel& m, const OllamaSettings& s, OllamaEstimate& e) {
  e.num_ctx = s.num_ctx;
  if (m.context_length > 0 && e.num_ctx > m.context_length) {
    e.warnings.push_back("requested context size too large for model: num_ctx " + std::to_string(e.num_ctx) + " > n_ctx_train " +
                         std::to_string(m.context_length) + "; Ollama uses " + std::to_string(m.context_length));
    e.num_ctx = m.context_length;
  }
  e.num_batch = std::min(s.num_batch, e.num_ctx);
  // flash attention: OLLAMA_FLASH_ATTENTION (the model's default, off for the llama runner's
  // architectures), every GPU able to (ml.FlashAttentionSupported: CUDA, ROCm, Metal) and the model.
  e.flash_attention = s.flash_attention.value_or(false) && supports_flash_attention(m);
  if (s.flash_attention.value_or(false) && !e.flash_attention) e.warnings.push_back("flash attention enabled but not supported by model");
  if (e.flash_attention) {
    const std::string& requested = s.kv_cache_type;
    if (requested.empty() || requested == "f16" || requested == "q8_0" || requested == "q4_0") {
      e.kv_cache_type = requested;
    } else {
      e.warnings.push_back("kv cache type not supported by model: " + requested + "; f16 used");
    }
  } else if (!s.kv_cache_type.empty() && s.kv_cache_type != "f16") {
    e.warnings.push_back("OLLAMA_KV_CACHE_TYPE=" + s.kv_cache_type + " applies only with flash attention: f16 used");
  }

}

}  // namespace

Result<OllamaModel> ollama_model(const ModelSpec& s, const LlamaCppWeights& w, const OllamaSettings& settings) {
  OllamaModel m;
  m.arch = gguf_architecture(s.architecture);
  const auto refuse = [&](const std::string& why) {
    return make_error("request.bad_value", "model", "model: " + why);
  };
  if (s.parameters_only > 0) return refuse("Ollama's estimate reads the model's layers; give a preset, a config or a GGUF file");
  if (ollama_engine_required(m.arch, settings)) {
    return refuse("Ollama " + ollama_version_text(settings) + " runs " + m.arch + " on its own engine: from 0.12.0 sized by a "
                  "trial allocation (llm/server.go ollamaServer.Load), before it by rules of its own in the estimate "
                  "(llm/memory.go); neither is modelled yet");
  }
  if (s.vision.kind != VisionKind::none) {
    return refuse("a model with an image or audio encoder loads a projector Ollama sizes apart (projector.weights, "
                  "projector.graph); not modelled yet");
  }
  if (s.is_recurrent() || s.is_hybrid() || s.is_encoder_decoder() || s.cross_attention_layer_count() > 0) {
    return refuse("recurrent, hybrid, encoder-decoder and cross-attention layers are sized by other rules in Ollama's "
                  "GraphSize; not modelled yet");
  }
  if (s.uses_mla()) {
    return refuse("Ollama's deepseek2 estimate depends on how the GGUF was converted (head_count_kv 128 with key_length "
                  "192, or 1 with 576); not modelled yet");
  }
  if (s.is_moe() && (m.arch == "llama" || m.arch == "qwen2moe")) {
    return refuse("Ollama's graph for mixture-of-experts llama models reads the expert tensors' own sizes "
                  "(ffn_gate_exps); not modelled yet");
  }
  if (s.layers <= 0 || s.attention_heads <= 0 || static_cast<int64_t>(w.layer.size()) < s.layers) {
    return refuse("the model's layers and attention heads are needed");
  }
  m.blocks = s.layers;
  m.embedding = s.hidden_size;
  m.heads = s.attention_heads;
  m.heads_kv = s.kv_heads > 0 ? s.kv_heads : s.attention_heads;
  m.key_length = m.value_length = s.head_dim > 0 ? s.head_dim : s.hidden_size / s.attention_heads;
  m.vocab = s.vocab_size;
  m.context_length = s.max_context_tokens;
  m.embedding_model = s.encoder_only;
  for (int64_t i = 0; i < s.layers; ++i) {
    const size_t l = static_cast<size_t>(i);
    m.block_bytes.push_back(w.layer[l] + (l < w.layer_experts.size() ? w.layer_experts[l] : 0));
  }
  m.output_bytes = w.output;
  return m;
}

OllamaGraph ollama_graph_size(const OllamaModel& m, int64_t context_per_sequence, int64_t batch, int64_t parallel,
                              const std::string& kv_cache_type, bool flash_attention) {
  (void)flash_attention;  // only gpt-oss's graph reads it, and gpt-oss is Ollama's own engine's
  OllamaGraph g;
  const int64_t context = context_per_sequence * parallel;
  const int64_t embedding = m.embedding, heads = m.heads, heads_kv = m.heads_kv, vocab = m.vocab;
  const int64_t embedding_heads = m.key_length, embedding_heads_k = m.key_length;
  const double per_element = kv_bytes_per_element(kv_cache_type);
  int64_t kv_total = 0;
  for (int64_t i = 0; i < m.blocks; ++i) {
    // full attention layer: context x (key_length + value_length) x head_count_kv elements
    g.kv.push_back(static_cast<int64_t>(static_cast<double>(context * (m.key_length + m.value_length) * heads_kv) * per_element));
    kv_total += g.kv.back();
  }
  int64_t& full = g.full;
  int64_t& partial = g.partial;
  const std::string& a = m.arch;
  if (a == "llama") {
    full = std::max(4 * batch * (1 + 4 * embedding + context * (1 + heads)), 4 * batch * (embedding + vocab));
    partial = 4 * batch * embedding;
    partial += std::max(4 * batch * (1 + embedding + std::max(context, embedding)) + embedding * embedding * 9 / 16 +
                            4 * context * (batch * heads + embedding_heads * heads_kv),
                        4 * batch * (embedding + vocab) + embedding * vocab * 105 / 128);
  } else if (a == "gemma" || a == "gemma2") {
    full = std::max(4 * batch * (embedding + vocab),
                    4 * batch * (2 + context + context * heads + 2 * embedding + 2 * embedding_heads_k * heads));
    partial = std::max(4 * embedding * batch + embedding * vocab * 105 / 128 + 4 * vocab * batch,
                       4 * batch * (2 * embedding + 1 + 2 * embedding_heads_k * heads + context + context * heads) +
                           4 * embedding_heads_k * context * 8 + embedding * embedding_heads_k * heads * 9 / 16);
  } else if (a == "command-r") {
    full = std::max(4 * batch * (embedding + vocab), 4 * batch * (2 + 4 * embedding + context * (1 + heads)));
    partial = std::max(4 * batch * (embedding + vocab) + embedding * vocab * 105 / 128,
                       4 * batch * (1 + 2 * embedding + context * (1 + heads)) + 4 * embedding * context +
                           embedding * embedding * 9 / 16);
  } else if (a == "qwen2") {
    full = std::max(4 * batch * (embedding + vocab), 4 * batch * (1 + 2 * embedding + context + context * heads));
    partial = std::max(4 * batch * (embedding + vocab) + embedding * vocab * 105 / 128,
                       4 * (batch * (1 + 2 * embedding + context * (1 + heads)) + embedding * (1 + context)));
  } else if (a == "phi2") {
    full = std::max(4 * batch * (embedding + vocab), 4 * batch * (1 + 4 * embedding + context + context * heads));
    partial = std::max(4 * batch * (2 * embedding + vocab) + embedding * vocab * 105 / 128,
                       4 * batch * (2 + 3 * embedding + context + context * heads));
  } else if (a == "stablelm") {
    full = 4 * batch * (context * (1 + heads) + 3 * embedding + 2);
    partial = std::max(4 * batch * (vocab + 2 * embedding), full);
  }
  // estimateGPULayers: an architecture GraphSize has no formula for gets the GQA ratio's share
  // of the KV cache, the same with every layer on the GPU.
  if (partial == 0) partial = heads / std::max<int64_t>(heads_kv, 1) * kv_total / 6;
  if (full == 0) full = partial;
  return g;
}

OllamaEstimate ollama_estimate_gpu_layers(const OllamaModel& m, const OllamaSettings& s, const std::vector<OllamaGpu>& gpus) {
  OllamaEstimate e;
  e.library = gpus.empty() ? "cpu" : gpus.front().library;
  e.layers_requested = s.num_gpu;
  e.layers_model = m.blocks + 1;
  e.gpu_overhead = s.gpu_overhead;
  e.num_parallel = std::max<int64_t>(s.num_parallel, 1);
  apply_settings(m, s, e);
  e.split_as_list = !s.before(11, 5);

  const OllamaGraph g = ollama_graph_size(m, e.num_ctx, e.num_batch, e.num_parallel, e.kv_cache_type, e.flash_attention);
  for (int64_t kv : g.kv) e.kv += kv;
  e.graph_partial = g.partial;
  e.graph_full = g.full;
  if (!gpus.empty() && gpus.front().library == "metal") {
    e.graph_partial = e.graph_full;  // "on metal there's no partial offload overhead"
  } else if (gpus.size() > 1) {
    e.graph_full = e.graph_partial;  // "multigpu should always use the partial graph size"
  }
  e.weights_nonrepeating = m.output_bytes;
  const int64_t graph_max = std::max(e.graph_partial, e.graph_full);
  const int64_t overhead = s.gpu_overhead;

  // One layer's worth held on each GPU as a buffer: blk.0 and its KV.
  int64_t layer_size = (m.block_bytes.empty() ? 0 : m.block_bytes[0]) + (g.kv.empty() ? 0 : g.kv[0]);
  std::vector<int64_t> allocations(gpus.size(), 0), split(gpus.size(), 0);
  std::vector<size_t> with_space;  // GPUs that fit the graph, the minimum, the buffer layer and one more
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (gpus[i].free_bytes < overhead + graph_max + minimum_memory(gpus[i].library) + 2 * layer_size) continue;
    with_space.push_back(i);
    allocations[i] += minimum_memory(gpus[i].library) + layer_size;
  }
  int64_t overflow = 0, layer_count = 0, kv_weights = 0;
  // Layers from the last to the first (from the first up before 0.7.0), each to the GPU (i mod
  // the GPUs left) with room; a GPU without room leaves the list.
  const bool ascending = s.before(7, 0);
  for (int64_t n = 0; n < m.blocks; ++n) {
    const int64_t i = ascending ? n : m.blocks - 1 - n;
    layer_size = m.block_bytes[static_cast<size_t>(i)] + g.kv[static_cast<size_t>(i)];
    e.weights_repeating += m.block_bytes[static_cast<size_t>(i)];
    kv_weights += g.kv[static_cast<size_t>(i)];
    if (s.num_gpu >= 0 && layer_count >= s.num_gpu) {
      if (!ascending) overflow += layer_size;
      continue;
    }
    for (size_t j = with_space.size(); j > 0; --j) {
      const size_t at = static_cast<size_t>(i) % j;
      const size_t gi = with_space[at];
      if (gpus[gi].free_bytes > overhead + allocations[gi] + graph_max + layer_size) {
        allocations[gi] += layer_size;
        ++split[gi];
        ++layer_count;
        break;
      }
      with_space.erase(with_space.begin() + static_cast<std::ptrdiff_t>(at));
    }
    if (!ascending && with_space.empty()) overflow += layer_size;
  }
  // Before 0.7.0 the layers left over count at the last layer's size.
  if (ascending && layer_count < m.blocks) overflow += (m.blocks - layer_count) * layer_size;
  // memory.weights.total: the layers with their KV before 0.6.1 (and repeating = total - output),
  // the layers alone in 0.6.1 and 0.6.2, the layers and the output layer from 0.6.3.
  if (s.before(6, 1)) {
    e.weights_total = e.weights_repeating + kv_weights;
    e.weights_repeating = e.weights_total - m.output_bytes;
  } else {
    e.weights_total = e.weights_repeating + (s.before(6, 3) ? 0 : m.output_bytes);
  }
  bool fully_loaded = layer_count >= m.blocks;
  // The output layer last, where there is room. Before 0.7.1 a num_gpu already reached left it out
  // of the estimate altogether (not counted on the CPU, the graph still "full").
  const int64_t last_layer = m.output_bytes;
  const bool place_output = s.num_gpu < 0 || layer_count < s.num_gpu;
  if (last_layer > 0 && (place_output || !s.before(7, 1))) {
    if (place_output) {
      for (size_t j = with_space.size(); j > 0; --j) {
        const size_t gi = with_space[static_cast<size_t>(layer_count) % j];
        if (gpus[gi].free_bytes > overhead + allocations[gi] + graph_max + last_layer) {
          allocations[gi] += last_layer;
          ++split[gi];
          ++layer_count;
          break;
        }
      }
    }
    if (layer_count < m.blocks + 1) {
      fully_loaded = false;
      overflow += last_layer;
    }
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (split[i] > 0) allocations[i] += fully_loaded ? e.graph_full : e.graph_partial;
  }
  int64_t on_gpus = 0;
  for (int64_t a : allocations) on_gpus += a;
  e.required_full = on_gpus + overflow;
  e.allocations = allocations;
  for (size_t i = 0; i < gpus.size(); ++i) {
    e.gpus.push_back(i);
    e.available.push_back(gpus[i].free_bytes);
  }
  if (layer_count == 0) return e;  // "insufficient VRAM to load any model layers"
  e.layers_offload = layer_count;
  e.required_partial = on_gpus;
  e.tensor_split = split;
  return e;
}

OllamaEstimate ollama_schedule(const OllamaModel& m, const OllamaSettings& s, const std::vector<OllamaGpu>& gpus) {
  // ml.ByFreeMemory, reversed: the most free memory first.
  std::vector<size_t> order(gpus.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return gpus[a].free_bytes > gpus[b].free_bytes; });
  // predictServerFit: every layer (num_gpu -1) or the num_gpu asked for.
  const auto fits = [&](const OllamaEstimate& e) {
    return e.layers_offload > 0 && (s.num_gpu < 0 ? e.layers_offload >= m.blocks + 1 : e.layers_offload >= s.num_gpu);
  };
  // The estimate on the GPUs of `order` picked by `take`, with `parallel` sequences.
  const auto estimate_on = [&](const std::vector<size_t>& take, int64_t parallel) {
    std::vector<OllamaGpu> subset;
    for (size_t k : take) subset.push_back(gpus[order[k]]);
    OllamaSettings with = s;
    with.num_parallel = parallel;
    OllamaEstimate e = ollama_estimate_gpu_layers(m, with, subset);
    for (size_t& g : e.gpus) g = order[take[g]];
    return e;
  };
  const auto first = [](size_t count) {
    std::vector<size_t> take(count);
    for (size_t k = 0; k < count; ++k) take[k] = k;
    return take;
  };
  // OLLAMA_NUM_PARALLEL as given, else the values the release tries, larger first.
  std::vector<int64_t> parallels{s.num_parallel};
  if (s.num_parallel <= 0) parallels = s.before(7, 0) ? std::vector<int64_t>{4, 1} : s.before(10, 0) ? std::vector<int64_t>{2, 1} : std::vector<int64_t>{1};
  if (!s.before(11, 5)) {
    if (!s.sched_spread) {
      for (size_t count = 1; count < gpus.size(); ++count) {
        OllamaEstimate e = estimate_on(first(count), parallels.front());
        if (fits(e)) return e;
      }
    }
    return estimate_on(first(gpus.size()), parallels.front());
  }
  // Before 0.11.5: one GPU, then all of them, for each OLLAMA_NUM_PARALLEL tried.
  if (!s.sched_spread) {
    for (int64_t p : parallels) {
      for (size_t k = 0; k < gpus.size(); ++k) {
        OllamaEstimate e = estimate_on({k}, p);
        if (fits(e)) return e;
      }
    }
  }
  for (int64_t p : parallels) {
    OllamaEstimate e = estimate_on(first(gpus.size()), p);
    if (fits(e)) return e;
  }
  return estimate_on(first(gpus.size()), s.num_parallel > 0 ? s.num_parallel : 1);
}

std::string ollama_version_text(const OllamaSettings& s) {
  return "0." + std::to_string(s.version_minor) + "." + std::to_string(s.version_patch);
}

std::string ollama_human_bytes(int64_t b) {
  char text[48];
  const double v = static_cast<double>(b);
  if (b >= 1024LL * kMiB) std::snprintf(text, sizeof text, "%.1f GiB", v / (1024.0 * kMiB));
  else if (b >= kMiB) std::snprintf(text, sizeof text, "%.1f MiB", v / kMiB);
  else if (b >= 1024) std::snprintf(text, sizeof text, "%.1f KiB", v / 1024.0);
  else std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(b));
  return text;
}

std::string ollama_offload_line(const OllamaEstimate& e) {
  const auto list = [](const std::vector<int64_t>& bytes) {
    std::string out = "[";
    for (size_t i = 0; i < bytes.size(); ++i) out += (i ? " " : "") + ollama_human_bytes(bytes[i]);
    return out + "]";
  };
  // MemoryEstimate.TensorSplit: a string joined by commas for several GPUs (empty for one) before
  // 0.11.5, a []int after, which slog prints as Go does ("[4 4 9]", quoted when it has spaces).
  std::string split;
  if (e.split_as_list) {
    for (size_t i = 0; i < e.tensor_split.size(); ++i) split += (i ? " " : "") + std::to_string(e.tensor_split[i]);
    split = "[" + split + "]";
    if (split.find(' ') != std::string::npos) split = "\"" + split + "\"";
  } else if (e.tensor_split.size() > 1) {
    for (size_t i = 0; i < e.tensor_split.size(); ++i) split += (i ? "," : "") + std::to_string(e.tensor_split[i]);
  }
  const auto quoted = [](const std::string& v) { return "\"" + v + "\""; };
  return "msg=offload library=" + e.library + " layers.requested=" + std::to_string(e.layers_requested) +
         " layers.model=" + std::to_string(e.layers_model) + " layers.offload=" + std::to_string(e.layers_offload) +
         " layers.split=" + (split.empty() ? std::string("\"\"") : split) + " memory.available=" + quoted(list(e.available)) +
         " memory.gpu_overhead=" + quoted(ollama_human_bytes(e.gpu_overhead)) +
         " memory.required.full=" + quoted(ollama_human_bytes(e.required_full)) +
         " memory.required.partial=" + quoted(ollama_human_bytes(e.required_partial)) +
         " memory.required.kv=" + quoted(ollama_human_bytes(e.kv)) +
         " memory.required.allocations=" + quoted(list(e.allocations)) +
         " memory.weights.total=" + quoted(ollama_human_bytes(e.weights_total)) +
         " memory.weights.repeating=" + quoted(ollama_human_bytes(e.weights_repeating)) +
         " memory.weights.nonrepeating=" + quoted(ollama_human_bytes(e.weights_nonrepeating)) +
         " memory.graph.full=" + quoted(ollama_human_bytes(e.graph_full)) +
         " memory.graph.partial=" + quoted(ollama_human_bytes(e.graph_partial));
}

LlamaCppSettings ollama_runner_settings(const OllamaEstimate& e) {
  LlamaCppSettings l;
  l.tool = "libllama";  // runner/llamarunner calls the library (llama_new_context_with_model), not llama-server
  l.ctx_size = e.num_ctx * e.num_parallel;
  l.parallel = e.num_parallel;
  l.batch_size = e.num_batch * e.num_parallel;
  l.ubatch_size = std::min<int64_t>(512, l.batch_size);
  l.flash_attn = e.flash_attention ? LlamaFlashAttn::on : LlamaFlashAttn::off;
  l.cache_type_k = l.cache_type_v = e.kv_cache_type.empty() ? "f16" : e.kv_cache_type;
  l.n_gpu_layers = e.layers_offload;
  if (e.tensor_split.size() > 1) {
    for (int64_t layers : e.tensor_split) l.tensor_split.push_back(static_cast<double>(layers));
  }
  return l;
}

}  // namespace vramfit
