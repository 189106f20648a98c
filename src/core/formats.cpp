#include "formats.hpp"

#include <algorithm>

#include "units.hpp"

namespace vramfit {

StorageType with_group_size(const StorageType& type, int64_t group_size) {
  if (!type.grouped || group_size <= 0) return type;
  StorageType t = type;
  t.block_elements = group_size;
  t.block_bits = group_size * type.bits + type.group_overhead_bits;
  return t;
}

int64_t storage_bytes(const StorageType& type, int64_t row_length, int64_t rows, int64_t copies) {
  const int64_t elements = row_length * rows;
  const int64_t blocks = type.blocks_span_rows ? ceil_div(elements, type.block_elements)
                                               : ceil_div(row_length, type.block_elements) * rows;
  int64_t bytes = ceil_div(blocks * type.block_bits, 8);
  if (type.super_block_blocks > 0) {
    bytes += ceil_div(blocks, type.super_block_blocks) * type.super_block_bytes;
  }
  bytes += type.per_tensor_bytes + type.per_input_row_bytes * row_length +
           type.per_output_row_bytes * rows;
  return bytes * copies;
}

int64_t row_bytes(const StorageType& type, int64_t row_length) noexcept {
  return ceil_div(ceil_div(row_length, type.block_elements) * type.block_bits, 8);
}

int FormatTables::find_storage(const std::string& id) const {
  for (size_t i = 0; i < storage_types.size(); ++i) {
    if (storage_types[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

int FormatTables::find_storage_by_ggml(int ggml_type) const {
  for (size_t i = 0; i < storage_types.size(); ++i) {
    if (storage_types[i].ggml_type == ggml_type) return static_cast<int>(i);
  }
  return -1;
}

const WeightFormat* FormatTables::find_format(const std::string& id) const {
  for (const WeightFormat& f : formats) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

namespace {

// llama-quant.cpp: use_more_bits(i_layer, n_layers)
bool use_more_bits(int64_t i, int64_t n) {
  return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2;
}

bool layers_match(const std::string& selector, int64_t layer, int64_t n) {
  if (selector.empty()) return true;
  if (layer < 0) return false;
  if (selector == "more_bits") return use_more_bits(layer, n);
  if (selector == "first_eighth") return layer < n / 8;
  if (selector == "first_sixteenth") return layer < n / 16;
  if (selector.rfind("first:", 0) == 0) return layer < std::stoll(selector.substr(6));
  return false;
}

bool is_llama70b(const ModelSpec& m) {
  // llama.cpp's LLM_TYPE_70B: 80 layers with grouped-query attention (llama, qwen2)
  return m.layers == 80 && m.kv_heads > 0 && m.kv_heads < m.attention_heads;
}

bool cond_match(const std::string& cond, const ModelSpec& m) {
  if (cond.empty()) return true;
  if (cond == "gqa4") return m.kv_heads > 0 && m.attention_heads / m.kv_heads >= 4;
  if (cond == "experts8") return m.experts == 8;
  if (cond == "llama70b") return is_llama70b(m);
  return false;
}

bool name_starts_with(const char* name, const std::string& prefix) {
  return std::string(name).rfind(prefix, 0) == 0;
}

int gguf_type_for_tensor(const FormatTables& tables, const GgufMix& mix, const ModelSpec& m,
                         const TensorShape& t) {
  const int f32 = tables.find_storage("f32");
  // The vision tower lives in llama.cpp's separate mmproj file, usually f16.
  if (t.role == TensorRole::vision) return tables.find_storage("f16");
  // 1-D tensors (norms, biases) and the MoE router are never quantized, nor Mamba's small
  // ssm_conv1d (llama-quant.cpp: "do not quantize Mamba's small yet 2D weights").
  if (t.role == TensorRole::vector || t.role == TensorRole::router ||
      t.role == TensorRole::shared_expert_gate || t.role == TensorRole::ssm_conv) {
    return f32;
  }
  const StorageType& base = tables.storage_types[static_cast<size_t>(mix.base)];
  const bool quantized_mix = base.block_elements > 1;
  const bool is_output = t.role == TensorRole::output ||
                         (t.role == TensorRole::token_embd && m.tied_embeddings);
  int type = mix.base;
  if (is_output) {
    type = mix.output;
    // llama-quant.cpp: an output whose rows the base block does not divide goes to Q8_0.
    if (quantized_mix && t.row_length % base.block_elements != 0) type = tables.find_storage("q8_0");
  } else if (mix.experts >= 0) {
    type = is_expert_role(t.role) ? mix.experts : mix.base;
  } else if (quantized_mix) {
    const char* name = tensor_role_name(t.role);
    for (const GgufMixRule& rule : mix.rules) {
      if (name_starts_with(name, rule.tensor) && layers_match(rule.layers, t.layer, m.layers) &&
          cond_match(rule.cond, m)) {
        type = rule.type;
        break;
      }
    }
    if (t.role == TensorRole::attn_v) {
      const std::string& id = tables.storage_types[static_cast<size_t>(type)].id;
      if (is_llama70b(m) && (id == "q3_k" || id == "q4_k")) type = tables.find_storage("q5_k");
      if (m.experts == 8) type = tables.find_storage("q8_0");
    }
    if (t.role == TensorRole::attn_k && m.experts == 8) type = tables.find_storage("q8_0");
  }
  // A block that does not divide the row falls back (llama-quant.cpp), finally to F16.
  const StorageType& chosen = tables.storage_types[static_cast<size_t>(type)];
  if (t.row_length % chosen.block_elements != 0) {
    const int fallback = tables.gguf_fallback[static_cast<size_t>(type)];
    type = fallback >= 0 ? fallback : tables.find_storage("f16");
    if (t.row_length % tables.storage_types[static_cast<size_t>(type)].block_elements != 0) {
      type = tables.find_storage("f16");
    }
  }
  return type;
}

}  // namespace

int storage_type_for_tensor(const FormatTables& tables, const WeightFormat& format,
                            const ModelSpec& model, const TensorShape& tensor) {
  if (format.mix >= 0) {
    return gguf_type_for_tensor(tables, tables.mixes[static_cast<size_t>(format.mix)], model, tensor);
  }
  auto or_default = [&format](int type) { return type >= 0 ? type : format.default_type; };
  switch (tensor.role) {
    case TensorRole::token_embd:
    case TensorRole::position_embd:
    case TensorRole::vision: return or_default(format.token_embd_type);  // the tower stays in 16 bits
    case TensorRole::output: return or_default(format.output_type);
    case TensorRole::vector:
    case TensorRole::ssm_conv: return or_default(format.vector_type);  // a Conv1d, not a Linear layer
    case TensorRole::router:
    case TensorRole::shared_expert_gate: return or_default(format.router_type);
    default: break;
  }
  if (is_expert_role(tensor.role)) return or_default(format.experts_type);
  return format.default_type;
}

WeightsSummary summarize_weights(const FormatTables& tables, const WeightFormat& format,
                                 const ModelSpec& model, int64_t group_size) {
  WeightsSummary summary;
  const int64_t group = group_size > 0 ? group_size : format.group_size;
  auto add = [&](int type, int64_t elements, int64_t bytes, int64_t replicated = 0) {
    auto it = std::find_if(summary.by_type.begin(), summary.by_type.end(),
                           [type](const WeightsByType& w) { return w.storage_type == type; });
    if (it == summary.by_type.end()) {
      summary.by_type.push_back(WeightsByType{type, 0, 0, 0});
      it = summary.by_type.end() - 1;
    }
    it->elements += elements;
    it->replicated_bytes += replicated;
    it->tensors += 1;
    it->bytes += bytes;
    summary.bytes += bytes;
  };

  if (model.parameters_only > 0) {
    // Only the count is known: every parameter in the format's main layout (the articles' rule).
    const StorageType type = with_group_size(
        tables.storage_types[static_cast<size_t>(format.mix >= 0
                                                     ? tables.mixes[static_cast<size_t>(format.mix)].base
                                                     : format.default_type)],
        group);
    const int index = format.mix >= 0 ? tables.mixes[static_cast<size_t>(format.mix)].base
                                      : format.default_type;
    summary.parameters = summary.active_parameters = model.parameters_only;
    summary.from_parameter_count = true;
    // parameters x block_bits / 8 / block_elements, rounded up to whole bytes
    add(index, model.parameters_only,
        ceil_div(ceil_div(model.parameters_only, type.block_elements) * type.block_bits, 8));
    return summary;
  }

  for (const TensorShape& t : enumerate_tensors(model)) {
    const int index = storage_type_for_tensor(tables, format, model, t);
    const StorageType type = with_group_size(tables.storage_types[static_cast<size_t>(index)], group);
    const int64_t bytes = storage_bytes(type, t.row_length, t.rows, t.copies);
    const bool replicated = t.role == TensorRole::vector && t.copies == 1;
    add(index, t.elements(), bytes, replicated ? bytes : 0);
    summary.parameters += t.elements();
    if (replicated) summary.replicated_bytes += bytes;
  }
  summary.active_parameters = count_active_parameters(model);
  return summary;
}

}  // namespace vramfit
