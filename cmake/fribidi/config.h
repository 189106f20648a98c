/* GNU FriBidi's config.h for the WebAssembly build, as its meson.build writes it for a C
   library with these headers (cmake/fribidi.cmake copies it into the build folder). */
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_MEMORY_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STDINT_H 1
#define STDC_HEADERS 1
#define HAVE_STRINGIZE 1
