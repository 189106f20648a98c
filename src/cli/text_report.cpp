#include "text_report.hpp"
#include "text_columns.hpp"

#include "core/fit.hpp"
#include "report/device_limit.hpp"
#include "report/engines.hpp"
#include "report/frameworks.hpp"
#include "text/messages.hpp"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

namespace vramfit {

namespace {

void print_item(std::ostream& out, const BreakdownItem& item, DisplayUnits units, int depth, Language language) {
  const std::string indent(static_cast<size_t>(2 + 2 * depth), ' ');
  out << indent << pad(translate_text(language, item.label), 34 - indent.size()) << pad_left(format_bytes(item.bytes, units), 12)
      << "\n";
  out << indent << "  = " << item.formula << "\n";
  for (const BreakdownItem& child : item.children) print_item(out, child, units, depth + 1, language);
}

// A report's words in the request's language ("language": "ar", --lang ar): the message
// catalog's, in logical order (a terminal with bidi support draws them right to left); names,
// numbers, units and formulas stay as they are.
struct ReportWords {
  explicit ReportWords(const Request& request) : language(parse_language(request.language).value_or(Language::english)) {}
  std::string operator()(const char* english) const { return std::string(translate(language, english)); }
  std::string text(const std::string& english) const { return translate_text(language, english); }  // run-time text
  Language language;
};

// A unified-memory device's limit, said under the verdict on it (report/device_limit).
void print_unified_memory(std::ostream& out, const Report& r, const ReportWords& t) {
  if (const std::string note = unified_memory_note(r); !note.empty()) out << "  " << t.text(note) << "\n";
}

std::string tokens(int64_t n, Language language = Language::english) {
  return with_thousands(n) + std::string(translate(language, n == 1 ? " token" : " tokens"));
}

// An engine that starts: what is left on its fullest GPU, and whether the margin the user keeps
// (margin_fraction x what the engine uses there) fits in it. Said apart from the start itself.
std::string headroom_sentence(const ReportWords& t, const std::string& where, int64_t uses, int64_t capacity, double margin_fraction,
                              DisplayUnits u) {
  const int64_t margin = safety_margin_bytes(uses, margin_fraction);
  if (uses > capacity) return t("no headroom: ") + format_bytes(uses - capacity, u) + " " + t("over on") + " " + where;
  return t("headroom ") + format_bytes(capacity - uses, u) + " " + t("on") + " " + where + ", " +
         t(uses + margin <= capacity ? "the margin kept" : "less than the margin") + " (" +
         std::to_string(static_cast<int>(margin_fraction * 100 + 0.5)) + "%, " + format_bytes(margin, u) + ")";
}

}  // namespace

void print_training_report(std::ostream& out, const Report& r) {
  const DisplayUnits u = r.request.units;
  const Request& q = r.request;
  const ReportWords t(q);
  const Language language = t.language;
  if (q.has_network) {
    const NetworkSettings& ns = q.network_settings;
    out << "vramfit train: " << r.model_name << " (" << with_thousands(r.network.parameters) << t(" parameters), ")
        << element_type_id(q.network.dtype) << t(", batch ") << with_thousands(ns.batch) << ", "
        << optimizer_label(ns.optimizer) << t(", activations: ")
        << t(ns.rule == ActivationRule::autograd ? "autograd (what PyTorch saves)" : "layer outputs (the articles' rule)")
        << "\n\n";
    // ("layer " with its space: "layer" alone is llama.cpp's -sm value, drawn as it is in the app)
    out << "  " << pad(t("layer "), 18) << pad(t("type"), 15) << pad(t("output shape"), 22) << pad_left(t("parameters"), 14)
        << pad_left(t("activations"), 14) << "\n";
    for (const LayerRow& row : r.network.layers) {
      out << "  " << pad(row.name, 18) << pad(row.type, 15) << pad(shape_text(row.output_shape), 22) << pad_left(with_thousands(row.parameters), 14)
          << pad_left(format_bytes(row.activation_bytes, u), 14) << "\n";
    }
    out << "\n";
  } else if (q.framework == TrainingFramework::megatron) {
    const MegatronSettings& s = q.megatron;
    out << "vramfit train: " << r.model_name << " (" << with_thousands(r.prepared.weights.parameters) << t(" parameters), ")
        << "Megatron-LM TP " << s.tensor_model_parallel_size << " x PP " << s.pipeline_model_parallel_size << " x CP "
        << s.context_parallel_size << " x DP " << r.megatron.data_parallel_size << t(" on ") << s.world_size << t(" GPUs")
        << t(", micro-batch ") << s.micro_batch_size << " x " << with_thousands(s.seq_length) << t(" tokens") << ", "
        << r.megatron.num_microbatches << t(" micro-batches a step") << "\n\n";
  } else {
    const TrainingSettings& s = q.training;
    out << "vramfit train: " << r.model_name << " (" << with_thousands(r.training.parameters) << t(" parameters, ")
        << with_thousands(r.training.trainable_parameters) << t(" trainable), ") << fine_tuning_id(s.method) << ", "
        << recipe_id(s.recipe) << ", " << optimizer_label(s.optimizer) << t(", micro-batch ") << s.micro_batch << " x "
        << with_thousands(s.sequence_length) << t(" tokens")
        << (s.sharding != Sharding::none ? ", " + std::string(sharding_id(s.sharding)) + t(" over ") + std::to_string(s.gpu_count) + t(" GPUs") : "")
        << "\n\n";
  }
  for (const BreakdownItem& item : r.breakdown.items) print_item(out, item, u, 0, language);
  const bool megatron = !q.has_network && q.framework == TrainingFramework::megatron;
  const bool sharded = megatron || (!q.has_network && q.training.sharding != Sharding::none && q.training.gpu_count > 1);
  out << "  " << pad(t(sharded ? "Total per GPU" : "Total"), 32) << pad_left(format_bytes(r.breakdown.total_bytes, u), 12)
      << "   (" << with_thousands(r.breakdown.total_bytes) << " B)\n\n";
  const TrainingFit& f = r.training_fit;
  out << t(f.fits ? "FITS" : "DOES NOT FIT") << t(" on ") << r.gpu.name << " (" << format_bytes(f.capacity_bytes, u) << t(" usable") << "): "
      << (f.fits ? t("headroom ") + format_bytes(f.headroom_bytes, u) : t("short by ") + format_bytes(-f.headroom_bytes, u)) << "\n";
  print_unified_memory(out, r, t);
  out << t(q.has_network ? "  largest batch that fits: " : "  largest micro-batch that fits: ") << with_thousands(f.max_batch) << "\n";
  if (!q.has_network) {
    out << t("  longest sequence that fits: ") << with_thousands(f.max_sequence_length) << t(" tokens") << "\n";
    if (megatron) {
      out << t("  fewest GPUs (data-parallel ranks added): ")
          << (f.min_gpus > 0 ? std::to_string(f.min_gpus) : t("more than ") + std::to_string(kMaxGpuCount)) << "\n";
    } else if (q.training.sharding != Sharding::none) {
      out << t("  fewest GPUs (") << sharding_id(q.training.sharding) << "): "
          << (f.min_gpus > 0 ? std::to_string(f.min_gpus) : t("more than ") + std::to_string(kMaxGpuCount)) << "\n";
    }
  }
  for (const std::string& w : r.breakdown.warnings) out << t("warning: ") << translate_text(language, w) << "\n";
  for (const std::string& a : r.breakdown.assumptions) out << t("assumed: ") << translate_text(language, a) << "\n";
  if (megatron) {  // each rank type, as Megatron's report_theoretical_memory prints the first
    out << "\n" << t("Per rank (Megatron's own line):") << "\n";
    for (const MegatronRank& rank : r.megatron.ranks) {
      out << "  " << translate_text(language, megatron_rank_label(rank)) << ": " << megatron_printed_line(rank) << "\n";
    }
  }
  if (!r.gpus.empty()) {
    out << "\n  " << pad(t("GPU"), 30) << pad_left(t("usable"), 12) << pad_left(t("needed"), 12) << pad_left(t("headroom"), 12)
        << pad_left(t("max batch"), 11) << "  " << t("verdict") << "\n";
    for (const GpuVerdict& v : r.gpus) {
      const TrainingFit& g = v.training_fit;
      std::string verdict = g.fits ? t("fits") : (g.min_gpus > 0 ? t("needs ") + std::to_string(g.min_gpus) : t("no"));
      out << "  " << pad(v.gpu->name, 30) << pad_left(format_bytes(g.capacity_bytes, u), 12)
          << pad_left(format_bytes(g.required_bytes, u), 12) << pad_left(format_bytes(g.headroom_bytes, u), 12)
          << pad_left(with_thousands(g.max_batch), 11) << "  " << verdict << "\n";
    }
  }
}

// DeepSpeed ZeRO: the rank's terms and fit as any training answer, the host memory the offloads
// take, then DeepSpeed's own estimator table for this model and layout, this config's row marked.
void print_deepspeed_report(std::ostream& out, const DeepSpeedReport& d) {
  print_training_report(out, d.report);
  const DisplayUnits u = d.report.request.units;
  const DeepSpeedConfig& c = d.config.config;
  out << "\nDeepSpeed " << deepspeed_version_text(d.version) << ", ZeRO-" << c.stage << ", offload_optimizer "
      << deepspeed_offload_name(c.offload_optimizer) << ", offload_param " << deepspeed_offload_name(c.offload_param) << ": "
      << d.nodes << (d.nodes > 1 ? " nodes" : " node") << " x " << d.gpus_per_node << " GPUs\n";
  const ReportWords t(d.report.request);
  out << "  see_memory_usage: " << deepspeed_printed_line(d.rank) << "\n";
  if (d.host_bytes_per_node > 0) out << t.text("  CPU memory for the offloads: " + format_bytes(d.host_bytes_per_node, u) + " a node") << "\n";
  if (d.nvme_bytes_per_node > 0) out << t.text("  NVMe for the offloads: " + format_bytes(d.nvme_bytes_per_node, u) + " a node") << "\n";
  out << "\n" << t("DeepSpeed's own estimate of the model states (parameters, gradients and optimizer states only):") << "\n"
      << (d.estimate.stage == 3 ? "stage3.py estimate_zero3" : "stage_1_and_2.py estimate_zero2") << "_model_states_mem_needs_all_live:\n";
  const std::vector<std::string> lines = deepspeed_estimate_lines(d.estimate);
  const size_t first_row = lines.size() - d.estimate.rows.size();
  for (size_t i = 0; i < lines.size(); ++i) {  // DeepSpeed's own lines, as it prints them
    out << lines[i] << (i >= first_row && i - first_row == d.estimate_row ? t("  <- this config") : "") << "\n";
  }
}

// torchtune: the step's peak and fit as any training answer, then the line torchtune's metric log
// would show for it and the keys read from the tune line.
void print_torchtune_report(std::ostream& out, const TorchtuneReport& r) {
  print_training_report(out, r.report);
  const ReportWords t(r.report.request);
  const TorchtuneCommand& c = r.command;
  out << "\ntorchtune " << (c.recipe.empty() ? std::string("recipe") : c.recipe) << (c.config.empty() ? "" : " --config " + c.config) << ":\n";
  out << "  " << torchtune_printed_line(r.memory) << t("   (log_peak_memory_stats: torch.cuda.max_memory_allocated, GiB)") << "\n";
  if (!c.skipped.empty()) {
    std::string skipped;
    for (const std::string& key : c.skipped) skipped += (skipped.empty() ? "" : ", ") + key;
    out << t.text("  keys that move no memory vramfit models: " + skipped) << "\n";
  }
}

// LLaMA-Factory: the step as any training answer, then the line its loader logs for the model and
// the keys read from the config.
void print_llamafactory_report(std::ostream& out, const LlamaFactoryReport& r) {
  print_training_report(out, r.report);
  const ReportWords t(r.report.request);
  out << "\nLLaMA-Factory finetuning_type " << llamafactory_finetuning_name(r.config.settings.finetuning_type) << ":\n";
  if (!r.memory.lora_modules.empty()) {
    std::string modules;
    for (const std::string& m : r.memory.lora_modules) modules += (modules.empty() ? "" : ",") + m;
    out << "  Found linear modules: " << modules << "\n";
  }
  out << "  " << llamafactory_param_stats(r.memory) << "\n";
  if (!r.config.skipped.empty()) {
    std::string skipped;
    for (const std::string& key : r.config.skipped) skipped += (skipped.empty() ? "" : ", ") + key;
    out << t.text("  keys that move no memory vramfit models: " + skipped) << "\n";
  }
}

// engine "llama.cpp": its buffers on each device, as llama.cpp prints them, and the fit.
void print_llamacpp_report(std::ostream& out, const Report& r) {
  const DisplayUnits u = r.request.units;
  const LlamaCppMemory& m = r.engine->llamacpp;
  const LlamaCppFit& f = r.engine->llamacpp_fit;
  const LlamaCppSettings& l = r.request.llamacpp;
  const ReportWords t(r.request);
  out << "vramfit: " << r.model_name << t(" on llama.cpp, ") << r.request.weight_format << ", -c " << with_thousands(m.n_ctx)
      << t(" cells (-np ") << l.parallel << "), -ub " << m.ubatch_tokens << ", K " << l.cache_type_k << " / V "
      << l.cache_type_v << t(m.flash_attention ? ", flash attention on" : ", flash attention off") << "\n";
  // Which llama.cpp: what its program and build reserve for the logits (llamacpp_reserved_outputs).
  out << "  " << l.tool << (l.build > 0 ? t(", build ") + std::to_string(l.build) : t(", the newest build"))
      << t(": the prompt graph reserves logits for ") << m.reserved_outputs
      << t(" output(s) (every token of -ub before build 9460 and in programs other than llama-server and llama-cli)") << "\n";
  // With a draft model (-md) its buffers, all together, have a column of their own.
  const LlamaCppMemory& d = r.engine->llamacpp_draft;
  const bool draft = !r.engine->draft_name.empty();
  if (draft) {
    out << t("  draft (-md): ") << r.engine->draft_name << ", " << r.request.draft->weight_format << ", "
        << with_thousands(r.engine->draft_parameters) << t(" parameters; -ngld ")
        << (l.gpu_layers_draft < 0 ? std::string("all") : std::to_string(l.gpu_layers_draft)) << ", K " << l.cache_type_k_draft
        << " / V " << l.cache_type_v_draft << ", " << with_thousands(d.n_ctx) << t(" cells") << "\n";
  }
  if (l.has_mmproj) {
    out << "  mmproj (--mmproj): " << l.mmproj.file << " (" << l.mmproj.projector << t("): weights ")
        << format_bytes(l.mmproj.weight_bytes, u) << t(" + one image's graph ") << format_bytes(m.mmproj_compute, u)
        << t(" (estimated) on ") << (l.no_mmproj_offload || m.gpus.empty() ? t("the CPU") : m.gpus.front().device) << "\n";
  }
  out << "\n  " << pad(t("device"), 26) << pad_left(t("layers"), 8) << pad_left(t("model"), 12) << pad_left(m.rs_cells > 0 ? "KV+RS" : "KV", 12)
      << pad_left(t("compute"), 12) << (draft ? pad_left(t("draft"), 12) : std::string()) << pad_left(t("uses"), 12)
      << pad_left(t("margin"), 12) << pad_left(t("usable"), 12) << "\n";
  const std::string fits = "  " + t("fits"), does_not_fit = "  " + t("DOES NOT FIT");
  for (size_t g = 0; g < m.gpus.size(); ++g) {
    const LlamaCppBuffers& b = m.gpus[g];
    out << "  " << pad(b.device + " " + r.engine->devices[g].name, 26)
        << pad_left(std::to_string(b.layers) + (b.output_layer ? "+out" : ""), 8) << pad_left(format_bytes(b.model, u), 12)
        << pad_left(format_bytes(b.kv + b.rs, u), 12) << pad_left(format_bytes(b.compute, u), 12)
        << (draft ? pad_left(format_bytes(d.gpus[g].total(), u), 12) : std::string())
        << pad_left(format_bytes(f.gpu_use[g], u), 12) << pad_left(format_bytes(f.gpu_margin[g], u), 12)
        << pad_left(format_bytes(f.gpu_capacity[g], u), 12)
        << "  " << t(!f.gpu_starts(g) ? "DOES NOT START" : f.gpu_keeps_margin(g) ? "starts, margin kept" : "starts, margin not kept")
        << "\n";
  }
  out << "  " << pad(t("host (CPU)"), 26) << pad_left(std::to_string(m.host.layers) + (m.host.output_layer ? "+out" : ""), 8)
      << pad_left(format_bytes(m.host.model, u), 12) << pad_left(format_bytes(m.host.kv + m.host.rs, u), 12)
      << pad_left(format_bytes(m.host.compute + m.host.output, u), 12)
      << (draft ? pad_left(format_bytes(d.host.total(), u), 12) : std::string()) << pad_left(format_bytes(f.host_need, u), 12)
      << pad_left("", 12)
      << (r.request.host_memory_bytes > 0 ? pad_left(format_bytes(r.request.host_memory_bytes, u), 12) +
                                                (f.host_need <= r.request.host_memory_bytes ? fits : does_not_fit)
                                          : t("  (host RAM not given: --host-ram-gib)"))
      << "\n\n";
  const int margin_percent = static_cast<int>(f.margin_fraction * 100 + 0.5);
  out << "  uses per GPU = buffers + " << format_bytes(r.request.settings.runtime_bytes, u)
      << " runtime (CUDA context, cuBLAS; assumed): llama.cpp starts when each GPU holds it\n"
      << "  margin = " << margin_percent << "% of that, the reserve you keep free (--margin); not part of llama.cpp's start\n\n";
  out << t("  what llama.cpp will print:") << "\n";
  for (const std::string& line : llamacpp_log_lines(m)) out << "    " << line << "\n";
  if (draft) {
    out << t("  and for the draft model:") << "\n";
    for (const std::string& line : llamacpp_log_lines(d)) out << "    " << line << "\n";
  }
  out << "\n" << t(f.fits ? "STARTS" : "DOES NOT START") << t(" on ") << m.gpus.size() << t(m.gpus.size() == 1 ? " GPU" : " GPUs");
  // The headroom of the fullest GPU (the least left), said apart from the start.
  const size_t tightest = fullest_device(m.gpus.size(), [&](size_t g) { return std::optional<int64_t>(f.gpu_capacity[g] - f.gpu_use[g]); });
  if (f.fits && !m.gpus.empty()) {
    out << ": " << headroom_sentence(t, m.gpus[tightest].device, f.gpu_use[tightest], f.gpu_capacity[tightest], f.margin_fraction, u);
  }
  out << "\n";
  print_unified_memory(out, r, t);
  auto with_margin = [&](int64_t value, int64_t kept, const std::string& text) {
    return value == kept || margin_percent == 0 ? text : text + "; " + t("with the margin kept: ") + with_thousands(kept);
  };
  out << t("  most GPU layers that start (-ngl): ")
      << with_margin(f.max_gpu_layers, f.max_gpu_layers_with_margin, std::to_string(f.max_gpu_layers) + t(" of ") + std::to_string(m.layer_slots))
      << "\n";
  out << t("  longest context that starts (-c): ")
      << with_margin(f.max_ctx_size, f.max_ctx_size_with_margin,
                     f.max_ctx_size > 0 ? with_thousands(f.max_ctx_size) + t(" cells") : std::string("none"))
      << "\n";
  const LlamaCppDecodeBound& speed = r.engine->llamacpp_decode;
  if (speed.tokens_per_second_empty > 0) {
    char line[200];
    std::snprintf(line, sizeof line, t("  decode speed, an upper bound: %.1f tokens/s (empty cache) .. %.1f (full cache)").c_str(),
                  speed.tokens_per_second_empty, speed.tokens_per_second_full);
    out << line << "\n    = 1 / sum over devices of bytes read per token / bandwidth (host: " << r.request.host_bandwidth_gbs
        << " GB/s); real runs are slower (kernels, launches, sampling: not modelled)" << "\n";
  }
  const LlamaCppPrefillBound& prefill = r.engine->llamacpp_prefill;
  if (prefill.tokens_per_second > 0) {
    char line[240];
    std::snprintf(line, sizeof line, t("  prompt speed, an upper bound: %.0f tokens/s over a %s-token prompt").c_str(),
                  prefill.tokens_per_second, with_thousands(prefill.prompt_tokens).c_str());
    out << line << "\n    = 1 / sum over GPUs of FLOPs per token / the " << r.engine->prefill_rate << " tensor rate"
        << (prefill.host_layers_left_out > 0 ? "; the host's " + std::to_string(prefill.host_layers_left_out) +
                                                   " layers left out (their throughput is not known)"
                                             : std::string())
        << "\n";
  } else {
    out << t("  prompt speed: no bound (the ") << r.engine->prefill_rate << t(" rate of a GPU is not in the catalog)") << "\n";
  }
}

// engine "vllm": each rank's budget as vLLM logs it, the KV pool, and whether vLLM starts.
void print_vllm_report(std::ostream& out, const Report& r) {
  const DisplayUnits u = r.request.units;
  const VllmMemory& m = r.engine->vllm;
  const VllmSettings& v = r.request.vllm;
  const ReportWords t(r.request);
  char text[240];
  std::snprintf(text, sizeof text, "%.2f", v.gpu_memory_utilization);
  out << "vramfit: " << r.model_name << t(" on vLLM, ") << (r.request.has_stored_weights ? t("stored") : r.request.weight_format)
      << t(" weights") << ", --max-model-len " << with_thousands(m.max_model_len) << ", --max-num-seqs " << m.max_num_seqs
      << ", --max-num-batched-tokens " << with_thousands(m.max_num_batched_tokens) << ", -tp " << v.tensor_parallel_size
      << " -pp " << v.pipeline_parallel_size << ", --gpu-memory-utilization " << text << ", --kv-cache-dtype "
      << vllm_kv_cache_dtype_name(v.kv_cache_dtype) << (v.disable_hybrid_kv_cache_manager ? ", --disable-hybrid-kv-cache-manager" : "")
      << ", vLLM " << vllm_version_text(v) << "\n";
  if (v.speculative_method != VllmSpeculativeMethod::none) {
    out << "  --speculative-config: " << vllm_speculative_method_name(v.speculative_method) << ", " << v.num_speculative_tokens
        << t(" tokens");
    if (!r.engine->draft_name.empty()) {
      const VllmRank& k = m.ranks.back();
      out << t("; draft ") << r.engine->draft_name << " (" << r.request.draft->weight_format << ", "
          << with_thousands(r.engine->draft_parameters) << t(" parameters): ") << format_bytes(k.draft_weights, u)
          << t(" of the weights on each rank, ") << format_bytes(k.draft_page_bytes / std::max<int64_t>(1, v.block_size), u)
          << t(" per token in the KV pool");
    }
    out << "\n";
  }
  out << "\n  " << pad(t("rank / GPU"), 26) << pad_left(t("budget"), 11) << pad_left(t("weights"), 11) << pad_left(t("activ."), 11)
      << pad_left("non-torch", 11) << pad_left("KV", 11) << pad_left(t("outside"), 11) << pad_left(t("GPU total"), 11) << "\n";
  const double margin = r.request.settings.margin_fraction;
  for (size_t i = 0; i < m.ranks.size(); ++i) {
    const VllmRank& k = m.ranks[i];
    const bool keeps_margin = k.uses() + safety_margin_bytes(k.uses(), margin) <= k.total;
    out << "  " << pad(std::to_string(i) + " " + r.engine->devices[i].name, 26) << pad_left(format_bytes(k.requested, u), 11)
        << pad_left(format_bytes(k.weights, u), 11) << pad_left(format_bytes(k.activation_peak, u), 11)
        << pad_left(format_bytes(k.non_torch, u), 11) << pad_left(format_bytes(k.kv_available, u), 11)
        << pad_left(format_bytes(k.outside_budget, u), 11) << pad_left(format_bytes(k.total, u), 11) << "  "
        << t(!k.starts ? "DOES NOT START" : k.beyond_total ? "starts, over the GPU after it" : keeps_margin ? "starts, margin kept" : "starts, margin not kept")
        << "\n";
  }
  const VllmRank& k0 = m.ranks.front();
  out << "\n" << "  budget = GPU total (as CUDA reports it) x --gpu-memory-utilization; KV = budget - weights - activation peak - non-torch" << "\n";
  out << "  activation peak = max(forward pass over " << with_thousands(m.max_num_batched_tokens) << " tokens: "
      << format_bytes(k0.forward_peak, u) << ", sampler over " << m.sampler_rows << " rows of logits: "
      << format_bytes(m.ranks.back().sampler_peak, u) << ")\n";
  if (v.enable_lora) {
    out << t("  weights include the LoRA slots (--enable-lora): --max-loras ") << v.max_loras << " x --max-lora-rank "
        << v.max_lora_rank << t(" over every linear layer") << (v.fully_sharded_loras ? t(", fully sharded") : "") << ": "
        << format_bytes(k0.lora, u) << t(" on rank 0") << "\n";
  }
  out << t(v.enforce_eager ? "  outside the budget: CUDA context (assumed)" : "  outside the budget: CUDA context and CUDA graphs (assumed)")
      << "\n\n";
  out << t("  what vLLM will print:") << "\n";
  for (const std::string& line : vllm_log_lines(m, v)) out << "    " << line << "\n";
  out << "\n" << t(m.fits ? "STARTS" : "DOES NOT START") << t(" on ") << m.ranks.size() << t(m.ranks.size() == 1 ? " GPU" : " GPUs") << "\n";
  if (!m.fits) out << "  vLLM: " << m.refusal << "\n";  // vLLM's own words, as it prints them
  print_unified_memory(out, r, t);
  if (!m.warning.empty()) out << t("  warning: ") << t.text(m.warning) << "\n";
  if (m.fits) {  // what is left on the fullest GPU beside the budget and what vLLM uses beyond it
    const size_t fullest = fullest_device(m.ranks.size(), [&](size_t i) { return std::optional<int64_t>(m.ranks[i].total - m.ranks[i].uses()); });
    out << "  " << headroom_sentence(t, "GPU " + std::to_string(fullest), m.ranks[fullest].uses(), m.ranks[fullest].total, margin, u)
        << "\n";
  }
  out << t("  KV cache: ") << with_thousands(m.kv_tokens) << t(" tokens (") << with_thousands(m.num_gpu_blocks) << t(" blocks of ")
      << v.block_size << ")\n";
  std::snprintf(text, sizeof text, "%.2f", m.max_concurrency);
  out << t("  requests of ") << with_thousands(m.max_model_len) << t(" tokens at once: ") << text << "\n";
  out << t("  longest --max-model-len this pool holds: ") << with_thousands(m.longest_model_len) << "\n";
  std::snprintf(text, sizeof text, "%.3f", m.min_utilization);
  out << t("  smallest --gpu-memory-utilization for one such request: ") << text << "\n";
  if (r.engine->vllm_decode.tokens_per_second_empty > 0) {
    std::snprintf(text, sizeof text, t("  decode speed, an upper bound: %.1f tokens/s (empty cache) .. %.1f (full max_model_len cache)").c_str(),
                  r.engine->vllm_decode.tokens_per_second_empty, r.engine->vllm_decode.tokens_per_second_full);
    out << text << "\n    = 1 / sum over pipeline stages of (slowest rank's bytes read per token / its bandwidth); real runs are slower" << "\n";
  }
  if (r.engine->vllm_prefill_tokens_per_second > 0) {
    std::snprintf(text, sizeof text, t("  prompt speed, an upper bound: %.0f tokens/s over one %s-token prompt").c_str(),
                  r.engine->vllm_prefill_tokens_per_second, with_thousands(m.max_model_len).c_str());
    out << text << "\n    = 1 / sum over stages of FLOPs per token / (tp x the slowest rank's " << r.engine->prefill_rate
        << " tensor rate)" << "\n";
  } else {
    out << t("  prompt speed: no bound (the tensor rate of these weights' matmuls on a GPU is not in the catalog)") << "\n";
  }
  for (const std::string& a : r.engine->assumptions) out << t("assumed: ") << t.text(a) << "\n";
}

// engine "transformers": accelerate's device map, generate's peak on each GPU, the host.
void print_transformers_report(std::ostream& out, const Report& r) {
  const DisplayUnits u = r.request.units;
  const TransformersMemory& m = r.engine->transformers;
  const TransformersSettings& s = r.request.transformers;
  const ReportWords t(r.request);
  out << "vramfit: " << r.model_name << t(" in Transformers ") << transformers_version_text(s) << ", " << r.request.weight_format
      << t(" weights") << ", device_map=" << transformers_device_map_name(s.device_map) << ", attn_implementation="
      << transformers_attention_name(s.attn_implementation) << t(", generate(batch ") << s.batch_size << " x "
      << with_thousands(s.input_length) << t(" prompt tokens") << ", max_new_tokens=" << with_thousands(s.max_new_tokens) << ")\n\n";
  out << "  " << pad("GPU", 26) << pad_left(t("layers"), 9) << pad_left(t("weights"), 11) << pad_left("KV", 11)
      << pad_left(t("prefill"), 11) << pad_left(t("decode"), 11) << pad_left(t("peak"), 11) << pad_left(t("+context"), 11)
      << pad_left(t("GPU total"), 11) << "\n";
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const TransformersDevice& d = m.gpus[i];
    const Gpu& gpu = r.engine->devices[i];
    const int64_t total = gpu.cuda_visible_bytes();
    out << "  " << pad(std::to_string(i) + " " + gpu.name, 26)
        << pad_left(d.layers() > 0 ? std::to_string(d.first_layer) + "-" + std::to_string(d.last_layer) : "-", 9)
        << pad_left(format_bytes(d.weights + d.buffers, u), 11) << pad_left(format_bytes(d.kv, u), 11)
        << pad_left(format_bytes(d.prefill_peak, u), 11) << pad_left(format_bytes(d.decode_peak, u), 11)
        << pad_left(format_bytes(d.peak(), u), 11) << pad_left(format_bytes(d.peak() + r.request.settings.runtime_bytes, u), 11)
        << pad_left(format_bytes(total, u), 11) << "\n";
  }
  if (m.host.weights > 0) {
    out << "  " << pad(t("host (device_map \"cpu\")"), 26)
        << pad_left(m.host.layers() > 0 ? std::to_string(m.host.first_layer) + "-" + std::to_string(m.host.last_layer) : "-", 9)
        << pad_left(format_bytes(m.host.weights + m.host.buffers, u), 11) << "\n";
  }
  out << "\n" << "  peak = max(prefill: weights + KV of the prompt + the largest of one layer's temporaries and the logits," << "\n"
      << "              decode: weights + KV of " << with_thousands(s.input_length + s.max_new_tokens - 1) << t(" tokens")
      << (m.generation.legacy_cache ? " + the previous step's cache (tuple caches)" : " + one layer's previous cache (DynamicCache)")
      << " + logits)" << "\n";
  out << t("  KV per token of one sequence: ") << format_bytes(m.kv_bytes_per_token, u) << "\n\n";
  out << t("  what you can print to compare:") << "\n";
  for (const std::string& line : transformers_log_lines(m)) out << "    " << line << "\n";
  out << "\n" << t(m.fits ? "FITS" : "DOES NOT FIT") << t(" on ") << m.gpus.size() << t(m.gpus.size() == 1 ? " GPU" : " GPUs")
      << (m.host.weights > 0 ? t(" and the host") : "") << "\n";
  if (!m.fits) out << "  " << t.text(m.refusal) << "\n";
  print_unified_memory(out, r, t);
  if (m.fits && !m.gpus.empty()) {  // the fullest GPU at its peak, with the CUDA context
    const size_t fullest = fullest_device(m.gpus.size(), [&](size_t i) {
      return std::optional<int64_t>(r.engine->devices[i].cuda_visible_bytes() - m.gpus[i].peak() - r.request.settings.runtime_bytes);
    });
    out << "  " << headroom_sentence(t, "cuda:" + std::to_string(fullest), m.gpus[fullest].peak() + r.request.settings.runtime_bytes,
                                     r.engine->devices[fullest].cuda_visible_bytes(), r.request.settings.margin_fraction, u)
        << "\n";
  }
  out << t("  largest batch: ") << r.engine->transformers_fit.max_batch_size << t("; most new tokens at batch ") << s.batch_size
      << ": " << with_thousands(r.engine->transformers_fit.max_new_tokens) << "\n";
  if (r.engine->transformers_decode_tokens_per_second > 0) {
    char text[200];
    std::snprintf(text, sizeof text, t("  decode speed, an upper bound: %.1f tokens/s").c_str(), r.engine->transformers_decode_tokens_per_second);
    out << text << "\n    = 1 / sum of (each device's weights / its bandwidth; offloaded weights at the host's); real runs are slower" << "\n";
  }
  if (r.engine->transformers_prefill_tokens_per_second > 0) {
    char text[240];
    std::snprintf(text, sizeof text, t("  prompt speed, an upper bound: %.0f tokens/s over one %s-token prompt").c_str(),
                  r.engine->transformers_prefill_tokens_per_second, with_thousands(s.input_length).c_str());
    out << text << "\n    = 1 / sum over GPUs of FLOPs per token of its layers / its " << r.engine->prefill_rate << " rate" << "\n";
  } else {
    out << t("  prompt speed: no bound (a GPU's BF16 rate is not in the catalog)") << "\n";
  }
  for (const std::string& a : r.engine->assumptions) out << t("assumed: ") << t.text(a) << "\n";
}

void print_report(std::ostream& out, const Report& r) {
  if (r.request.mode == Mode::training) { print_training_report(out, r); return; }
  if (r.request.engine == Engine::llamacpp) { print_llamacpp_report(out, r); return; }
  if (r.request.engine == Engine::vllm) { print_vllm_report(out, r); return; }
  if (r.request.engine == Engine::transformers) { print_transformers_report(out, r); return; }
  const DisplayUnits u = r.request.units;
  const InferenceSettings& s = r.request.settings;
  const ReportWords t(r.request);
  const Language language = t.language;
  out << "vramfit: " << r.model_name << " (" << with_thousands(r.prepared.weights.parameters) << t(" parameters), ")
      << (r.request.has_stored_weights ? t("stored") : r.request.weight_format) << t(" weights, ")
      << (r.prepared.model.is_recurrent() ? t("fp32 recurrent state") : r.prepared.kv_type.label + t(" KV cache")) << t(", ")
      << tokens(s.context_tokens, language) << " x " << s.concurrent_sequences
      << t(s.concurrent_sequences == 1 ? " sequence" : " sequences") << "\n\n";
  if (r.request.has_stored_weights) {
    const StoredWeights& w = r.request.stored_weights;
    out << "  from " << w.file << " (" << w.source << "):\n";
    for (const std::string& line : w.read) out << "    read:    " << line << "\n";
    for (const std::string& line : w.derived) out << "    derived: " << line << "\n";
    out << "\n";
  }
  for (const BreakdownItem& item : r.breakdown.items) print_item(out, item, u, 0, language);
  out << "  " << pad(t(s.gpu_count > 1 ? "Total per GPU" : "Total"), 32) << pad_left(format_bytes(r.memory.total, u), 12)
      << "   (" << with_thousands(r.memory.total) << " B)\n\n";

  const FitResult& f = r.fit;
  const std::string gpu = std::to_string(s.gpu_count) + " x " + r.gpu.name;
  out << t(f.fits ? "FITS" : "DOES NOT FIT") << t(" on ") << gpu << " (" << format_bytes(f.capacity_bytes, u)
      << t(s.gpu_count > 1 ? " usable each" : " usable") << "): "
      << (f.fits ? t("headroom ") + format_bytes(f.headroom_bytes, u)
                 : t("short by ") + format_bytes(-f.headroom_bytes, u))
      << "\n";
  print_unified_memory(out, r, t);
  if (f.max_context_tokens > 0) {
    out << t("  longest context that fits: ") << tokens(f.max_context_tokens, language)
        << (f.context_limited_by_model ? t(" (the model's own limit)")
            : r.prepared.model.is_recurrent() ? t(" (vramfit's search limit: the recurrent state does not grow with the context)")
                                              : "") << "\n";
  } else {
    out << t("  longest context that fits: none (the rest does not fit even without a KV cache)") << "\n";
  }
  out << t("  most sequences at ") << tokens(s.context_tokens, language) << ": " << with_thousands(f.max_concurrent_sequences) << "\n";
  out << t("  fewest ") << r.gpu.name << t(" GPUs (tensor parallel): ")
      << (f.min_gpus > 0 ? std::to_string(f.min_gpus) : t("more than ") + std::to_string(kMaxGpuCount)) << "\n";
  for (const std::string& w : r.breakdown.warnings) out << t("warning: ") << translate_text(language, w) << "\n";
  for (const std::string& a : r.breakdown.assumptions) out << t("assumed: ") << translate_text(language, a) << "\n";

  if (!r.gpus.empty()) {
    out << "\n  " << pad(t("GPU"), 30) << pad_left(t("usable"), 12) << pad_left(t("needed"), 12) << pad_left(t("headroom"), 12)
        << "  " << t("verdict") << "\n";
    for (const GpuVerdict& v : r.gpus) {
      std::string verdict = v.fit.fits ? t("fits") : (v.fit.min_gpus > 0 ? t("needs ") + std::to_string(v.fit.min_gpus) : t("no"));
      out << "  " << pad(v.gpu->name, 30) << pad_left(format_bytes(v.fit.capacity_bytes, u), 12)
          << pad_left(format_bytes(v.fit.required_bytes, u), 12) << pad_left(format_bytes(v.fit.headroom_bytes, u), 12)
          << "  " << verdict << "\n";
    }
  }
}

void print_gpus(std::ostream& out, const Catalog& catalog, DisplayUnits units) {
  out << pad("id", 20) << pad("name", 30) << pad_left("memory", 12) << pad_left("usable", 12) << pad_left("GB/s", 8)
      << "  basis\n";
  for (const Gpu& g : catalog.gpus) {
    std::ostringstream bw;
    bw << static_cast<int64_t>(g.bandwidth_gbs);
    out << pad(g.id, 20) << pad(g.name, 30) << pad_left(format_bytes(g.total_bytes, units), 12)
        << pad_left(format_bytes(g.usable_bytes(), units), 12) << pad_left(bw.str(), 8) << "  " << g.basis << "\n";
  }
}

void print_models(std::ostream& out, const Catalog& catalog) {
  out << pad("id", 18) << pad("name", 30) << pad_left("parameters", 18) << pad_left("layers", 8)
      << pad_left("KV heads", 10) << "\n";
  for (const ModelPreset& m : catalog.models) {
    out << pad(m.id, 18) << pad(m.name, 30) << pad_left(with_thousands(count_parameters(m.spec)), 18)
        << pad_left(std::to_string(m.spec.layers), 8) << pad_left(std::to_string(m.spec.kv_heads), 10) << "\n";
  }
}

void print_formats(std::ostream& out, const Catalog& catalog) {
  out << pad("id", 16) << pad("name", 44) << "main layout\n";
  for (const WeightFormat& f : catalog.formats.formats) {
    const StorageType& t = catalog.formats.storage_types[static_cast<size_t>(f.default_type)];
    std::ostringstream bpe;
    bpe << std::fixed << std::setprecision(4) << t.bytes_per_element() << " B/element";
    out << pad(f.id, 16) << pad(f.label, 44) << t.label << ", " << bpe.str() << "\n";
  }
}

}  // namespace vramfit
