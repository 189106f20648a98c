#include "page_engines.hpp"

#include "app/engine_view.hpp"

namespace vramfit {

bool enable_page_engines() {
  enable_engine_ui();
  return true;
}

}  // namespace vramfit
