// What the CLI's commands share: an error line in the report's language and the --hf options.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "hub_option.hpp"

namespace vramfit {

// An error of the request or the estimate, in the report's language (--lang ar).
std::string error_line(const std::string& lang, const std::string& message);

// --hf and the settings of reading it (infer and train).
CLI::Option* add_hub_options(CLI::App& app, HubOptions& hub);

}  // namespace vramfit
