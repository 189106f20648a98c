#include "page_engines.hpp"

#include "app/arabic_ui.hpp"
#include "app/engine_view.hpp"

namespace vramfit {

bool enable_page_engines() {
  enable_engine_ui();
  enable_arabic_ui();  // the interface in Arabic (its catalog and drawing)
  return true;
}

}  // namespace vramfit
