#include "torchtune.hpp"

#include <algorithm>
#include <vector>

#include "units.hpp"

namespace vramfit {

namespace {

// The decoder's linear layers (torchtune's q/k/v/output_proj and w1/w2/w3): what QLoRA stores in
// NF4 (FrozenNF4Linear and LoRALinear with quantize_base, models/llama3/_component_builders.py);
// the embedding, the norms and the final output projection stay in bf16 ("quantize_base is not
// applied to final output_proj").
bool decoder_linear(TensorRole role) {
  switch (role) {
    case TensorRole::token_embd: case TensorRole::output: case TensorRole::vector: case TensorRole::position_embd:
    case TensorRole::router: case TensorRole::vision:
      return false;
    default:
      return true;
  }
}

// torchao's NF4Tensor (to_nf4: block_size 64, scaler_block_size 256): 4 bits a weight, one int8
// scaler per 64 weights, one fp32 factor per 256 scalers.
int64_t nf4_bytes(int64_t elements) {
  return sat_add(sat_add(ceil_div(elements, 2), ceil_div(elements, 64)), sat_mul(4, ceil_div(elements, 64 * 256)));
}

// The adapters LoRALinear adds to a module (lora_a: in x rank, lora_b: rank x out).
bool adapted(const TorchtuneSettings& s, TensorRole role) {
  switch (role) {
    case TensorRole::attn_q: return s.lora_q;
    case TensorRole::attn_k: return s.lora_k;
    case TensorRole::attn_v: return s.lora_v;
    case TensorRole::attn_output: return s.lora_output_proj;
    case TensorRole::ffn_gate: case TensorRole::ffn_up: case TensorRole::ffn_down: return s.apply_lora_to_mlp;
    case TensorRole::output: return s.apply_lora_to_output;
    default: return false;
  }
}

// Bytes of optimizer state per trainable parameter, and whether PyTorch's allocator holds them.
struct StateBytes {
  double per_parameter;
  bool paged;
};
StateBytes state_bytes(TorchtuneOptimizer o, int64_t param_bytes) {
  switch (o) {
    case TorchtuneOptimizer::adamw: return {2.0 * static_cast<double>(param_bytes), false};  // exp_avg, exp_avg_sq like the parameter
    case TorchtuneOptimizer::paged_adamw: return {8.0, true};                                  // two fp32 states, paged
    case TorchtuneOptimizer::paged_adamw_8bit: return {2.0 + 8.0 / 2048.0, true};             // two uint8 states + fp32 block maxima
    case TorchtuneOptimizer::adamw_8bit: return {2.0 + 8.0 / 2048.0, false};
    case TorchtuneOptimizer::torchao_adamw_8bit: return {2.0 + 8.0 / 256.0, false};           // two int8 states + fp32 scale per 256
  }
  return {8.0, false};
}

}  // namespace

Result<TorchtuneMemory> torchtune_memory(const FormatTables& tables, const ModelSpec& model, const TorchtuneSettings& s) {
  if (s.batch_size < 1 || s.max_seq_len < 1 || s.num_output_chunks < 1 || s.lora_rank < 1) {
    return make_error("torchtune.bad_value", "batch_size", "batch_size, tokenizer.max_seq_len, loss.num_output_chunks and model.lora_rank must be positive");
  }
  TorchtuneMemory m;
  const int64_t pb = s.bf16 ? 2 : 4;
  const bool adapters = s.method != FineTuning::full;
  int64_t largest_linear = 0, output_elements = 0;
  // FSDP2's units: each decoder layer, the custom-sharded embedding and output, and the root
  // (what no other unit holds), in stored bytes; their trainable parameters.
  std::vector<int64_t> layer_bytes(static_cast<size_t>(std::max<int64_t>(1, model.layers)), 0);
  std::vector<int64_t> layer_trainable(layer_bytes.size(), 0);
  int64_t root_bytes = 0, output_unit = 0;
  for (const TensorShape& t : enumerate_tensors(model)) {
    const int64_t n = t.elements();
    m.parameters = sat_add(m.parameters, n);
    m.largest_parameter = std::max(m.largest_parameter, n);
    if (t.role == TensorRole::output || (t.role == TensorRole::token_embd && model.tied_embeddings)) output_elements = n;
    if (decoder_linear(t.role)) largest_linear = std::max(largest_linear, t.row_length * t.rows);
    const bool nf4 = s.method == FineTuning::qlora && decoder_linear(t.role);
    if (nf4) m.nf4_elements = sat_add(m.nf4_elements, n);
    else m.weights = sat_add(m.weights, sat_mul(n, pb));
    const int64_t stored = nf4 ? nf4_bytes(n) : sat_mul(n, pb);
    const int64_t lora = adapters && adapted(s, t.role) ? sat_mul(s.lora_rank, t.row_length + t.rows, t.copies) : 0;
    m.adapters = sat_add(m.adapters, lora);
    if (t.layer >= 0 && t.layer < static_cast<int64_t>(layer_bytes.size())) {
      layer_bytes[static_cast<size_t>(t.layer)] = sat_add(layer_bytes[static_cast<size_t>(t.layer)], sat_add(stored, sat_mul(lora, pb)));
      layer_trainable[static_cast<size_t>(t.layer)] = sat_add(layer_trainable[static_cast<size_t>(t.layer)], adapters ? lora : n);
    } else if (t.role == TensorRole::token_embd && s.shard_tok_embeddings && !model.tied_embeddings) {
      // its own unit, gathered before the first layer and freed after it: never at the peak
    } else if (t.role == TensorRole::output && s.shard_output) {
      output_unit = stored;
    } else {
      root_bytes = sat_add(root_bytes, stored);
    }
  }
  m.weights = sat_add(m.weights, nf4_bytes(m.nf4_elements));
  m.trainable_parameters = adapters ? m.adapters : m.parameters;
  const int64_t adapter_bytes = sat_mul(m.adapters, pb);
  const StateBytes states = state_bytes(s.optimizer, pb);
  const int64_t state_total = static_cast<int64_t>(static_cast<double>(m.trainable_parameters) * states.per_parameter);
  (states.paged ? m.optimizer_paged : m.optimizer) = state_total;

  // Activations as the Trainer-independent autograd rule gives them (core/training): layer inputs
  // only with checkpointing (torchtune wraps each TransformerSelfAttentionLayer), flash attention
  // (SDPA), in the dtype.
  TrainingSettings t;
  t.recipe = s.bf16 ? PrecisionRecipe::bf16 : PrecisionRecipe::fp32;
  t.micro_batch = s.batch_size;
  t.sequence_length = s.max_seq_len;
  t.flash_attention = true;
  t.recompute = s.enable_activation_checkpointing ? Recompute::full : Recompute::none;
  auto trained = training_memory(tables, model, t);
  if (!trained) return trained.error();
  m.activations = trained->activations;
  m.recompute_working = trained->recompute_working;
  // Without compile, torchtune's RMSNorm (modules/rms_norm.py: F.rms_norm(x.float(), ...)) keeps
  // fp32 tensors for backward: the upcast input and the normalized values before the scale (4 B
  // each an element, where the rule above counts the norm's 16-bit input): 6 B more an element
  // in bf16, 4 B in fp32, for the two norms of each layer and the final one. Compiled, the
  // fused norm keeps what the rule counts.
  if (!s.compile) {
    const int64_t per_norm = sat_mul(s.bf16 ? 6 : 4, s.batch_size, s.max_seq_len, model.hidden_size);
    if (s.enable_activation_checkpointing) m.recompute_working = sat_add(m.recompute_working, sat_mul(2, per_norm));
    else m.activations = sat_add(m.activations, sat_mul(sat_add(sat_mul(2, model.layers), 1), per_norm));
  }
  // Activation offloading (training/_activation_offloading.py, OffloadActivations): the saved
  // tensors go to CPU memory as they are made and come back for backward; two layers' worth are
  // on the GPU at a time (one being copied out, one coming back).
  const int64_t per_layer = ceil_div(m.activations, std::max<int64_t>(1, model.layers));
  m.offload_kept = s.enable_activation_offloading ? std::min(m.activations, sat_mul(2, per_layer)) : m.activations;

  // The loss over B x S x V logits.
  const int64_t logits = sat_mul(s.batch_size, s.max_seq_len, model.vocab_size);
  const int64_t chunk = ceil_div(logits, s.num_output_chunks);
  switch (s.loss) {
    case TorchtuneLoss::chunked_ce:
      // bf16 logits of every chunk; eager: F.cross_entropy(logits.float()) saves each chunk's fp32
      // log-softmax and makes one chunk's fp32 copy at a time; compiled (compute_cross_entropy),
      // the fused kernel saves no fp32 copy.
      m.loss_forward = s.compile ? sat_mul(logits, pb) : sat_add(sat_mul(logits, pb + 4), sat_mul(chunk, 4));
      break;
    case TorchtuneLoss::linear_ce:
      // LinearCrossEntropyLoss: each chunk projected, upcast and its CE computed in turn: the fp32
      // log-softmax of every chunk saved (eager), or the chunk's 16-bit logits (compiled).
      m.loss_forward = s.compile ? sat_mul(logits, pb) : sat_add(sat_mul(logits, 4), sat_mul(chunk, pb + 4));
      break;
    case TorchtuneLoss::ce:
      // The whole output in the dtype, its fp32 copy and the saved fp32 log-softmax.
      m.loss_forward = sat_mul(logits, pb + 4 + 4);
      break;
  }
  // Backward through the loss: the logits' gradient in the dtype (every chunk's before the output
  // projection's backward), and the output layer's weight gradient when it trains.
  const bool output_trains = s.method == FineTuning::full;
  m.loss_backward = sat_add(sat_mul(logits, pb), output_trains ? sat_mul(output_elements, pb) : 0);
  // The layers' backward: at its start every saved activation is alive and a layer is
  // recomputed; gradients accumulate as the activations are freed, all of them at its end
  // unless optimizer_in_bwd steps and frees each parameter's as soon as it is complete. QLoRA
  // dequantizes one NF4 weight to the dtype for each matmul.
  const int64_t trainable_grads = sat_mul(m.trainable_parameters, pb);
  const int64_t dequantized = s.method == FineTuning::qlora ? sat_mul(largest_linear, pb) : 0;
  const int64_t in_bwd_grad = s.optimizer_in_bwd ? sat_mul(adapters ? 0 : m.largest_parameter, pb) : 0;
  const int64_t at_start = sat_add(m.offload_kept, m.recompute_working);
  const int64_t at_end = s.optimizer_in_bwd ? sat_add(per_layer, m.recompute_working)
                                            : sat_add(sat_add(trainable_grads, per_layer), m.recompute_working);
  m.layers_backward = sat_add(sat_add(std::max(at_start, at_end), in_bwd_grad), dequantized);
  int64_t fixed = sat_add(sat_add(m.weights, adapter_bytes), m.optimizer);
  int64_t loss_units = 0;  // distributed: the units gathered while the loss runs
  if (s.distributed && s.shard_ranks() > 1) {
    // FSDP2 (torch.distributed._composable.fsdp): every parameter, gradient and optimizer state
    // sharded over the GPUs (on the CPU with fsdp_cpu_offload); the root unit is not resharded
    // after forward, so it stays gathered through the step; each layer is all-gathered before it
    // runs, with the next one prefetched (two unsharded layers); its unsharded gradient exists
    // until reduce-scattered into the shard. With HSDP the shards are over data_parallel_shard_dim
    // GPUs, each group holding a whole copy.
    const int64_t N = s.shard_ranks();
    const int64_t sharded = ceil_div(fixed, N);
    const int64_t grads_sharded = ceil_div(trainable_grads, N);
    m.host_bytes = s.fsdp_cpu_offload ? sat_add(sharded, grads_sharded) : 0;
    const int64_t largest_layer = *std::max_element(layer_bytes.begin(), layer_bytes.end());
    const int64_t largest_layer_grad = sat_mul(*std::max_element(layer_trainable.begin(), layer_trainable.end()), pb);
    m.gathered = sat_add(root_bytes, sat_mul(2, largest_layer));
    loss_units = output_unit;
    fixed = sat_add(s.fsdp_cpu_offload ? 0 : sharded, m.gathered);
    const int64_t kept_grads = s.fsdp_cpu_offload ? 0 : grads_sharded;
    m.layers_backward = sat_add(sat_add(std::max(at_start, sat_add(sat_add(kept_grads, per_layer), m.recompute_working)), largest_layer_grad),
                                dequantized);
  }
  const int64_t forward_end = sat_add(sat_add(m.offload_kept, m.loss_forward), loss_units);
  const int64_t loss_back = sat_add(sat_add(m.offload_kept, m.loss_backward), loss_units);
  m.peak = sat_add(fixed, std::max({forward_end, loss_back, m.layers_backward}));
  return m;
}

}  // namespace vramfit
