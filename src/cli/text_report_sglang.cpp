// engine "sglang": the CLI's table of SGLang's memory on each GPU, its pool, and its own lines.
#include "text_report.hpp"

#include <ostream>

#include "text/messages.hpp"
#include "text_columns.hpp"

namespace vramfit {

void print_sglang_report(std::ostream& out, const SglangReport& a) {
  const Language language = parse_language(a.report.request.language).value_or(Language::english);
  auto t = [&](const char* english) { return std::string(translate(language, english)); };
  const DisplayUnits u = a.report.request.units;
  const SglangMemory& m = a.memory;
  const SglangSettings& s = a.command.settings;
  const ModelSpec& model = a.report.prepared.model;
  out << "vramfit: " << a.report.model_name << t(" on SGLang ") << sglang_version_text(s) << ", " << a.report.request.weight_format
      << ", --tp " << s.tp_size << (s.dp_size > 1 ? ", --dp " + std::to_string(s.dp_size) : std::string())
      << ", --mem-fraction-static " << sglang_fraction_text(m.mem_fraction_static)
      << (s.mem_fraction_static > 0 ? "" : t(" (default)")) << ", --context-length " << with_thousands(m.context_length)
      << ", --kv-cache-dtype " << sglang_kv_cache_dtype_name(s.kv_cache_dtype) << "\n\n";
  out << "  " << pad(t("GPU"), 25) << column(t("total"), 12) << column(t("free before"), 13) << column(t("weights"), 12)
      << column(t("KV pool"), 12) << column(t("requests"), 12) << column(t("left"), 12) << "\n";
  for (size_t i = 0; i < m.ranks.size(); ++i) {
    const SglangRank& k = m.ranks[i];
    const int64_t left = k.after_loading - m.kv_bytes - m.req_to_token_bytes;
    out << "  " << pad(std::to_string(i) + " " + a.devices[i].name, 25) << column(format_bytes(k.total, u), 12) << column(format_bytes(k.before_loading, u), 13)
        << column(format_bytes(k.weights, u), 12) << column(format_bytes(m.kv_bytes, u), 12)
        << column(format_bytes(m.req_to_token_bytes, u), 12) << column(format_bytes(left, u), 12) << "\n";
  }
  if (s.dp_size > 1) out << t("  each of the --dp replicas holds the same on its own GPUs") << "\n";
  out << "\n  " << t("KV budget") << " = " << t("free after loading") << " - " << t("free before loading") << " x (1 - "
      << sglang_fraction_text(m.mem_fraction_static) << ") = " << format_bytes(m.rest, u) << "\n";
  out << "  " << t("one token") << " = "
      << (model.uses_mla() ? "(kv_lora_rank " + std::to_string(model.kv_lora_rank) + " + qk_rope_head_dim " +
                                 std::to_string(model.qk_rope_head_dim) + ") x " + std::to_string(model.cached_layers()) + t(" layers")
                           : std::to_string(std::max<int64_t>(1, model.kv_heads / s.tp_size)) + t(" KV heads") + " x " +
                                 std::to_string(model.head_dim) + " x " + std::to_string(model.cached_layers()) + t(" layers") + " x 2 (K, V)")
      << " = " << with_thousands(m.cell_bytes) << " B\n";
  out << "  max_total_num_tokens = " << with_thousands(m.max_total_num_tokens) << ", max_running_requests = "
      << with_thousands(m.max_running_requests) << ", max_req_input_len = " << with_thousands(m.max_req_input_len) << "\n";
  out << "  " << (m.fits ? t("starts") : t("DOES NOT START") + ": " + translate_text(language, m.refusal)) << "\n";
  out << "  " << t("smallest --mem-fraction-static whose pool holds one --context-length request: ")
      << (m.min_fraction_for_context > 0 ? sglang_fraction_text(m.min_fraction_for_context) : t("none (the weights and one request exceed the GPU)")) << "\n";
  if (!m.warning.empty()) out << "  " << t("warning: ") << translate_text(language, m.warning) << "\n";
  out << "\n" << t("SGLang would print (rank 0):") << "\n";
  for (const std::string& line : sglang_log_lines(m, s, model.uses_mla())) out << "  " << line << "\n";
  if (!a.assumptions.empty()) {
    out << "\n" << t("Assumptions:") << "\n";
    for (const std::string& line : a.assumptions) out << "  - " << translate_text(language, line) << "\n";
  }
}

}  // namespace vramfit
