// Optimizer state, tensor by tensor, as each optimizer really keeps it. Shared by transformer
// training (src/core/training) and layer-list networks (src/core/network).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vramfit {

enum class Optimizer { sgd, sgd_momentum, adam, adamw, adam_8bit, adafactor, lion };

const char* optimizer_id(Optimizer optimizer);           // "adamw"
const char* optimizer_label(Optimizer optimizer);        // "AdamW"
bool parse_optimizer(const std::string& id, Optimizer& optimizer);
const char* optimizer_ids();                              // "sgd, sgd_momentum, ..." for messages

// One trainable tensor (or `copies` identical ones), in PyTorch's shape.
struct ParamTensor {
  std::vector<int64_t> dims;
  int64_t copies = 1;
  int64_t elements() const;  // of one copy
};

struct OptimizerState {
  int64_t moment_bytes = 0;   // full-size states: momentum, Adam's m and v, Lion's m
  int64_t factored_bytes = 0; // Adafactor's row and column second-moment vectors
  int64_t quantized_bytes = 0;// 8-bit Adam: uint8 states and their fp32 block maxima
  int64_t step_bytes = 0;     // torch.optim Adam/AdamW: one fp32 0-dim `step` tensor per parameter,
                              // counted only where it lives with the parameters (see below)
  int64_t tensors = 0;
  int64_t total() const { return moment_bytes + factored_bytes + quantized_bytes + step_bytes; }
  std::string formula;        // numbers substituted
};

// state_element_bytes: the dtype the states take (4 for fp32 states; pure bf16 training
// keeps torch.optim states in bf16 = 2). 8-bit Adam and Adafactor keep fp32 regardless.
// steps_with_parameters: torch.optim.Adam(W) makes each `step` on the parameter's device only
// when fused=True or capturable=True; otherwise it is a CPU tensor (torch/optim/adam.py,
// Adam._init_group: torch.tensor(0.0, dtype=_get_scalar_dtype())), so GPU memory does not
// hold it. True for training on the CPU, or a fused/capturable optimizer.
OptimizerState optimizer_state(Optimizer optimizer, const std::vector<ParamTensor>& tensors,
                               int64_t state_element_bytes, bool steps_with_parameters);

// bitsandbytes 8-bit optimizers keep 32-bit state for tensors below this many elements
// (min_8bit_size) and quantize block-wise with one fp32 maximum per 2048 elements.
constexpr int64_t kBnb8bitMinElements = 4096;
constexpr int64_t kBnb8bitBlock = 2048;

}  // namespace vramfit
