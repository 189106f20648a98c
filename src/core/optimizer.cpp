#include "optimizer.hpp"

#include "units.hpp"

namespace vramfit {

namespace {
struct OptimizerInfo { Optimizer value; const char* id; const char* label; };
constexpr OptimizerInfo kOptimizers[] = {
    {Optimizer::sgd, "sgd", "SGD"},
    {Optimizer::sgd_momentum, "sgd_momentum", "SGD with momentum"},
    {Optimizer::adam, "adam", "Adam"},
    {Optimizer::adamw, "adamw", "AdamW"},
    {Optimizer::adam_8bit, "adam_8bit", "8-bit Adam (bitsandbytes)"},
    {Optimizer::adafactor, "adafactor", "Adafactor"},
    {Optimizer::lion, "lion", "Lion"},
};
}  // namespace

const char* optimizer_id(Optimizer o) { return kOptimizers[static_cast<int>(o)].id; }
const char* optimizer_label(Optimizer o) { return kOptimizers[static_cast<int>(o)].label; }
const char* optimizer_ids() { return "sgd, sgd_momentum, adam, adamw, adam_8bit, adafactor, lion"; }

bool parse_optimizer(const std::string& id, Optimizer& optimizer) {
  for (const OptimizerInfo& info : kOptimizers) {
    if (id == info.id) { optimizer = info.value; return true; }
  }
  return false;
}

int64_t ParamTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n = sat_mul(n, d);
  return n;
}

OptimizerState optimizer_state(Optimizer optimizer, const std::vector<ParamTensor>& tensors,
                               int64_t state_element_bytes, bool steps_with_parameters) {
  OptimizerState s;
  int64_t elements = 0, small_elements = 0, big_elements = 0, blocks = 0;
  int64_t factored_elements = 0;
  for (const ParamTensor& t : tensors) {
    const int64_t n = t.elements();
    s.tensors = sat_add(s.tensors, t.copies);
    elements = sat_add(elements, sat_mul(n, t.copies));
    if (n >= kBnb8bitMinElements) {
      big_elements = sat_add(big_elements, sat_mul(n, t.copies));
      blocks = sat_add(blocks, sat_mul(ceil_div(n, kBnb8bitBlock), t.copies));
    } else {
      small_elements = sat_add(small_elements, sat_mul(n, t.copies));
    }
    // transformers' Adafactor: a tensor of 2+ dims keeps a row vector (shape[:-1]) and a
    // column vector (shape[:-2] + shape[-1:]); a 1-D tensor keeps the full second moment.
    if (t.dims.size() >= 2) {
      const int64_t last = t.dims.back();
      const int64_t rows = n / (last > 0 ? last : 1);
      const int64_t cols = rows / (t.dims[t.dims.size() - 2] > 0 ? t.dims[t.dims.size() - 2] : 1) * last;
      factored_elements = sat_add(factored_elements, sat_mul(sat_add(rows, cols), t.copies));
    } else {
      factored_elements = sat_add(factored_elements, sat_mul(n, t.copies));
    }
  }
  const std::string e = with_thousands(elements);
  const std::string b = std::to_string(state_element_bytes);
  switch (optimizer) {
    case Optimizer::sgd:
      s.formula = "plain SGD keeps no state = 0 B";
      break;
    case Optimizer::sgd_momentum:  // torch.optim.SGD: momentum_buffer = clone(grad)
      s.moment_bytes = sat_mul(elements, state_element_bytes);
      s.formula = "1 momentum buffer x " + e + " elements x " + b + " B";
      break;
    case Optimizer::lion:  // Chen et al. 2023: only the momentum (exp_avg)
      s.moment_bytes = sat_mul(elements, state_element_bytes);
      s.formula = "1 momentum (exp_avg) x " + e + " elements x " + b + " B";
      break;
    case Optimizer::adam:
    case Optimizer::adamw:  // torch.optim.Adam(W): exp_avg, exp_avg_sq, and a 0-dim fp32 step per tensor
      s.moment_bytes = sat_mul(2, elements, state_element_bytes);
      s.formula = "2 moments (exp_avg, exp_avg_sq) x " + e + " elements x " + b + " B";
      if (steps_with_parameters) {
        s.step_bytes = sat_mul(s.tensors, 4);
        s.formula += " + " + with_thousands(s.tensors) + " fp32 step tensors x 4 B";
      } else {
        s.formula += " (its " + with_thousands(s.tensors) + " fp32 step tensors stay on the CPU: not fused or capturable)";
      }
      break;
    case Optimizer::adam_8bit:  // bitsandbytes Optimizer2State: uint8 m and v + fp32 absmax per 2048
      s.quantized_bytes = sat_add(sat_mul(2, big_elements), sat_mul(2, blocks, 4));
      s.moment_bytes = sat_mul(2, small_elements, 4);
      s.formula = "tensors >= 4,096 elements: 2 x " + with_thousands(big_elements) + " x 1 B + 2 x " +
                  with_thousands(blocks) + " blocks of 2,048 x 4 B (absmax); smaller tensors: 2 x " +
                  with_thousands(small_elements) + " x 4 B (32-bit state)";
      break;
    case Optimizer::adafactor:  // Shazeer & Stern 2018; transformers.Adafactor with beta1=None
      s.factored_bytes = sat_mul(factored_elements, 4);
      s.formula = "factored second moment: rows + columns per matrix, full size for vectors = " +
                  with_thousands(factored_elements) + " elements x 4 B (no first moment: beta1 = None)";
      break;
  }
  return s;
}

}  // namespace vramfit
