#include "fit_map_renderer.hpp"

#include <imgui.h>

#include <vector>

#include "embedded_shader_files.hpp"
#include "platform_gl.hpp"

namespace vramfit {

namespace {

// shaders/*.vert|frag, embedded in the app (cmake/embed.cmake).
std::string shader_source(const char* name) {
  for (const EmbeddedFile& f : embedded_shader_files()) {
    if (std::string(name) == f.name) return std::string(f.data, f.size);
  }
  return {};
}

unsigned compile(unsigned stage, const std::string& body, std::string& error) {
  // The sources carry no #version line: the platform's (platform_gl.hpp) is prepended here.
  const std::string text = std::string(kGlslVersionLine) + body;
  const char* source = text.c_str();
  const unsigned shader = glCreateShader(stage);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024] = {0};
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    error = std::string(stage == GL_VERTEX_SHADER ? "fit_map.vert: " : "fit_map.frag: ") + log;
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

}  // namespace

bool FitMapRenderer::init() {
  const unsigned vs = compile(GL_VERTEX_SHADER, shader_source("fit_map.vert"), error_);
  const unsigned fs = vs ? compile(GL_FRAGMENT_SHADER, shader_source("fit_map.frag"), error_) : 0;
  if (!vs || !fs) return false;
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[1024] = {0};
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    error_ = std::string("fit map program: ") + log;
    return false;
  }
  u_fraction_ = glGetUniformLocation(program_, "u_fraction");
  u_line_px_ = glGetUniformLocation(program_, "u_line_px");
  u_marker_ = glGetUniformLocation(program_, "u_marker");
  glGenVertexArrays(1, &vertex_array_);
  glGenTextures(1, &texture_);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  return true;
}

void FitMapRenderer::shutdown() {
  if (program_) glDeleteProgram(program_);
  if (texture_) glDeleteTextures(1, &texture_);
  if (vertex_array_) glDeleteVertexArrays(1, &vertex_array_);
  program_ = texture_ = vertex_array_ = 0;
}

void FitMapRenderer::upload(const FitMap& map) {
  if (!texture_ || map.fraction.empty()) return;
  glBindTexture(GL_TEXTURE_2D, texture_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  // R16F is filterable in WebGL 2 and GL 3.3; fp32 data converts on upload. Large fractions
  // (far beyond capacity) are capped so half floats stay finite; the contour is at 1.
  std::vector<float> capped(map.fraction);
  for (float& f : capped) f = f < 60000.0f ? f : 60000.0f;
  glTexImage2D(GL_TEXTURE_2D, 0, GL_R16F, map.x.cells, map.y.cells, 0, GL_RED, GL_FLOAT, capped.data());
}

void FitMapRenderer::render_callback(const ImDrawList* list, const ImDrawCmd* cmd) {
  (void)list;
  const FitMapRenderer& self = *static_cast<const FitMapRenderer*>(cmd->UserCallbackData);
  const ImDrawData* data = ImGui::GetDrawData();
  const float sx = data->FramebufferScale.x, sy = data->FramebufferScale.y;
  const float fb_height = data->DisplaySize.y * sy;
  const float x0 = (self.rect_[0] - data->DisplayPos.x) * sx, y0 = (self.rect_[1] - data->DisplayPos.y) * sy;
  const float x1 = (self.rect_[2] - data->DisplayPos.x) * sx, y1 = (self.rect_[3] - data->DisplayPos.y) * sy;
  glViewport(static_cast<GLint>(x0), static_cast<GLint>(fb_height - y1), static_cast<GLsizei>(x1 - x0),
             static_cast<GLsizei>(y1 - y0));
  glUseProgram(self.program_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, self.texture_);
  glUniform1i(self.u_fraction_, 0);
  glUniform1f(self.u_line_px_, 1.25f * sx);
  glUniform2f(self.u_marker_, self.marker_[0], self.marker_[1]);
  glScissor(static_cast<GLint>(x0), static_cast<GLint>(fb_height - y1), static_cast<GLsizei>(x1 - x0),
            static_cast<GLsizei>(y1 - y0));
  glDisable(GL_BLEND);
  glBindVertexArray(self.vertex_array_);
  glDrawArrays(GL_TRIANGLES, 0, 6);
}

void FitMapRenderer::draw(ImDrawList* draw_list, float x0, float y0, float x1, float y1, float marker_u,
                          float marker_v) {
  if (!program_) return;
  rect_[0] = x0; rect_[1] = y0; rect_[2] = x1; rect_[3] = y1;
  marker_[0] = marker_u; marker_[1] = marker_v;
  draw_list->AddCallback(&FitMapRenderer::render_callback, this);
  draw_list->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

}  // namespace vramfit
