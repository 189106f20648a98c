// The CLI's human-readable tables.
#pragma once
#include <iosfwd>

#include "report/estimate.hpp"
#include "report/engine_ollama.hpp"
#include "report/engine_sglang.hpp"
#include "report/frameworks.hpp"
#include "catalog/catalog.hpp"

namespace vramfit {

void print_report(std::ostream& out, const Report& report);
void print_deepspeed_report(std::ostream& out, const DeepSpeedReport& answer);
void print_torchtune_report(std::ostream& out, const TorchtuneReport& answer);
void print_llamafactory_report(std::ostream& out, const LlamaFactoryReport& answer);
// engine "sglang" (text_report_sglang.cpp): its pool on each GPU and the lines it prints.
void print_sglang_report(std::ostream& out, const SglangReport& answer);
// engine "ollama" (text_report_ollama.cpp): its estimate per GPU, the runner's buffers, its line.
void print_ollama_report(std::ostream& out, const OllamaReport& answer);
void print_gpus(std::ostream& out, const Catalog& catalog, DisplayUnits units);
void print_models(std::ostream& out, const Catalog& catalog);
void print_formats(std::ostream& out, const Catalog& catalog);

}  // namespace vramfit
