// SGLang's launch line, as people paste it (`python -m sglang.launch_server --model-path M ...`,
// `sglang serve --model-path M ...`), read into its settings by the flags' own names and meanings
// (python/sglang/srt/server_args.py). A flag that does not change memory (--port, --host,
// --chat-template ...) is listed as ignored; one this reader does not know is an error that names
// it, never skipped silently.
#pragma once
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/sglang.hpp"
#include "io/json.hpp"

namespace vramfit {

struct SglangCommand {
  SglangSettings settings;
  std::string model;                 // --model-path / --model: a Hugging Face id or a path
  std::string weights_format;        // --dtype / --quantization as a weight format ("": the model's own)
  std::vector<std::string> ignored;  // flags read and set aside: they do not change memory
};

// True when the words start with SGLang's program (python[3] -m sglang.launch_server, sglang serve).
bool is_sglang_command(const std::vector<std::string>& words);
// The words of a launch line; the program may be left out (flags alone).
Result<SglangCommand> read_sglang_words(const std::vector<std::string>& words);
// How many values one of SGLang's flags takes (0 or 1); -1 when `word` is not one of them.
int sglang_flag_values(const std::string& word);
// A request's "sglang" object: the flags' names without their dashes as keys
// ({"mem-fraction-static": 0.88, "tp-size": 4, "version": "0.5.16"}); an error names the key.
Result<SglangCommand> sglang_settings_from_json(const json& object);
// The inverse: the flags that differ from SGLang's defaults, and the release, so a report's
// request reads back to the same answer (the model and its format are the request's own fields).
json sglang_settings_to_json(const SglangSettings& settings);

}  // namespace vramfit
