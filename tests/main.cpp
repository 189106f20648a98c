#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "report/engines.hpp"

// The suite runs with the engines enabled, as the CLI, the JS API and the desktop app do.
int main(int argc, char* argv[]) {
  vramfit::enable_engines();
  return Catch::Session().run(argc, argv);
}
