// Writes RGB pixels as a PNG (zlib-compressed), for `vramfit_desktop --screenshot`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace vramfit {

// rgb: width * height * 3 bytes, top row first.
bool write_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgb);

}  // namespace vramfit
