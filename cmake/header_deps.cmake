# Header-only dependencies from the system (Debian: nlohmann-json3-dev, libcli11-dev, catch2),
# usable by the native and the Emscripten build alike. Emscripten must not see /usr/include
# (its own libc headers would clash), so each library's folder is linked alone into a
# private include directory of the build tree.
set(VRAMFIT_DEPS_INCLUDE "${CMAKE_BINARY_DIR}/deps-include")
file(MAKE_DIRECTORY "${VRAMFIT_DEPS_INCLUDE}")

# header_dependency(<target> <folder> <probe header inside it>)
function(header_dependency target folder probe)
  find_path(${target}_ROOT "${folder}/${probe}" PATHS /usr/include /usr/local/include
            NO_CMAKE_FIND_ROOT_PATH REQUIRED)
  if(NOT EXISTS "${VRAMFIT_DEPS_INCLUDE}/${folder}")
    file(CREATE_LINK "${${target}_ROOT}/${folder}" "${VRAMFIT_DEPS_INCLUDE}/${folder}" SYMBOLIC)
  endif()
  add_library(${target} INTERFACE)
  target_include_directories(${target} SYSTEM INTERFACE "${VRAMFIT_DEPS_INCLUDE}")
endfunction()

header_dependency(dep_json nlohmann json.hpp)
header_dependency(dep_cli11 CLI CLI.hpp)
header_dependency(dep_catch2 catch2 catch.hpp)
if(NOT EMSCRIPTEN)  # the desktop app's PNG screenshots (Debian: libstb-dev)
  header_dependency(dep_stb stb stb_image_write.h)
endif()
