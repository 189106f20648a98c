#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

#include "report/engines.hpp"

// The suite runs with the engines enabled, as the CLI, the JS API and the desktop app do.
// No test reaches the internet: a model id that is no preset would go to the Hub, so the suite
// runs offline with an empty cache (the Hub client's own tests serve a local Hub: tests/hub/).
int main(int argc, char* argv[]) {
  setenv("HF_HUB_OFFLINE", "1", 1);
  setenv("VRAMFIT_HUB_CACHE", "/nonexistent/vramfit-tests-hub-cache", 1);
  return Catch::Session().run(argc, argv);
}
