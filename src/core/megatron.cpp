#include "megatron.hpp"

#include <algorithm>

namespace vramfit {

namespace {

// The estimator's parameter counts (compute_weight_and_optimizer_memory), from the model's
// shape as Megatron's flags give it: --num-layers, --hidden-size, --ffn-hidden-size,
// --num-attention-heads, --kv-channels, --num-query-groups, --swiglu, --normalization,
// --untie-embeddings-and-output-weights, --num-experts, --moe-ffn-hidden-size,
// --moe-router-topk, --moe-shared-expert-intermediate-size, --moe-layer-freq, MLA's ranks.
// Bias-free linear layers (--disable-bias-linear, as Megatron's Llama and Mixtral examples).
struct MegatronParameters {
  double embedding = 0;           // hidden x padded vocabulary (one table)
  double tp_sharded_block = 0;    // attention and dense MLPs of every layer
  double replicated_block = 0;    // norms, routers (and the final norm)
  double expert_sharded_block = 0;
  double tp_sharded_mtp = 0, replicated_mtp = 0, expert_sharded_mtp = 0;
};

MegatronParameters count_parameters_as_megatron(const ModelSpec& m, int64_t padded_vocab) {
  const double h = static_cast<double>(m.hidden_size);
  const double heads = static_cast<double>(m.attention_heads);
  const double kv_channels = static_cast<double>(m.head_dim > 0 ? m.head_dim : m.hidden_size / m.attention_heads);
  const double groups = static_cast<double>(m.kv_heads > 0 ? m.kv_heads : m.attention_heads);
  const double gated = m.mlp == MlpKind::gated ? 1.5 : 1.0;
  const double norm_size = m.norm == NormKind::rms ? 1 : 2;
  double attention = 0;
  if (m.uses_mla()) {
    const double qk = static_cast<double>(m.qk_nope_head_dim), rope = static_cast<double>(m.qk_rope_head_dim);
    const double v = static_cast<double>(m.v_head_dim), q_rank = static_cast<double>(m.q_lora_rank);
    const double kv_rank = static_cast<double>(m.kv_lora_rank);
    const double q_term = m.q_lora_rank == 0 ? h * heads * (qk + rope) : q_rank * (h + heads * (qk + rope) + norm_size);
    attention = q_term + kv_rank * (h + heads * (qk + v) + norm_size) + h * rope + heads * v * h;
  } else {
    attention = 2 * h * h * ((1 + groups / heads) * (kv_channels * heads / h));
  }
  const double dense_mlp = 2 * h * static_cast<double>(m.intermediate_size) * gated;
  const double shared_ffn = static_cast<double>(m.shared_experts * m.shared_expert_intermediate_size);
  const double shared_expert = 2 * h * shared_ffn * gated;
  const double experts = static_cast<double>(std::max<int64_t>(m.experts, 1));
  const double routed = m.is_moe() ? 2 * h * static_cast<double>(m.moe_intermediate_size) * experts * gated : 0;
  const double norms = 2 * h * norm_size;
  const double router = m.is_moe() ? h * experts : 0;
  const double shared_gate = shared_ffn > 0 && m.shared_expert_gate ? h : 0;
  int64_t moe_layers = 0;
  for (int64_t i = 0; i < m.layers; ++i) moe_layers += m.is_moe_layer(i) ? 1 : 0;
  const double moe = static_cast<double>(moe_layers), dense = static_cast<double>(m.layers - moe_layers);

  MegatronParameters p;
  p.embedding = h * static_cast<double>(padded_vocab);
  p.tp_sharded_block = (attention + dense_mlp) * dense + (attention + shared_expert) * moe;
  p.replicated_block = norms * dense + (norms + router + shared_gate) * moe + norm_size * h;
  p.expert_sharded_block = routed * moe;
  // The MTP block's layers are MoE when the model's last layer is (mtp_layer_is_moe).
  const double mtp = static_cast<double>(m.mtp_layers);
  const bool mtp_moe = m.layers > 0 && m.is_moe_layer(m.layers - 1);
  p.tp_sharded_mtp = mtp * (mtp_moe ? attention + shared_expert : attention + dense_mlp);
  p.replicated_mtp = mtp * (mtp_moe ? norms + router + shared_gate : norms);
  p.expert_sharded_mtp = mtp_moe ? mtp * routed : 0;
  return p;
}

int64_t virtual_stages(const ModelSpec& m, const MegatronSettings& s) {
  return s.num_layers_per_virtual_pipeline_stage > 0 ? m.layers / s.pipeline_model_parallel_size / s.num_layers_per_virtual_pipeline_stage
                                                     : s.virtual_pipeline_model_parallel_size;
}

std::optional<Error> check_sizes(const ModelSpec& m, const MegatronSettings& s) {
  auto fail = [](const char* field, const std::string& why) {
    return make_error("request.bad_value", std::string("training.megatron.") + field, std::string("training.megatron.") + field + ": " + why);
  };
  if (m.is_recurrent() || m.is_hybrid() || m.encoder_only || m.is_encoder_decoder() || m.cross_attention_layer_count() > 0) {
    return make_error("request.bad_value", "model",
                      "model: Megatron's estimator counts decoder-only transformers (" + m.architecture + " is not one)");
  }
  const int64_t model_size = s.tensor_model_parallel_size * s.pipeline_model_parallel_size * s.context_parallel_size;
  if (s.world_size % model_size != 0) {
    return make_error("request.bad_value", "gpu_count", "gpu_count: Megatron's world size must be a multiple of tensor x pipeline x context parallel sizes (" + std::to_string(model_size) + ")");
  }
  if (m.layers % s.pipeline_model_parallel_size != 0) {
    return fail("pipeline-model-parallel-size", "must divide the " + std::to_string(m.layers) + " layers");
  }
  if (s.num_layers_per_virtual_pipeline_stage > 0 &&
      (m.layers / s.pipeline_model_parallel_size) % s.num_layers_per_virtual_pipeline_stage != 0) {
    return fail("num-layers-per-virtual-pipeline-stage", "must divide the " + std::to_string(m.layers / s.pipeline_model_parallel_size) +
                                                           " layers of each pipeline stage");
  }
  if (m.layers % (s.pipeline_model_parallel_size * virtual_stages(m, s)) != 0) {
    return fail("num-virtual-stages-per-pipeline-rank", "pipeline x virtual stages must divide the " + std::to_string(m.layers) + " layers");
  }
  const int64_t etp = s.expert_tensor_parallel_size > 0 ? s.expert_tensor_parallel_size : s.tensor_model_parallel_size;
  if (s.world_size % (etp * s.expert_model_parallel_size * s.pipeline_model_parallel_size) != 0) {
    return fail("expert-model-parallel-size", "expert tensor x expert x pipeline parallel sizes must divide the world size (gpu_count)");
  }
  if (m.is_moe() && m.experts % s.expert_model_parallel_size != 0) {
    return fail("expert-model-parallel-size", "must divide the " + std::to_string(m.experts) + " experts");
  }
  if (!m.is_moe() && s.expert_model_parallel_size != 1) return fail("expert-model-parallel-size", "must be 1 for a dense model");
  if (s.seq_length % s.context_parallel_size != 0) return fail("context-parallel-size", "must divide seq_length");
  return std::nullopt;
}

}  // namespace

Result<MegatronMemory> megatron_memory(const ModelSpec& m, const MegatronSettings& s) {
  if (auto e = check_sizes(m, s)) return *e;
  const int64_t t = s.tensor_model_parallel_size, pp = s.pipeline_model_parallel_size, vp = virtual_stages(m, s);
  const int64_t etp = s.expert_tensor_parallel_size > 0 ? s.expert_tensor_parallel_size : t;
  MegatronMemory out;
  out.data_parallel_size = s.world_size / (t * pp * s.context_parallel_size);  // arguments.py: world_size // total_model_size
  out.expert_data_parallel_size = s.world_size / (etp * s.expert_model_parallel_size * pp);
  const int64_t per_step = s.micro_batch_size * out.data_parallel_size;
  const int64_t global = s.global_batch_size > 0 ? s.global_batch_size : per_step;
  if (global % per_step != 0) {
    return make_error("request.bad_value", "training.megatron.global-batch-size",
                      "training.megatron.global-batch-size: must be a multiple of micro_batch_size x data-parallel size (" +
                          std::to_string(per_step) + ")");
  }
  out.num_microbatches = global / per_step;
  // build_tokenizer.py vocab_size_with_padding: a multiple of make_vocab_size_divisible_by x TP.
  const int64_t multiple = s.make_vocab_size_divisible_by * t;
  out.padded_vocab_size = (m.vocab_size + multiple - 1) / multiple * multiple;
  const MegatronParameters p = count_parameters_as_megatron(m, out.padded_vocab_size);

  // bf16 parameters, fp32 main gradients, fp32 main parameters and Adam's two fp32 states:
  // 18 B a parameter; the distributed optimizer shards the 12 B of main parameters and states
  // over the data-parallel ranks (num_bytes_per_parameter). Megatron's DDP shards over the
  // data- and context-parallel group together (get_data_parallel_group(with_context_parallel=True)).
  auto bytes_per_parameter = [&](int64_t dp) { return s.use_distributed_optimizer ? 6.0 + 12.0 / static_cast<double>(dp) : 18.0; };
  const double dense_bytes = bytes_per_parameter(out.data_parallel_size * s.context_parallel_size);
  const double expert_bytes = bytes_per_parameter(out.expert_data_parallel_size);
  const double td = static_cast<double>(t), pd = static_cast<double>(pp), experts_split = static_cast<double>(etp * s.expert_model_parallel_size);

  // Activations: Table 2 of Korthikanti et al. 2022 as the estimator writes it, with the
  // sequence split over context-parallel ranks. With sequence parallelism and selective
  // recomputation everything divides by TP (compute_activation_memory); otherwise the
  // estimator's _without_sp terms, 5 % added for the optimizer's temporaries.
  const double sbh = static_cast<double>(s.seq_length / s.context_parallel_size) * static_cast<double>(s.micro_batch_size) *
                     static_cast<double>(m.hidden_size);
  const double sb = sbh / static_cast<double>(m.hidden_size);
  const double h = static_cast<double>(m.hidden_size), ffn = static_cast<double>(m.intermediate_size);
  const double vocab = static_cast<double>(out.padded_vocab_size);
  // arguments.py turns --sequence-parallel off when the tensor-parallel size is 1.
  const bool sequence_parallel = s.sequence_parallel && t > 1;
  out.sequence_parallel_formula = sequence_parallel && s.recompute_granularity == Recompute::selective;
  const bool sp = out.sequence_parallel_formula;
  double per_layer = sp ? sbh * (18 + 4 * (ffn / h)) / td : sbh * (10 + 24 / td);
  // Full recomputation keeps each layer's input only (2 s b h in bf16, split by TP under
  // sequence parallelism); the estimator has no term for it.
  if (s.recompute_granularity == Recompute::full) per_layer = 2 * sbh / (sequence_parallel ? td : 1);
  const double overhead = sp ? 1.0 : 1.05;
  const double embedding_activations = (8 * sb + sbh) / (sp ? td : 1);  // the input's ids and the embedding's dropout
  const double output_activations = sp ? sbh * 4 * (1 + vocab / h) / td : (sb * vocab / td + sbh) * 2;

  // In-flight micro-batches of pipeline rank r (schedules.py): 1F1B warms up pp - r - 1 before
  // its first backward; interleaved, (pp - r - 1) * 2 + (chunks - 1) * pp model-chunk
  // micro-batches, each of layers / (pp x chunks) layers (a whole number: checked above).
  auto in_flight = [&](int64_t r) {
    const int64_t warmup = vp > 1 ? (pp - r - 1) * 2 + (vp - 1) * pp : pp - r - 1;
    return std::min(warmup + 1, out.num_microbatches * vp);
  };
  auto stage = [&](const char* name, int64_t r) {
    MegatronRank rank;
    rank.stage = name;
    rank.pipeline_rank = r;
    rank.layers = m.layers / pp;
    rank.layers_per_chunk = rank.layers / vp;
    rank.in_flight = in_flight(r);
    const bool first = r == 0, last = r == pp - 1;
    double tp_sharded = p.tp_sharded_block / pd, replicated = p.replicated_block / pd, expert = p.expert_sharded_block / pd;
    if (first) tp_sharded += p.tp_sharded_mtp + p.embedding, replicated += p.replicated_mtp, expert += p.expert_sharded_mtp;
    // The output layer sits on the last stage: with tied embeddings the estimator counts the
    // one table (first stage); with PP > 1 the last stage holds its own copy either way.
    if (last && (pp > 1 || !m.tied_embeddings)) tp_sharded += p.embedding;
    rank.parameters = tp_sharded / td + replicated + expert / experts_split;
    rank.weight_and_optimizer = (tp_sharded / td + replicated) * dense_bytes + expert / experts_split * expert_bytes;
    const double chunks = static_cast<double>(rank.in_flight);
    double activations = per_layer * static_cast<double>(rank.layers_per_chunk) * chunks;
    if (first) activations += embedding_activations * chunks / static_cast<double>(vp);
    // The estimator's first stage: (per_layer x layers + embedding x pp) x its in-flight factor
    // (chunks x layers_per_chunk / layers), which is the sum above; it has no output term at pp > 1.
    if (last) activations += output_activations;
    rank.activations = activations * overhead;
    return rank;
  };
  if (pp == 1) {
    out.ranks.push_back(stage("all", 0));
  } else {
    out.ranks.push_back(stage("first", 0));
    if (pp > 2) out.ranks.push_back(stage("middle", 1));
    out.ranks.push_back(stage("last", pp - 1));
  }
  return out;
}

}  // namespace vramfit
