// The characters a text needs beyond the fonts' base set (Latin-1 and the ellipsis), for the
// platforms that build their font atlas on demand (Platform::need_glyphs_for).
#pragma once
#include <string>
#include <vector>

namespace vramfit {

// Adds the code points of `utf8` above U+00FF (in the Basic Multilingual Plane; Dear ImGui's
// characters are 16-bit) to `sorted`, keeping it sorted and unique. True when any was new.
bool add_needed_glyphs(const std::string& utf8, std::vector<unsigned short>& sorted);

}  // namespace vramfit
