// engine "ollama" (core/ollama): the model and weights resolved as for any engine, Ollama's own
// estimate and the layers it gives the GPUs, the line it logs, and the buffers its llama.cpp
// runner then allocates with those layers. The CLI's answer for now (vramfit infer --engine
// ollama), as SGLang's is: the page's module has no room for it yet.
#pragma once
#include <string>
#include <vector>

#include "core/llamacpp.hpp"
#include "core/ollama.hpp"
#include "io/ollama_settings.hpp"
#include "report/estimate.hpp"

namespace vramfit {

struct OllamaReport {
  Report report;                 // the model, its weights and the GPU, as the generic estimate resolves them
  OllamaCommand command;
  std::vector<Gpu> devices;      // every GPU given, in order
  OllamaModel model;
  OllamaEstimate estimate;       // over the GPUs the scheduler picked (estimate.gpus)
  LlamaCppMemory runner;         // llama.cpp's buffers on those GPUs with the estimate's layers
  // The longest num_ctx at which Ollama's estimate puts every layer on the GPUs (0: not even 1 token),
  // the other settings as given.
  int64_t max_num_ctx_on_gpus = 0;
  std::vector<std::string> assumptions;
};

Result<OllamaReport> estimate_ollama(const Request& request, const Catalog& catalog, const OllamaCommand& command);
// A request JSON for engine "ollama": its "ollama" object (options and variables by their names,
// "free_mib", "model" as a library tag) and "gpus" read here, the rest as any request's.
Result<OllamaReport> estimate_ollama_request(const json& request, const Catalog& catalog);
json ollama_report_to_json(const OllamaReport& answer);

}  // namespace vramfit
