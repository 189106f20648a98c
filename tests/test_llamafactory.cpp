// LLaMA-Factory's freeze fine-tuning (issue 35, partly frozen models): which parameters train as
// _setup_freeze_tuning picks them by name, what autograd keeps under its per-layer gradient
// checkpointing, its errors, and the config read from YAML, JSON and a request. Expected counts
// are worked from the models' published shapes (Llama 2 7B: hidden 4096, MLP 11008, vocabulary
// 32000, 32 layers; Qwen3-30B-A3B: hidden 2048, 128 experts of 768), not from vramfit's
// enumeration.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/cli.hpp"
#include "cli/yaml_config.hpp"
#include "core/llamafactory.hpp"
#include "helpers.hpp"
#include "report/engine_requests.hpp"
#include "report/framework_requests.hpp"

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

namespace {

constexpr int64_t kH = 4096, kF = 11008, kSeq = 2048;
constexpr int64_t kAttention = 4 * kH * kH;         // q, k, v, o
constexpr int64_t kMlp = 3 * kH * kF;               // gate, up, down
constexpr int64_t kNorms = 2 * kH;                  // input_layernorm, post_attention_layernorm
constexpr int64_t kLayer = kAttention + kMlp + kNorms;  // 202,383,360
constexpr int64_t kAllParameters = 6738415616;      // meta-llama/Llama-2-7b-hf

LlamaFactoryMemory memory_of(const std::string& model, const LlamaFactorySettings& s) {
  auto m = llamafactory_memory(builtin_catalog().formats, preset(model).spec, s);
  if (!m) FAIL(m.error().message);
  return *m;
}

LlamaFactorySettings one_sequence() {
  LlamaFactorySettings s;
  s.per_device_train_batch_size = 1;
  s.cutoff_len = kSeq;
  return s;
}

// One Llama 2 7B layer's saved activations at 2 B with memory-efficient attention (Korthikanti et
// al. 2022 section 4.1's terms): the norms' inputs, q/k/v's input, Q and K, V, o's input, the MLP's
// input, gate and up outputs, SiLU's output and their product's operands (h + 4f), and the fp32
// log-sum-exp per head and row.
constexpr int64_t kFullLayer = 2 * kSeq * (kH + kH + 2 * kH + kH + kH + kH + kH + 4 * kF) + 4 * 32 * kSeq;
constexpr int64_t kLayerInput = 2 * kSeq * kH;

}  // namespace

TEST_CASE("LLaMA-Factory's default freeze trains the last two layers and logs their count", "[training][llamafactory]") {
  const LlamaFactoryMemory m = memory_of("llama-2-7b", one_sequence());
  CHECK(m.parameters == kAllParameters);
  CHECK(m.trainable_parameters == 2 * kLayer);
  CHECK(m.trainable_layer_ids == std::vector<int64_t>{30, 31});
  CHECK(m.trainable_patterns == std::vector<std::string>{".30.", ".31."});
  CHECK(llamafactory_param_stats(m) == "trainable params: 404,766,720 || all params: 6,738,415,616 || trainable%: 6.0069");
  // Frozen in bf16; trainable upcast to fp32 with fp32 gradients and AdamW's two fp32 states.
  CHECK(m.frozen_weights == 2 * (kAllParameters - 2 * kLayer));
  CHECK(m.trainable_weights == 4 * 2 * kLayer);
  CHECK(m.gradients == 4 * 2 * kLayer);
  CHECK(m.optimizer == 8 * 2 * kLayer + 4 * 2 * 9);  // adamw_torch_fused: its step tensors (fp32) on the GPU, 9 tensors a layer
  CHECK(m.autocast_copies == 2 * 2 * (kAttention + kMlp));  // the matrices, not the norms
  // Nothing below layer 30 keeps anything; 30 and 31 are checkpointed: their input, and one of
  // them rebuilt during its backward.
  CHECK(m.lowest_trainable_layer == 30);
  CHECK(m.checkpointed_layers == 2);
  CHECK(m.activations == 2 * kLayerInput);
  CHECK(m.recompute_working == kFullLayer);
}

TEST_CASE("Training the first layers keeps every frozen layer above them whole", "[training][llamafactory]") {
  LlamaFactorySettings s = one_sequence();
  s.freeze_trainable_layers = -2;
  const LlamaFactoryMemory first = memory_of("llama-2-7b", s);
  CHECK(first.trainable_layer_ids == std::vector<int64_t>{0, 1});
  CHECK(first.trainable_parameters == 2 * kLayer);
  CHECK(first.lowest_trainable_layer == 0);
  // Layers 2..31 hold no trainable parameter: get_custom_gradient_checkpointing_func runs them
  // without checkpointing, and their input requires grad, so autograd keeps all they save.
  CHECK(first.activations == 2 * kLayerInput + 30 * kFullLayer);
  s.gradient_checkpointing = false;  // disable_gradient_checkpointing: every layer from 0 keeps all
  CHECK(memory_of("llama-2-7b", s).activations == 32 * kFullLayer);
  s.freeze_trainable_layers = 2;
  const LlamaFactoryMemory last = memory_of("llama-2-7b", s);
  CHECK(last.activations == 2 * kFullLayer);
  CHECK(last.recompute_working == 0);
}

TEST_CASE("freeze_trainable_modules and freeze_extra_modules match names as LLaMA-Factory does", "[training][llamafactory]") {
  LlamaFactorySettings s = one_sequence();
  s.freeze_trainable_modules = {"mlp"};
  CHECK(memory_of("llama-2-7b", s).trainable_patterns == std::vector<std::string>{".30.mlp", ".31.mlp"});
  CHECK(memory_of("llama-2-7b", s).trainable_parameters == 2 * kMlp);
  s.freeze_trainable_modules = {"self_attn", "input_layernorm"};
  CHECK(memory_of("llama-2-7b", s).trainable_parameters == 2 * (kAttention + kH));
  s.freeze_trainable_modules = {"all"};
  s.freeze_extra_modules = {"lm_head"};
  CHECK(memory_of("llama-2-7b", s).trainable_parameters == 2 * kLayer + 32000 * kH);
  // "norm" is a substring of every layernorm's name: all 64 of them and model.norm train, so
  // layer 0 holds a trainable parameter and every layer is checkpointed.
  s.freeze_extra_modules = {"norm"};
  const LlamaFactoryMemory norms = memory_of("llama-2-7b", s);
  CHECK(norms.trainable_parameters == 2 * (kAttention + kMlp) + 32 * kNorms + kH);
  CHECK(norms.lowest_trainable_layer == 0);
  CHECK(norms.checkpointed_layers == 32);
  // embed_tokens trains: its output requires grad, so every layer from 0 keeps its share.
  s.freeze_extra_modules = {"embed_tokens"};
  const LlamaFactoryMemory embed = memory_of("llama-2-7b", s);
  CHECK(embed.lowest_trainable_layer == 0);
  CHECK(embed.activations == 2 * kLayerInput + 30 * kFullLayer);
}

TEST_CASE("LLaMA-Factory's own errors for names it would not find", "[training][llamafactory]") {
  LlamaFactorySettings s = one_sequence();
  s.freeze_trainable_modules = {"attn"};
  auto bad = llamafactory_memory(builtin_catalog().formats, preset("llama-2-7b").spec, s);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().field == "freeze_trainable_modules");
  CHECK(bad.error().message ==
        "freeze_trainable_modules: Module attn is not found, please choose from input_layernorm, mlp, post_attention_layernorm, self_attn");
  // Llama 3.2 1B ties lm_head to embed_tokens: named_parameters() has no lm_head.
  s.freeze_trainable_modules = {"all"};
  s.freeze_extra_modules = {"lm_head"};
  auto tied = llamafactory_memory(builtin_catalog().formats, preset("llama-3.2-1b").spec, s);
  REQUIRE_FALSE(tied);
  CHECK(tied.error().message == "freeze_extra_modules: Module lm_head is not found, please choose from embed_tokens, norm");
  s.freeze_extra_modules = {};
  s.use_llama_pro = true;
  s.freeze_trainable_layers = 5;
  auto pro = llamafactory_memory(builtin_catalog().formats, preset("llama-2-7b").spec, s);
  REQUIRE_FALSE(pro);
  CHECK(pro.error().message == "freeze_trainable_layers: `num_layers` 32 should be divisible by `num_layer_trainable` 5.");
  s.freeze_trainable_layers = -8;  // a negative stride: Python's range gives no layer
  auto none = llamafactory_memory(builtin_catalog().formats, preset("llama-2-7b").spec, s);
  REQUIRE_FALSE(none);
  CHECK(none.error().message == "freeze_trainable_layers: no parameter of this model would train");
  s.freeze_trainable_layers = 8;  // every fourth layer: 3, 7, ..., 31
  CHECK(memory_of("llama-2-7b", s).trainable_layer_ids == std::vector<int64_t>{3, 7, 11, 15, 19, 23, 27, 31});
}

TEST_CASE("A layer's number also matches the expert of that number in every layer", "[training][llamafactory]") {
  // Qwen3-30B-A3B: 48 layers, 128 experts a layer as model.layers.N.mlp.experts.E.*_proj
  // (transformers 4.x). ".46." and ".47." match layers 46 and 47 and experts 46 and 47 of the
  // other 46 layers.
  const ModelSpec& qwen = preset("qwen3-30b-a3b").spec;
  const int64_t h = qwen.hidden_size, expert = 3 * h * qwen.moe_intermediate_size;
  const LlamaFactoryMemory both = memory_of("qwen3-30b-a3b", one_sequence());
  LlamaFactorySettings mlp_only = one_sequence();
  mlp_only.freeze_trainable_modules = {"self_attn"};  // ".46.self_attn" matches no expert
  const LlamaFactoryMemory attention = memory_of("qwen3-30b-a3b", mlp_only);
  const int64_t per_layer_attention = attention.trainable_parameters / 2;
  const int64_t layer = per_layer_attention + 2 * h + h * qwen.experts + qwen.experts * expert;  // + norms, router, experts
  CHECK(both.trainable_parameters == 2 * layer + 46 * 2 * expert);
}

TEST_CASE("LoRA's trainable count equals LLaMA-Factory's own log line on two public runs", "[training][llamafactory]") {
  LlamaFactorySettings s = one_sequence();
  s.finetuning_type = LlamaFactoryFinetuning::lora;  // lora_target: all, lora_rank 8 (its defaults)
  // Qwen2.5-0.5B-Instruct, LLaMA-Factory Oct 2024 (github.com/ywlin111/Fudan-AI-design-mid-term-work,
  // README): "Found linear modules: o_proj,v_proj,down_proj,k_proj,q_proj,gate_proj,up_proj" and
  // "trainable params: 4,399,104 || all params: 498,431,872 || trainable%: 0.8826".
  const LlamaFactoryMemory small = memory_of("qwen2.5-0.5b", s);
  CHECK(llamafactory_param_stats(small) == "trainable params: 4,399,104 || all params: 498,431,872 || trainable%: 0.8826");
  CHECK(small.lora_modules == std::vector<std::string>{"down_proj", "gate_proj", "k_proj", "o_proj", "q_proj", "up_proj", "v_proj"});
  // Qwen2.5-Math-7B (Qwen2.5-7B's shapes), hiyouga/LlamaFactory#5539: "trainable params: 20,185,088".
  const LlamaFactoryMemory seven = memory_of("qwen2.5-7b", s);
  CHECK(seven.trainable_parameters == 20185088);
  CHECK(llamafactory_param_stats(seven) == "trainable params: 20,185,088 || all params: 7,635,801,600 || trainable%: 0.2643");
}

TEST_CASE("LoRA on Llama 2 7B: adapters, PEFT's modules_to_save copies, NF4 and every layer checkpointed", "[training][llamafactory]") {
  LlamaFactorySettings s = one_sequence();
  s.finetuning_type = LlamaFactoryFinetuning::lora;
  constexpr int64_t r = 8;
  constexpr int64_t adapters = 32 * r * (4 * (kH + kH) + 2 * (kH + kF) + (kF + kH));
  const LlamaFactoryMemory lora = memory_of("llama-2-7b", s);
  CHECK(lora.adapter_parameters == adapters);
  CHECK(lora.parameters == kAllParameters + adapters);
  CHECK(lora.frozen_weights == 2 * kAllParameters);
  CHECK(lora.trainable_weights == 4 * adapters);
  // Every layer holds adapters: all 32 are checkpointed, keeping their input.
  CHECK(lora.checkpointed_layers == 32);
  CHECK(lora.activations == 32 * kLayerInput);
  CHECK(lora.recompute_working == kFullLayer + 4 * kSeq * r * 7);  // + x A in fp32 for each of the 7 modules
  s.lora_target = {"q_proj", "v_proj"};
  CHECK(memory_of("llama-2-7b", s).trainable_parameters == 32 * r * 2 * (kH + kH));
  // additional_target: a trainable fp32 copy of each module, the original kept (frozen).
  s.additional_target = {"embed_tokens", "lm_head"};
  const LlamaFactoryMemory saved = memory_of("llama-2-7b", s);
  CHECK(saved.saved_module_parameters == 2 * 32000 * kH);
  CHECK(saved.trainable_parameters == 32 * r * 2 * (kH + kH) + 2 * 32000 * kH);
  CHECK(saved.parameters == kAllParameters + saved.trainable_parameters);
  CHECK(saved.frozen_weights == 2 * kAllParameters);
  auto unnamed = llamafactory_memory(builtin_catalog().formats, preset("gpt-oss-20b").spec, s);
  REQUIRE_FALSE(unnamed);
  CHECK(unnamed.error().field == "lora_target");
  s.additional_target = {"score"};
  auto missing = llamafactory_memory(builtin_catalog().formats, preset("llama-2-7b").spec, s);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().field == "additional_target");
  // quantization_bit 4: every Linear of the layers in NF4; embed_tokens, the norms and lm_head in bf16.
  s.additional_target = {};
  s.lora_target = {"all"};
  s.quantization_bit = 4;
  const LlamaFactoryMemory qlora = memory_of("llama-2-7b", s);
  CHECK(qlora.nf4_elements == 32 * (kAttention + kMlp));
  CHECK(qlora.frozen_weights < lora.frozen_weights / 3);
  CHECK(qlora.frozen_weights > 2 * (2 * 32000 * kH + 32 * kNorms + kH) + qlora.nf4_elements / 2);
}

TEST_CASE("The config read from YAML as llamafactory-cli reads it", "[training][llamafactory]") {
  auto j = yaml_to_json("learning_rate: 1.0e-4\nwarmup: 1e-4\nbf16: true\nplot_loss: yes\nfreeze_extra_modules: ~\n"
                        "val_size: '2'\nfreeze_trainable_layers: -4\nfreeze_trainable_modules: mlp, self_attn\n");
  REQUIRE(j);
  CHECK(j->at("learning_rate") == 1.0e-4);
  CHECK(j->at("warmup") == "1e-4");  // PyYAML: no dot, no float
  CHECK(j->at("plot_loss") == true);
  CHECK(j->at("freeze_extra_modules").is_null());
  CHECK(j->at("val_size") == "2");
  CHECK(j->at("freeze_trainable_layers") == -4);
  auto config = read_llamafactory_config(*j);
  REQUIRE(config);
  CHECK(config->settings.freeze_trainable_modules == std::vector<std::string>{"mlp", "self_attn"});
  CHECK(config->settings.freeze_trainable_layers == -4);
  CHECK(config->skipped == std::vector<std::string>{"learning_rate", "plot_loss", "val_size", "warmup"});
  auto broken = yaml_to_json("a: [1, 2\n");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().field == "config");
}

TEST_CASE("The config's mistakes are named by their key", "[training][llamafactory]") {
  auto no_dtype = read_llamafactory_config({{"finetuning_type", "freeze"}});
  REQUIRE_FALSE(no_dtype);
  CHECK(no_dtype.error().field == "bf16");
  auto quantized = read_llamafactory_config({{"bf16", true}, {"quantization_bit", 4}});
  REQUIRE_FALSE(quantized);
  CHECK(quantized.error().message == "quantization_bit: Quantized models can only be used for the LoRA or OFT tuning.");
  auto oft = read_llamafactory_config({{"bf16", true}, {"finetuning_type", "oft"}});
  REQUIRE_FALSE(oft);
  CHECK(oft.error().field == "finetuning_type");
  auto qlora = read_llamafactory_config({{"bf16", true}, {"finetuning_type", "lora"}, {"quantization_bit", 4}});
  REQUIRE(qlora);
  CHECK(qlora->settings.quantization_bit == 4);
  auto int8 = read_llamafactory_config({{"bf16", true}, {"finetuning_type", "lora"}, {"quantization_bit", 8}});
  REQUIRE_FALSE(int8);
  CHECK(int8.error().field == "quantization_bit");
  auto batch = read_llamafactory_config({{"bf16", true}, {"per_device_train_batch_size", 0}});
  REQUIRE_FALSE(batch);
  CHECK(batch.error().field == "per_device_train_batch_size");
  auto defaults = read_llamafactory_config({{"fp16", true}});
  REQUIRE(defaults);
  CHECK_FALSE(defaults->settings.bf16);
  CHECK(defaults->settings.per_device_train_batch_size == 8);  // TrainingArguments' default
  CHECK(defaults->settings.freeze_trainable_layers == 2);
}

TEST_CASE("A LLaMA-Factory request gives what train --llamafactory gives for the same YAML", "[training][llamafactory]") {
  char path[] = "/tmp/vramfit-lf-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  { std::ofstream(path) << "model_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\nfinetuning_type: freeze\n"
                           "freeze_trainable_modules: mlp\nper_device_train_batch_size: 2\ncutoff_len: 1024\nbf16: true\n"; }
  std::ostringstream out, err;
  const int status = run_cli({"train", "-m", "llama-2-7b", "-g", "rtx-4090", "--llamafactory", path, "--json"}, out, err);
  std::remove(path);
  INFO(err.str());
  REQUIRE(status == 0);
  const json from_file = json::parse(out.str());
  const json config = {{"model_name_or_path", "meta-llama/Llama-2-7b-hf"}, {"stage", "sft"}, {"finetuning_type", "freeze"},
                       {"freeze_trainable_modules", "mlp"}, {"per_device_train_batch_size", 2}, {"cutoff_len", 1024}, {"bf16", true}};
  const json request = {{"mode", "training"}, {"model", {{"preset", "llama-2-7b"}}}, {"gpu", {{"id", "rtx-4090"}}},
                        {"training", {{"framework", "llamafactory"}, {"llamafactory", {{"config", config}}}}}};
  const json from_request = json::parse(estimate_any_engine_json(request.dump()));
  REQUIRE_FALSE(from_request.contains("error"));
  CHECK(from_request.at("llamafactory") == from_file.at("llamafactory"));
  CHECK(from_request.at("fit") == from_file.at("fit"));
  CHECK(from_request.at("llamafactory").at("trainable_parameters") == 2 * kMlp);
  CHECK(json::parse(estimate_any_engine_json(from_request.at("request").dump())) == from_request);
  json wrong = request;
  wrong["training"]["llamafactory"]["config"]["freeze_trainable_modules"] = "attn";
  const json refused = json::parse(estimate_any_engine_json(wrong.dump()));
  CHECK(refused.at("error").at("field") == "training.llamafactory.config.freeze_trainable_modules");
  wrong = request;
  wrong["training"]["micro_batch"] = 4;
  CHECK(json::parse(estimate_any_engine_json(wrong.dump())).at("error").at("field") == "training.micro_batch");
}

TEST_CASE("The fit search's shortcut equals the whole computation for other batches and lengths", "[training][llamafactory]") {
  for (const char* model : {"llama-2-7b", "qwen3-30b-a3b"}) {
    LlamaFactorySettings s = one_sequence();
    s.finetuning_type = std::string(model) == "llama-2-7b" ? LlamaFactoryFinetuning::freeze : LlamaFactoryFinetuning::lora;
    s.freeze_trainable_layers = -3;
    const ModelSpec& spec = preset(model).spec;
    const LlamaFactoryMemory base = memory_of(model, s);
    for (int64_t batch : {1, 3, 8}) {
      for (int64_t length : {1, 1000, 4096}) {
        LlamaFactorySettings other = s;
        other.per_device_train_batch_size = batch;
        other.cutoff_len = length;
        auto quick = llamafactory_workload(builtin_catalog().formats, spec, other, base);
        REQUIRE(quick);
        const LlamaFactoryMemory whole = memory_of(model, other);
        INFO(model << " batch " << batch << " length " << length);
        CHECK(quick->activations == whole.activations);
        CHECK(quick->recompute_working == whole.recompute_working);
        CHECK(quick->logits == whole.logits);
        CHECK(quick->peak == whole.peak);
      }
    }
  }
}
