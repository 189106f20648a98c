// The training frameworks' parts of the request JSON: "training.framework" and each
// framework's settings under its own name ("training.megatron": Megatron-LM's flags with
// their dashes, as a launch line writes them); read and written by request_json.cpp.
#pragma once
#include <optional>
#include <string>

#include "core/megatron.hpp"
#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

const char* training_framework_id(TrainingFramework framework);  // "hf-trainer", "megatron"
bool parse_training_framework(const std::string& id, TrainingFramework& framework);
std::optional<Error> megatron_settings_from_json(const json& j, MegatronSettings& settings);
json megatron_settings_to_json(const MegatronSettings& settings);

}  // namespace vramfit
