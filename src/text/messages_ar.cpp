// Arabic's catalog, compiled in (data/messages/ar.json, embedded by CMakeLists.txt; the page's
// build embeds none and fetches the file instead).
#include "messages.hpp"

#include "embedded_message_files.hpp"

namespace vramfit {

const MessageTable& compiled_arabic_table() {
  static const MessageTable table = [] {
    MessageTable t;
    for (const EmbeddedFile& f : embedded_message_files()) {
      if (std::string_view(f.name) == "ar.json") read_message_table(std::string(f.data, f.size), t);
    }
    return t;
  }();
  return table;
}

}  // namespace vramfit
