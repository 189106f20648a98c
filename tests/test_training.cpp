// Transformer training: precision recipes, optimizers, ZeRO/FSDP, LoRA/QLoRA, activations
// (Korthikanti et al. 2022) and logits, each with hand-checked bytes.
#include "helpers.hpp"

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

namespace {

// A tiny Llama-style model whose every tensor is easy to count by hand:
// embed [100, 64]; per layer q, k, v, o [64, 64], gate, up [128, 64], down [64, 128], two norms [64];
// final norm [64]; lm_head [100, 64]. 53,952 parameters in 12 tensors.
json tiny_config() {
  return {{"model_type", "llama"}, {"num_hidden_layers", 1}, {"hidden_size", 64}, {"num_attention_heads", 4},
          {"num_key_value_heads", 4}, {"intermediate_size", 128}, {"vocab_size", 100}, {"tie_word_embeddings", false}};
}
constexpr int64_t kTinyParams = 53952;

// The ZeRO paper's example model: Psi = 7.5 B parameters (only the count matters for the states).
json zero_paper_config() {
  return {{"model_type", "parameters_only"}, {"parameters", 7500000000}, {"num_hidden_layers", 32},
          {"hidden_size", 4096}, {"num_attention_heads", 32}, {"num_key_value_heads", 32},
          {"intermediate_size", 11008}, {"vocab_size", 32000}};
}

// Llama-2-7B's architecture (PEFT's README example).
json llama2_7b_config() {
  return {{"model_type", "llama"}, {"num_hidden_layers", 32}, {"hidden_size", 4096}, {"num_attention_heads", 32},
          {"num_key_value_heads", 32}, {"intermediate_size", 11008}, {"vocab_size", 32000}};
}

// A GPT-style layer as Korthikanti et al. assume: MHA, 4h GELU MLP, LayerNorm, dropout.
json gpt_config() {
  return {{"model_type", "gpt_neox"}, {"num_hidden_layers", 2}, {"hidden_size", 512}, {"num_attention_heads", 8},
          {"intermediate_size", 2048}, {"vocab_size", 1000}};
}

json train_request(const json& config, json training, int64_t gpus = 1) {
  training["margin_fraction"] = training.value("margin_fraction", 0.0);
  training["runtime_bytes"] = training.value("runtime_bytes", 0);
  return {{"mode", "training"}, {"model", {{"config", config}}}, {"training", training},
          {"gpu", {{"id", "h100-80"}}}, {"gpu_count", gpus}};
}

TrainingMemory train(const json& config, const json& training, int64_t gpus = 1) {
  return estimate_ok(train_request(config, training, gpus)).training;
}

}  // namespace

TEST_CASE("precision recipes: bytes per parameter for weights, gradients, master copy", "[training]") {
  const int64_t P = kTinyParams;
  struct Case { const char* recipe; int64_t weight, gradient, master, optimizer; };
  const Case cases[] = {
      {"fp32", 4, 4, 0, 8},        // everything fp32
      {"amp_bf16", 4, 4, 0, 8},    // autocast: fp32 weights and grads (+ 16-bit copies, below)
      {"amp_fp16", 4, 4, 0, 8},
      {"mixed_fp16", 2, 2, 4, 8},  // ZeRO paper: 2 + 2 + 12 = 16 B
      {"mixed_bf16", 2, 4, 4, 8},  // Megatron bf16: fp32 gradient accumulation
      {"bf16", 2, 2, 0, 4},        // pure bf16: states in bf16 too
  };
  for (const Case& c : cases) {
    INFO(c.recipe);
    const TrainingMemory m = train(tiny_config(), {{"recipe", c.recipe}, {"optimizer", "adam"}});
    CHECK(m.parameters == P);
    CHECK(m.trainable_tensors == 12);
    CHECK(m.weights == c.weight * P);
    CHECK(m.gradients == c.gradient * P);
    CHECK(m.master == c.master * P);
    CHECK(m.optimizer == c.optimizer * P);  // Adam's fp32 step per tensor stays on the CPU (not fused)
  }
  // Autocast caches 16-bit copies of every matmul weight (all but the norms; the embedding
  // lookup is not autocast): 4 x 4,096 + 3 x 8,192 + lm_head 6,400.
  CHECK(train(tiny_config(), {{"recipe", "amp_bf16"}}).autocast_copies == 2 * (4 * 4096 + 3 * 8192 + 6400));
  CHECK(train(tiny_config(), {{"recipe", "amp_fp16"}}).autocast_copies == 2 * (4 * 4096 + 3 * 8192 + 6400));
  CHECK(train(tiny_config(), {{"recipe", "fp32"}}).autocast_copies == 0);
  // Activation bytes follow the recipe: 4 B in fp32, 2 B otherwise (Q and K: 2 x 64 wide).
  CHECK(train(tiny_config(), {{"recipe", "fp32"}, {"sequence_length", 8}}).layer.query_key == 4 * 8 * 128);
  CHECK(train(tiny_config(), {{"recipe", "amp_fp16"}, {"sequence_length", 8}}).layer.query_key == 2 * 8 * 128);
}

TEST_CASE("every optimizer's state on the tiny model, by hand", "[training]") {
  auto state = [](const char* optimizer) {
    return train(tiny_config(), {{"recipe", "fp32"}, {"optimizer", optimizer}}).optimizer;
  };
  CHECK(state("sgd") == 0);
  CHECK(state("sgd_momentum") == kTinyParams * 4);
  CHECK(state("lion") == kTinyParams * 4);
  CHECK(state("adam") == 2 * kTinyParams * 4);  // the 12 step tensors stay on the CPU
  CHECK(state("adamw") == 2 * kTinyParams * 4);
  CHECK(train(tiny_config(), {{"recipe", "fp32"}, {"optimizer", "adamw"}, {"fused_optimizer", true}}).optimizer ==
        2 * kTinyParams * 4 + 12 * 4);  // fused: one fp32 step per tensor on the GPU
  // 8-bit Adam: tensors of >= 4,096 elements (embed, lm_head 6,400; q, k, v, o 4,096; MLP 8,192)
  // keep uint8 m and v plus an fp32 absmax per 2,048-element block (4 + 4 + 4 x 2 + 3 x 4 = 28
  // blocks); the three 64-element norms keep 32-bit states.
  CHECK(state("adam_8bit") == 2 * 53760 + 2 * 28 * 4 + 2 * 192 * 4);
  // Adafactor: rows + columns per matrix (embed 164, q/k/v/o 4 x 128, gate/up 2 x 192, down 192,
  // lm_head 164), the norms in full (192), fp32.
  CHECK(state("adafactor") == (164 + 512 + 384 + 192 + 164 + 192) * 4);
}

TEST_CASE("foreach Adam holds one more state-sized temporary", "[training]") {
  const TrainingMemory m = train(tiny_config(), {{"recipe", "fp32"}, {"optimizer", "adamw"}, {"foreach_transient", true}});
  CHECK(m.foreach_transient == kTinyParams * 4);
  CHECK(train(tiny_config(), {{"optimizer", "sgd"}, {"foreach_transient", true}}).foreach_transient == 0);
}

TEST_CASE("ZeRO stages 1-3 reproduce the ZeRO paper's 7.5 B model on 64 GPUs", "[training]") {
  // Rajbhandari et al. 2020, figure 1: Psi = 7.5 B, N_d = 64, K = 12 (mixed precision Adam):
  // baseline 120 GB, P_os 31.4 GB, P_os+g 16.6 GB, P_os+g+p 1.9 GB per GPU.
  const json recipe = {{"recipe", "mixed_fp16"}, {"optimizer", "adam"}};
  auto model_states = [&](const char* sharding) {
    json t = recipe;
    t["sharding"] = sharding;
    const TrainingMemory m = train(zero_paper_config(), t, 64);
    return m.weights + m.gradients + m.master + m.optimizer;
  };
  // Exactly the paper's figures: Adam's step tensors are CPU tensors (torch.optim, not fused).
  CHECK(model_states("none") == 120000000000);
  CHECK(model_states("zero1") == 30000000000 + 468750000 + 937500000);  // 31.4 GB
  CHECK(model_states("zero2") == 15000000000 + 234375000 + 468750000 + 937500000);  // 16.6 GB
  CHECK(model_states("zero3") == 234375000 + 234375000 + 468750000 + 937500000);  // 1.9 GB
  CHECK(model_states("fsdp") == model_states("zero3"));
  json t = recipe;
  t["sharding"] = "zero3";
  const TrainingMemory z3 = train(zero_paper_config(), t, 64);
  CHECK(z3.gathered == 2 * (15000000000 / 32));  // two whole layers while computing
  t["sharding"] = "zero2";
  CHECK(train(zero_paper_config(), t, 64).gathered == 0);
}

TEST_CASE("LoRA: PEFT's trainable counts, fp32 adapters, frozen bf16 base", "[training]") {
  // PEFT README: Llama-2-7b, r = 8 on q_proj and v_proj: 4,194,304 trainable parameters.
  json lora = {{"method", "lora"}, {"lora", {{"rank", 8}, {"targets", {"q", "v"}}}}};
  const TrainingMemory m = train(llama2_7b_config(), lora);
  CHECK(m.trainable_parameters == 4194304);
  CHECK(m.parameters == 6738415616);  // PEFT prints all params 6,742,609,920 = base + adapters
  CHECK(m.trainable_tensors == 2 * 2 * 32);
  CHECK(m.frozen_weights == 6738415616LL * 2);  // the mixed_bf16 recipe's 16-bit base
  CHECK(m.weights == 4194304 * 4);
  CHECK(m.gradients == 4194304 * 4);
  CHECK(m.master == 0);
  CHECK(m.optimizer == 2 * 4194304 * 4);  // the 128 step tensors stay on the CPU
  // Llama-3.1-8B, r = 16 on all seven projections: 41,943,040 (as PEFT reports).
  const Report r = estimate_ok({{"mode", "training"}, {"model", {{"preset", "llama-3.1-8b"}}},
                                {"training", {{"method", "lora"}}}});
  CHECK(r.training.trainable_parameters == 41943040);
  // On the tiny model: r x (in + out) per module: q,k,v,o 4 x 16 x 128, gate/up 2 x 16 x 192, down 16 x 192.
  CHECK(train(tiny_config(), {{"method", "lora"}}).trainable_parameters == 16 * (4 * 128 + 3 * 192));
  // Targets that match nothing are an error, not a silent zero.
  const Error e = estimate_error(train_request(zero_paper_config(), {{"method", "lora"}}));
  CHECK(e.field == "training.method");
}

TEST_CASE("QLoRA: NF4 layer weights (double quant), fp32 upcasts, fp32 adapters", "[training]") {
  const TrainingMemory q = train(tiny_config(), {{"method", "qlora"}});
  // NF4 + double quant per tensor of n elements: n/2 + n/64 (int8 absmax) + 4 per 256 blocks
  // + 1,092 B of codes; 4,096 -> 3,208 B, 8,192 -> 5,320 B.
  const int64_t quantized = 4 * 3208 + 3 * 5320;
  // prepare_model_for_kbit_training upcasts embed, lm_head and the norms to fp32.
  const int64_t upcast = (6400 + 6400 + 192) * 4;
  CHECK(q.frozen_weights == quantized + upcast);
  const TrainingMemory plain = train(tiny_config(), {{"method", "qlora"}, {"lora", {{"double_quant", false}}}});
  // Without double quantization: fp32 absmax per 64 elements + the 64 B code: 4,096 -> 2,368, 8,192 -> 4,672.
  CHECK(plain.frozen_weights == 4 * 2368 + 3 * 4672 + upcast);
  CHECK(q.gradients == q.trainable_parameters * 4);
}

TEST_CASE("activations: Korthikanti's sbh(34 + 5as/h), flash attention, recomputation", "[training]") {
  const int64_t s = 256, b = 2, h = 512, a = 8, L = 2;
  json t = {{"recipe", "mixed_fp16"}, {"micro_batch", b}, {"sequence_length", s}, {"flash_attention", false},
            {"dropout", true}};
  const TrainingMemory m = train(gpt_config(), t);
  CHECK(m.layer.total() == s * b * h * 34 + 5 * a * s * s * b);
  CHECK(m.activations == L * (s * b * h * 34 + 5 * a * s * s * b));
  // Flash attention: the s^2 terms go, a 4-byte log-sum-exp per head and row comes.
  t["flash_attention"] = true;
  CHECK(train(gpt_config(), t).layer.total() == s * b * h * 34 + 4 * a * s * b);
  // Selective recomputation (Korthikanti section 5): 34 sbh.
  t["flash_attention"] = false;
  t["recompute"] = "selective";
  CHECK(train(gpt_config(), t).layer.total() == s * b * h * 34);
  // Full recomputation: 2 sbh per layer kept, one layer rebuilt at a time during backward.
  t["recompute"] = "full";
  const TrainingMemory full = train(gpt_config(), t);
  CHECK(full.activations == L * 2 * s * b * h);
  CHECK(full.recompute_working == s * b * h * 34 + 5 * a * s * s * b);
}

TEST_CASE("activations are GQA-aware and gated-MLP-aware (Llama 3.1 8B)", "[training]") {
  const Report r = estimate_ok({{"mode", "training"}, {"model", {{"preset", "llama-3.1-8b"}}},
                                {"training", {{"micro_batch", 1}, {"sequence_length", 2048}}}});
  const LayerActivations& l = r.training.layer;
  const int64_t sb = 2048;
  CHECK(l.query_key == 2 * sb * (4096 + 1024));  // 8 KV heads x 128
  CHECK(l.value == 2 * sb * 1024);
  CHECK(l.mlp == 2 * sb * (4096 + 4 * 14336));
  CHECK(l.softmax == 0);                          // flash attention by default
  // Logits: final norm and lm_head inputs (bf16) + fp32 logits + fp32 log-softmax.
  CHECK(r.training.logits == 2 * 2 * sb * 4096 + 8 * sb * 128256);
  // Gradient accumulation adds nothing; the report says so.
  bool said = false;
  for (const std::string& text : r.breakdown.assumptions) said = said || text.find("Gradient accumulation") == 0;
  CHECK(said);
}

TEST_CASE("training fit: largest micro-batch, longest sequence, fewest ZeRO-3 GPUs", "[training]") {
  json req = {{"mode", "training"}, {"model", {{"preset", "llama-3.1-8b"}}}, {"gpu", {{"id", "h100-80"}}},
              {"training", {{"sharding", "zero3"}}}, {"gpu_count", 8}};
  const Report r = estimate_ok(req);
  CHECK(r.training_fit.fits);
  CHECK(r.training_fit.min_gpus >= 2);
  // The answers are exact edges: one more does not fit.
  auto total = [&](int64_t batch, int64_t seq, int64_t gpus) {
    json q = req;
    q["training"]["micro_batch"] = batch;
    q["training"]["sequence_length"] = seq;
    q["gpu_count"] = gpus;
    return estimate_ok(q).training.total;
  };
  const int64_t cap = r.training_fit.capacity_bytes;
  CHECK(total(r.training_fit.max_batch, 2048, 8) <= cap);
  CHECK(total(r.training_fit.max_batch + 1, 2048, 8) > cap);
  CHECK(total(1, r.training_fit.max_sequence_length, 8) <= cap);
  CHECK(total(1, r.training_fit.max_sequence_length + 1, 8) > cap);
  CHECK(total(1, 2048, r.training_fit.min_gpus) <= cap);
  CHECK(total(1, 2048, r.training_fit.min_gpus - 1) > cap);
  // Without sharding, 8 B full fine-tuning in mixed precision does not fit one 80 GB GPU.
  const Report none = estimate_ok({{"mode", "training"}, {"model", {{"preset", "llama-3.1-8b"}}}, {"gpu", {{"id", "h100-80"}}}});
  CHECK_FALSE(none.training_fit.fits);
  CHECK(none.training_fit.min_gpus == 0);
}

TEST_CASE("training requests round-trip through JSON and the URL hash", "[training][request]") {
  json req = {{"mode", "training"}, {"model", {{"preset", "qwen2.5-7b"}}},
              {"training", {{"recipe", "bf16"}, {"optimizer", "lion"}, {"method", "qlora"},
                            {"lora", {{"rank", 64}, {"targets", {"q", "v", "down"}}, {"double_quant", false}}},
                            {"micro_batch", 4}, {"sequence_length", 4096}, {"recompute", "full"}, {"sharding", "zero2"}}},
              {"gpu_count", 4}};
  auto first = request_from_json(req);
  REQUIRE(first);
  auto second = request_from_json(request_to_json(*first));
  REQUIRE(second);
  CHECK(request_to_json(*second) == request_to_json(*first));
  CHECK(second->training.lora_targets == (lora_q | lora_v | lora_down));
  CHECK(report_to_json(estimate_ok(request_to_json(*second))) == report_to_json(estimate_ok(req)));
}
