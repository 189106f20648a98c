# The Dear ImGui target, from the source folder scripts/setup.sh fetches (IMGUI_DIR: Debian's
# source of Dear ImGui 1.90.1, the newest a reachable registry serves).
#
# Two patches add what Dear ImGui lacks and the app needs, each a diff file with its own
# comment, applied in this order with `patch` to a copy of the sources in the build folder:
# - cmake/imgui/layout_hooks.diff: the test-engine hooks report plain texts, combo labels and
#   column headers too (src/app/layout_hook.cpp, the browser tests).
# - cmake/imgui/right_to_left.diff: text drawn through the app's transform (shaped, in visual
#   order, aligned right), formats translated, widgets mirrored, typed digits mapped (Arabic:
#   src/app/arabic_ui.cpp).
# Everything else is Dear ImGui's own switches: IMGUI_ENABLE_TEST_ENGINE (the hooks),
# IMGUI_ENABLE_FREETYPE on the page (its font builder slot, filled by the browser's
# rasteriser: src/platform/web/browser_font.cpp), IMGUI_DISABLE_FILE_FUNCTIONS on the page.

set(VRAMFIT_IMGUI_PATCHES ${CMAKE_SOURCE_DIR}/cmake/imgui/layout_hooks.diff ${CMAKE_SOURCE_DIR}/cmake/imgui/right_to_left.diff)
set(VRAMFIT_IMGUI_PATCHED_FILES imgui.cpp imgui_draw.cpp imgui_tables.cpp imgui_widgets.cpp)

# Copies the patched files into <build>/imgui_patched (rewritten only when their text changes:
# no needless rebuilds); the configure step stops if a patch does not apply.
function(vramfit_patch_imgui out_dir)
  find_program(VRAMFIT_PATCH patch REQUIRED)
  set(work ${CMAKE_BINARY_DIR}/imgui_patch_work)
  file(REMOVE_RECURSE ${work})
  file(MAKE_DIRECTORY ${work})
  foreach(file ${VRAMFIT_IMGUI_PATCHED_FILES})
    file(COPY ${IMGUI_DIR}/${file} DESTINATION ${work})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${IMGUI_DIR}/${file})
  endforeach()
  foreach(diff ${VRAMFIT_IMGUI_PATCHES})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${diff})
    execute_process(COMMAND ${VRAMFIT_PATCH} -p1 --forward --batch --no-backup-if-mismatch --quiet -i ${diff}
                    WORKING_DIRECTORY ${work} RESULT_VARIABLE failed OUTPUT_VARIABLE said ERROR_VARIABLE said)
    if(failed)
      message(FATAL_ERROR "cmake/imgui.cmake: ${diff} does not apply to ${IMGUI_DIR}:\n${said}")
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${out_dir})
  foreach(file ${VRAMFIT_IMGUI_PATCHED_FILES})
    file(READ ${work}/${file} patched)
    set(existing "")
    if(EXISTS ${out_dir}/${file})
      file(READ ${out_dir}/${file} existing)
    endif()
    if(NOT existing STREQUAL patched)
      file(WRITE ${out_dir}/${file} "${patched}")
    endif()
  endforeach()
  file(REMOVE_RECURSE ${work})
endfunction()

function(vramfit_add_imgui)
  set(patched ${CMAKE_BINARY_DIR}/imgui_patched)
  vramfit_patch_imgui(${patched})
  add_library(imgui STATIC
    ${patched}/imgui.cpp ${patched}/imgui_draw.cpp ${patched}/imgui_tables.cpp ${patched}/imgui_widgets.cpp
    ${IMGUI_DIR}/misc/cpp/imgui_stdlib.cpp
    ${IMGUI_DIR}/backends/imgui_impl_glfw.cpp ${IMGUI_DIR}/backends/imgui_impl_opengl3.cpp)
  target_include_directories(imgui PUBLIC ${IMGUI_DIR})
  # IMGUI_ENABLE_TEST_ENGINE: Dear ImGui reports every labelled widget with its rectangle, which
  # the app keeps as its layout by name for the tests (src/app/layout_hook.cpp).
  target_compile_definitions(imgui PUBLIC IMGUI_DISABLE_DEMO_WINDOWS IMGUI_DISABLE_DEBUG_TOOLS IMGUI_DISABLE_OBSOLETE_FUNCTIONS
                             IMGUI_ENABLE_TEST_ENGINE)
  if(EMSCRIPTEN)
    # The page keeps no imgui.ini (its state is the URL hash): no file functions. Its fonts come
    # from the browser through the FreeType builder slot (src/platform/web/browser_font.cpp).
    # (-Wno-unused-parameter: the GLFW backend's Emscripten wheel handler, as Dear ImGui ships it.)
    target_compile_options(imgui PRIVATE -fno-exceptions -fno-rtti -Wno-unused-parameter)
    target_compile_definitions(imgui PUBLIC IMGUI_DISABLE_FILE_FUNCTIONS IMGUI_IMPL_OPENGL_ES3 IMGUI_ENABLE_FREETYPE)
  else()
    find_package(glfw3 REQUIRED)
    find_package(OpenGL REQUIRED)
    target_link_libraries(imgui PUBLIC glfw OpenGL::GL ${CMAKE_DL_LIBS})
  endif()
endfunction()
