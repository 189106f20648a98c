// Gemma (GemmaConfig), Gemma 2 (four norms a layer, even layers sliding) and Gemma 3 (q/k norms,
// every sliding_window_pattern-th layer global). Every Gemma ties its embeddings.
#include "architectures.hpp"

namespace vramfit {

namespace {

constexpr HfArchitecture kRows[] = {
    {.model_type = "gemma", .source = "models/gemma/configuration_gemma.py", .tie_word_embeddings = true},
    {.model_type = "gemma2", .source = "models/gemma2/configuration_gemma2.py", .tie_word_embeddings = true,
     .norms_per_layer = 4, .sliding = SlidingLayers::even_layers},
    {.model_type = "gemma3", .source = "models/gemma3/configuration_gemma3.py", .tie_word_embeddings = true, .qk_norm = true,
     .norms_per_layer = 4, .sliding = SlidingLayers::every_sixth_global},
    {.model_type = "gemma3_text", .source = "models/gemma3/configuration_gemma3.py", .tie_word_embeddings = true,
     .qk_norm = true, .norms_per_layer = 4, .sliding = SlidingLayers::every_sixth_global},
};

}  // namespace

const std::span<const HfArchitecture> kGemmaFamily = kRows;

}  // namespace vramfit
