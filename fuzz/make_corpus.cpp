// Writes the fuzzers' seed corpus: valid files made by the same writers the tests use.
//   make_corpus <dir>  ->  <dir>/<target>/<name>
#include <algorithm>
#include <fstream>
#include <string>
#include <sys/stat.h>

#include "catalog/catalog.hpp"
#include "io/hf_config.hpp"
#include "io/request_json.hpp"
#include "io/url_hash.hpp"
#include "support/model_file_writers.hpp"
#include "text/messages.hpp"

using namespace vramfit;

static void write(const std::string& dir, const std::string& target, const std::string& name, const std::string& bytes) {
  mkdir((dir + "/" + target).c_str(), 0755);
  std::ofstream(dir + "/" + target + "/" + name, std::ios::binary) << bytes;
}

static const char* const kNetworkSeeds[] = {
    R"({"mode":"training","network":{"input":[3,16,16],"layers":[{"type":"conv2d","out":4,"kernel":3,"padding":1},)"
    R"({"type":"batchnorm2d"},{"type":"relu","name":"r"},{"type":"maxpool2d","kernel":2},{"type":"flatten"},)"
    R"({"type":"dropout","p":0.2},{"type":"linear","out":10},{"type":"softmax"}]},"training":{"batch":8}})",
    R"({"mode":"training","network":{"input":[8,32],"layers":[{"type":"layernorm"},{"type":"self_attention","heads":4},)"
    R"({"type":"add","from":"input","name":"h"},{"type":"linear","out":64},{"type":"gelu"},{"type":"linear","out":32},)"
    R"({"type":"add","from":"h"}]},"training":{"batch":2,"activation_rule":"layer_outputs","device":"cpu"}})",
    R"({"mode":"training","network":{"input":[6],"input_dtype":"i64","dtype":"bf16","layers":[{"type":"embedding",)"
    R"("vocab":50,"dim":8},{"type":"silu"},{"type":"flatten"},{"type":"linear","out":3,"bias":false}]}})",
};

// Launch lines as people paste them: llama.cpp's (a Windows path among them), vLLM's, SGLang's and Ollama's.
static const char* const kLaunchLines[] = {
    "llama-server -m model.gguf -c 32768 -ngl 99 -fa on -ctk q8_0 -ctv q8_0 -np 4 --port 8080",
    "llama-cli -hf unsloth/gpt-oss-20b-GGUF:Q4_K_M -c 16384 -ts 3,1 --n-cpu-moe 8 -md draft.gguf",
    "'C:\\llama\\llama-bench.exe' -m model.gguf -c 8192 -np 4 -lv 4 -cram 0 --metrics",
    "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2 --max-model-len 32768 --gpu-memory-utilization 0.85",
    "python -m vllm.entrypoints.openai.api_server --model x --kv-cache-dtype fp8 --enable-lora --max-loras 4",
    "python -m sglang.launch_server --model-path Qwen/Qwen3-14B --tp 2 --mem-fraction-static 0.85 --context-length 32768",
    "sglang serve --model-path x --dp 2 --kv-cache-dtype fp8_e4m3 --page-size 16 --max-running-requests 64 --port 30000",
    "python3 -m sglang.launch_server --model x --chunked-prefill-size -1 --max-total-tokens 20480 --trust-remote-code",
    "OLLAMA_NUM_PARALLEL=4 OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 ollama run llama3.1:8b --verbose",
    "export OLLAMA_CONTEXT_LENGTH=16384 OLLAMA_SCHED_SPREAD=true ollama serve PARAMETER num_gpu 20 PARAMETER num_batch 256",
};

// Requests the page's module does not answer: SGLang, Ollama and the training frameworks.
static const char* const kEngineRequests[] = {
    R"({"engine":"sglang","model":{"preset":"qwen3-14b"},"sglang":{"tp-size":2,"kv-cache-dtype":"fp8_e4m3"},"gpus":["rtx-4090","rtx-4090"]})",
    R"({"engine":"ollama","model":{"preset":"qwen2.5-14b"},"weights":{"format":"gguf-q4_k_m"},"ollama":{"num_ctx":8192,"OLLAMA_NUM_PARALLEL":2,"free_mib":[15769],"version":"0.9.6"},"gpus":["rtx-4080"]})",
    R"({"mode":"training","model":{"preset":"llama-2-7b"},"gpu":{"id":"h100-80"},"gpu_count":8,"training":{"framework":"megatron","megatron":{"tensor-model-parallel-size":2,"pipeline-model-parallel-size":2,"sequence-parallel":true,"use-distributed-optimizer":true,"micro-batch-size":1,"global-batch-size":64,"seq-length":4096}}})",
    R"({"mode":"training","model":{"preset":"llama-2-7b"},"gpu":{"id":"a100-80"},"gpu_count":8,"training":{"framework":"deepspeed","micro_batch":2,"deepspeed":{"config":{"bf16":{"enabled":"auto"},"zero_optimization":{"stage":3,"offload_optimizer":{"device":"cpu"},"reduce_bucket_size":"auto"}},"nodes":2,"version":"0.14.2"}}})",
    R"({"mode":"training","model":{"preset":"llama-3.2-3b"},"gpu":{"id":"rtx-4090"},"training":{"framework":"torchtune","torchtune":{"command":"tune run --nproc_per_node 4 lora_finetune_distributed model._component_=torchtune.models.llama3_2.lora_llama3_2_3b data_parallel_replicate_dim=2 batch_size=2"}}})",
    R"({"mode":"training","model":{"preset":"qwen2.5-0.5b"},"gpu":{"id":"rtx-4090"},"training":{"framework":"llamafactory","llamafactory":{"config":{"finetuning_type":"freeze","freeze_trainable_layers":-2,"freeze_trainable_modules":"mlp,self_attn","freeze_extra_modules":"norm","per_device_train_batch_size":2,"cutoff_len":512,"bf16":true}}}})",
    R"({"mode":"training","model":{"preset":"qwen3-30b-a3b"},"gpu":{"id":"h100-80"},"training":{"framework":"llamafactory","llamafactory":{"config":{"finetuning_type":"lora","lora_target":"q_proj,gate","lora_rank":16,"quantization_bit":4,"additional_target":"norm","cutoff_len":256,"per_device_train_batch_size":1,"fp16":true}}}})",
};

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  mkdir(dir.c_str(), 0755);
  const Catalog& c = builtin_catalog();
  int line = 0;
  for (const char* text : kLaunchLines) write(dir, "launch_line", "line-" + std::to_string(line++), text);
  int engine_request = 0;
  for (const char* text : kEngineRequests) write(dir, "engine_request", "request-" + std::to_string(engine_request++), text);
  // The interface's text: every message of the Arabic catalog, and its English key.
  int message = 0;
  for (const auto& [english, arabic] : *message_table(Language::arabic)) {
    write(dir, "text", "message-" + std::to_string(message), english);
    write(dir, "text", "message-" + std::to_string(message++) + "-ar", arabic);
  }
  for (size_t i = 0; i < sizeof kNetworkSeeds / sizeof kNetworkSeeds[0]; ++i) {
    write(dir, "request_json", "network-" + std::to_string(i) + ".json", kNetworkSeeds[i]);
  }
  // Small models of each shape (dense, GQA + biases, sliding window, MoE, MLA): the same code
  // paths as real checkpoints at a size that keeps each fuzz input fast.
  auto tiny = [&](const char* preset) {
    ModelSpec s = c.find_model(preset)->spec;
    s.layers = 2;
    s.hidden_size = 64;
    s.vocab_size = 256;
    s.intermediate_size = s.intermediate_size > 0 ? 128 : 0;
    s.moe_intermediate_size = s.moe_intermediate_size > 0 ? 32 : 0;
    s.shared_expert_intermediate_size = s.shared_expert_intermediate_size > 0 ? 32 : 0;
    s.experts = std::min<int64_t>(s.experts, 4);
    s.experts_per_token = std::min<int64_t>(s.experts_per_token, 2);
    s.first_dense_layers = std::min<int64_t>(s.first_dense_layers, 1);
    if (!s.sliding_layers.empty()) s.sliding_layers.resize(2);
    s.kv_lora_rank = s.kv_lora_rank > 0 ? 32 : 0;
    s.q_lora_rank = s.q_lora_rank > 0 ? 32 : 0;
    return s;
  };
  struct Gguf { const char* model; const char* format; const char* arch; };
  for (const Gguf& g : {Gguf{"llama-3.2-1b", "gguf-q4_k_m", "llama"}, Gguf{"qwen2.5-0.5b", "gguf-q8_0", "qwen2"},
                        Gguf{"gemma-3-1b", "gguf-q4_0", "gemma3"}, Gguf{"qwen3-30b-a3b", "gguf-q4_k_m", "qwen3moe"},
                        Gguf{"deepseek-v3", "gguf-q8_0", "deepseek2"}}) {
    const auto bytes = test::write_gguf(c.formats, tiny(g.model), *c.formats.find_format(g.format), g.arch, 4);
    write(dir, "gguf", std::string(g.model) + ".gguf", std::string(bytes.begin(), bytes.end()));
  }
  {  // what llama.cpp loads beside a model: a LoRA adapter (--lora) and a multimodal projector (--mmproj)
    const auto lora = test::write_lora_gguf(tiny("llama-3.2-1b"), "llama", 8);
    write(dir, "gguf", "lora-adapter.gguf", std::string(lora.begin(), lora.end()));
    const auto mmproj = test::write_mmproj_gguf(2, 256);
    write(dir, "gguf", "mmproj.gguf", std::string(mmproj.begin(), mmproj.end()));
  }
  for (const char* model : {"qwen2.5-0.5b", "qwen3-0.6b"}) {
    const auto bytes = test::write_safetensors(test::hf_dense_tensors(tiny(model)), "BF16", 2);
    write(dir, "safetensors", std::string(model) + ".safetensors", std::string(bytes.begin(), bytes.end()));
  }
  write(dir, "safetensors_index", "index.json",
        R"({"metadata": {"total_size": 2471645184}, "weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors", "lm_head.weight": "model-00002-of-00002.safetensors"}})");
  for (const ModelPreset& m : c.models) {
    write(dir, "hf_config", m.id + ".json", write_hf_config(m.spec).dump());
    json request = {{"model", {{"preset", m.id}}}, {"context_tokens", 4096}, {"compare_gpus", m.id == "qwen3-8b"}};
    write(dir, "request_json", m.id + ".json", request.dump());
    // The engines: llama.cpp over two GPUs with part of the layers on the CPU, vLLM with
    // tensor and pipeline parallelism, Transformers with its device map.
    json llamacpp = {{"model", {{"preset", m.id}}}, {"weights", {{"format", "gguf-q4_k_m"}}}, {"engine", "llama.cpp"},
                     {"llama.cpp", {{"ctx-size", 8192}, {"n-gpu-layers", 10}, {"cache-type-k", "q8_0"}, {"flash-attn", "on"},
                                    {"build", 9459}, {"tool", "llama-server"}}},
                     {"gpus", {"rtx-4090", "rtx-3090"}}};
    write(dir, "request_json", m.id + "-llamacpp.json", llamacpp.dump());
    // Speculative decoding: a draft model beside the model, in llama.cpp and vLLM.
    if (m.id == "llama-3.1-8b") {
      json draft = llamacpp;
      draft["draft"] = {{"model", {{"preset", "llama-3.2-1b"}}}, {"weights", {{"format", "gguf-q8_0"}}}};
      draft["llama.cpp"]["gpu-layers-draft"] = 10;
      write(dir, "request_json", m.id + "-llamacpp-draft.json", draft.dump());
      json vllm_draft = {{"model", {{"preset", m.id}}}, {"engine", "vllm"},
                         {"vllm", {{"max-model-len", 4096}, {"speculative-config", {{"method", "draft_model"}, {"num_speculative_tokens", 5}}}}},
                         {"draft", {{"model", {{"preset", "llama-3.2-1b"}}}}}};
      write(dir, "request_json", m.id + "-vllm-draft.json", vllm_draft.dump());
    }
    json vllm = {{"model", {{"preset", m.id}}}, {"engine", "vllm"},
                 {"vllm", {{"max-model-len", 4096}, {"pipeline-parallel-size", 2}, {"kv-cache-dtype", "fp8"}}},
                 {"gpus", {"h100-80", "a100-80"}}};
    write(dir, "request_json", m.id + "-vllm.json", vllm.dump());
    // Transformers: accelerate's device map over two GPUs and the host, bitsandbytes 4-bit.
    json transformers = {{"model", {{"preset", m.id}}}, {"weights", {{"format", "bnb-nf4"}}}, {"engine", "transformers"},
                         {"transformers", {{"device_map", "auto"}, {"attn_implementation", "eager"}, {"batch_size", 4},
                                           {"input_length", 1000}, {"max_new_tokens", 300}, {"version", "4.40.0"}}},
                         {"gpus", {"rtx-3090", "rtx-3060"}},
                         {"host", {{"memory_bytes", int64_t(32) << 30}}}};
    write(dir, "request_json", m.id + "-transformers.json", transformers.dump());
    write(dir, "url_hash", m.id, "#" + encode_url_hash(*request_from_json(request)));
    // Training requests: a transformer with each method, and (below) layer-list networks.
    for (const char* method : {"full", "lora", "qlora"}) {
      json training = {{"mode", "training"}, {"model", {{"preset", m.id}}},
                                 {"training", {{"method", method}, {"sharding", "zero2"}, {"optimizer", "adam_8bit"}}},
                                 {"gpu_count", 2}};
      write(dir, "request_json", m.id + "-train-" + method + ".json", training.dump());
    }
  }
  return 0;
}
