// OpenGL headers for the app: OpenGL ES 3.0 (WebGL 2) under Emscripten, desktop OpenGL 3.3
// core elsewhere (Mesa/GLVND export every entry point, so prototypes are enough).
#pragma once
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#define VRAMFIT_GLSL_VERSION "#version 300 es\n"
#else
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#define VRAMFIT_GLSL_VERSION "#version 330 core\n"
#endif
