# The Dear ImGui target, from the source folder scripts/setup.sh fetches (IMGUI_DIR).
#
# Its files are compiled from patched copies (checked string replacements; the build
# stops if the text to replace is not found):
# - imgui_tables.cpp: a column header reports its label to the test-engine hooks, as other
#   widgets do.
# - imgui_widgets.cpp: TextEx() reports each text it draws with its rectangle to the
#   test-engine hooks, as ImGui already does for labelled widgets, so the app's layout hook
#   (src/app/layout_hook.cpp) sees every text and the browser tests can check that no two
#   texts overlap and none is cut; BeginCombo() reports its label as other widgets do.
# - imgui_draw.cpp, behind a macro only the page defines: the browser rasterises the fonts
#   (src/platform/web/browser_font.cpp, through the FreeType builder slot,
#   IMGUI_ENABLE_FREETYPE), so neither stb_truetype nor the embedded ProggyClean font goes
#   into the page. ImGui 1.90 has no switch for the embedded font (1.91 added
#   IMGUI_DISABLE_DEFAULT_FONT); the copy has it backported: AddFontDefault() returns no font.
#   Nor do ImGui's software-cursor pixels: the page's atlas is built with
#   ImFontAtlasFlags_NoMouseCursors (the browser draws the cursor).
# - imgui_widgets.cpp, right to left (GImGuiRightToLeft, set by src/app/arabic_ui.cpp): a
#   checkbox's box and a radio button's circle right of their label (one alone on its line at
#   the line's right edge), a tree node's arrow at the right edge (less its indent) pointing
#   left when closed, its label left of it, a table cell's line of text (and, in
#   imgui_tables.cpp, a column's header) at the cell's right edge, and a tab bar's tabs from
#   its right edge (its first tab rightmost) while they all fit.
# - imgui_widgets.cpp: a character typed or pasted into a text field goes through
#   GImGuiTypedCharacter where the app sets it (src/app/arabic_ui.cpp: Arabic-Indic digits
#   typed on an Arabic keyboard are read as 0-9).
# - imgui_widgets.cpp also draws the text typed into InputText past that transform (the text a
#   person types is drawn as typed: its cursor and selection measure the buffer); the hint goes
#   through it.
# - imgui_draw.cpp and imgui.cpp, every copy: a text transform the app sets while it is drawn in a
#   right-to-left language (src/app/arabic_ui.cpp): ImFont::CalcTextSizeA and ImFont::RenderText
#   draw and measure the text it gives back (translated, shaped, in visual order, wrapped by it
#   in logical order), and RenderText aligns each line of such wrapped text to the right edge
#   of the wrap width; ImFormatStringToTempBufferV (ImGui::Text's and SetTooltip's formatting)
#   formats the translated format string, so "%d GPUs" is translated before its number goes in.
# - imgui.cpp, behind macros only the page defines: the page keeps no imgui.ini (its state is the URL hash),
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
  # Right to left: the box right of its label (Checkbox, RadioButton); tabs from the right.
  set(check_start "    const float square_sz = GetFrameHeight();\n    const ImVec2 pos = window->DC.CursorPos;\n")
  set(check_box "    const ImRect check_bb(pos, pos + ImVec2(square_sz, square_sz));\n")
  set(check_label "    ImVec2 label_pos = ImVec2(check_bb.Max.x + style.ItemInnerSpacing.x, check_bb.Min.y + style.FramePadding.y);\n")
  set(tab_layout "    // Layout all active tabs\n    int section_tab_index = 0;\n")
  set(tab_offset "            tab->Offset = tab_offset;\n")
  set(tree_text "    ImVec2 text_pos(window->DC.CursorPos.x + text_offset_x, window->DC.CursorPos.y + text_offset_y);\n")
  set(tree_arrow_framed "RenderArrow(window->DrawList, ImVec2(text_pos.x - text_offset_x + padding.x, text_pos.y), text_col, is_open ? ((flags & ImGuiTreeNodeFlags_UpsideDownArrow) ? ImGuiDir_Up : ImGuiDir_Down) : ImGuiDir_Right, 1.0f);")
  set(tree_arrow "RenderArrow(window->DrawList, ImVec2(text_pos.x - text_offset_x + padding.x, text_pos.y + g.FontSize * 0.15f), text_col, is_open ? ((flags & ImGuiTreeNodeFlags_UpsideDownArrow) ? ImGuiDir_Up : ImGuiDir_Down) : ImGuiDir_Right, 0.70f);")
  set(text_start "    const ImVec2 text_pos(window->DC.CursorPos.x, window->DC.CursorPos.y + window->DC.CurrLineTextBaseOffset);\n")
  set(typed_char "    IM_ASSERT(input_source == ImGuiInputSource_Keyboard || input_source == ImGuiInputSource_Clipboard);\n    unsigned int c = *p_char;\n")
  vramfit_patched_imgui_source(imgui_widgets.cpp widgets_source
    "${check_start}" "    const float square_sz = GetFrameHeight();\n    ImVec2 pos = window->DC.CursorPos;\n    if (GImGuiRightToLeft && !window->DC.IsSameLine && !window->DC.IsSetPos)  // vramfit: alone on its line, at its right edge\n        pos.x = ImMax(pos.x, window->WorkRect.Max.x - square_sz - (label_size.x > 0.0f ? style.ItemInnerSpacing.x + label_size.x : 0.0f));\n"
    "${check_box}" "    const ImVec2 check_pos(GImGuiRightToLeft && label_size.x > 0.0f ? pos.x + style.ItemInnerSpacing.x + label_size.x : pos.x, pos.y);  // vramfit\n    const ImRect check_bb(check_pos, check_pos + ImVec2(square_sz, square_sz));\n"
    "${check_label}" "    ImVec2 label_pos = ImVec2(GImGuiRightToLeft ? pos.x : check_bb.Max.x + style.ItemInnerSpacing.x, check_bb.Min.y + style.FramePadding.y);  // vramfit\n"
    "${tab_layout}" "    const bool tabs_from_right = GImGuiRightToLeft && sections[0].Width + sections[0].Spacing + sections[1].Width + sections[1].Spacing + sections[2].Width <= tab_bar->BarRect.GetWidth();  // vramfit\n${tab_layout}"
    "${typed_char}" "    IM_ASSERT(input_source == ImGuiInputSource_Keyboard || input_source == ImGuiInputSource_Clipboard);\n    if (GImGuiTypedCharacter)  // vramfit: e.g. Arabic-Indic digits typed as 0-9\n        *p_char = GImGuiTypedCharacter(*p_char);\n    unsigned int c = *p_char;\n"
    "${tree_text}" "${tree_text}    float arrow_x = text_pos.x - text_offset_x + padding.x;\n    if (GImGuiRightToLeft)  // vramfit: the arrow at the right edge (less the indent), the label left of it\n    {\n        arrow_x = frame_bb.Max.x - (window->DC.CursorPos.x - window->WorkRect.Min.x) - padding.x - g.FontSize;\n        text_pos.x = arrow_x - (text_offset_x - padding.x - g.FontSize) - label_size.x;\n    }\n"
    "${tree_arrow_framed}" "RenderArrow(window->DrawList, ImVec2(arrow_x, text_pos.y), text_col, is_open ? ((flags & ImGuiTreeNodeFlags_UpsideDownArrow) ? ImGuiDir_Up : ImGuiDir_Down) : GImGuiRightToLeft ? ImGuiDir_Left : ImGuiDir_Right, 1.0f);"
    "${tree_arrow}" "RenderArrow(window->DrawList, ImVec2(arrow_x, text_pos.y + g.FontSize * 0.15f), text_col, is_open ? ((flags & ImGuiTreeNodeFlags_UpsideDownArrow) ? ImGuiDir_Up : ImGuiDir_Down) : GImGuiRightToLeft ? ImGuiDir_Left : ImGuiDir_Right, 0.70f);"
    "${text_start}" "    ImVec2 text_pos(window->DC.CursorPos.x, window->DC.CursorPos.y + window->DC.CurrLineTextBaseOffset);\n    if (GImGuiRightToLeft && g.CurrentTable && !window->DC.IsSameLine && !window->DC.IsSetPos && window->DC.TextWrapPos < 0.0f)  // vramfit: a table cell's line at its right edge\n        text_pos.x = ImMax(text_pos.x, window->WorkRect.Max.x - CalcTextSize(text_begin, text_end).x);\n"
    "${tab_offset}" "            tab->Offset = tabs_from_right ? tab_bar->BarRect.GetWidth() - tab_offset - tab->Width : tab_offset;  // vramfit\n"
    "${internal}" "${internal}extern bool GImGuiTextTransformBusy;  // vramfit: imgui_draw.cpp's\nbool GImGuiRightToLeft = false;  // vramfit: the app's layout direction (src/app/arabic_ui.cpp)\nunsigned int (*GImGuiTypedCharacter)(unsigned int c) = NULL;  // vramfit: what a typed character is read as (src/app/arabic_ui.cpp)\n#ifdef IMGUI_ENABLE_TEST_ENGINE\nextern void ImGuiTestEngineHook_Text(ImGuiContext* ctx, const ImRect& bb, const char* text, const char* text_end);\n#endif\n"
    "${typed_draw}" "GImGuiTextTransformBusy = !is_displaying_hint;\n            ${typed_draw}\n            GImGuiTextTransformBusy = false;"
    "${shown_draw}" "GImGuiTextTransformBusy = !is_displaying_hint;\n            ${shown_draw}\n            GImGuiTextTransformBusy = false;"
    "${text_added}" "${text_added}#ifdef IMGUI_ENABLE_TEST_ENGINE\n        if (g.TestEngineHookItems) ImGuiTestEngineHook_Text(&g, bb, text_begin, text_end);\n#endif\n"
    "${combo_added}" "${combo_added}    IMGUI_TEST_ENGINE_ITEM_INFO(id, label, g.LastItemData.StatusFlags);\n")
  # imgui_tables.cpp: a column header reports its label as other widgets do (the tests click it to sort).
  set(header_added "    if (!ItemAdd(bb, id))\n        return;\n")
  # Right to left, a column's header label at the column's right edge.
  set(header_label "    float max_pos_x = label_pos.x + label_size.x + w_sort_text + w_arrow;\n")
  vramfit_patched_imgui_source(imgui_tables.cpp tables_source
    "${header_added}" "${header_added}    IMGUI_TEST_ENGINE_ITEM_INFO(id, label, g.LastItemData.StatusFlags);\n"
    "${header_label}" "    if (GImGuiRightToLeft)  // vramfit\n        label_pos.x = ImMax(label_pos.x, cell_r.Max.x - table->CellPaddingX - w_arrow - w_sort_text - label_size.x);\n${header_label}"
    "${internal}" "${internal}extern bool GImGuiRightToLeft;  // vramfit: imgui_widgets.cpp's\n")
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
  # The page's own patches of imgui.cpp and imgui_draw.cpp sit behind the macros only the page
  # defines (IMGUI_DISABLE_INI_HANDLERS, IMGUI_DISABLE_LOGGING, IMGUI_DISABLE_DEFAULT_FONT), so
  # both builds compile the same patched copies. (One argument per string, not a list: C code
  # has semicolons.)
  set(handlers_start "    // Add .ini handle for ImGuiWindow and ImGuiTable types\n")
  set(handlers_end "    TableSettingsAddSettingsHandler();\n")
  set(log_rendered "void ImGui::LogRenderedText(const ImVec2* ref_pos, const char* text, const char* text_end)\n{\n")
  vramfit_patched_imgui_source(imgui.cpp imgui_source "${imgui_text_0}" "${imgui_text_1}" "${imgui_text_2}" "${imgui_text_3}"
    "${handlers_start}" "#ifndef IMGUI_DISABLE_INI_HANDLERS\n${handlers_start}"
    "${handlers_end}" "${handlers_end}#endif\n"
    "${log_rendered}" "${log_rendered}#ifdef IMGUI_DISABLE_LOGGING\n    IM_UNUSED(ref_pos); IM_UNUSED(text); IM_UNUSED(text_end);\n    return;\n#endif\n")
  set(header "ImFont* ImFontAtlas::AddFontDefault(const ImFontConfig* font_cfg_template)\n{\n")
  set(cursor_pixels "    if (!(atlas->Flags & ImFontAtlasFlags_NoMouseCursors))\n    {\n        // Render/copy pixels")
  vramfit_patched_imgui_source(imgui_draw.cpp draw_source
    "${draw_text_0}" "${draw_text_1}" "${draw_text_2}" "${draw_text_3}" "${draw_text_4}" "${draw_text_5}" "${draw_text_6}" "${draw_text_7}" "${draw_text_8}" "${draw_text_9}" "${draw_text_10}" "${draw_text_11}"
    "${header}"
    "${header}#ifdef IMGUI_DISABLE_DEFAULT_FONT\n    IM_UNUSED(font_cfg_template);\n    IM_ASSERT(0 && \"IMGUI_DISABLE_DEFAULT_FONT: no embedded font\");\n    return NULL;\n#endif\n"
    "${cursor_pixels}"
    "#ifdef IMGUI_DISABLE_DEFAULT_FONT  // the page: its atlas has ImFontAtlasFlags_NoMouseCursors (browser_font.cpp)\n    if (false)\n#else\n    if (!(atlas->Flags & ImFontAtlasFlags_NoMouseCursors))\n#endif\n    {\n        // Render/copy pixels")
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
