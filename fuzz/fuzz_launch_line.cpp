// libFuzzer: an engine's pasted launch line -> its settings. The words split as a shell splits
// them; llama.cpp's, vLLM's, SGLang's and Ollama's readers either read them or refuse with a field
// named; SGLang's and Ollama's settings stay in their ranges, and SGLang's pool and Ollama's
// estimate are computed for a preset without any undefined arithmetic.
#include "fuzz_common.hpp"
#include "io/engine_command.hpp"
#include "io/sglang_command.hpp"
#include "io/ollama_settings.hpp"
#include "report/engine_ollama.hpp"
#include "report/engine_sglang.hpp"

namespace {

// Ollama's reader, and its estimate for what it accepts (Llama 3.1 8B Q4_K_M on an RTX 4090).
void check_ollama(const std::vector<std::string>& words) {
  using namespace vramfit;
  auto ollama = read_ollama_words(words);
  if (!ollama) {
    fuzz::require(!ollama.error().field.empty(), "an Ollama refusal names no field");
    return;
  }
  const OllamaSettings& s = ollama->settings;
  fuzz::require(s.num_ctx >= 1 && s.num_batch >= 1 && s.num_parallel >= 0 && s.num_gpu >= -1, "an Ollama count out of range");
  Request request;
  request.model_preset = "llama-3.1-8b";
  request.weight_format = "gguf-q4_k_m";
  request.gpu_id = "rtx-4090";
  auto answer = estimate_ollama(request, builtin_catalog(), *ollama);
  if (!answer) {
    fuzz::require(!answer.error().field.empty(), "an Ollama estimate's refusal names no field");
    return;
  }
  const OllamaEstimate& e = answer->estimate;
  fuzz::require(e.layers_offload >= 0 && e.layers_offload <= e.layers_model, "Ollama offloads more layers than the model has");
  fuzz::require(e.required_full >= e.required_partial && e.required_partial >= 0, "Ollama's full estimate below its partial one");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  const std::vector<std::string> words = shell_words(std::string(reinterpret_cast<const char*>(data), size));
  check_ollama(words);
  for (const char* engine : {"llama.cpp", "vllm"}) {
    auto read = read_engine_words(words, engine);
    if (!read) fuzz::require(!read.error().field.empty(), "an engine command's refusal names no field");
  }
  auto sglang = read_sglang_words(words);
  if (!sglang) {
    fuzz::require(!sglang.error().field.empty(), "an SGLang refusal names no field");
    return 0;
  }
  const SglangSettings& s = sglang->settings;
  fuzz::require(s.tp_size >= 1 && s.dp_size >= 1 && s.page_size >= 1, "an SGLang count below 1 was accepted");
  fuzz::require(s.mem_fraction_static >= 0 && s.mem_fraction_static <= 1, "a fraction outside (0, 1] was accepted");
  if (s.tp_size * s.dp_size > 8) return 0;  // keep each input fast
  Request request;
  request.model_preset = "llama-3.1-8b";
  request.gpu_id = "h100-80";
  auto answer = estimate_sglang(request, builtin_catalog(), *sglang);
  if (!answer) {
    fuzz::require(!answer.error().field.empty(), "an SGLang estimate's refusal names no field");
    return 0;
  }
  fuzz::require(answer->memory.max_total_num_tokens >= 0 && answer->memory.req_to_token_bytes >= 0, "a negative pool");
  return 0;
}
