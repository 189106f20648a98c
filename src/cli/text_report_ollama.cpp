// engine "ollama": the CLI's table of Ollama's estimate on each GPU, its runner's buffers, and
// the line Ollama logs.
#include "text_report.hpp"

#include <ostream>

#include "text/messages.hpp"
#include "text_columns.hpp"

namespace vramfit {

void print_ollama_report(std::ostream& out, const OllamaReport& a) {
  const Language language = parse_language(a.report.request.language).value_or(Language::english);
  auto t = [&](const char* english) { return std::string(translate(language, english)); };
  const DisplayUnits u = a.report.request.units;
  const OllamaEstimate& e = a.estimate;
  out << "vramfit: " << a.report.model_name << t(" on Ollama ") << ollama_version_text(a.command.settings) << ", "
      << a.report.request.weight_format << ", num_ctx " << e.num_ctx << ", OLLAMA_NUM_PARALLEL " << e.num_parallel
      << ", OLLAMA_FLASH_ATTENTION " << (e.flash_attention ? 1 : 0) << ", KV " << (e.kv_cache_type.empty() ? "f16" : e.kv_cache_type)
      << "\n\n";
  out << "  " << pad(t("GPU"), 25) << column(t("available"), 12) << column(t("layers"), 8) << column(t("Ollama's estimate"), 20)
      << column(t("llama.cpp runner"), 18) << "\n";
  for (size_t k = 0; k < e.gpus.size(); ++k) {
    const int64_t layers = e.tensor_split.empty() ? 0 : e.tensor_split[k];
    out << "  " << pad(std::to_string(e.gpus[k]) + " " + a.devices[e.gpus[k]].name, 25) << column(format_bytes(e.available[k], u), 12)
        << column(std::to_string(layers), 8) << column(format_bytes(e.allocations[k], u), 20)
        << column(format_bytes(a.runner.gpus[k].total(), u), 18) << "\n";
  }
  out << "  " << pad(t("host"), 25) << column("", 12) << column(std::to_string(e.layers_model - e.layers_offload), 8)
      << column(format_bytes(e.required_full - e.required_partial, u), 20) << column(format_bytes(a.runner.host.total(), u), 18) << "\n\n";
  out << "  " << t("layers on the GPUs: ") << e.layers_offload << " / " << e.layers_model
      << (e.layers_requested < 0 ? " (num_gpu -1)" : " (num_gpu " + std::to_string(e.layers_requested) + ")") << "\n";
  out << "  " << t("longest num_ctx with every layer on the GPUs: ") << with_thousands(a.max_num_ctx_on_gpus) << "\n";
  out << "  " << t("Ollama's estimate per GPU: 457 MiB + one spare layer + its layers and their KV + the output layer + the graph")
      << " (" << format_bytes(e.fully_loaded() ? e.graph_full : e.graph_partial, u) << ")\n";
  for (const std::string& w : e.warnings) out << "  " << t("warning: ") << w << "\n";
  out << "\n" << t("Ollama would print:") << "\n  " << ollama_offload_line(e) << "\n";
  out << "\n" << t("Its llama.cpp runner would print:") << "\n";
  for (const std::string& line : llamacpp_log_lines(a.runner)) out << "  " << line << "\n";
  if (!a.assumptions.empty()) {
    out << "\n" << t("Assumptions:") << "\n";
    for (const std::string& line : a.assumptions) out << "  - " << line << "\n";
  }
}

}  // namespace vramfit
