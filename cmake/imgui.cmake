# The Dear ImGui target, from the source folder scripts/setup.sh fetches (IMGUI_DIR).
#
# The page's copy differs in its fonts: the browser rasterises them (src/platform/web/
# browser_font.cpp, through the FreeType builder slot, IMGUI_ENABLE_FREETYPE), so neither
# stb_truetype nor the embedded ProggyClean font goes into the page. ImGui 1.86 has no switch
# for the embedded font (1.91 added IMGUI_DISABLE_DEFAULT_FONT), so the web build compiles
# a copy of imgui_draw.cpp with that switch backported: AddFontDefault() returns no font.
function(vramfit_add_imgui)
  set(draw_source ${IMGUI_DIR}/imgui_draw.cpp)
  if(EMSCRIPTEN)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${draw_source})
    file(READ ${draw_source} source)
    set(header "ImFont* ImFontAtlas::AddFontDefault(const ImFontConfig* font_cfg_template)\n{\n")
    string(REPLACE "${header}"
           "${header}#ifdef IMGUI_DISABLE_DEFAULT_FONT\n    IM_UNUSED(font_cfg_template);\n    IM_ASSERT(0 && \"IMGUI_DISABLE_DEFAULT_FONT: no embedded font\");\n    return NULL;\n#endif\n"
           patched "${source}")
    if(patched STREQUAL source)
      message(FATAL_ERROR "cmake/imgui.cmake: AddFontDefault() not found in ${draw_source}")
    endif()
    set(draw_source ${CMAKE_BINARY_DIR}/imgui_page/imgui_draw.cpp)
    set(existing "")
    if(EXISTS ${draw_source})
      file(READ ${draw_source} existing)
    endif()
    if(NOT existing STREQUAL patched)  # rewritten only when it changes: no needless rebuilds
      file(WRITE ${draw_source} "${patched}")
    endif()
  endif()
  add_library(imgui STATIC
    ${IMGUI_DIR}/imgui.cpp ${draw_source} ${IMGUI_DIR}/imgui_tables.cpp ${IMGUI_DIR}/imgui_widgets.cpp
    ${IMGUI_DIR}/misc/cpp/imgui_stdlib.cpp
    ${IMGUI_DIR}/backends/imgui_impl_glfw.cpp ${IMGUI_DIR}/backends/imgui_impl_opengl3.cpp)
  target_include_directories(imgui PUBLIC ${IMGUI_DIR})
  # IMGUI_ENABLE_TEST_ENGINE: Dear ImGui reports every labelled widget with its rectangle, which
  # the app keeps as its layout by name for the tests (src/app/layout_hook.cpp).
  target_compile_definitions(imgui PUBLIC IMGUI_DISABLE_DEMO_WINDOWS IMGUI_DISABLE_METRICS_WINDOW IMGUI_DISABLE_OBSOLETE_FUNCTIONS
                             IMGUI_ENABLE_TEST_ENGINE)
  if(EMSCRIPTEN)
    # The page keeps no imgui.ini (its state is the URL hash): no file functions.
    target_compile_options(imgui PRIVATE -fno-exceptions -fno-rtti)
    target_compile_definitions(imgui PUBLIC IMGUI_DISABLE_FILE_FUNCTIONS IMGUI_IMPL_OPENGL_ES3
                               IMGUI_ENABLE_FREETYPE IMGUI_DISABLE_DEFAULT_FONT)
  else()
    find_package(glfw3 REQUIRED)
    find_package(OpenGL REQUIRED)
    target_link_libraries(imgui PUBLIC glfw OpenGL::GL ${CMAKE_DL_LIBS})
  endif()
endfunction()
