// The desktop's OpenGL: 3.3 core (Mesa/GLVND export every entry point, so prototypes are
// enough), and the GLSL version line the app prepends to its shaders. The page has its own
// platform_gl.hpp; CMake puts the build's one on the app's include path (vramfit_platform_gl).
#pragma once
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

namespace vramfit {
constexpr const char* kGlslVersionLine = "#version 330 core\n";
}
