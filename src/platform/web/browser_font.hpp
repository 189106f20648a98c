#pragma once
// The page's fonts, rasterised by the browser (Canvas 2D) instead of stb_truetype: the page
// ships neither a font file nor a rasteriser, and text looks like the rest of the system.
//
// Dear ImGui 1.86 chooses its font builder at compile time: stb_truetype, or FreeType when
// IMGUI_ENABLE_FREETYPE is defined. The web build defines it (CMakeLists.txt) and this file
// supplies the builder behind ImGuiFreeType::GetBuilderForFreeType(), so stb_truetype and the
// embedded ProggyClean font are not compiled into the page at all.

#include <vector>

struct ImFontAtlas;
struct ImFont;

namespace vramfit {

// The CSS font-family list the page's UI text uses.
inline constexpr const char* kBrowserFontFamily =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, 'Noto Sans', 'DejaVu Sans', sans-serif";

// Adds a font of `line_height_px` device pixels (ImGui's FontSize: ascent + descent, as
// stb_truetype's ScaleForPixelHeight) in `css_family`. Glyphs: Latin-1, the ellipsis, and
// `extra` (sorted code points the app's text needs: Cyrillic, Arabic, CJK...), which the
// browser draws from whichever of its fonts has them.
ImFont* add_browser_font(ImFontAtlas* atlas, const char* css_family, float line_height_px,
                         const std::vector<unsigned short>& extra = {});

}  // namespace vramfit
