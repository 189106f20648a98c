#include "page_engines.hpp"

namespace vramfit {

bool enable_page_engines() { return false; }

}  // namespace vramfit
