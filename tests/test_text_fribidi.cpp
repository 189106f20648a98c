// GNU FriBidi as the oracle of the app's Arabic shaping and bidi order (native builds with
// libfribidi-dev, which scripts/setup.sh installs): every line of the three articles vramfit
// comes from (tests/fixtures/text: copies of the product's seeds, shared/seeds), and strings of the
// app's own shape, drawn by both.
#include <catch2/catch.hpp>

#include <fribidi.h>

#include <filesystem>
#include <fstream>

#include "text/display.hpp"
#include "text/utf8.hpp"

using namespace vramfit;

namespace {
// FriBidi's log2vis (FRIBIDI_FLAGS_DEFAULT | FRIBIDI_FLAGS_ARABIC: shaping, lam-alef
// ligatures, mirroring), its ligature fillers (U+FEFF) dropped as ours are.
std::u32string fribidi_visual(const std::u32string& logical) {
  std::vector<FriBidiChar> in(logical.begin(), logical.end()), out(logical.size() + 1);
  FriBidiParType base = FRIBIDI_PAR_WRTL;  // from the text, else right to left
  fribidi_log2vis(in.data(), static_cast<FriBidiStrIndex>(in.size()), &base, out.data(), nullptr, nullptr, nullptr);
  std::u32string visual;
  for (size_t i = 0; i < logical.size(); ++i) {
    if (out[i] != 0xFEFF) visual.push_back(out[i]);
  }
  return visual;
}
}  // namespace

TEST_CASE("Shaping and order agree with GNU FriBidi on the articles and the app's strings", "[text]") {
  std::vector<std::string> lines = {
      "كيف تعمل", "الأوزان: المعاملات × البايتات لكل معامل.", "ذاكرة KV المؤقتة 2 × 32 × 8 × 128 × 2 B",
      "يتسع (8.5 GiB من 24 GiB)", "لا يتسع: تحتاج 2 وحدات GPU", "Llama 3.1 8B على RTX 4090",
      "السياق: 8,192 token", "التدرجات + حالة المحسّن (AdamW)", "-ngl 33 --ctx-size 8192 ليتسع"};
  size_t articles = 0;
  for (const char* seed : {"000_e5b08cc8e2a9314e.txt", "003_45479ea13a1a180e.txt", "004_b8618702c705d2f9.txt"}) {
    std::ifstream file(std::filesystem::path(VRAMFIT_FIXTURES_DIR) / "text" / seed);
    for (std::string line; std::getline(file, line);) {
      if (!line.empty()) lines.push_back(line), ++articles;
    }
  }
  INFO(articles << " lines of the articles");
  CHECK(articles == 114);  // every non-empty line of the three articles
  size_t differ = 0;
  for (const std::string& line : lines) {
    const std::u32string ours = utf8_to_u32(display_text(line, {}));
    const std::u32string theirs = fribidi_visual(utf8_to_u32(line));
    if (ours != theirs) {
      ++differ;
      UNSCOPED_INFO("differs: " << line << "\n  ours:   " << u32_to_utf8(ours) << "\n  fribidi: " << u32_to_utf8(theirs));
    }
  }
  CHECK(differ == 0);
}
