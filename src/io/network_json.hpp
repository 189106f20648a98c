// A network given layer by layer as JSON (the request's "network" object; also `vramfit net
// FILE`).
#pragma once
#include <optional>
#include <string>

#include "core/network.hpp"
#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

// path names the object in error messages ("network").
Result<Network> network_from_json(const json& json, const std::string& path);
json network_to_json(const Network& network);

// The same, into a network (request_from_json's "network"; path as above).
std::optional<Error> network_from_json_at(const json& json, const std::string& path, Network& network);

}  // namespace vramfit
