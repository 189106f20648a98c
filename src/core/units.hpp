// Byte counts and how they are shown. Bytes are always int64_t (the web build is 32-bit).
#pragma once
#include <cstdint>
#include <string>

namespace vramfit {

constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = 1024 * kKiB;
constexpr int64_t kGiB = 1024 * kMiB;
constexpr int64_t kGB = 1000 * 1000 * 1000;

enum class DisplayUnits { gb, gib };  // GB = 10^9 bytes, GiB = 2^30 bytes

// The byte arithmetic below runs millions of times per fit map. The page's build optimises
// for size, which would leave each a call; these are always inlined.
#if defined(__GNUC__) || defined(__clang__)
#define VRAMFIT_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define VRAMFIT_ALWAYS_INLINE inline
#endif

constexpr VRAMFIT_ALWAYS_INLINE int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Byte arithmetic that cannot overflow: results saturate at kByteCeiling (2^62 B, 4.6 EB),
// far above any GPU, so a saturated figure still reads "does not fit" and stays monotone.
constexpr int64_t kByteCeiling = int64_t(1) << 62;
VRAMFIT_ALWAYS_INLINE int64_t sat_add(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) || r > kByteCeiling ? kByteCeiling : r;
}
VRAMFIT_ALWAYS_INLINE int64_t sat_mul(int64_t a, int64_t b) {
  // Fast path: both in [0, 2^31), so the product fits in 62 bits. (On wasm32 the checked
  // 64-bit multiply below is a library call; the fit map does millions of these.)
  if (static_cast<uint64_t>(a) < (uint64_t(1) << 31) && static_cast<uint64_t>(b) < (uint64_t(1) << 31)) {
    const int64_t r = a * b;
    return r > kByteCeiling ? kByteCeiling : r;
  }
  int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) || r > kByteCeiling ? kByteCeiling : r;
}
template <class... Rest>
VRAMFIT_ALWAYS_INLINE int64_t sat_mul(int64_t a, int64_t b, Rest... rest) { return sat_mul(sat_mul(a, b), rest...); }

// The safety margin the user keeps on top of what an engine or the estimate uses on a device:
// `fraction` x `uses`, to the nearest byte (inference, llama.cpp, vLLM, Transformers alike).
int64_t safety_margin_bytes(int64_t uses, double fraction);

// "1,073,741,824"
std::string with_thousands(int64_t value);
// "1.07 GB" / "1.00 GiB"; below 1 GB (GiB) it shows MB/KB (MiB/KiB), below 1 KB bytes.
std::string format_bytes(int64_t bytes, DisplayUnits units, int decimals = 2);
// A count as people write it: "32768", "32,768", "32 768", "32k", "128K", "1M", "1.5k".
// k = 1,024 and M = 1,048,576 (as model cards write 128K for 131,072 tokens). Returns false,
// with `why` in words, for anything else: a fraction, a negative, an unknown suffix, or a
// number past 2^53.
bool parse_count(const std::string& text, int64_t& count, std::string& why);
// A memory size as people write it: "48", "48.5", "23.65 GiB", "24 GB", "81,920 MiB", "1.5T".
// No unit means GiB (cards are sold in GiB: a "24 GB" card holds 24 GiB). Fractions are
// rounded to the nearest byte. False, with `why` in words, for anything else.
bool parse_memory_size(const std::string& text, int64_t& bytes, std::string& why);

// "0.10" -> "10%"
std::string format_percent(double fraction);
// Parses "GB" / "GiB" (case-insensitive); false if neither.
bool parse_units(const std::string& text, DisplayUnits& units);
const char* units_name(DisplayUnits units);

}  // namespace vramfit
