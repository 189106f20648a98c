// The request as JSON (schema v1, documented in README.md). Strict: unknown fields, wrong
// types and out-of-range values are errors that name the field; nothing is clamped.
#pragma once
#include <optional>
#include <string>

#include "io/json.hpp"

#include "core/request.hpp"
#include "core/result.hpp"

namespace vramfit {

Result<Request> request_from_json(const json& json);
Result<Request> request_from_text(const std::string& text);
json request_to_json(const Request& request);


// The engines' JSON, set by enable_engine_json() (io/engine_json.hpp); empty until then.
struct EngineJson {
  std::optional<Error> (*read_llamacpp)(const json&, LlamaCppSettings&) = nullptr;
  json (*write_llamacpp)(const LlamaCppSettings&) = nullptr;
  std::optional<Error> (*read_layers)(const json&, LlamaCppWeights&) = nullptr;
  json (*write_layers)(const LlamaCppWeights&) = nullptr;
  std::optional<Error> (*read_vllm)(const json&, VllmSettings&) = nullptr;
  json (*write_vllm)(const VllmSettings&) = nullptr;
  std::optional<Error> (*read_transformers)(const json&, TransformersSettings&) = nullptr;
  json (*write_transformers)(const TransformersSettings&) = nullptr;
  std::optional<Error> (*read_draft)(const json&, Request&) = nullptr;  // "draft", into Request::draft
  json (*write_draft)(const Request&) = nullptr;
};
const EngineJson& engine_json();
void set_engine_json(const EngineJson& parts);

// A layer list's JSON (the "network" object, io/network_json.hpp), linked into a program only
// when it enables it (enable_network_json(): the CLI, the JavaScript API, the desktop app and
// the page's full module); without it request_from_json answers a layer list with
// request.network_not_included.
struct NetworkJson {
  std::optional<Error> (*read)(const json&, const std::string& path, Network&) = nullptr;
  json (*write)(const Network&) = nullptr;
};
const NetworkJson& network_json_parts();
void set_network_json(const NetworkJson& parts);

}  // namespace vramfit
