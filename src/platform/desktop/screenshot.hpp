// `vramfit_desktop --screenshot`: the window's back buffer as a PNG (stb_image_write).
#pragma once
#include <string>

namespace vramfit {

// Reads the current framebuffer (width x height pixels) and writes it to `path`; false on failure.
bool write_screenshot(const std::string& path, int width, int height);

}  // namespace vramfit
