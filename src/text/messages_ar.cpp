// Arabic's catalog, compiled in (data/messages/ar.json, embedded by CMakeLists.txt).
#include "messages.hpp"

#include "embedded_message_files.hpp"

namespace vramfit {

void enable_arabic_messages() {
  static const MessageTable table = [] {
    MessageTable t;
    for (const EmbeddedFile& f : embedded_message_files()) {
      if (std::string_view(f.name) == "ar.json") read_message_table(std::string(f.data, f.size), t);
    }
    return t;
  }();
  set_message_table(Language::arabic, &table);
}

}  // namespace vramfit
