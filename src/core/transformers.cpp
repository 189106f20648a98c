#include "transformers.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "fit.hpp"
#include "units.hpp"

namespace vramfit {

namespace {

const char* const kAttention[] = {"eager", "sdpa", "flash_attention_2"};
const char* const kDeviceMap[] = {"none", "auto", "balanced_low_0", "sequential"};
const char* const kBnbCompute[] = {"float32", "float16", "bfloat16"};

template <typename Enum, size_t N>
bool parse_name(const char* const (&names)[N], const std::string& name, Enum& out) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) {
      out = static_cast<Enum>(i);
      return true;
    }
  }
  return false;
}

// A placement unit of accelerate's infer_auto_device_map for a decoder-only model, in the
// model's module order: model.embed_tokens, model.layers.0 .. N-1 (the model's
// _no_split_modules: never split), model.norm, lm_head.
struct Unit {
  std::string name;
  int64_t layer = -1;   // decoder layer, -1 otherwise
  int64_t bytes = 0;    // parameters and buffers
  int64_t weights = 0;  // of these, parameters
  bool embeddings = false, lm_head = false;
  int device = 0;  // GPU index, -1 cpu, -2 disk
};

std::vector<Unit> placement_units(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format, int64_t group_size,
                                  int64_t rotary_buffer) {
  std::vector<Unit> units;
  units.push_back({"model.embed_tokens", -1, 0, 0, true, false, 0});
  for (int64_t l = 0; l < m.layers; ++l) {
    units.push_back({"model.layers." + std::to_string(l), l, rotary_buffer, 0, false, false, 0});
  }
  units.push_back({"model.norm", -1, 0, 0, false, false, 0});
  units.push_back({"lm_head", -1, 0, 0, false, true, 0});
  const size_t norm = units.size() - 2, head = units.size() - 1;
  for (const TensorShape& t : enumerate_tensors(m)) {
    StorageType type = tables.storage_types[static_cast<size_t>(storage_type_for_tensor(tables, format, m, t))];
    if (group_size > 0) type = with_group_size(type, group_size);
    const int64_t bytes = storage_bytes(type, t.row_length, t.rows, t.copies);
    Unit& u = t.layer >= 0                       ? units[static_cast<size_t>(1 + t.layer)]
              : is_embedding_role(t.role) || t.role == TensorRole::vision ? units.front()
              : t.role == TensorRole::output     ? units[head]
                                                 : units[norm];
    u.weights += bytes;
  }
  for (Unit& u : units) u.bytes += u.weights;
  return units;
}

// One layer's KV cache for one token of one sequence. Transformers caches keys and values per
// KV head (repeat_kv runs after the cache); its DeepSeek-V2/V3 attention caches the expanded
// per-head keys (qk_nope + qk_rope) and values (v_head_dim), not the latent
// (models/deepseek_v3/modeling_deepseek_v3.py, DeepseekV3Attention.forward).
int64_t kv_per_layer_token(const ModelSpec& m, int64_t element_bytes) {
  if (m.uses_mla()) return m.attention_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) * element_bytes;
  return 2 * m.kv_heads * m.head_dim * element_bytes;
}

bool is_bnb_4bit(const std::string& type) { return type == "nf4" || type == "nf4_dq" || type == "fp4"; }

// The largest quantized linear layer: bitsandbytes' runtime buffers are sized by it.
struct LinearShape {
  int64_t in = 0, out = 0;
};
LinearShape largest_linear(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format, bool four_bit) {
  LinearShape best;
  for (const TensorShape& t : enumerate_tensors(m)) {
    if (t.layer < 0 || t.role == TensorRole::vector) continue;
    const std::string& id = tables.storage_types[static_cast<size_t>(storage_type_for_tensor(tables, format, m, t))].id;
    if (four_bit ? !is_bnb_4bit(id) : id != "int8_bnb") continue;
    if (t.row_length * t.rows > best.in * best.out) best = {t.row_length, t.rows};
  }
  return best;
}

}  // namespace

const char* transformers_attention_name(TransformersAttention a) { return kAttention[static_cast<int>(a)]; }
bool parse_transformers_attention(const std::string& name, TransformersAttention& out) {
  return parse_name(kAttention, name, out);
}
const char* transformers_device_map_name(TransformersDeviceMap d) { return kDeviceMap[static_cast<int>(d)]; }
bool parse_transformers_device_map(const std::string& name, TransformersDeviceMap& out) {
  if (name == "balanced") {  // the same map as "auto" (modeling_utils._get_device_map)
    out = TransformersDeviceMap::auto_map;
    return true;
  }
  if (name == "cuda" || name == "cuda:0") {
    out = TransformersDeviceMap::none;
    return true;
  }
  return parse_name(kDeviceMap, name, out);
}
const char* bnb_compute_dtype_name(BnbComputeDtype d) { return kBnbCompute[static_cast<int>(d)]; }
bool parse_bnb_compute_dtype(const std::string& name, BnbComputeDtype& out) { return parse_name(kBnbCompute, name, out); }

bool parse_transformers_version(const std::string& text, TransformersSettings& out) {
  // "major.minor" or "major.minor.patch", anything after it ignored ("4.45.0.dev0"). strtol, not
  // sscanf: the C library's scanf brings its long-double float reading into the page's module.
  const char* p = text.c_str();
  char* end = nullptr;
  long parts[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    if (i > 0 && *p != '.') {
      if (i == 2) break;  // no patch: 0
      return false;
    }
    if (i > 0) ++p;
    parts[i] = std::strtol(p, &end, 10);
    if (end == p || parts[i] < 0 || parts[i] > 1000000) return false;
    p = end;
  }
  out.version_major = static_cast<int>(parts[0]);
  out.version_minor = static_cast<int>(parts[1]);
  out.version_patch = static_cast<int>(parts[2]);
  return true;
}

std::string transformers_version_text(const TransformersSettings& s) {
  return std::to_string(s.version_major) + "." + std::to_string(s.version_minor) + "." + std::to_string(s.version_patch);
}

TransformersGeneration transformers_generation(int major, int minor) {
  const auto before = [&](int mj, int mn) { return major < mj || (major == mj && minor < mn); };
  TransformersGeneration g;
  g.rotary_cache_per_layer = before(4, 38);
  g.legacy_cache = before(4, 42);
  g.all_prompt_logits = before(4, 45);
  g.model_upcasts_logits = before(4, 46);
  g.auto_fills_in_order = before(4, 22);
  return g;
}

namespace {

// accelerate's max_memory (utils/modeling.py): each GPU's free memory, balanced by
// get_balanced_memory for "auto"/"balanced"/"balanced_low_0"; a lone GPU keeps 10 % back
// (MEMORY_USAGE_RATIO 0.9) for activations.
void set_max_memory(TransformersMemory& r, const TransformersSettings& s, int64_t total, int64_t first_layer_bytes) {
  const int64_t gpus = static_cast<int64_t>(r.max_memory.size());
  if (s.device_map != TransformersDeviceMap::none && s.device_map != TransformersDeviceMap::sequential && gpus > 0) {
    if (gpus == 1) {
      r.max_memory[0] = static_cast<int64_t>(static_cast<double>(r.max_memory[0]) * 0.9);
    } else {
      const bool low_zero = s.device_map == TransformersDeviceMap::balanced_low_0;
      // per_gpu = size // devices + 1.25 x the no-split block (a decoder layer; the mean of the
      // leaf modules is smaller for any transformer).
      const int64_t per_gpu = total / (low_zero ? gpus - 1 : gpus) + first_layer_bytes * 5 / 4;
      for (int64_t i = 0; i + 1 < gpus; ++i) {
        if (!(low_zero && i == 0)) r.max_memory[static_cast<size_t>(i)] = std::min(per_gpu, r.max_memory[static_cast<size_t>(i)]);
      }
      if (low_zero) {
        int64_t others = 0;
        for (int64_t i = 1; i < gpus; ++i) others += r.max_memory[static_cast<size_t>(i)];
        r.max_memory[0] = std::min(std::max<int64_t>(0, total - others), r.max_memory[0]);
      }
    }
  }
}

// infer_auto_device_map: modules in order onto GPU 0, 1, ..., then "cpu", then "disk"; the
// main devices (GPU 0 and the CPU) keep room for the largest layer, which runs on GPU 0 when
// offloaded (get_max_layer_size).
void map_units(TransformersMemory& r, std::vector<Unit>& units, const ModelSpec& m, const TransformersSettings& s,
               int64_t host_free) {
  const int64_t gpus = static_cast<int64_t>(r.max_memory.size());
  r.mapped = s.device_map != TransformersDeviceMap::none;
  if (!r.mapped || gpus == 0) {
    for (Unit& u : units) u.device = 0;
  } else {
    int64_t max_layer = 0;
    for (const Unit& u : units) max_layer = std::max(max_layer, u.bytes);
    int device = 0;  // 0 .. gpus-1, then gpus = cpu, gpus + 1 = disk
    int64_t used = 0;
    for (Unit& u : units) {
      while (device <= gpus) {
        const bool cpu = device == gpus;
        int64_t limit = cpu ? (host_free > 0 ? host_free : INT64_MAX / 4) : r.max_memory[static_cast<size_t>(device)];
        if (device == 0 || cpu) limit -= max_layer;
        if (used + u.bytes <= limit) break;
        ++device;
        used = 0;
      }
      u.device = device < gpus ? device : device == gpus ? -1 : -2;
      used += u.bytes;
    }
    if (m.tied_embeddings) units.back().device = units.front().device;  // tied parameters stay together
  }
}

// Devices and what each holds. Work on CPU-offloaded modules runs on GPU 0 (accelerate's
// AlignDevicesHook execution_device = main device): their weights come in one module at a
// time, their KV cache and activations live there.
// True when a module went to "disk".
bool assign_devices(TransformersMemory& r, const std::vector<Unit>& units, int64_t gpus) {
  r.gpus.resize(static_cast<size_t>(std::max<int64_t>(1, gpus)));
  for (size_t i = 0; i < r.gpus.size(); ++i) r.gpus[i].index = static_cast<int>(i);
  r.host.index = -1;
  bool on_disk = false;
  int64_t offloaded_largest = 0;
  for (const Unit& u : units) {
    if (u.device == -2) on_disk = true;
    TransformersDevice& d = u.device >= 0 ? r.gpus[static_cast<size_t>(u.device)] : r.host;
    d.weights += u.weights;
    d.buffers += u.bytes - u.weights;
    if (u.device < 0) offloaded_largest = std::max(offloaded_largest, u.bytes);
    if (u.layer >= 0) {
      if (d.first_layer < 0 || u.layer < d.first_layer) d.first_layer = u.layer;
      d.last_layer = std::max(d.last_layer, u.layer);
      if (u.device < 0) ++r.gpus.front().offloaded_layers;
    }
    if (u.embeddings) d.embeddings = true;
    if (u.lm_head) {
      d.lm_head = true;
      if (u.device < 0) r.gpus.front().offloaded_lm_head = true;
    }
  }
  r.gpus.front().executed_offload = offloaded_largest;
  return on_disk;
}

// The prompt's forward pass (modeling_llama.py and its copies): one layer's widest moment, and
// the logits of the prefill and of a decoding step.
struct ForwardWork {
  int64_t hidden = 0, layer_peak = 0, prefill_logits = 0, decode_logits = 0;
};

ForwardWork forward_work(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format, const TransformersSettings& s,
                         const TransformersGeneration& g, int64_t ab) {
  const int64_t b = std::max<int64_t>(1, s.batch_size);
  const int64_t prompt = std::max<int64_t>(1, s.input_length);
  ForwardWork f;
  const int64_t rows = sat_mul(b, prompt, 1);
  const int64_t hidden = f.hidden = sat_mul(rows, m.hidden_size, ab);
  const int64_t q_width = m.attention_heads * m.head_dim, kv_width = m.kv_heads * m.head_dim;
  // q, k, v, the rotated q and k, the attention output;
  int64_t attention = sat_mul(rows, 2 * q_width + 2 * kv_width + q_width + kv_width, ab);
  // eager_attention_forward: repeat_kv expands k and v to every head, then the scores
  // (matmul / scale, + mask) in torch_dtype, their float32 softmax and its cast back.
  if (s.attn_implementation == TransformersAttention::eager) {
    attention += sat_mul(rows, 2 * q_width, ab);
    attention += sat_mul(sat_mul(b * m.attention_heads, prompt, prompt), ab + 4 + ab, 1);
  }
  // The MLP: down_proj(act_fn(gate_proj(x)) * up_proj(x)) holds act, up and their product
  // (plain MLPs: the up projection and its activation); MoE layers run one expert at a time on
  // the tokens routed to it (at most every token).
  const int64_t width = std::max(m.intermediate_size, m.is_moe() ? m.moe_intermediate_size : 0);
  const int64_t mlp = sat_mul(rows, width, ab * (m.mlp == MlpKind::gated ? 3 : 2));
  // bitsandbytes: a 4-bit layer given more than one row dequantizes its whole weight to the
  // stored dtype and casts it to bnb_4bit_compute_dtype (bitsandbytes/autograd/_functions.py
  // matmul_4bit -> MatMul4Bit.forward: F.dequantize_4bit(B, quant_state).to(A.dtype); one row
  // takes the gemv kernel without it). An 8-bit layer quantizes its input to int8 rows and
  // multiplies into int32 (MatMul8bitLt.forward).
  int64_t bnb = 0;
  const LinearShape four = largest_linear(tables, m, format, true);
  if (four.in > 0 && rows > 1) {
    const int64_t compute = s.bnb_4bit_compute_dtype == BnbComputeDtype::float32 ? 4 : 2;
    bnb = sat_mul(four.in, four.out, ab + (compute != ab ? compute : 0));
  }
  const LinearShape eight = largest_linear(tables, m, format, false);
  if (eight.in > 0) bnb = std::max(bnb, sat_mul(rows, eight.in + 4 * eight.out, 1));
  f.layer_peak = 2 * hidden + std::max(attention, mlp) + bnb;

  // The logits: before 4.45 every prompt position in torch_dtype and again in float32; later
  // the last position only, and generate's float32 copy of it.
  const int64_t vocab = m.vocab_size;
  f.prefill_logits =
      g.all_prompt_logits ? sat_mul(rows, vocab, ab + (g.model_upcasts_logits ? 4 : 0)) : sat_mul(b, vocab, ab + 4);
  f.decode_logits = sat_mul(b, vocab, ab + 4);
  return f;
}

// The refusal when the weights spill to disk or a GPU's peak passes its free memory.
void check_fit(TransformersMemory& r, const std::vector<int64_t>& gpu_free, bool on_disk) {
  r.fits = true;
  if (on_disk) {
    r.fits = false;
    r.refusal = "the weights do not fit the GPUs and the host's RAM: accelerate would offload modules to \"disk\"";
    return;
  }
  for (size_t i = 0; i < r.gpus.size() && i < gpu_free.size(); ++i) {
    if (r.gpus[i].peak() > gpu_free[i]) {
      r.fits = false;
      r.refusal = "torch.OutOfMemoryError: CUDA out of memory on GPU " + std::to_string(i) + ": its peak " +
                  format_bytes(r.gpus[i].peak(), DisplayUnits::gib) + " is more than the " +
                  format_bytes(gpu_free[i], DisplayUnits::gib) + " free";
      break;
    }
  }
}

}  // namespace

TransformersMemory transformers_memory(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format,
                                       int64_t group_size, int64_t activation_bytes, const TransformersSettings& s,
                                       const std::vector<int64_t>& gpu_free, int64_t host_free) {
  TransformersMemory r;
  r.generation = transformers_generation(s.version_major, s.version_minor);
  const TransformersGeneration& g = r.generation;
  const int64_t ab = std::max<int64_t>(1, activation_bytes);
  const int64_t gpus = static_cast<int64_t>(gpu_free.size());

  // Rotary cos/sin caches of old releases: cos and sin, max_position_embeddings x head_dim each,
  // in the default dtype, which from_pretrained sets to torch_dtype while it builds the model
  // (modeling_utils._set_default_torch_dtype).
  const int64_t rotary_dim = m.uses_mla() ? m.qk_rope_head_dim : m.head_dim;
  const int64_t max_positions = m.max_context_tokens > 0 ? m.max_context_tokens : 2048;
  const int64_t rotary_buffer = g.rotary_cache_per_layer ? sat_mul(2 * max_positions, rotary_dim, ab) : 0;
  std::vector<Unit> units = placement_units(tables, m, format, group_size, rotary_buffer);
  if (m.tied_embeddings) units.back().lm_head = true;  // lm_head.weight is embed_tokens.weight (no bytes of its own)
  int64_t total = 0;
  for (const Unit& u : units) total += u.bytes;
  r.footprint = total;

  TransformersSettings placed = s;
  if (g.auto_fills_in_order && s.device_map == TransformersDeviceMap::auto_map) placed.device_map = TransformersDeviceMap::sequential;
  r.max_memory = gpu_free;
  set_max_memory(r, placed, total, m.layers > 0 ? units[1].bytes : 0);
  map_units(r, units, m, placed, host_free);
  const bool on_disk = assign_devices(r, units, gpus);
  // The KV cache: every layer keeps every token (DynamicCache; sliding-window layers too — their
  // cache is cut to the window only by the static caches).
  const int64_t b = std::max<int64_t>(1, s.batch_size);
  const int64_t prompt = std::max<int64_t>(1, s.input_length);
  const int64_t new_tokens = std::max<int64_t>(1, s.max_new_tokens);
  const int64_t layer_token = kv_per_layer_token(m, ab);
  r.kv_bytes_per_token = layer_token * m.layers;
  const int64_t final_tokens = prompt + new_tokens - 1;  // the cache after the last forward pass

  const ForwardWork f = forward_work(tables, m, format, s, g, ab);
  for (TransformersDevice& d : r.gpus) {
    const int64_t layers_here = d.layers() + d.offloaded_layers;
    d.kv = sat_mul(sat_mul(b, final_tokens, layer_token), layers_here, 1);
    const int64_t kv_prompt = sat_mul(sat_mul(b, prompt, layer_token), layers_here, 1);
    const int64_t base = d.weights + d.buffers;
    int64_t prefill_work = 0;
    if (layers_here > 0 || d.executed_offload > 0) prefill_work = f.layer_peak + d.executed_offload;
    const bool logits_here = d.lm_head || d.offloaded_lm_head;
    if (logits_here) prefill_work = std::max(prefill_work, f.hidden + f.prefill_logits);
    if (d.embeddings) prefill_work = std::max(prefill_work, f.hidden);
    d.prefill_peak = base + kv_prompt + prefill_work;
    // The last decoding step: the new cache, and the old one (legacy tuples: every layer; a
    // DynamicCache: the layer being concatenated).
    const int64_t old_cache = g.legacy_cache    ? sat_mul(sat_mul(b, final_tokens - 1, layer_token), layers_here, 1)
                              : layers_here > 0 ? sat_mul(b, final_tokens - 1, layer_token)
                                                : 0;
    int64_t decode_work = d.executed_offload;
    if (s.attn_implementation == TransformersAttention::eager && layers_here > 0) {
      decode_work += sat_mul(b * m.attention_heads, final_tokens, ab + 4 + ab);
    }
    if (logits_here) decode_work += f.decode_logits;
    d.decode_peak = base + d.kv + old_cache + decode_work;
  }

  check_fit(r, gpu_free, on_disk);
  return r;
}

TransformersFit transformers_fit(const FormatTables& tables, const ModelSpec& m, const WeightFormat& format, int64_t group_size,
                                 int64_t activation_bytes, const TransformersSettings& s, const std::vector<int64_t>& gpu_free,
                                 int64_t host_free) {
  // Each search asks largest_fitting (core/fit.hpp) for the largest value that fits every GPU,
  // guided by how far the fullest GPU's peak is over its free memory (0 or less: within it).
  auto memory_at = [&](int64_t batch, int64_t tokens) {
    TransformersSettings t = s;
    t.batch_size = batch;
    t.max_new_tokens = tokens;
    return transformers_memory(tables, m, format, group_size, activation_bytes, t, gpu_free, host_free);
  };
  auto overrun = [&](const TransformersMemory& r) {
    int64_t worst = INT64_MIN;
    for (size_t i = 0; i < r.gpus.size() && i < gpu_free.size(); ++i) worst = std::max(worst, r.gpus[i].peak() - gpu_free[i]);
    return worst;
  };
  TransformersFit f;
  auto batch_fits = [&](int64_t batch) { return memory_at(batch, s.max_new_tokens).fits; };
  auto batch_overrun = [&](int64_t batch) { return overrun(memory_at(batch, s.max_new_tokens)); };
  f.max_batch_size = batch_fits(1) ? largest_fitting(1, kMaxSequences, 0, batch_fits, batch_overrun) : 0;
  auto tokens_fit = [&](int64_t tokens) { return memory_at(s.batch_size, tokens).fits; };
  auto tokens_overrun = [&](int64_t tokens) { return overrun(memory_at(s.batch_size, tokens)); };
  f.max_new_tokens = tokens_fit(1) ? largest_fitting(1, kMaxContextTokens, 0, tokens_fit, tokens_overrun) : 0;
  return f;
}

std::vector<std::string> transformers_log_lines(const TransformersMemory& r) {
  std::vector<std::string> lines;
  // model.hf_device_map, runs of layers condensed ("model.layers.0-15": 0).
  std::string map = "model.hf_device_map: {";
  auto where = [](const TransformersDevice& d) { return d.index < 0 ? std::string("'cpu'") : std::to_string(d.index); };
  std::vector<const TransformersDevice*> all;
  for (const TransformersDevice& d : r.gpus) all.push_back(&d);
  if (r.host.weights > 0) all.push_back(&r.host);
  bool first = true;
  auto add = [&](const std::string& key, const std::string& value) {
    map += (first ? "'" : ", '") + key + "': " + value;
    first = false;
  };
  for (const TransformersDevice* d : all) {
    if (d->embeddings) add("model.embed_tokens", where(*d));
  }
  for (const TransformersDevice* d : all) {
    if (d->layers() > 0 && d->weights > 0) {
      add("model.layers." + std::to_string(d->first_layer) + (d->layers() > 1 ? "-" + std::to_string(d->last_layer) : ""),
          where(*d));
    }
  }
  for (const TransformersDevice* d : all) {
    if (d->lm_head) add("lm_head", where(*d));
  }
  lines.push_back(r.mapped ? map + "}" : "model.to(\"cuda:0\"): every module on GPU 0 (no device_map, no model.hf_device_map)");
  lines.push_back("model.get_memory_footprint(): " + std::to_string(r.footprint) + " (" +
                  format_bytes(r.footprint, DisplayUnits::gib) + ")");
  for (const TransformersDevice& d : r.gpus) {
    lines.push_back("torch.cuda.max_memory_allocated(" + std::to_string(d.index) + "): " + std::to_string(d.peak()) + " (" +
                    format_bytes(d.peak(), DisplayUnits::gib) + ")");
  }
  return lines;
}

double transformers_decode_bound(const TransformersMemory& r, const std::vector<double>& gpu_bandwidth_gbs,
                                 double host_bandwidth_gbs) {
  double seconds = 0;
  for (size_t i = 0; i < r.gpus.size(); ++i) {
    const double bandwidth = i < gpu_bandwidth_gbs.size() ? gpu_bandwidth_gbs[i] : 0.0;
    if (bandwidth <= 0) return 0.0;
    seconds += static_cast<double>(r.gpus[i].weights + r.gpus[i].buffers) / (bandwidth * 1e9);
  }
  if (r.host.weights > 0) {
    if (host_bandwidth_gbs <= 0) return 0.0;
    seconds += static_cast<double>(r.host.weights) / (host_bandwidth_gbs * 1e9);
  }
  return seconds > 0 ? 1.0 / seconds : 0.0;
}

double transformers_prefill_bound(const ModelSpec& m, const TransformersMemory& r, const std::vector<double>& rates,
                                  int64_t prompt_tokens) {
  const std::vector<int64_t> active = active_parameters_per_layer(m);
  double seconds = 0;
  for (size_t g = 0; g < r.gpus.size(); ++g) {
    const TransformersDevice& d = r.gpus[g];
    double flops = d.layers() > 0 ? prefill_flops_per_token(m, active, d.first_layer, d.layers(), prompt_tokens) : 0.0;
    if (g == 0 && r.host.layers() > 0) {
      flops += prefill_flops_per_token(m, active, r.host.first_layer, r.host.layers(), prompt_tokens);
    }
    if (flops <= 0) continue;
    const double rate = g < rates.size() ? rates[g] * 1e12 : 0.0;
    if (rate <= 0) return 0.0;
    seconds += flops / rate;
  }
  return seconds > 0 ? 1.0 / seconds : 0.0;
}

}  // namespace vramfit
