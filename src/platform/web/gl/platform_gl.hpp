// The page's OpenGL: OpenGL ES 3.0 (WebGL 2 through Emscripten), and the GLSL version line
// the app prepends to its shaders. The desktop has its own platform_gl.hpp; CMake puts the
// build's one on the app's include path (vramfit_platform_gl).
#pragma once
#include <GLES3/gl3.h>

namespace vramfit {
constexpr const char* kGlslVersionLine = "#version 300 es\n";
}
