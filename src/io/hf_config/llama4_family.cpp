// Llama 4 (Llama4TextConfig, Llama4TextDecoderLayer): its MoE layers have num_local_experts experts
// of intermediate_size and one shared expert as wide (Llama4TextMoe; a router without bias), its
// dense layers intermediate_size_mlp; the L2 q/k norm has no weights. The RoPE layers
// (no_rope_layers[i] = 1; else all but every no_rope_layer_interval-th) attend within chunks of
// attention_chunk_size tokens, the NoPE layers to the whole context. The chunked layers' cache is
// sized as a sliding window of one chunk, as llama.cpp keeps it (llama_model::load_hparams,
// LLM_ARCH_LLAMA4: LLAMA_SWA_TYPE_CHUNKED, n_swa 8192, set_swa_pattern(4)).
#include "architectures.hpp"

#include <algorithm>

namespace vramfit {

namespace {

// Which layers a Llama 4 config gives experts: moe_layers, else every interleave_moe_layer_step-th
// layer from step - 1 (Llama4TextConfig.__post_init__). A list must be such a run, from its first
// layer to the last; vramfit keeps it as a period, an offset and the dense layers before it.
void read_moe_layers(ConfigReader& r, ModelSpec& s) {
  const int64_t step = r.integer("interleave_moe_layer_step", 1);
  if (step < 1 || step > (1 << 16)) {
    r.fail("interleave_moe_layer_step", "must be an integer from 1 to 65,536");
    return;
  }
  int64_t first = step - 1, period = step;
  if (r.has("moe_layers")) {
    const json& list = r.config.at("moe_layers");
    bool run = list.is_array() && !list.empty();
    for (size_t i = 0; run && i < list.size(); ++i) run = list[i].is_number_integer();
    if (run) {
      first = list[0].get<int64_t>();
      period = list.size() > 1 ? list[1].get<int64_t>() - first : std::max<int64_t>(1, s.layers - first);
      run = first >= 0 && period >= 1 && period <= (1 << 16);
      for (size_t i = 0; run && i < list.size(); ++i) run = list[i].get<int64_t>() == first + static_cast<int64_t>(i) * period;
      run = run && list.back().get<int64_t>() < s.layers && list.back().get<int64_t>() + period >= s.layers;
    }
    if (!run) {
      r.fail("moe_layers", "must list every n-th layer from one layer to the last (other lists are not counted yet)");
      return;
    }
  }
  s.first_dense_layers = first;
  s.moe_layer_period = period;
  s.moe_layer_offset = first % period;
}

// The chunked-attention layers, from layer_types, else no_rope_layers, else every layer but each
// no_rope_layer_interval-th.
void read_chunked_layers(ConfigReader& r, ModelSpec& s, HfConfigRead& out) {
  // attention_chunk_size null: every layer attends to the whole context.
  const bool unchunked = r.config.contains("attention_chunk_size") && r.config.at("attention_chunk_size").is_null();
  const int64_t chunk = unchunked ? 0 : r.integer("attention_chunk_size", 8192);
  if (chunk <= 0 || s.layers <= 0 || s.layers > (1 << 16)) return;
  const json& rope = r.has("no_rope_layers") ? r.config.at("no_rope_layers") : json::array();
  const int64_t interval = r.integer("no_rope_layer_interval", 4);
  s.sliding_layers.assign(static_cast<size_t>(s.layers), 0);
  const bool listed = read_layer_types(r, s, "layer_types", "chunked_attention");
  for (size_t i = 0; !listed && i < s.sliding_layers.size(); ++i) {
    if (rope.is_array() && !rope.empty()) {
      if (i >= rope.size() || !rope[i].is_number_integer()) { r.fail("no_rope_layers", "must give every layer a 0 or 1"); return; }
      s.sliding_layers[i] = rope[i].get<int64_t>() != 0;
    } else {
      s.sliding_layers[i] = interval <= 0 || (static_cast<int64_t>(i) + 1) % interval != 0;
    }
  }
  s.sliding_window = chunk;
  if (s.sliding_layer_count() == 0) { s.sliding_window = 0; s.sliding_layers.clear(); return; }
  s.chunked_attention = true;
  // vLLM keeps every token in every layer when its hybrid KV cache manager is off: with
  // --disable-hybrid-kv-cache-manager, and by default for chunked attention between its pull
  // requests 21761 and 29627 (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE).
  out.assumptions.push_back("attention_chunk_size " + std::to_string(chunk) + ": the " + std::to_string(s.sliding_layer_count()) +
                            " chunked-attention layers' cache is sized as a sliding window of one chunk, as llama.cpp and vLLM's "
                            "hybrid KV cache manager keep it; with that manager off, vLLM keeps every token.");
}

void read_llama4(ConfigReader& r, ModelSpec& s, HfConfigRead& out) {
  if (s.experts > 0) {
    s.moe_intermediate_size = s.shared_expert_intermediate_size = s.intermediate_size;
    s.shared_experts = 1;
    read_moe_layers(r, s);
  }
  s.intermediate_size = r.integer("intermediate_size_mlp", 16384);
  read_chunked_layers(r, s, out);
}

constexpr HfArchitecture kRows[] = {
    {.model_type = "llama4", .source = "models/llama4/configuration_llama4.py", .read_after_experts = read_llama4},
    {.model_type = "llama4_text", .source = "models/llama4/configuration_llama4.py", .read_after_experts = read_llama4},
};

}  // namespace

const std::span<const HfArchitecture> kLlama4Family = kRows;

}  // namespace vramfit
