#include "network.hpp"

#include <map>
#include <set>

namespace vramfit {

namespace {

struct ElementInfo { ElementType type; const char* id; int64_t bytes; };
constexpr ElementInfo kElements[] = {
    {ElementType::f64, "f64", 8}, {ElementType::f32, "f32", 4}, {ElementType::f16, "f16", 2},
    {ElementType::bf16, "bf16", 2}, {ElementType::i64, "i64", 8},
};

struct LayerInfo { LayerType type; const char* id; };
constexpr LayerInfo kLayers[] = {
    {LayerType::linear, "linear"}, {LayerType::conv2d, "conv2d"}, {LayerType::batchnorm2d, "batchnorm2d"},
    {LayerType::layernorm, "layernorm"}, {LayerType::embedding, "embedding"}, {LayerType::relu, "relu"},
    {LayerType::gelu, "gelu"}, {LayerType::silu, "silu"}, {LayerType::sigmoid, "sigmoid"},
    {LayerType::tanh, "tanh"}, {LayerType::softmax, "softmax"}, {LayerType::dropout, "dropout"},
    {LayerType::maxpool2d, "maxpool2d"}, {LayerType::avgpool2d, "avgpool2d"}, {LayerType::flatten, "flatten"},
    {LayerType::add, "add"}, {LayerType::self_attention, "self_attention"},
};

int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n = sat_mul(n, d);
  return n;
}

// A tensor alive after the forward pass: its storage id and size. Views (flatten, a dropout
// with p = 0) share their input's id, so a storage saved twice is counted once.
struct Value {
  std::vector<int64_t> shape;  // one sample
  int id = 0;
  ElementType dtype = ElementType::f32;
};

// The autograd rule's bookkeeping: storages saved for backward, each once.
struct SavedSet {
  std::set<int> ids;
  int64_t add(int id, int64_t bytes) { return ids.insert(id).second ? bytes : 0; }
};

bool is_in_place_for_articles(LayerType t) {
  switch (t) {
    case LayerType::relu: case LayerType::gelu: case LayerType::silu: case LayerType::sigmoid:
    case LayerType::tanh: case LayerType::softmax: case LayerType::dropout: case LayerType::flatten:
      return true;
    default:
      return false;
  }
}

Error layer_error(size_t index, const Layer& layer, const std::string& what) {
  std::string label = "layers[" + std::to_string(index) + "]";
  std::string who = label + " (" + std::string(layer_type_id(layer.type)) +
                    (layer.name.empty() ? "" : " '" + layer.name + "'") + ")";
  return make_error("network.shape", "network." + label, who + ": " + what);
}

// The walk through the layers: one sample's batch, the storages autograd has saved so far,
// the values layers can name (add's `from`), and the memory being summed.
struct Walk {
  const Network& net;
  NetworkMemory& m;
  int64_t B = 1, eb = 4, stat_bytes = 4;
  bool cuda = true;
  SavedSet saved;
  int next_id = 1;
  std::map<std::string, Value> named;
  int64_t bytes_of(const Value& v) const { return sat_mul(B, product(v.shape), element_bytes(v.dtype)); }
};

// One layer: its input x, its output y (the same storage unless it makes a new tensor), its
// parameter tensors, and what autograd saves for its backward.
struct LayerStep {
  Value x, y;
  std::vector<ParamTensor> tensors;
  int64_t kept = 0;
  std::string keeps;
  void save_input(Walk& w) { kept += w.saved.add(x.id, w.bytes_of(x)); }
  void save_output(Walk& w) { kept += w.saved.add(y.id, w.bytes_of(y)); }
  void new_output(Walk& w, std::vector<int64_t> shape) {
    y.shape = std::move(shape);
    y.id = w.next_id++;
    y.dtype = w.net.dtype;
  }
};

// Layers with parameters (and self-attention, whose projections are four linears). What each
// saves follows PyTorch's derivatives.yaml; an error names the layer.
std::optional<Error> step_with_parameters(Walk& w, const Layer& L, size_t i, LayerStep& t) {
  const std::vector<int64_t>& s = t.x.shape;
  switch (L.type) {
    case LayerType::linear: {
      if (L.out < 1 || L.out > (int64_t(1) << 24)) return layer_error(i, L, "out must be between 1 and 16777216");
      const int64_t in = s.back();
      if (L.in != 0 && L.in != in) {
        return layer_error(i, L, "in = " + std::to_string(L.in) + " does not match the incoming shape " + shape_text(s));
      }
      std::vector<int64_t> o = s; o.back() = L.out;
      t.new_output(w, o);
      t.tensors.push_back({{L.out, in}});
      if (L.bias) t.tensors.push_back({{L.out}});
      t.save_input(w);  // addmm/mm: saves its input for the weight's gradient
      t.keeps = "input (for the weight gradient)";
      break;
    }
    case LayerType::conv2d: {
      if (s.size() != 3) return layer_error(i, L, "needs a [channels, height, width] input, got " + shape_text(s));
      if (L.out < 1 || L.kernel < 1 || L.padding < 0 || L.stride < 0 || L.out > 65536 || L.kernel > 4096) {
        return layer_error(i, L, "out and kernel must be at least 1, padding and stride not negative");
      }
      const int64_t st = L.stride ? L.stride : 1;
      const int64_t height = (s[1] + 2 * L.padding - L.kernel) / st + 1, width = (s[2] + 2 * L.padding - L.kernel) / st + 1;
      if (s[1] + 2 * L.padding < L.kernel || s[2] + 2 * L.padding < L.kernel) {
        return layer_error(i, L, "kernel " + std::to_string(L.kernel) + " is larger than the padded input " + shape_text(s));
      }
      t.new_output(w, {L.out, height, width});
      t.tensors.push_back({{L.out, s[0], L.kernel, L.kernel}});
      if (L.bias) t.tensors.push_back({{L.out}});
      t.save_input(w);
      t.keeps = "input (convolution_backward)";
      break;
    }
    case LayerType::batchnorm2d: {
      if (s.size() != 3) return layer_error(i, L, "needs a [channels, height, width] input, got " + shape_text(s));
      t.new_output(w, s);
      t.tensors.push_back({{s[0]}});
      t.tensors.push_back({{s[0]}});
      w.m.buffer_bytes = sat_add(w.m.buffer_bytes, sat_add(sat_mul(2, s[0], w.eb), 8));  // running mean/var + int64 count
      t.save_input(w);
      t.kept += sat_mul(2, s[0], w.stat_bytes);  // save_mean, save_invstd
      t.keeps = "input + per-channel mean and inverse std";
      break;
    }
    case LayerType::layernorm: {
      t.new_output(w, s);
      t.tensors.push_back({{s.back()}});
      t.tensors.push_back({{s.back()}});
      t.save_input(w);
      t.kept += sat_mul(2, w.B, product(s) / s.back(), w.stat_bytes);  // mean, rstd per row
      t.keeps = "input + mean and rstd per row";
      break;
    }
    case LayerType::embedding: {
      if (t.x.dtype != ElementType::i64 || i != 0) return layer_error(i, L, "must be the first layer, on i64 token ids");
      if (L.vocab < 1 || L.dim < 1 || L.vocab > (int64_t(1) << 24) || L.dim > (int64_t(1) << 20)) {
        return layer_error(i, L, "vocab and dim must be at least 1");
      }
      std::vector<int64_t> o = s; o.push_back(L.dim);
      t.new_output(w, o);
      t.tensors.push_back({{L.vocab, L.dim}});
      t.save_input(w);  // embedding_backward needs the indices
      t.keeps = "the token ids (int64)";
      break;
    }
    case LayerType::self_attention: {
      if (s.size() != 2) return layer_error(i, L, "needs a [sequence, features] input, got " + shape_text(s));
      if (L.heads < 1 || s[1] % L.heads != 0) {
        return layer_error(i, L, "heads (" + std::to_string(L.heads) + ") must divide the features of " + shape_text(s));
      }
      const int64_t S = s[0], E = s[1];
      t.new_output(w, s);
      for (int k = 0; k < 4; ++k) { t.tensors.push_back({{E, E}}); t.tensors.push_back({{E}}); }
      t.save_input(w);  // q, k, v projections save x once
      // matmul copies the transposed q, k, v and the context (reshape of a non-contiguous
      // view); softmax keeps the probabilities; the 1/sqrt(d) divisor is a 0-dim float64
      // on the CPU (a CPU scalar under CUDA, so no GPU memory).
      t.kept += sat_add(sat_mul(4, w.B, S, E, w.eb), sat_mul(w.B, L.heads, S, S, w.eb));
      if (!w.cuda) t.kept += 8;
      t.keeps = "input + q, k, v and context copies + softmax probabilities (heads x s x s)";
      break;
    }
    default:
      break;
  }
  return std::nullopt;
}

// Layers without parameters: activations, dropout, pooling, flatten, a residual add.
std::optional<Error> step_without_parameters(Walk& w, const Layer& L, size_t i, LayerStep& t) {
  const std::vector<int64_t>& s = t.x.shape;
  switch (L.type) {
    case LayerType::relu: case LayerType::sigmoid: case LayerType::tanh: case LayerType::softmax:
      t.new_output(w, s);
      t.save_output(w);  // derivatives.yaml: backward from the result
      t.keeps = "its output";
      break;
    case LayerType::gelu: case LayerType::silu:
      t.new_output(w, s);
      t.save_input(w);   // derivatives.yaml: backward from self
      t.keeps = "its input";
      break;
    case LayerType::dropout:
      if (!(L.p >= 0.0 && L.p < 1.0)) return layer_error(i, L, "p must be in [0, 1)");
      if (L.p > 0.0) {
        t.new_output(w, s);
        // CUDA: native_dropout keeps a bool mask; CPU: input * noise keeps the float noise.
        t.kept += sat_mul(w.B, product(s), w.cuda ? 1 : w.eb);
        t.keeps = w.cuda ? "a bool mask (1 B per element)" : "the noise tensor (input dtype)";
      } else {
        t.keeps = "nothing (p = 0 returns its input)";
      }
      break;
    case LayerType::maxpool2d: case LayerType::avgpool2d: {
      if (s.size() != 3) return layer_error(i, L, "needs a [channels, height, width] input, got " + shape_text(s));
      if (L.kernel < 1 || L.stride < 0 || L.kernel > s[1] || L.kernel > s[2]) {
        return layer_error(i, L, "kernel " + std::to_string(L.kernel) + " does not fit the input " + shape_text(s));
      }
      const int64_t st = L.stride ? L.stride : L.kernel;
      t.new_output(w, {s[0], (s[1] - L.kernel) / st + 1, (s[2] - L.kernel) / st + 1});
      t.save_input(w);
      if (L.type == LayerType::maxpool2d) {
        t.kept += sat_mul(w.B, product(t.y.shape), 8);  // int64 argmax indices
        t.keeps = "input + int64 indices of the maxima";
      } else {
        t.keeps = "input";
      }
      break;
    }
    case LayerType::flatten:
      t.y.shape = {product(s)};  // a view: same storage
      t.keeps = "nothing (a view)";
      break;
    case LayerType::add: {
      auto it = w.named.find(L.from);
      if (it == w.named.end()) return layer_error(i, L, "from '" + L.from + "' names no earlier layer (nor \"input\")");
      if (it->second.shape != s) {
        return layer_error(i, L, "shape " + shape_text(it->second.shape) + " of '" + L.from +
                                 "' does not match the incoming shape " + shape_text(s));
      }
      t.new_output(w, s);
      t.keeps = "nothing";
      break;
    }
    default:
      break;
  }
  return std::nullopt;
}

// Each input and setting within what network_memory computes, else an error naming it.
std::optional<Error> check_network(const Network& net, const NetworkSettings& settings) {
  if (net.input.empty() || net.input.size() > 4) {
    return make_error("network.bad_value", "network.input", "network.input: give one sample's shape, 1 to 4 dimensions");
  }
  for (int64_t d : net.input) {
    if (d < 1 || d > (int64_t(1) << 24)) {
      return make_error("network.out_of_range", "network.input",
                        "network.input: dimensions must be between 1 and 16777216 (got " + shape_text(net.input) + ")");
    }
  }
  if (product(net.input) > kMaxSampleElements) {
    return make_error("network.out_of_range", "network.input", "network.input: more than 2^32 elements per sample");
  }
  if (net.layers.empty() || static_cast<int64_t>(net.layers.size()) > kMaxNetworkLayers) {
    return make_error("network.bad_value", "network.layers", "network.layers: give 1 to 4096 layers");
  }
  if (settings.batch < 1 || settings.batch > kMaxNetworkBatch) {
    return make_error("network.out_of_range", "batch", "batch: must be between 1 and 1048576");
  }
  const bool token_input = net.input_dtype == ElementType::i64;
  if (token_input && net.layers.front().type != LayerType::embedding) {
    return make_error("network.bad_value", "network.input_dtype",
                      "network.input_dtype: i64 (token ids) input must go into an embedding first");
  }
  if (!token_input && net.input_dtype != net.dtype) {
    return make_error("network.bad_value", "network.input_dtype",
                      "network.input_dtype: a float input must have the network's dtype (" +
                      std::string(element_type_id(net.dtype)) + ")");
  }

  return std::nullopt;
}

// One layer's row of the table, and its share of the parameters and activations.
void add_row(Walk& w, const Layer& L, size_t i, const LayerStep& t, bool autograd) {
  LayerRow row;
  row.type = layer_type_id(L.type);
  row.name = L.name.empty() ? row.type + " " + std::to_string(i) : L.name;
  int64_t params = 0;
  for (const ParamTensor& p : t.tensors) params = sat_add(params, p.elements());
  w.m.param_tensors.insert(w.m.param_tensors.end(), t.tensors.begin(), t.tensors.end());
  row.parameters = params;
  row.output_shape = t.y.shape;
  row.output_shape.insert(row.output_shape.begin(), w.B);
  if (autograd) {
    row.activation_bytes = t.kept;
    row.keeps = t.keeps;
  } else if (!is_in_place_for_articles(L.type)) {
    row.activation_bytes = w.bytes_of(t.y);
    w.m.activation_elements = sat_add(w.m.activation_elements, sat_mul(w.B, product(t.y.shape)));
    row.keeps = "its output";
  } else {
    row.keeps = L.type == LayerType::flatten ? "nothing (a view)" : "nothing (taken as in place)";
  }
  w.m.activation_bytes = sat_add(w.m.activation_bytes, row.activation_bytes);
  w.m.parameters = sat_add(w.m.parameters, params);
  w.m.layers.push_back(std::move(row));
}

}  // namespace

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t element_bytes(ElementType type) { return kElements[static_cast<int>(type)].bytes; }
const char* element_type_id(ElementType type) { return kElements[static_cast<int>(type)].id; }
bool parse_element_type(const std::string& id, ElementType& type) {
  for (const ElementInfo& e : kElements) if (id == e.id) { type = e.type; return true; }
  return false;
}
const char* layer_type_id(LayerType type) { return kLayers[static_cast<int>(type)].id; }
bool parse_layer_type(const std::string& id, LayerType& type) {
  for (const LayerInfo& l : kLayers) if (id == l.id) { type = l.type; return true; }
  return false;
}

Result<NetworkMemory> network_memory(const Network& net, const NetworkSettings& settings) {
  if (auto error = check_network(net, settings)) return *error;
  NetworkMemory m;
  Walk w{net, m, 1, 4, 4, true, {}, 1, {}};
  w.B = settings.batch;
  w.eb = element_bytes(net.dtype);
  w.cuda = settings.device == AutogradDevice::cuda;
  // Norm statistics: accumulate type on CUDA (fp32 for 16-bit inputs), the input dtype on the CPU.
  w.stat_bytes = w.cuda && w.eb == 2 ? 4 : w.eb;
  Value x{net.input, 0, net.input_dtype};
  w.named["input"] = x;
  const bool autograd = settings.rule == ActivationRule::autograd;
  if (!autograd) m.input_bytes = w.bytes_of(x);

  for (size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& L = net.layers[i];
    if (L.type != LayerType::embedding && x.dtype == ElementType::i64) {
      return layer_error(i, L, "needs floating-point input; token ids go into an embedding");
    }
    LayerStep t{x, x, {}, 0, ""};
    if (auto error = step_with_parameters(w, L, i, t)) return *error;
    if (auto error = step_without_parameters(w, L, i, t)) return *error;
    if (product(t.y.shape) > kMaxSampleElements) return layer_error(i, L, "output has more than 2^32 elements per sample");
    add_row(w, L, i, t, autograd);
    x = t.y;
    if (!L.name.empty()) {
      if (w.named.count(L.name)) return layer_error(i, L, "the name '" + L.name + "' is used twice");
      w.named[L.name] = x;
    }
  }
  m.parameter_bytes = sat_mul(m.parameters, w.eb);
  m.gradient_bytes = m.parameter_bytes;  // one gradient per parameter, same dtype (PyTorch)
  m.optimizer = optimizer_state(settings.optimizer, m.param_tensors, w.eb,
                                settings.device == AutogradDevice::cpu || settings.fused_optimizer);
  m.subtotal = sat_add(sat_add(m.parameter_bytes, m.buffer_bytes), sat_add(m.gradient_bytes, m.optimizer.total()));
  m.subtotal = sat_add(m.subtotal, sat_add(m.activation_bytes, m.input_bytes));
  m.margin = static_cast<int64_t>(static_cast<double>(m.subtotal) * settings.margin_fraction);
  m.total = sat_add(m.subtotal, m.margin);
  return m;
}

Breakdown explain_network(const Network& net, const NetworkSettings& settings, const NetworkMemory& m) {
  Breakdown b;
  b.mode = "training";
  const int64_t eb = element_bytes(net.dtype);
  const std::string dt = element_type_id(net.dtype);
  b.items.push_back({"parameters", "Parameters (P)", m.parameter_bytes,
                     with_thousands(m.parameters) + " parameters x " + std::to_string(eb) + " B (" + dt + ") = " +
                         with_thousands(m.parameter_bytes) + " B",
                     "Summed layer by layer; see the layer table.", {}});
  if (m.buffer_bytes > 0) {
    b.items.push_back({"buffers", "BatchNorm running statistics", m.buffer_bytes,
                       "running mean + running var per channel x " + std::to_string(eb) + " B + 8 B count per BatchNorm = " +
                           with_thousands(m.buffer_bytes) + " B",
                       "Model state that is not trained: no gradient, no optimizer state.", {}});
  }
  b.items.push_back({"gradients", "Gradients (G)", m.gradient_bytes,
                     "G = P = " + with_thousands(m.gradient_bytes) + " B",
                     "PyTorch keeps one .grad per parameter in the parameter's dtype. Gradient accumulation reuses them: "
                     "it adds no memory.", {}});
  b.items.push_back({"optimizer", std::string("Optimizer state (O): ") + optimizer_label(settings.optimizer),
                     m.optimizer.total(), m.optimizer.formula + " = " + with_thousands(m.optimizer.total()) + " B",
                     "States in the parameters' dtype (torch.optim creates them with zeros_like).", {}});
  BreakdownItem a{"activations", "Activations (A)", m.activation_bytes, "", "", {}};
  if (settings.rule == ActivationRule::layer_outputs) {
    a.formula = with_thousands(m.activation_elements) + " elements (batch " + with_thousands(settings.batch) +
                " x " + with_thousands(m.activation_elements / settings.batch) + " per sample) x " +
                std::to_string(eb) + " B = " + with_thousands(m.activation_bytes) + " B";
    a.note = "Layer outputs (the articles' rule): each layer that makes a new tensor keeps its output once; "
             "activation functions, softmax and dropout are taken as in place.";
  } else {
    a.formula = "sum over layers of what autograd saves, each storage once = " + with_thousands(m.activation_bytes) + " B";
    a.note = std::string("Autograd rule (PyTorch derivatives.yaml) on ") +
             (settings.device == AutogradDevice::cuda ? "CUDA" : "the CPU") +
             "; checked byte for byte against PyTorch 1.13 on the CPU. Parameters are not counted again.";
  }
  for (const LayerRow& row : m.layers) {
    if (row.activation_bytes == 0) continue;
    a.children.push_back({"activations." + row.name, row.name, row.activation_bytes,
                          row.keeps + " = " + with_thousands(row.activation_bytes) + " B", "", {}});
  }
  b.items.push_back(std::move(a));
  if (m.input_bytes > 0) {
    b.items.push_back({"input", "Input batch", m.input_bytes,
                       "batch " + with_thousands(settings.batch) + " x " + with_thousands(m.input_bytes / settings.batch) +
                           " B per sample = " + with_thousands(m.input_bytes) + " B",
                       "Article 000: the input data (e.g. 224 x 224 x 3 images x batch) needs memory too.", {}});
  }
  b.items.push_back({"margin", "Safety margin", m.margin,
                     format_percent(settings.margin_fraction) + " x " + with_thousands(m.subtotal) + " B = " +
                         with_thousands(m.margin) + " B",
                     "Articles 000/003: 10-30% against unexpected allocations.", {}});
  b.total_bytes = m.total;
  b.assumptions.push_back("Peak of one training step: the forward pass has saved A; gradients and optimizer state exist "
                          "from the first step on.");
  return b;
}

}  // namespace vramfit
