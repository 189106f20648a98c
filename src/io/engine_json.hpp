// The engines' parts of the request JSON: each engine's settings under its own name
// ("llama.cpp", "vllm", "transformers"), a GGUF file's weights by layer, and the draft model
// of speculative decoding; read and written by request_json.cpp. Errors name the field.
#pragma once
#include <optional>

#include "core/llamacpp.hpp"
#include "core/request.hpp"
#include "core/result.hpp"
#include "core/transformers.hpp"
#include "core/vllm.hpp"
#include "io/json.hpp"

namespace vramfit {

std::optional<Error> llamacpp_settings_from_json(const json& j, LlamaCppSettings& settings);
json llamacpp_settings_to_json(const LlamaCppSettings& settings);
std::optional<Error> llamacpp_weights_from_json(const json& j, LlamaCppWeights& weights);  // "weights.stored.by_layer"
json llamacpp_weights_to_json(const LlamaCppWeights& weights);
std::optional<Error> vllm_settings_from_json(const json& j, VllmSettings& settings);
json vllm_settings_to_json(const VllmSettings& settings);
std::optional<Error> transformers_settings_from_json(const json& j, TransformersSettings& settings);
json transformers_settings_to_json(const TransformersSettings& settings);
// "draft": {"model": ..., "weights": ...}, into Request::draft
std::optional<Error> draft_from_json(const json& j, Request& request);
json draft_to_json(const Request& draft);

}  // namespace vramfit
