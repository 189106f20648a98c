# yaml-cpp (dep_yaml): the CLI reads LLaMA-Factory's training YAML with it (src/cli/yaml_config.cpp).
# Natively Debian's libyaml-cpp-dev; for the WebAssembly CLI (Node.js) the same release compiled
# from Debian's source package, which scripts/setup.sh takes into third_party/yaml-cpp (as GNU
# FriBidi's). The page does not link it.
set(YAML_CPP_DIR "${CMAKE_SOURCE_DIR}/third_party/yaml-cpp" CACHE PATH "yaml-cpp source folder (scripts/setup.sh fetches it)")
add_library(dep_yaml INTERFACE)
if(NOT EMSCRIPTEN)
  find_package(yaml-cpp REQUIRED)
  target_link_libraries(dep_yaml INTERFACE yaml-cpp)
  return()
endif()
if(NOT EXISTS "${YAML_CPP_DIR}/src/parse.cpp")
  message(FATAL_ERROR "yaml-cpp's source is not in ${YAML_CPP_DIR} (run scripts/setup.sh)")
endif()
file(GLOB yaml_cpp_sources "${YAML_CPP_DIR}/src/*.cpp" "${YAML_CPP_DIR}/src/contrib/*.cpp")
add_library(yaml_cpp_wasm STATIC ${yaml_cpp_sources})
target_compile_options(yaml_cpp_wasm PRIVATE -w)  # its warnings are upstream's, not this project's
target_include_directories(yaml_cpp_wasm SYSTEM PUBLIC "${YAML_CPP_DIR}/include")
target_link_libraries(yaml_cpp_wasm PUBLIC vramfit_exceptions)  # it throws YAML::Exception
target_link_libraries(dep_yaml INTERFACE yaml_cpp_wasm)
