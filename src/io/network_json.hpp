// A network given layer by layer as JSON (the request's "network" object; also `vramfit net
// FILE`), linked into a program only when it calls enable_network_json() (the page's first
// module leaves layer lists out for its size and moves to its full module for them).
#pragma once
#include <string>

#include "core/network.hpp"
#include "core/result.hpp"
#include "io/json.hpp"

namespace vramfit {

// path names the object in error messages ("network").
Result<Network> network_from_json(const json& json, const std::string& path);
json network_to_json(const Network& network);

// Lets request_from_json / request_to_json read and write "network" (io/request_json.hpp).
void enable_network_json();

}  // namespace vramfit
