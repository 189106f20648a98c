# GNU FriBidi (dep_fribidi): the app's Arabic shaping and right-to-left ordering (src/text/).
# Natively Debian's libfribidi-dev; for WebAssembly its library compiled from the same release's
# source, which scripts/setup.sh takes from Debian's source package into third_party/fribidi (as
# Dear ImGui's). The two headers its build system would generate are written here the way its
# own meson.build writes them (lib/meson.build, meson.build: config.h).
set(FRIBIDI_DIR "${CMAKE_SOURCE_DIR}/third_party/fribidi" CACHE PATH "GNU FriBidi source folder (scripts/setup.sh fetches it)")
add_library(dep_fribidi INTERFACE)
if(NOT EMSCRIPTEN)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(FRIBIDI REQUIRED IMPORTED_TARGET fribidi)
  target_link_libraries(dep_fribidi INTERFACE PkgConfig::FRIBIDI)
  return()
endif()
enable_language(C)  # FriBidi is a C library
if(NOT EXISTS "${FRIBIDI_DIR}/lib/fribidi.c")
  message(FATAL_ERROR "GNU FriBidi's source is not in ${FRIBIDI_DIR} (run scripts/setup.sh)")
endif()
file(STRINGS "${FRIBIDI_DIR}/VRAMFIT_VERSION" FRIBIDI_VERSION)
string(REPLACE "." ";" fribidi_version_parts "${FRIBIDI_VERSION}")
list(GET fribidi_version_parts 0 FRIBIDI_MAJOR_VERSION)
list(GET fribidi_version_parts 1 FRIBIDI_MINOR_VERSION)
list(GET fribidi_version_parts 2 FRIBIDI_MICRO_VERSION)
set(configure_input "fribidi-config.h, written by cmake/fribidi.cmake")
set(PACKAGE fribidi)
set(PACKAGE_NAME "GNU FriBidi")
set(PACKAGE_BUGREPORT "")
set(FRIBIDI_INTERFACE_VERSION 4)  # meson.build: interface_version for 1.0.x
set(SIZEOF_INT 4)                 # wasm32
set(FRIBIDI_MSVC_BUILD_PLACEHOLDER "#undef FRIBIDI_BUILT_WITH_MSVC")
set(fribidi_generated "${CMAKE_BINARY_DIR}/fribidi")
configure_file("${FRIBIDI_DIR}/lib/fribidi-config.h.in" "${fribidi_generated}/fribidi-config.h" @ONLY)
configure_file("${CMAKE_SOURCE_DIR}/cmake/fribidi/config.h" "${fribidi_generated}/config.h" COPYONLY)
# The parts the app calls (bidi types, brackets, embedding levels, reordering, joining, Arabic
# shaping, mirroring); the character-set converters and the deprecated API are left out.
add_library(fribidi_wasm STATIC
  ${FRIBIDI_DIR}/lib/fribidi.c ${FRIBIDI_DIR}/lib/fribidi-arabic.c ${FRIBIDI_DIR}/lib/fribidi-bidi.c
  ${FRIBIDI_DIR}/lib/fribidi-bidi-types.c ${FRIBIDI_DIR}/lib/fribidi-brackets.c
  ${FRIBIDI_DIR}/lib/fribidi-joining.c ${FRIBIDI_DIR}/lib/fribidi-joining-types.c
  ${FRIBIDI_DIR}/lib/fribidi-mirroring.c ${FRIBIDI_DIR}/lib/fribidi-run.c ${FRIBIDI_DIR}/lib/fribidi-shape.c)
target_compile_definitions(fribidi_wasm PRIVATE HAVE_CONFIG_H)
target_compile_options(fribidi_wasm PRIVATE -w)  # its warnings are upstream's, not this project's
target_include_directories(fribidi_wasm PRIVATE "${fribidi_generated}")
target_include_directories(fribidi_wasm SYSTEM PUBLIC "${fribidi_generated}" "${FRIBIDI_DIR}/lib")
target_link_libraries(dep_fribidi INTERFACE fribidi_wasm)
