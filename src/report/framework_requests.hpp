// Training requests for the frameworks answered apart from estimate(): Megatron-LM
// (training.framework "megatron", its flags under training.megatron), DeepSpeed ZeRO
// ("deepspeed": the ds_config itself under training.deepspeed.config) and torchtune
// ("torchtune": the tune command under training.torchtune.command) and LLaMA-Factory
// ("llamafactory": the training YAML's keys under training.llamafactory.config). The CLI's `--request` and
// the estimator module's estimate() answer them with the same function; the page's module
// refuses them with an error naming training.framework (it has no room for them).
#pragma once
#include "io/json.hpp"
#include "report/frameworks.hpp"

namespace vramfit {

// True for a training request whose training.framework is megatron, deepspeed, torchtune or llamafactory.
bool is_separate_framework_request(const json& request);

// training.deepspeed: {"config": {ds_config}, "nodes": 1, "version": "0.19.6"}; the rest of the
// request as any training request's (the GPU, gpu_count data-parallel ranks, the model, the
// micro-batch and precision that fill the config's "auto" values). An error names the field.
Result<DeepSpeedReport> estimate_deepspeed_request(const json& request, const Catalog& catalog);
// training.torchtune: {"command": "tune run lora_finetune_single_device --config ..."}.
Result<TorchtuneReport> estimate_torchtune_request(const json& request, const Catalog& catalog);
// training.llamafactory: {"config": {"finetuning_type": "freeze", "freeze_trainable_layers": 2, ...}};
// an error in the config names training.llamafactory.config.<key>.
Result<LlamaFactoryReport> estimate_llamafactory_request(const json& request, const Catalog& catalog);

// The framework's report JSON with "request" as given (re-running it gives the same answer), or
// the error JSON.
json framework_request_to_json(const json& request, const Catalog& catalog);

}  // namespace vramfit
