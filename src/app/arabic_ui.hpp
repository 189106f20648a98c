// The interface in Arabic: its message catalog (text/messages) and the text transform that
// draws it shaped and right to left (see ui_language.hpp).
#pragma once
#include "io/json.hpp"
#include "ui_language.hpp"

namespace vramfit {

const LanguageSupport& arabic_language_support();
// The layout hook's items with the words shown in Arabic ("shown"), when Arabic is drawn.
void annotate_arabic_layout(json& items);
// Digits typed on an Arabic keyboard (٣٢٧٦٨) are read as 0-9, in either language (App::init).
void read_typed_digits_as_western();

}  // namespace vramfit
