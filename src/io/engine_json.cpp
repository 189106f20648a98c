#include "engine_json.hpp"

#include "request_json.hpp"

#include "core/fit.hpp"
#include "core/llamacpp.hpp"
#include "core/transformers.hpp"
#include "core/vllm.hpp"
#include "request_json_fields.hpp"

namespace vramfit {

using request_fields::Fields;

namespace {

// Lists of byte counts, one per layer, under `keys` of j.
void read_byte_lists(const json& j, Fields& f, std::initializer_list<std::pair<const char*, std::vector<int64_t>*>> keys) {
  for (auto [key, list] : keys) {
    if (f.error) break;
    const json* values = f.has(key) ? &j.at(key) : nullptr;
    if (!values || !values->is_array() || values->size() > 100000) {
      f.fail("request.bad_value", f.name(key), "must be a list of byte counts, one per layer");
      break;
    }
    for (const json& v : *values) {
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (int64_t(1) << 52)) {
        f.fail("request.bad_value", f.name(key), "must hold byte counts >= 0 (got " + v.dump() + ")");
        break;
      }
      list->push_back(v.get<int64_t>());
    }
  }
}

// "lora": [{"file", "rank", "input", "output", "layers", "experts"}]: --lora files as read from
// their headers (each pair's bytes by the place of the tensor it adapts).
std::optional<Error> lora_from_json(const json& j, std::vector<LlamaCppLora>& out) {
  if (!j.is_array() || j.size() > 64) return make_error("request.bad_value", "llama.cpp.lora", "llama.cpp.lora: must be a list of at most 64 adapters");
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string path = "llama.cpp.lora[" + std::to_string(i) + "]";
    if (!j[i].is_object()) return make_error("request.wrong_type", path, path + ": must be an object");
    Fields f{j[i], path + ".", std::nullopt};
    f.only({"file", "rank", "input", "output", "layers", "experts"});
    LlamaCppLora lora;
    lora.file = f.text("file", "");
    lora.rank = f.integer("rank", 0, 0, 1 << 20);
    lora.pairs.input = f.integer("input", 0, 0, int64_t(1) << 52);
    lora.pairs.output = f.integer("output", 0, 0, int64_t(1) << 52);
    read_byte_lists(j[i], f, {{"layers", &lora.pairs.layer}, {"experts", &lora.pairs.layer_experts}});
    if (!f.error && lora.pairs.layer_experts.size() != lora.pairs.layer.size()) {
      f.fail("request.bad_value", path, "layers and experts must have one entry per layer each");
    }
    if (f.error) return f.error;
    lora.pairs.layer_vectors.assign(lora.pairs.layer.size(), 0);
    out.push_back(std::move(lora));
  }
  return std::nullopt;
}

}  // namespace


// engine "llama.cpp": its flags under their long names (llama.cpp's common/arg.cpp).
std::optional<Error> llamacpp_settings_from_json(const json& j, LlamaCppSettings& l) {
  if (!j.is_object()) return make_error("request.wrong_type", "llama.cpp", "llama.cpp: must be an object");
  Fields f{j, "llama.cpp.", std::nullopt};
  f.only({"ctx-size", "batch-size", "ubatch-size", "parallel", "cache-type-k", "cache-type-v", "flash-attn", "n-gpu-layers",
          "split-mode", "tensor-split", "main-gpu", "cpu-moe", "n-cpu-moe", "no-kv-offload", "swa-full", "gpu-layers-draft",
          "cache-type-k-draft", "cache-type-v-draft", "lora", "mmproj", "no-mmproj-offload", "build", "tool"});
  l.ctx_size = f.integer("ctx-size", l.ctx_size, 0, kMaxContextTokens);
  l.batch_size = f.integer("batch-size", l.batch_size, 1, int64_t(1) << 20);
  l.ubatch_size = f.integer("ubatch-size", l.ubatch_size, 1, int64_t(1) << 20);
  l.parallel = f.integer("parallel", l.parallel, 1, kMaxSequences);
  l.n_gpu_layers = f.integer("n-gpu-layers", l.n_gpu_layers, -1, 100000);
  l.main_gpu = f.integer("main-gpu", l.main_gpu, 0, kMaxGpuCount - 1);
  l.n_cpu_moe = f.integer("n-cpu-moe", l.n_cpu_moe, 0, 100000);
  l.cpu_moe = f.boolean("cpu-moe", l.cpu_moe);
  l.no_kv_offload = f.boolean("no-kv-offload", l.no_kv_offload);
  l.swa_full = f.boolean("swa-full", l.swa_full);
  l.gpu_layers_draft = f.integer("gpu-layers-draft", l.gpu_layers_draft, -1, 100000);
  l.no_mmproj_offload = f.boolean("no-mmproj-offload", l.no_mmproj_offload);
  l.build = f.integer("build", l.build, 0, 1000000);
  l.tool = f.text("tool", l.tool);
  if (!f.error && l.tool.rfind("llama-", 0) != 0 && l.tool != "libllama") {
    f.fail("request.bad_value", "llama.cpp.tool", "must be a llama-* program or libllama (got '" + l.tool + "')");
  }
  if (const json* mmproj = f.sub("mmproj")) {  // --mmproj's file as read from its header
    Fields mf{*mmproj, "llama.cpp.mmproj.", std::nullopt};
    mf.only({"file", "projector", "weight_bytes", "image_size", "patch_size", "hidden", "intermediate", "heads", "audio", "merge"});
    LlamaCppMmproj& p = l.mmproj;
    p.file = mf.text("file", "");
    p.projector = mf.text("projector", "mlp");
    p.weight_bytes = mf.integer("weight_bytes", 0, 0, int64_t(1) << 50);
    p.image_size = mf.integer("image_size", 0, 1, 1 << 20);
    p.patch_size = mf.integer("patch_size", 0, 1, 1 << 20);
    p.hidden = mf.integer("hidden", 0, 1, 1 << 20);
    p.intermediate = mf.integer("intermediate", 0, 1, 1 << 20);
    p.heads = mf.integer("heads", 0, 1, 1 << 20);
    p.audio = mf.boolean("audio", false);
    p.merge = mf.integer("merge", 0, 0, 64);
    if (mf.error) return mf.error;
    l.has_mmproj = true;
  }
  if (f.has("lora") && !f.error) {
    l.lora.clear();
    if (auto e = lora_from_json(j.at("lora"), l.lora)) return e;
  }
  for (auto [key, type] : {std::pair<const char*, std::string*>{"cache-type-k", &l.cache_type_k}, {"cache-type-v", &l.cache_type_v},
                           {"cache-type-k-draft", &l.cache_type_k_draft}, {"cache-type-v-draft", &l.cache_type_v_draft}}) {
    *type = f.text(key, *type);
    if (!f.error && !is_llamacpp_cache_type(*type)) {
      f.fail("request.bad_value", f.name(key), "'" + *type + "' is not one of llama.cpp's cache types (f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1)");
    }
  }
  const std::string fa = f.text("flash-attn", "auto");
  if (fa == "on") l.flash_attn = LlamaFlashAttn::on;
  else if (fa == "off") l.flash_attn = LlamaFlashAttn::off;
  else if (fa == "auto") l.flash_attn = LlamaFlashAttn::automatic;
  else f.fail("request.bad_value", "llama.cpp.flash-attn", "must be on, off or auto (got '" + fa + "')");
  const std::string split = f.text("split-mode", "layer");
  if (split == "layer") l.split_mode = LlamaSplitMode::layer;
  else if (split == "row") l.split_mode = LlamaSplitMode::row;
  else if (split == "none") l.split_mode = LlamaSplitMode::none;
  else f.fail("request.bad_value", "llama.cpp.split-mode", "must be none, layer or row (got '" + split + "')");
  if (f.has("tensor-split")) {
    const json& ts = j.at("tensor-split");
    if (!ts.is_array() || ts.size() > static_cast<size_t>(kMaxGpuCount)) {
      f.fail("request.bad_value", "llama.cpp.tensor-split", "must be a list of proportions, one per GPU");
    } else {
      for (const json& x : ts) {
        if (!x.is_number() || !(x.get<double>() >= 0.0) || x.get<double>() > 1e9) {
          f.fail("request.bad_value", "llama.cpp.tensor-split", "proportions must be numbers >= 0 (got " + x.dump() + ")");
          break;
        }
        l.tensor_split.push_back(x.get<double>());
      }
    }
  }
  return f.error;
}

json llamacpp_settings_to_json(const LlamaCppSettings& l) {
  static const char* fa[] = {"off", "on", "auto"};
  static const char* split[] = {"none", "layer", "row"};
  json j = {{"ctx-size", l.ctx_size}, {"batch-size", l.batch_size}, {"ubatch-size", l.ubatch_size}, {"parallel", l.parallel},
            {"cache-type-k", l.cache_type_k}, {"cache-type-v", l.cache_type_v},
            {"flash-attn", fa[static_cast<int>(l.flash_attn)]}, {"n-gpu-layers", l.n_gpu_layers},
            {"split-mode", split[static_cast<int>(l.split_mode)]}, {"main-gpu", l.main_gpu}, {"cpu-moe", l.cpu_moe},
            {"n-cpu-moe", l.n_cpu_moe}, {"no-kv-offload", l.no_kv_offload}, {"swa-full", l.swa_full},
            {"gpu-layers-draft", l.gpu_layers_draft}, {"cache-type-k-draft", l.cache_type_k_draft},
            {"cache-type-v-draft", l.cache_type_v_draft}, {"build", l.build}, {"tool", l.tool}};
  if (!l.tensor_split.empty()) j["tensor-split"] = l.tensor_split;
  if (l.no_mmproj_offload) j["no-mmproj-offload"] = true;
  if (l.has_mmproj) {
    const LlamaCppMmproj& p = l.mmproj;
    j["mmproj"] = {{"file", p.file},         {"projector", p.projector},       {"weight_bytes", p.weight_bytes},
                   {"image_size", p.image_size}, {"patch_size", p.patch_size}, {"hidden", p.hidden},
                   {"intermediate", p.intermediate}, {"heads", p.heads}};
    if (p.audio) j["mmproj"]["audio"] = true;
    if (p.merge > 0) j["mmproj"]["merge"] = p.merge;
  }
  for (const LlamaCppLora& a : l.lora) {
    j["lora"].push_back({{"file", a.file}, {"rank", a.rank}, {"input", a.pairs.input}, {"output", a.pairs.output},
                         {"layers", a.pairs.layer}, {"experts", a.pairs.layer_experts}});
  }
  return j;
}

// A GGUF file's bytes by llama.cpp's placement units (weights.stored.by_layer).
std::optional<Error> llamacpp_weights_from_json(const json& j, LlamaCppWeights& b) {
  if (!j.is_object()) return make_error("request.wrong_type", "weights.stored.by_layer", "weights.stored.by_layer: must be an object");
  Fields lf{j, "weights.stored.by_layer.", std::nullopt};
  lf.only({"input", "output", "output_is_token_embd", "layers", "experts", "vectors"});
  b.input = lf.integer("input", 0, 0, int64_t(1) << 52);
  b.output = lf.integer("output", 0, 0, int64_t(1) << 52);
  b.output_is_token_embd = lf.boolean("output_is_token_embd", false);
  read_byte_lists(j, lf, {{"layers", &b.layer}, {"experts", &b.layer_experts}, {"vectors", &b.layer_vectors}});
  if (!lf.error && (b.layer_experts.size() != b.layer.size() || b.layer_vectors.size() != b.layer.size())) {
    lf.fail("request.bad_value", "weights.stored.by_layer", "layers, experts and vectors must have one entry per layer each");
  }
  return lf.error;
}

json llamacpp_weights_to_json(const LlamaCppWeights& b) {
  return {{"input", b.input}, {"output", b.output}, {"output_is_token_embd", b.output_is_token_embd},
          {"layers", b.layer}, {"experts", b.layer_experts}, {"vectors", b.layer_vectors}};
}

// engine "vllm": its flags under their long names (vllm/engine/arg_utils.py, EngineArgs).
std::optional<Error> vllm_settings_from_json(const json& j, VllmSettings& v) {
  if (!j.is_object()) return make_error("request.wrong_type", "vllm", "vllm: must be an object");
  Fields f{j, "vllm.", std::nullopt};
  f.only({"gpu-memory-utilization", "max-model-len", "max-num-seqs", "max-num-batched-tokens", "tensor-parallel-size",
          "pipeline-parallel-size", "kv-cache-dtype", "enforce-eager", "block-size", "version", "enable-lora", "max-loras",
          "max-lora-rank", "fully-sharded-loras", "lora-dtype", "speculative-config", "disable-hybrid-kv-cache-manager"});
  v.gpu_memory_utilization = f.number("gpu-memory-utilization", v.gpu_memory_utilization, 0.01, 1.0);
  v.max_model_len = f.integer("max-model-len", v.max_model_len, 0, kMaxContextTokens);
  v.max_num_seqs = f.integer("max-num-seqs", v.max_num_seqs, 0, kMaxSequences);
  v.max_num_batched_tokens = f.integer("max-num-batched-tokens", v.max_num_batched_tokens, 0, kMaxContextTokens);
  v.tensor_parallel_size = f.integer("tensor-parallel-size", v.tensor_parallel_size, 1, kMaxGpuCount);
  v.pipeline_parallel_size = f.integer("pipeline-parallel-size", v.pipeline_parallel_size, 1, kMaxGpuCount);
  v.enforce_eager = f.boolean("enforce-eager", v.enforce_eager);
  v.disable_hybrid_kv_cache_manager = f.boolean("disable-hybrid-kv-cache-manager", v.disable_hybrid_kv_cache_manager);
  v.block_size = f.integer("block-size", v.block_size, 1, 4096);
  v.enable_lora = f.boolean("enable-lora", v.enable_lora);
  v.max_loras = f.integer("max-loras", v.max_loras, 1, 4096);
  v.max_lora_rank = f.integer("max-lora-rank", v.max_lora_rank, 1, 4096);
  v.fully_sharded_loras = f.boolean("fully-sharded-loras", v.fully_sharded_loras);
  const std::string lora_dtype = f.text("lora-dtype", vllm_lora_dtype_name(v.lora_dtype));
  if (!f.error && !parse_vllm_lora_dtype(lora_dtype, v.lora_dtype)) {
    f.fail("request.bad_value", "vllm.lora-dtype", "'" + lora_dtype + "' is not one of vLLM's LoRA dtypes (auto, float16, bfloat16, float32)");
  }
  // --speculative-config's method and token count; its "model" is the request's "draft".
  if (const json* spec = f.sub("speculative-config")) {
    Fields sf{*spec, "vllm.speculative-config.", std::nullopt};
    sf.only({"method", "num_speculative_tokens"});
    const std::string method = sf.text("method", "draft_model");
    if (!sf.error && !parse_vllm_speculative_method(method, v.speculative_method)) {
      sf.fail("request.bad_value", "vllm.speculative-config.method",
              "'" + method + "' is not one of vLLM's speculative methods (draft_model, ngram, suffix, eagle, eagle3, mtp, ...)");
    }
    v.num_speculative_tokens = sf.integer("num_speculative_tokens", 0, 1, 1024);
    if (!sf.error && !sf.has("num_speculative_tokens")) {
      sf.fail("request.bad_value", "vllm.speculative-config.num_speculative_tokens", "is required (vLLM takes it from no draft config here)");
    }
    if (sf.error) return sf.error;
  }
  const std::string kv = f.text("kv-cache-dtype", vllm_kv_cache_dtype_name(v.kv_cache_dtype));
  if (!f.error && !parse_vllm_kv_cache_dtype(kv, v.kv_cache_dtype)) {
    f.fail("request.bad_value", "vllm.kv-cache-dtype",
           "'" + kv + "' is not one of vLLM's KV cache dtypes (auto, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2)");
  }
  const std::string version = f.text("version", vllm_version_text(v));
  if (!f.error && !parse_vllm_version(version, v)) {
    f.fail("request.bad_value", "vllm.version", "'" + version + "' is not a vLLM release such as 0.19.0 or 0.6.6.post1");
  }
  if (!f.error && v.block_size != 1 && v.block_size % 16 != 0 && v.block_size != 8) {
    f.fail("request.bad_value", "vllm.block-size", "vLLM's block sizes are 1, 8, 16, 32, 64, 128 (got " + std::to_string(v.block_size) + ")");
  }
  if (!f.error && v.tensor_parallel_size * v.pipeline_parallel_size > kMaxGpuCount) {
    f.fail("request.out_of_range", "vllm.tensor-parallel-size",
           "tensor-parallel-size x pipeline-parallel-size must be at most " + std::to_string(kMaxGpuCount) + " GPUs");
  }
  return f.error;
}

json vllm_settings_to_json(const VllmSettings& v) {
  json j = {{"gpu-memory-utilization", v.gpu_memory_utilization}, {"max-model-len", v.max_model_len},
          {"max-num-seqs", v.max_num_seqs}, {"max-num-batched-tokens", v.max_num_batched_tokens},
          {"tensor-parallel-size", v.tensor_parallel_size}, {"pipeline-parallel-size", v.pipeline_parallel_size},
          {"kv-cache-dtype", vllm_kv_cache_dtype_name(v.kv_cache_dtype)}, {"enforce-eager", v.enforce_eager},
          {"block-size", v.block_size}, {"version", vllm_version_text(v)}};
  if (v.disable_hybrid_kv_cache_manager) j["disable-hybrid-kv-cache-manager"] = true;
  if (v.enable_lora) {
    j.update({{"enable-lora", true}, {"max-loras", v.max_loras}, {"max-lora-rank", v.max_lora_rank},
              {"fully-sharded-loras", v.fully_sharded_loras}, {"lora-dtype", vllm_lora_dtype_name(v.lora_dtype)}});
  }
  if (v.speculative_method != VllmSpeculativeMethod::none) {
    j["speculative-config"] = {{"method", vllm_speculative_method_name(v.speculative_method)},
                               {"num_speculative_tokens", v.num_speculative_tokens}};
  }
  return j;
}

// engine "transformers": from_pretrained's and generate's arguments under their own names.
std::optional<Error> transformers_settings_from_json(const json& j, TransformersSettings& t) {
  if (!j.is_object()) return make_error("request.wrong_type", "transformers", "transformers: must be an object");
  Fields f{j, "transformers.", std::nullopt};
  f.only({"version", "attn_implementation", "device_map", "batch_size", "input_length", "max_new_tokens",
          "bnb_4bit_compute_dtype"});
  t.batch_size = f.integer("batch_size", t.batch_size, 1, kMaxSequences);
  t.input_length = f.integer("input_length", t.input_length, 1, kMaxContextTokens);
  t.max_new_tokens = f.integer("max_new_tokens", t.max_new_tokens, 1, kMaxContextTokens);
  const std::string attn = f.text("attn_implementation", transformers_attention_name(t.attn_implementation));
  if (!f.error && !parse_transformers_attention(attn, t.attn_implementation)) {
    f.fail("request.bad_value", "transformers.attn_implementation", "must be eager, sdpa or flash_attention_2 (got '" + attn + "')");
  }
  const std::string map = f.text("device_map", transformers_device_map_name(t.device_map));
  if (!f.error && !parse_transformers_device_map(map, t.device_map)) {
    f.fail("request.bad_value", "transformers.device_map",
           "must be none (one GPU), auto, balanced, balanced_low_0 or sequential (got '" + map + "')");
  }
  const std::string compute = f.text("bnb_4bit_compute_dtype", bnb_compute_dtype_name(t.bnb_4bit_compute_dtype));
  if (!f.error && !parse_bnb_compute_dtype(compute, t.bnb_4bit_compute_dtype)) {
    f.fail("request.bad_value", "transformers.bnb_4bit_compute_dtype", "must be float32, float16 or bfloat16 (got '" + compute + "')");
  }
  const std::string version = f.text("version", transformers_version_text(t));
  if (!f.error && !parse_transformers_version(version, t)) {
    f.fail("request.bad_value", "transformers.version", "'" + version + "' is not a transformers release such as 4.57.1");
  }
  return f.error;
}

json transformers_settings_to_json(const TransformersSettings& t) {
  return {{"version", transformers_version_text(t)}, {"attn_implementation", transformers_attention_name(t.attn_implementation)},
          {"device_map", transformers_device_map_name(t.device_map)}, {"batch_size", t.batch_size},
          {"input_length", t.input_length}, {"max_new_tokens", t.max_new_tokens},
          {"bnb_4bit_compute_dtype", bnb_compute_dtype_name(t.bnb_4bit_compute_dtype)}};
}

// "draft": {"model": ..., "weights": ...}: the draft model of speculative decoding, read as
// the request's own model and weights are (a preset, a config, a file's stored weights).
std::optional<Error> draft_from_json(const json& j, Request& request) {
  if (request.engine != Engine::llamacpp && request.engine != Engine::vllm) {
    return make_error("request.bad_value", "draft", "draft: a draft model (speculative decoding) is for engine \"llama.cpp\" or \"vllm\"");
  }
  if (!j.is_object()) return make_error("request.wrong_type", "draft", "draft: must be an object");
  Fields f{j, "draft.", std::nullopt};
  f.only({"model", "weights"});
  if (!f.error && !f.has("model")) f.fail("request.bad_value", "draft.model", "give the draft's model: a preset or a config");
  if (f.error) return f.error;
  json fields = {{"model", j.at("model")}};
  if (f.has("weights")) fields["weights"] = j.at("weights");
  auto draft = request_from_json(fields);
  if (!draft) {
    Error e = draft.error();
    e.field = "draft." + e.field;
    e.message = "draft." + e.message;
    return e;
  }
  request.draft = std::make_shared<const Request>(std::move(draft).value());
  return std::nullopt;
}

json draft_to_json(const Request& draft) {
  const json j = request_to_json(draft);
  return {{"model", j.at("model")}, {"weights", j.at("weights")}};
}


}  // namespace vramfit
