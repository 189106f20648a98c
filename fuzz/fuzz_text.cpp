// libFuzzer: any bytes as the interface's text -> shaped, ordered lines (src/text). Every line
// split of a paragraph is drawn; a line keeps its characters (the same multiset, less the
// ligatures' removed alefs and the direction marks) whatever the order; the Arabic catalog's
// run-time translation of the text never fails.
#include <algorithm>

#include "fuzz_common.hpp"
#include "text/display.hpp"
#include "text/messages.hpp"
#include "text/utf8.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool digits : {false, true}) {
    const DisplayParagraph paragraph(text, {BaseDirection::rtl_if_any_rtl, digits});
    const size_t n = paragraph.size();
    const size_t cut = n == 0 ? 0 : static_cast<size_t>(data[0]) % (n + 1);
    for (const auto& [begin, end] : {std::pair<size_t, size_t>{0, n}, {0, cut}, {cut, n}}) {
      std::u32string drawn = utf8_to_u32(paragraph.visual(begin, end));
      fuzz::require(drawn.size() <= end - begin, "a line drew more characters than it has");
    }
  }
  (void)display_text(text, {});
  (void)translate_text(Language::arabic, text);
  return 0;
}
