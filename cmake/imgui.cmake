# The Dear ImGui target, from the source folder scripts/setup.sh fetches (IMGUI_DIR).
#
# Three of its files are compiled from patched copies (checked string replacements; the build
# stops if the text to replace is not found):
# - imgui_tables.cpp: a column header reports its label to the test-engine hooks, as other
#   widgets do.
# - imgui_widgets.cpp: TextEx() reports each text it draws with its rectangle to the
#   test-engine hooks, as ImGui already does for labelled widgets, so the app's layout hook
#   (src/app/layout_hook.cpp) sees every text and the browser tests can check that no two
#   texts overlap and none is cut; BeginCombo() reports its label as other widgets do.
# - imgui_draw.cpp, the page's copy only: the browser rasterises the fonts
#   (src/platform/web/browser_font.cpp, through the FreeType builder slot,
#   IMGUI_ENABLE_FREETYPE), so neither stb_truetype nor the embedded ProggyClean font goes
#   into the page. ImGui 1.90 has no switch for the embedded font (1.91 added
#   IMGUI_DISABLE_DEFAULT_FONT); the copy has it backported: AddFontDefault() returns no font.
#   Nor do ImGui's software-cursor pixels: the page's atlas is built with
#   ImFontAtlasFlags_NoMouseCursors (the browser draws the cursor).
# - imgui_widgets.cpp also draws the text typed into InputText past that transform (the text a
#   person types is drawn as typed: its cursor and selection measure the buffer); the hint goes
#   through it.
# - imgui_draw.cpp and imgui.cpp, every copy: a text transform the app sets while it is drawn in a
#   right-to-left language (src/app/arabic_ui.cpp): ImFont::CalcTextSizeA and ImFont::RenderText
#   draw and measure the text it gives back (translated, shaped, in visual order, wrapped by it
#   in logical order), and RenderText aligns each line of such wrapped text to the right edge
#   of the wrap width; ImFormatStringToTempBufferV (ImGui::Text's and SetTooltip's formatting)
#   formats the translated format string, so "%d GPUs" is translated before its number goes in.
# - imgui.cpp, the page's copy only: the page keeps no imgui.ini (its state is the URL hash),
#   so the .ini readers and writers of windows and tables are not registered
#   (IMGUI_DISABLE_INI_HANDLERS, ours): 2.1 KB (gzip) less. Windows and tables keep their
#   settings in memory as before. Nor does it log text (ImGui::LogToClipboard and the like: the
#   page copies its own text), so the text drawing functions do not pass their text to the log
#   (IMGUI_DISABLE_LOGGING, ours).
# - backends/imgui_impl_glfw.cpp, the page's copy only: the page reads the wheel itself
#   (site/shell.js, src/platform/web/web_input.cpp), so the backend registers no Emscripten
#   wheel handler on the document, and it reads no gamepads (ImGuiConfigFlags_NavEnableGamepad
#   is off), polls no cursor position and sets no cursor shape (the page's pointer events
#   give the position, CSS the cursor: src/platform/web/), and keeps no clipboard functions
#   (the page's own replace them): none of that, nor the GLFW port's JavaScript behind it,
#   goes into the page.
# - backends/imgui_impl_opengl3.cpp, the page's copy only: the GLSL version is read without
#   sscanf (the C library's scanf goes out of the page with it, ~2 KB gzip).

# vramfit_patched_imgui_source(<file> <out_var> <find> <replace> [<find> <replace>...]):
# <out_var> = the path of the patched copy.
function(vramfit_patched_imgui_source file out_var)
  set(original ${IMGUI_DIR}/${file})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${original})
  file(READ ${original} patched)
  # Arguments by index (ARGV<n>), not as a list: C code has semicolons.
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 2 ${last} 2)
    math(EXPR j "${i} + 1")
    set(find "${ARGV${i}}")
    set(replace "${ARGV${j}}")
    set(before "${patched}")
    string(REPLACE "${find}" "${replace}" patched "${before}")
    if(patched STREQUAL before)
      message(FATAL_ERROR "cmake/imgui.cmake: the text to patch was not found in ${original}: ${find}")
    endif()
  endforeach()
  set(copy ${CMAKE_BINARY_DIR}/imgui_patched/${file})
  set(existing "")
  if(EXISTS ${copy})
    file(READ ${copy} existing)
  endif()
  if(NOT existing STREQUAL patched)  # rewritten only when it changes: no needless rebuilds
    file(WRITE ${copy} "${patched}")
  endif()
  set(${out_var} ${copy} PARENT_SCOPE)
endfunction()

function(vramfit_add_imgui)
  set(internal "#include \"imgui_internal.h\"\n")
  set(text_added "        ItemSize(text_size, 0.0f);\n        if (!ItemAdd(bb, 0))\n            return;\n")
  set(combo_added "    ItemSize(total_bb, style.FramePadding.y);\n    if (!ItemAdd(total_bb, id, &bb))\n        return false;\n")
  # The text a person types is drawn as typed: InputText's own drawing goes past the text
  # transform (its cursor and selection measure the buffer itself); its hint does not.
  set(typed_draw "draw_window->DrawList->AddText(g.Font, g.FontSize, draw_pos - draw_scroll, col, buf_display, buf_display_end, 0.0f, is_multiline ? NULL : &clip_rect);")
  set(shown_draw "draw_window->DrawList->AddText(g.Font, g.FontSize, draw_pos, col, buf_display, buf_display_end, 0.0f, is_multiline ? NULL : &clip_rect);")
  vramfit_patched_imgui_source(imgui_widgets.cpp widgets_source
    "${internal}" "${internal}extern bool GImGuiTextTransformBusy;  // vramfit: imgui_draw.cpp's\n#ifdef IMGUI_ENABLE_TEST_ENGINE\nextern void ImGuiTestEngineHook_Text(ImGuiContext* ctx, const ImRect& bb, const char* text, const char* text_end);\n#endif\n"
    "${typed_draw}" "GImGuiTextTransformBusy = !is_displaying_hint;\n            ${typed_draw}\n            GImGuiTextTransformBusy = false;"
    "${shown_draw}" "GImGuiTextTransformBusy = !is_displaying_hint;\n            ${shown_draw}\n            GImGuiTextTransformBusy = false;"
    "${text_added}" "${text_added}#ifdef IMGUI_ENABLE_TEST_ENGINE\n        if (g.TestEngineHookItems) ImGuiTestEngineHook_Text(&g, bb, text_begin, text_end);\n#endif\n"
    "${combo_added}" "${combo_added}    IMGUI_TEST_ENGINE_ITEM_INFO(id, label, g.LastItemData.StatusFlags);\n")
  # imgui_tables.cpp: a column header reports its label as other widgets do (the tests click it to sort).
  set(header_added "    if (!ItemAdd(bb, id))\n        return;\n")
  vramfit_patched_imgui_source(imgui_tables.cpp tables_source
    "${header_added}" "${header_added}    IMGUI_TEST_ENGINE_ITEM_INFO(id, label, g.LastItemData.StatusFlags);\n")
  # The text transform (see above), in imgui_draw.cpp and imgui.cpp.
  set(transform_decl "typedef bool (*ImGuiTextTransform)(const ImFont* font, float size, const char** text_begin, const char** text_end, float* wrap_width, float* align_width);\n")
  set(draw_text_0 "${internal}")
  set(draw_text_1 "${internal}// vramfit (cmake/imgui.cmake): the app's text transform, and its guard while it measures.\n${transform_decl}ImGuiTextTransform GImGuiTextTransform = NULL;\nbool GImGuiTextTransformBusy = false;\nstatic float ImFontAlignedLineX(const ImFont* font, float size, const char* s, const char* text_end, float align_width)\n{\n    if (align_width <= 0.0f)\n        return 0.0f;\n    const char* line_end = (const char*)memchr(s, '\\n', text_end - s);\n    GImGuiTextTransformBusy = true;\n    const float width = font->CalcTextSizeA(size, FLT_MAX, 0.0f, s, line_end ? line_end : text_end).x;\n    GImGuiTextTransformBusy = false;\n    return ImMax(0.0f, IM_TRUNC(align_width - width));\n}\n")
  set(draw_text_2 "        text_end = text_begin + strlen(text_begin); // FIXME-OPT: Need to avoid this.\n")
  set(draw_text_3 "        text_end = text_begin + strlen(text_begin); // FIXME-OPT: Need to avoid this.\n    const char* original_text_end = text_end;\n    float align_width = 0.0f;\n    const bool transformed = GImGuiTextTransform && !GImGuiTextTransformBusy && GImGuiTextTransform(this, size, &text_begin, &text_end, &wrap_width, &align_width);\n")
  set(draw_text_4 "    if (remaining)\n        *remaining = s;\n\n    return text_size;\n")
  set(draw_text_5 "    if (remaining)\n        *remaining = transformed ? original_text_end : s;\n    if (text_size.x < align_width)\n        text_size.x = align_width;  // right-aligned lines fill the wrap width\n\n    return text_size;\n")
  set(draw_text_6 "        text_end = text_begin + strlen(text_begin); // ImGui:: functions generally already provides a valid text_end, so this is merely to handle direct calls.\n")
  set(draw_text_7 "        text_end = text_begin + strlen(text_begin); // ImGui:: functions generally already provides a valid text_end, so this is merely to handle direct calls.\n    float align_width = 0.0f;\n    if (GImGuiTextTransform && !GImGuiTextTransformBusy)\n        GImGuiTextTransform(this, size, &text_begin, &text_end, &wrap_width, &align_width);\n")
  set(draw_text_8 "    const char* word_wrap_eol = NULL;\n\n    while (s < text_end)\n")
  set(draw_text_9 "    const char* word_wrap_eol = NULL;\n    x = start_x + ImFontAlignedLineX(this, size, s, text_end, align_width);\n\n    while (s < text_end)\n")
  set(draw_text_10 "            if (c == '\\n')\n            {\n                x = start_x;\n")
  set(draw_text_11 "            if (c == '\\n')\n            {\n                x = start_x + ImFontAlignedLineX(this, size, s, text_end, align_width);\n")
  set(imgui_text_0 "${internal}\n// System includes\n")
  set(imgui_text_1 "${internal}\n// System includes\n// vramfit (cmake/imgui.cmake): the app's translation of format strings.\nconst char* (*GImGuiFormatTranslate)(const char* fmt) = NULL;\n")
  set(imgui_text_2 "void ImFormatStringToTempBufferV(const char** out_buf, const char** out_buf_end, const char* fmt, va_list args)\n{\n")
  set(imgui_text_3 "void ImFormatStringToTempBufferV(const char** out_buf, const char** out_buf_end, const char* fmt, va_list args)\n{\n    if (GImGuiFormatTranslate)\n        fmt = GImGuiFormatTranslate(fmt);\n")
  if(NOT EMSCRIPTEN)  # the page's copies get these patches with their own below
    # (one argument per string, not a list: C code has semicolons)
    vramfit_patched_imgui_source(imgui_draw.cpp draw_source
      "${draw_text_0}" "${draw_text_1}" "${draw_text_2}" "${draw_text_3}" "${draw_text_4}" "${draw_text_5}" "${draw_text_6}" "${draw_text_7}" "${draw_text_8}" "${draw_text_9}" "${draw_text_10}" "${draw_text_11}")
    vramfit_patched_imgui_source(imgui.cpp imgui_source "${imgui_text_0}" "${imgui_text_1}" "${imgui_text_2}" "${imgui_text_3}")
  endif()
  set(glfw_backend_source ${IMGUI_DIR}/backends/imgui_impl_glfw.cpp)
  set(opengl3_backend_source ${IMGUI_DIR}/backends/imgui_impl_opengl3.cpp)
  if(EMSCRIPTEN)
    # The GLSL version is read from "#version 300 es" without sscanf; WebGL 2 answers
    # GL_MAJOR_VERSION, so the desktop GL 2.x fallback that parses GL_VERSION is not needed.
    set(glsl_scan "    sscanf(bd->GlslVersionString, \"#version %d\", &glsl_version);\n")
    set(glsl_read "    glsl_version = 0;\n    for (const char* c = bd->GlslVersionString + 9; *c >= '0' && *c <= '9'; ++c) glsl_version = glsl_version * 10 + (*c - '0');\n")
    set(gl_scan "        sscanf(gl_version, \"%d.%d\", &major, &minor);\n")
    vramfit_patched_imgui_source(backends/imgui_impl_opengl3.cpp opengl3_backend_source
      "${glsl_scan}" "${glsl_read}" "${gl_scan}" "        IM_UNUSED(gl_version);  // WebGL 2 answers GL_MAJOR_VERSION\n")
    set(wheel_on "    emscripten_set_wheel_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, nullptr, false, ImGui_ImplEmscripten_WheelCallback);\n")
    set(wheel_off "    emscripten_set_wheel_callback(EMSCRIPTEN_EVENT_TARGET_DOCUMENT, nullptr, false, nullptr);\n")
    set(wheel_handler "static EM_BOOL ImGui_ImplEmscripten_WheelCallback(")
    set(gamepads_update "    // Update game controllers (if enabled and available)\n    ImGui_ImplGlfw_UpdateGamepads();\n")
    set(gamepads "static void ImGui_ImplGlfw_UpdateGamepads()")
    set(mouse_update "    ImGui_ImplGlfw_UpdateMouseData();\n    ImGui_ImplGlfw_UpdateMouseCursor();\n")
    set(clipboard "    io.SetClipboardTextFn = ImGui_ImplGlfw_SetClipboardText;\n    io.GetClipboardTextFn = ImGui_ImplGlfw_GetClipboardText;\n")
    set(cursors_start "    // Create mouse cursors\n")
    set(cursors_end "#endif\n    glfwSetErrorCallback(prev_error_callback);\n")
    vramfit_patched_imgui_source(backends/imgui_impl_glfw.cpp glfw_backend_source
      "${wheel_on}" "" "${wheel_off}" "" "${wheel_handler}" "[[maybe_unused]] ${wheel_handler}"
      "${gamepads_update}" "" "${gamepads}" "[[maybe_unused]] ${gamepads}"
      "${mouse_update}" ""
      "static void ImGui_ImplGlfw_UpdateMouseData()" "[[maybe_unused]] static void ImGui_ImplGlfw_UpdateMouseData()"
      "static void ImGui_ImplGlfw_UpdateMouseCursor()" "[[maybe_unused]] static void ImGui_ImplGlfw_UpdateMouseCursor()"
      "${clipboard}" ""
      "static const char* ImGui_ImplGlfw_GetClipboardText(" "[[maybe_unused]] static const char* ImGui_ImplGlfw_GetClipboardText("
      "static void ImGui_ImplGlfw_SetClipboardText(" "[[maybe_unused]] static void ImGui_ImplGlfw_SetClipboardText("
      "${cursors_start}" "#if 0  // the page sets the cursor as CSS (src/platform/web/main.cpp)\n${cursors_start}"
      "${cursors_end}" "${cursors_end}#endif\n")
    set(handlers_start "    // Add .ini handle for ImGuiWindow and ImGuiTable types\n")
    set(handlers_end "    TableSettingsAddSettingsHandler();\n")
    set(log_rendered "void ImGui::LogRenderedText(const ImVec2* ref_pos, const char* text, const char* text_end)\n{\n")
    vramfit_patched_imgui_source(imgui.cpp imgui_source "${imgui_text_0}" "${imgui_text_1}" "${imgui_text_2}" "${imgui_text_3}"
      "${handlers_start}" "#ifndef IMGUI_DISABLE_INI_HANDLERS\n${handlers_start}"
      "${handlers_end}" "${handlers_end}#endif\n"
      "${log_rendered}" "${log_rendered}#ifdef IMGUI_DISABLE_LOGGING\n    IM_UNUSED(ref_pos); IM_UNUSED(text); IM_UNUSED(text_end);\n    return;\n#endif\n")
    set(header "ImFont* ImFontAtlas::AddFontDefault(const ImFontConfig* font_cfg_template)\n{\n")
    vramfit_patched_imgui_source(imgui_draw.cpp draw_source
      "${draw_text_0}" "${draw_text_1}" "${draw_text_2}" "${draw_text_3}" "${draw_text_4}" "${draw_text_5}" "${draw_text_6}" "${draw_text_7}" "${draw_text_8}" "${draw_text_9}" "${draw_text_10}" "${draw_text_11}"
      "${header}"
      "${header}#ifdef IMGUI_DISABLE_DEFAULT_FONT\n    IM_UNUSED(font_cfg_template);\n    IM_ASSERT(0 && \"IMGUI_DISABLE_DEFAULT_FONT: no embedded font\");\n    return NULL;\n#endif\n"
      "    if (!(atlas->Flags & ImFontAtlasFlags_NoMouseCursors))\n    {\n        // Render/copy pixels"
      "    if (false)  // the page's atlas has ImFontAtlasFlags_NoMouseCursors (browser_font.cpp)\n    {\n        // Render/copy pixels")
  endif()
  add_library(imgui STATIC
    ${imgui_source} ${draw_source} ${tables_source} ${widgets_source}
    ${IMGUI_DIR}/misc/cpp/imgui_stdlib.cpp
    ${glfw_backend_source} ${opengl3_backend_source})
  target_include_directories(imgui PUBLIC ${IMGUI_DIR})
  # The patched copy of a backend includes its own header as "imgui_impl_glfw.h".
  target_include_directories(imgui PRIVATE ${IMGUI_DIR}/backends)
  # IMGUI_ENABLE_TEST_ENGINE: Dear ImGui reports every labelled widget with its rectangle, which
  # the app keeps as its layout by name for the tests (src/app/layout_hook.cpp).
  target_compile_definitions(imgui PUBLIC IMGUI_DISABLE_DEMO_WINDOWS IMGUI_DISABLE_DEBUG_TOOLS IMGUI_DISABLE_OBSOLETE_FUNCTIONS
                             IMGUI_ENABLE_TEST_ENGINE)
  if(EMSCRIPTEN)
    # The page keeps no imgui.ini (its state is the URL hash): no file functions.
    # The patched copies leave some of ImGui's static functions unused.
    target_compile_options(imgui PRIVATE -fno-exceptions -fno-rtti -Wno-unused-function -Wno-unused-parameter -Wno-unused-const-variable)
    target_compile_definitions(imgui PUBLIC IMGUI_DISABLE_FILE_FUNCTIONS IMGUI_IMPL_OPENGL_ES3
                               IMGUI_ENABLE_FREETYPE IMGUI_DISABLE_DEFAULT_FONT IMGUI_DISABLE_INI_HANDLERS IMGUI_DISABLE_LOGGING)
  else()
    find_package(glfw3 REQUIRED)
    find_package(OpenGL REQUIRED)
    target_link_libraries(imgui PUBLIC glfw OpenGL::GL ${CMAKE_DL_LIBS})
  endif()
endfunction()
