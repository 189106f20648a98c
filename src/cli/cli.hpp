// The `vramfit` command, as a function so tests (native and wasm) can run it in-process.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

namespace vramfit {

// Exit status: 0 success, 2 bad arguments or request (message names the argument), 1 internal.
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace vramfit
