// The font builder of the page: the browser draws each glyph with Canvas 2D (fillText) into
// rows of one bitmap, one getImageData reads it back, and the atlas is ImGui's own rectangles
// (white pixel, mouse cursors, baked lines) in a row at the top with each font's bitmap
// below. Structure after misc/freetype/imgui_freetype.cpp, the other builder ImGui ships.
#include "browser_font.hpp"

#include <emscripten.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <misc/freetype/imgui_freetype.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// What the browser reports per glyph, in device pixels: its box in the bitmap the JavaScript
// returns, the box's offset from the pen position on the baseline, and the advance.
struct BrowserGlyph {
  float x, y, width, height, offset_x, offset_y, advance;
};
constexpr int kFloatsPerGlyph = 7;

}  // namespace

// Draws `count` code points in `family` at a size whose ascent + descent is `line_height`
// pixels. Writes [ascent, descent, bitmap width, bitmap height] then 7 floats per glyph to
// `out` and returns a malloc'ed alpha bitmap (0 when Canvas 2D is unavailable).
// Each glyph's box is its ink bounds (measureText's actualBoundingBox*), one pixel wider on
// every side for anti-aliasing; a glyph without ink (space) gets an empty box.
EM_JS(unsigned char*, js_rasterise_glyphs, (const char* family, float line_height, const int* codepoints, int count, float* out), {
  const canvas = document.createElement("canvas");
  const context = canvas.getContext("2d", {"willReadFrequently": true});
  if (!context) return 0;
  const css = UTF8ToString(family);
  context.font = "100px " + css;
  const probe = context.measureText("Mg");
  const per_em = (probe["fontBoundingBoxAscent"] + probe["fontBoundingBoxDescent"]) / 100 || 1.2;
  const font = (line_height / per_em) + "px " + css;
  context.font = font;
  const metrics = context.measureText("Mg");
  const ascent = metrics["fontBoundingBoxAscent"] || line_height * 0.8;
  const descent = metrics["fontBoundingBoxDescent"] || line_height * 0.2;
  const width = 1024;
  const boxes = [];
  let x = 0, y = 0, row = 0;
  for (let i = 0; i < count; i++) {
    const text = String.fromCodePoint(HEAP32[(codepoints >> 2) + i]);
    const m = context.measureText(text);
    const inked = m["actualBoundingBoxLeft"] + m["actualBoundingBoxRight"] > 0 &&
                  m["actualBoundingBoxAscent"] + m["actualBoundingBoxDescent"] > 0;
    const left = inked ? Math.ceil(m["actualBoundingBoxLeft"]) + 1 : 0;
    const up = inked ? Math.ceil(m["actualBoundingBoxAscent"]) + 1 : 0;
    const w = inked ? left + Math.ceil(m["actualBoundingBoxRight"]) + 1 : 0;
    const h = inked ? up + Math.ceil(m["actualBoundingBoxDescent"]) + 1 : 0;
    if (x + w > width) { x = 0; y += row; row = 0; }
    boxes.push([text, x, y, w, h, left, up, m.width]);
    x += w + 1;
    row = Math.max(row, h + 1);
  }
  const height = y + row + 1;
  canvas.width = width;
  canvas.height = height;  // resets the context's state
  context.font = font;
  context.fillStyle = "#fff";
  for (const b of boxes) if (b[3] > 0) context.fillText(b[0], b[1] + b[5], b[2] + b[6]);
  const pixels = context.getImageData(0, 0, width, height).data;
  const bitmap = _malloc(width * height);
  for (let i = 0; i < width * height; i++) HEAPU8[bitmap + i] = pixels[i * 4 + 3];
  let f = out >> 2;
  HEAPF32[f++] = ascent;
  HEAPF32[f++] = descent;
  HEAPF32[f++] = width;
  HEAPF32[f++] = height;
  for (const b of boxes) {
    HEAPF32[f++] = b[1];
    HEAPF32[f++] = b[2];
    HEAPF32[f++] = b[3];
    HEAPF32[f++] = b[4];
    HEAPF32[f++] = -b[5];
    HEAPF32[f++] = -b[6];
    HEAPF32[f++] = b[7];
  }
  return bitmap;
});

namespace {

std::vector<int> codepoints_of(const ImWchar* ranges) {
  std::vector<int> codepoints;
  for (; ranges[0] != 0; ranges += 2)
    for (int c = ranges[0]; c <= ranges[1]; ++c) codepoints.push_back(c);
  return codepoints;
}

// One font of the atlas as the browser drew it.
struct RasterisedFont {
  std::vector<int> codepoints;
  std::vector<BrowserGlyph> glyphs;
  float ascent = 0, descent = 0;
  int bitmap_width = 0, bitmap_height = 0;
  unsigned char* bitmap = nullptr;  // malloc'ed by the JavaScript
  int atlas_y = 0;                  // where the bitmap starts in the atlas
};

bool build_atlas(ImFontAtlas* atlas) {
  atlas->Flags |= ImFontAtlasFlags_NoMouseCursors;  // the browser draws the cursor (CSS)
  ImFontAtlasBuildInit(atlas);
  atlas->TexID = nullptr;
  atlas->TexUvWhitePixel = ImVec2(0.0f, 0.0f);
  atlas->ClearTexData();

  // 1. ImGui's rectangles side by side at the top.
  const int padding = atlas->TexGlyphPadding;
  int x = 0, row_height = 0;
  for (ImFontAtlasCustomRect& rect : atlas->CustomRects) {
    rect.X = static_cast<unsigned short>(x);
    rect.Y = 0;
    x += rect.Width + padding;
    row_height = ImMax(row_height, rect.Height + padding);
  }
  int width = x, height = row_height;

  // 2. Each font as the browser draws it, below.
  std::vector<RasterisedFont> fonts(static_cast<size_t>(atlas->ConfigData.Size));
  for (int i = 0; i < atlas->ConfigData.Size; ++i) {
    const ImFontConfig& config = atlas->ConfigData[i];
    RasterisedFont& font = fonts[static_cast<size_t>(i)];
    font.codepoints = codepoints_of(config.GlyphRanges ? config.GlyphRanges : atlas->GetGlyphRangesDefault());
    const std::string family(static_cast<const char*>(config.FontData), static_cast<size_t>(config.FontDataSize));
    std::vector<float> out(4 + font.codepoints.size() * kFloatsPerGlyph);
    font.bitmap = js_rasterise_glyphs(family.c_str(), config.SizePixels, font.codepoints.data(),
                                      static_cast<int>(font.codepoints.size()), out.data());
    font.ascent = font.bitmap ? out[0] : config.SizePixels * 0.8f;
    font.descent = font.bitmap ? -out[1] : -config.SizePixels * 0.2f;
    if (!font.bitmap) continue;  // no Canvas 2D: a font without glyphs (shapes still draw)
    font.bitmap_width = static_cast<int>(out[2]);
    font.bitmap_height = static_cast<int>(out[3]);
    font.glyphs.resize(font.codepoints.size());
    std::memcpy(font.glyphs.data(), out.data() + 4, font.glyphs.size() * sizeof(BrowserGlyph));
    font.atlas_y = height;
    height += font.bitmap_height + padding;
    width = ImMax(width, font.bitmap_width);
  }

  // 3. The texture, the bitmaps copied in, and the fonts' glyph tables.
  atlas->TexWidth = width;
  atlas->TexHeight = (atlas->Flags & ImFontAtlasFlags_NoPowerOfTwoHeight) ? height : ImUpperPowerOfTwo(height);
  atlas->TexUvScale = ImVec2(1.0f / atlas->TexWidth, 1.0f / atlas->TexHeight);
  const size_t tex_size = static_cast<size_t>(atlas->TexWidth) * static_cast<size_t>(atlas->TexHeight);
  atlas->TexPixelsAlpha8 = static_cast<unsigned char*>(IM_ALLOC(tex_size));
  std::memset(atlas->TexPixelsAlpha8, 0, tex_size);
  for (int i = 0; i < atlas->ConfigData.Size; ++i) {
    ImFontConfig& config = atlas->ConfigData[i];
    RasterisedFont& font = fonts[static_cast<size_t>(i)];
    ImFont* dst = config.DstFont;
    ImFontAtlasBuildSetupFont(atlas, dst, &config, font.ascent, font.descent);
    for (int row = 0; row < font.bitmap_height; ++row) {
      std::memcpy(atlas->TexPixelsAlpha8 + static_cast<size_t>(font.atlas_y + row) * static_cast<size_t>(atlas->TexWidth),
                  font.bitmap + static_cast<size_t>(row) * static_cast<size_t>(font.bitmap_width),
                  static_cast<size_t>(font.bitmap_width));
    }
    std::free(font.bitmap);
    const float off_x = config.GlyphOffset.x;
    const float off_y = config.GlyphOffset.y + IM_ROUND(dst->Ascent);
    for (size_t g = 0; g < font.glyphs.size(); ++g) {
      const BrowserGlyph& glyph = font.glyphs[g];
      const float x0 = glyph.offset_x + off_x, y0 = glyph.offset_y + off_y;
      const float u = glyph.x * atlas->TexUvScale.x, v = (glyph.y + font.atlas_y) * atlas->TexUvScale.y;
      dst->AddGlyph(&config, static_cast<ImWchar>(font.codepoints[g]), x0, y0, x0 + glyph.width, y0 + glyph.height, u, v,
                    u + glyph.width * atlas->TexUvScale.x, v + glyph.height * atlas->TexUvScale.y, glyph.advance);
    }
    // ImGui needs one glyph to fall back on; a font the browser could not draw gets a blank space.
    if (dst->Glyphs.empty()) dst->AddGlyph(&config, ' ', 0, 0, 0, 0, 0, 0, 0, 0, config.SizePixels * 0.3f);
  }
  ImFontAtlasBuildFinish(atlas);
  return true;
}

}  // namespace

// The builder slot ImGui calls when IMGUI_ENABLE_FREETYPE is defined (see browser_font.hpp).
const ImFontBuilderIO* ImGuiFreeType::GetBuilderForFreeType() {
  static ImFontBuilderIO io;
  io.FontBuilder_Build = build_atlas;
  return &io;
}

namespace vramfit {

ImFont* add_browser_font(ImFontAtlas* atlas, const char* css_family, float line_height_px,
                         const std::vector<unsigned short>& extra) {
  // The ranges must outlive the atlas's build: kept here until the next call.
  static std::vector<ImWchar> ranges;
  ranges = {0x0020, 0x00FF, 0x2026, 0x2026};  // Latin-1 and the ellipsis
  for (unsigned short c : extra) {
    if (c > 0x00FF && c != 0x2026) ranges.insert(ranges.end(), {static_cast<ImWchar>(c), static_cast<ImWchar>(c)});
  }
  ranges.push_back(0);
  ImFontConfig config;
  config.FontData = const_cast<char*>(css_family);  // the "font file" is its CSS name; ImGui copies it
  config.FontDataSize = static_cast<int>(std::strlen(css_family));
  config.FontDataOwnedByAtlas = false;
  config.SizePixels = line_height_px;
  config.GlyphRanges = ranges.data();
  config.PixelSnapH = true;  // whole-pixel advances: every glyph starts on a device pixel
  return atlas->AddFont(&config);
}

}  // namespace vramfit
