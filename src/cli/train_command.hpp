// `vramfit train` (a transformer, with a framework: the Trainer, Megatron-LM, DeepSpeed,
// torchtune) and `vramfit net FILE` (a layer list): their options and how they run.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <ostream>
#include <string>

#include "catalog/catalog.hpp"
#include "hub_option.hpp"
#include "io/json.hpp"

namespace vramfit {

// Options of `vramfit train` (a transformer) and `vramfit net FILE` (a layer list).
struct TrainOptions {
  std::string request_file, config_file, model, recipe, optimizer, sharding, method, lora_targets, recompute;
  std::string gpu, units, network_file, rule, device, lang, framework, megatron_line, deepspeed_file, deepspeed_version, torchtune_line, llamafactory_file;
  int64_t lora_rank = 0, micro_batch = 0, sequence = 0, gpu_count = 0, runtime_mib = -1, batch = 0, nodes = 1;
  double margin = -1, capacity_gib = 0;
  bool foreach = false, no_double_quant = false, no_flash_attention = false, dropout = false, compare = false,
       as_json = false;
  HubOptions hub;  // train --hf
};

void add_train_options(CLI::App& app, TrainOptions& o);
void add_net_options(CLI::App& app, TrainOptions& o);
// The request from the options, its estimate printed (or as JSON); the exit code.
int run_train(const TrainOptions& o, bool network, const Catalog& catalog, std::ostream& out, std::ostream& err);
// A request whose training.framework is megatron, deepspeed or torchtune
// (report/framework_requests), printed as text in `lang` or as JSON; the exit code.
int run_framework_request(const json& request, const std::string& lang, bool as_json, const Catalog& catalog, std::ostream& out,
                          std::ostream& err);

}  // namespace vramfit
