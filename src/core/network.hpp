// Any network given layer by layer (the articles' MLP, a CNN, a transformer block): shapes
// inferred layer by layer, parameters counted, and the training memory P + G + O + A with
// the activations under one of two rules:
//   layer_outputs - the articles' rule: every layer that makes a new tensor keeps its output
//                   once; element-wise activations, softmax and dropout count as in place
//                   (article 003 counts relu(gat(x)) once), flatten is a view.
//   autograd      - what PyTorch's autograd really saves for backward (derivatives.yaml),
//                   each storage counted once; checked byte for byte against PyTorch in
//                   tests/fixtures/autograd (validation/measure_autograd.py).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "breakdown.hpp"
#include "optimizer.hpp"
#include "result.hpp"
#include "units.hpp"

namespace vramfit {

enum class ElementType { f64, f32, f16, bf16, i64 };
int64_t element_bytes(ElementType type);
const char* element_type_id(ElementType type);  // "f32"
bool parse_element_type(const std::string& id, ElementType& type);

// "[128, 4096]": a shape as the layer table and the error messages write it.
std::string shape_text(const std::vector<int64_t>& shape);

enum class LayerType {
  linear, conv2d, batchnorm2d, layernorm, embedding,
  relu, gelu, silu, sigmoid, tanh, softmax, dropout,
  maxpool2d, avgpool2d, flatten, add, self_attention,
};
const char* layer_type_id(LayerType type);  // "linear"
bool parse_layer_type(const std::string& id, LayerType& type);

struct Layer {
  LayerType type = LayerType::linear;
  std::string name;        // optional; "add" layers refer to earlier layers by name
  int64_t in = 0;          // linear: expected input features (0 = take from the shape)
  int64_t out = 0;         // linear: out features; conv2d: out channels
  bool bias = true;        // linear, conv2d (PyTorch's default)
  int64_t kernel = 0, stride = 0, padding = 0;  // conv2d, pools (stride 0 = default)
  int64_t vocab = 0, dim = 0;                   // embedding
  double p = 0.1;          // dropout probability
  std::string from;        // add: the layer whose output is added ("input" = the network input)
  int64_t heads = 0;       // self_attention
};

struct Network {
  std::string name;
  std::vector<int64_t> input;           // one sample's shape, without the batch
  ElementType input_dtype = ElementType::f32;  // i64 for token ids into an embedding
  ElementType dtype = ElementType::f32;  // parameters, gradients and activations
  std::vector<Layer> layers;
};

enum class ActivationRule { layer_outputs, autograd };
// Where autograd runs: dropout keeps a bool mask on CUDA but an input-sized float mask on
// the CPU; LayerNorm/BatchNorm statistics are fp32 on CUDA for 16-bit inputs, input dtype on
// the CPU; a Python-float divisor is a CPU scalar (not GPU memory) on CUDA.
enum class AutogradDevice { cuda, cpu };

struct NetworkSettings {
  int64_t batch = 1;
  ActivationRule rule = ActivationRule::autograd;
  AutogradDevice device = AutogradDevice::cuda;
  Optimizer optimizer = Optimizer::adamw;
  bool fused_optimizer = false;  // torch.optim fused=True or capturable=True: Adam's step tensors on the GPU
  double margin_fraction = 0.10;
};

// Limits: no byte count can overflow int64 within them.
constexpr int64_t kMaxNetworkLayers = 4096;
constexpr int64_t kMaxNetworkBatch = int64_t(1) << 20;
constexpr int64_t kMaxSampleElements = int64_t(1) << 32;  // per layer output, one sample

struct LayerRow {
  std::string name;                  // the layer's name, or "<type> <index>"
  std::string type;
  std::vector<int64_t> output_shape; // with the batch first
  int64_t parameters = 0;
  int64_t activation_bytes = 0;      // under the chosen rule, first layer that keeps a tensor
  std::string keeps;                 // what the rule keeps for this layer, in words
};

struct NetworkMemory {
  std::vector<LayerRow> layers;
  std::vector<ParamTensor> param_tensors;
  int64_t parameters = 0;
  int64_t parameter_bytes = 0;     // P
  int64_t buffer_bytes = 0;        // BatchNorm running statistics (not trained)
  int64_t gradient_bytes = 0;      // G
  OptimizerState optimizer;        // O
  int64_t activation_bytes = 0;    // A
  int64_t activation_elements = 0; // layer_outputs rule: the elements A counts
  int64_t input_bytes = 0;         // layer_outputs rule: the input batch, apart (autograd counts it in A if saved)
  int64_t subtotal = 0;
  int64_t margin = 0;
  int64_t total = 0;
};

// Shape inference and memory. Errors name the layer (index and name) and both shapes.
Result<NetworkMemory> network_memory(const Network& network, const NetworkSettings& settings);

Breakdown explain_network(const Network& network, const NetworkSettings& settings, const NetworkMemory& memory);

}  // namespace vramfit
