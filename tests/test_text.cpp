// The app's Arabic text: shaping (contextual forms, lam-alef), the bidi algorithm's visual
// order, and the message catalogs (src/text).
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "text/bidi.hpp"
#include "text/display.hpp"
#include "text/messages.hpp"
#include "text/utf8.hpp"

using namespace vramfit;

namespace {
std::u32string drawn(const std::string& logical, const DisplayOptions& options = {}) {
  return utf8_to_u32(display_text(logical, options));
}
// Contextual forms in logical order (before the reordering).
std::u32string shape_arabic(const std::u32string& logical) {
  return resolve_paragraph(logical, BaseDirection::from_text_else_rtl).shaped;
}
}  // namespace

TEST_CASE("UTF-8 round trip, malformed bytes as U+FFFD", "[text]") {
  const std::string text = "GPU \xd8\xb0\xd8\xa7\xd9\x83\xd8\xb1\xd8\xa9 \xe2\x80\xa6 \xf0\x9f\x98\x80";
  CHECK(u32_to_utf8(utf8_to_u32(text)) == text);
  CHECK(utf8_to_u32("a\xff" "b") == std::u32string{U'a', 0xFFFD, U'b'});
  CHECK(utf8_to_u32("\xc0\xaf") == std::u32string{0xFFFD, 0xFFFD});  // overlong '/'
  CHECK(utf8_to_u32("\xd8") == std::u32string{0xFFFD});               // cut short
}

TEST_CASE("Arabic letters take their contextual forms; lam-alef is one ligature", "[text]") {
  // "كيف تعمل" ("how it works", a heading of article 004): kaf initial, yeh medial, feh final;
  // teh initial, ain medial, meem medial, lam final.
  CHECK(shape_arabic(U"كيف تعمل") ==
        std::u32string{0xFEDB, 0xFEF4, 0xFED2, U' ', 0xFE97, 0xFECC, 0xFEE4, 0xFEDE});
  // "الأوزان" (the weights): alef isolated, lam + alef-hamza ligature (isolated: alef does not
  // join forward), waw isolated, zain isolated, alef isolated, noon isolated. The ligature takes
  // the alef's place and the lam's holds the filler (FriBidi's fribidi_shape_arabic_ligature:
  // in right-to-left text the filler is the left one as drawn), which display code drops.
  CHECK(shape_arabic(U"الأوزان") ==
        std::u32string{0xFE8D, kRemovedByShaping, 0xFEF7, 0xFEED, 0xFEAF, 0xFE8D, 0xFEE5});
  // "فلا": alef after a joining lam: the ligature's final form (FEFC).
  CHECK(shape_arabic(U"فلا") == std::u32string{0xFED3, kRemovedByShaping, 0xFEFC});
  CHECK(drawn("فلا") == std::u32string{0xFEFC, 0xFED3});
  // Harakat are transparent: they neither take forms nor break the join; a mark between lam
  // and alef keeps the two letters (FriBidi's behaviour).
  CHECK(shape_arabic(U"بَب") == std::u32string{0xFE91, 0x064E, 0xFE90});
  CHECK(shape_arabic(U"لًا") == std::u32string{0xFEDF, 0x064B, 0xFE8E});
  // Latin between letters breaks the join.
  CHECK(shape_arabic(U"بxب") == std::u32string{0xFE8F, U'x', 0xFE8F});
}

TEST_CASE("Right-to-left lines keep numbers, units and names in their own order", "[text]") {
  // The heading of article 000 ("How do you estimate the GPU memory the model needs?"):
  // the Arabic runs reversed, "GPU" left to right, the question mark at the left end.
  const std::u32string heading = drawn("كيف تقدر ذاكرة GPU المطلوبة للنموذج؟");
  CHECK(heading.front() == 0x061F);
  CHECK(heading.find(U"GPU") != std::u32string::npos);
  CHECK(heading.back() == 0xFEDB);  // kaf, initial: the first letter is drawn rightmost
  // A number with its unit and grouping stays as written, to the left of the Arabic before it.
  // "الذاكرة" (the memory) shaped in logical order, then drawn right to left.
  CHECK(drawn("الذاكرة 24 GB") == std::u32string{U'G', U'B', U' ', U'2', U'4', U' ', 0xFE93, 0xFEAE, 0xFEDB, 0xFE8D, 0xFEAC, 0xFEDF, 0xFE8D});
  // Left-to-right text stays as it is; a bracket in a right-to-left run is mirrored.
  CHECK(drawn("Llama 3.1 8B (16 GiB)") == U"Llama 3.1 8B (16 GiB)");
  CHECK(drawn("(ب)") == std::u32string{U'(', 0xFE8F, U')'});
  // A left-to-right mark keeps a flag's hyphen with its name ("-ngl", not "ngl-"), and is not drawn.
  CHECK(drawn("أكبر \u200E-ngl يتسع") == U"\uFECA\uFEB4\uFE98\uFEF3 -ngl \uFEAE\uFE92\uFEDB\uFE83");
  // Arabic-Indic digits as a setting: the digits change, their order does not.
  CHECK(drawn("ب 128", {BaseDirection::from_text_else_rtl, true}) == std::u32string{0x0661, 0x0662, 0x0668, U' ', 0xFE8F});
  // ... in Arabic text and in figures, not in names nor formulas.
  const DisplayOptions indic{BaseDirection::rtl_if_any_rtl, true};
  CHECK(drawn("16.06 GB", indic) == U"\u0661\u0666.\u0660\u0666 GB");
  CHECK(drawn("Llama 3.1 8B", indic) == U"Llama 3.1 8B");
  CHECK(drawn("BF16", indic) == U"BF16");
  CHECK(drawn("= 2 x 32 layers", indic) == U"= 2 x 32 layers");
  CHECK(drawn("= 10% x 17,730,368,512 B", indic) == U"= 10% x 17,730,368,512 B");
  CHECK(drawn("على RTX 4090", indic).find(U"RTX 4090") != std::u32string::npos);
  // A number after a Latin word and punctuation is a value: "GPU: 1" in Arabic text.
  CHECK(drawn("وحدات GPU: 1", indic).find(U'\u0661') != std::u32string::npos);
  CHECK(drawn("أكبر \u200E-ngl يتسع: 33", indic).find(U"\u0663\u0663") != std::u32string::npos);
}

TEST_CASE("An interface in Arabic orders a translated string right to left whatever it starts with", "[text]") {
  // "Mixed bf16 (fp32 master)" in Arabic starts with "bf16": by the first strong character it
  // would be a left-to-right paragraph; in the Arabic interface it reads from the right.
  const DisplayOptions interface{BaseDirection::rtl_if_any_rtl, false};
  const std::u32string drawn_rtl = drawn("bf16 مختلطة", interface);
  CHECK(drawn_rtl.substr(drawn_rtl.size() - 4) == U"bf16");  // rightmost: read first
  CHECK(drawn("Llama 3.1 8B", interface) == U"Llama 3.1 8B");
  // The language switch's label, drawn without the transform (src/app/ui_language.hpp).
  CHECK(display_text("العربية", {}) == "\xEF\xBA\x94\xEF\xBB\xB4\xEF\xBA\x91\xEF\xBA\xAE\xEF\xBB\x8C\xEF\xBB\x9F\xEF\xBA\x8D");
}

TEST_CASE("A wrapped paragraph is ordered line by line", "[text]") {
  const DisplayParagraph paragraph("ذاكرة KV المؤقتة", {});
  REQUIRE(paragraph.right_to_left());
  // Two lines: "ذاكرة KV " and "المؤقتة"; each is drawn on its own, right to left.
  const std::u32string first = utf8_to_u32(paragraph.visual(0, 9));
  CHECK(first.substr(first.size() - 5) == std::u32string{0xFE93, 0xFEAE, 0xFEDB, 0xFE8D, 0xFEAB});
  CHECK(first.find(U"KV") != std::u32string::npos);
}

TEST_CASE("Message catalogs: English is the key and the fallback; conversions must match", "[text]") {
  MessageTable table;
  CHECK(!read_message_table(R"({"_note": "ignored", "Inference": "الاستدلال", "%d GPUs": "%d وحدات GPU"})", table));
  CHECK(table.size() == 2);
  auto bad = read_message_table(R"({"%d GPUs": "%s وحدات"})", table);
  REQUIRE(bad);
  CHECK(bad->key == "%d GPUs");
  CHECK(read_message_table(R"({"Inference": 3})", table)->key == "Inference");
  CHECK(parse_language("ar-EG") == Language::arabic);
  CHECK(parse_language("en-US") == Language::english);
  CHECK(!parse_language("fr"));
  CHECK(translate(Language::arabic, "Inference") != "Inference");
  CHECK(translate(Language::english, "Inference") == "Inference");
  CHECK(translate(Language::arabic, "no such key") == "no such key");
  // The catalog compiled in is data/messages/ar.json, entry for entry (spaces included:
  // "Longest context: %s   Most sequences: %s" keeps its three spaces).
  std::ifstream file(std::string(VRAMFIT_SOURCE_DIR) + "/data/messages/ar.json");
  std::stringstream text;
  text << file.rdbuf();
  MessageTable from_file;
  REQUIRE(!read_message_table(text.str(), from_file));
  CHECK(from_file.size() > 200);
  REQUIRE(message_table(Language::arabic));
  CHECK(*message_table(Language::arabic) == from_file);
}

TEST_CASE("Run-time text: sentence by sentence, pattern entries fill in their parts, parts translated too", "[text]") {
  MessageTable table;
  const char* catalog = R"json({
    "%s B per token of context (all layers).": "%s B لكل token من السياق (كل الطبقات).",
    "Grouped-query attention: %s KV heads serve %s query heads, a %sx smaller cache.": "انتباه مجمع: %s تخدم %s، أصغر %s مرات.",
    "transformers %s: %s; %s (the boundary releases are assumed)": "transformers %s: %s؛ %s (مفترض)",
    "logits for the last token only": "اللوجيتات لآخر token فقط",
    "on %s": "على %s"
  })json";
  REQUIRE(!read_message_table(catalog, table));
  set_message_table(Language::arabic, &table);
  CHECK(translate_text(Language::arabic, "131,072 B per token of context (all layers). Grouped-query attention: 8 KV heads serve 32 "
                                         "query heads, a 4x smaller cache.") ==
        "131,072 B لكل token من السياق (كل الطبقات). انتباه مجمع: 8 تخدم 32، أصغر 4 مرات.");
  // A sentence without an entry stays English beside the translated one.
  CHECK(translate_text(Language::arabic, "64 B per token of context (all layers). Sliding window.") ==
        "64 B لكل token من السياق (كل الطبقات). Sliding window.");
  CHECK(translate_text(Language::arabic, "transformers 4.57.0: DynamicCache; logits for the last token only (the boundary releases are assumed)") ==
        "transformers 4.57.0: DynamicCache؛ اللوجيتات لآخر token فقط (مفترض)");
  // "Label: value." takes the label's entry.
  CHECK(translate_text(Language::arabic, "logits for the last token only: 513 KB.") == "اللوجيتات لآخر token فقط: 513 KB.");
  // Short patterns ("on %s": less than kMinimumPatternText of fixed text) match nothing.
  CHECK(translate_text(Language::arabic, "on the GPU") == "on the GPU");
  CHECK(translate_text(Language::english, "on the GPU") == "on the GPU");
  set_message_table(Language::arabic, nullptr);  // the compiled-in catalog again for the other tests
}

TEST_CASE("Digits typed on an Arabic keyboard are read as 0-9", "[text]") {
  std::u32string typed = utf8_to_u32("\xd9\xa3\xd9\xa2\xd9\xac\xd9\xa7\xd9\xa6\xd9\xa8 \xdb\xb1\xdb\xb2\xd9\xab\xd9\xa5 k");  // ٣٢٬٧٦٨ ۱۲٫٥ k
  for (char32_t& c : typed) c = typed_as_western(c);
  CHECK(u32_to_utf8(typed) == "32,768 12.5 k");
  CHECK(typed_as_western(U'\u0627') == U'\u0627');  // a letter stays a letter
  CHECK(typed_as_western(U'\u060C') == U'\u060C');  // the Arabic comma too: it is text, not a number's separator
}
