// UTF-8 to code points and back, for the text the app shapes and orders (src/text/bidi,
// by GNU FriBidi). Malformed bytes become U+FFFD, one per byte, as browsers decode them.
#pragma once
#include <string>

namespace vramfit {

std::u32string utf8_to_u32(const std::string& utf8);
std::string u32_to_utf8(const std::u32string& text);

}  // namespace vramfit
