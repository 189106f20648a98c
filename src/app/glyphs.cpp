#include "glyphs.hpp"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>

namespace vramfit {

bool add_needed_glyphs(const std::string& utf8, std::vector<unsigned short>& sorted) {
  bool added = false;
  const char* text = utf8.c_str();
  const char* end = text + utf8.size();
  while (text < end) {
    unsigned int c = 0;
    const int length = ImTextCharFromUtf8(&c, text, end);
    if (length <= 0) break;
    text += length;
    if (c <= 0x00FF || c == 0x2026 || c > 0xFFFF || c == 0xFFFD) continue;
    const auto at = std::lower_bound(sorted.begin(), sorted.end(), static_cast<unsigned short>(c));
    if (at != sorted.end() && *at == c) continue;
    sorted.insert(at, static_cast<unsigned short>(c));
    added = true;
  }
  return added;
}

}  // namespace vramfit
