// A model on the Hugging Face Hub as people name it, and the Hub's URLs for it. Pure text:
// nothing here reaches a network (src/net does, natively; the page's shell.js in the browser).
//
// Accepted, as people copy them:
//   org/name                          Qwen/Qwen3-8B (a legacy one-part id, gpt2, too)
//   org/name@revision                 a branch, a tag or a commit sha
//   org/name:quant                    llama.cpp's -hf form: unsloth/Qwen3-8B-GGUF:Q4_K_M
//   org/name@revision:quant
//   org/name[@revision]:<file>        a file by its path in the repo (a name ending .gguf, .safetensors, .json)
//   https://huggingface.co/org/name   and hf.co/..., any host (a mirror's), http or https,
//   .../tree/<rev>[/dir]              a revision;  .../blob/<rev>/<file>, .../resolve/<rev>/<file>: a file
// Repository ids follow huggingface_hub's validate_repo_id (utils/_validators.py): letters,
// digits, '-', '_', '.', at most 96 characters a part, no '--' or '..'.
#pragma once
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace vramfit {

struct HubRef {
  std::string repo;                 // "org/name"
  std::string revision = "main";    // branch, tag or 40-hex commit sha
  std::string file;                 // a file in the repo ("" : vramfit chooses)
  std::string quant;                // a GGUF quantization ("Q4_K_M"), llama.cpp's -hf repo:quant
};

// The Hub's default endpoint (huggingface_hub constants.ENDPOINT); HF_ENDPOINT replaces it.
constexpr const char* kDefaultHubEndpoint = "https://huggingface.co";

Result<HubRef> parse_hub_ref(std::string_view text);
// "org/name", with "@revision" unless main and ":quant" or ":file" as given: what a link carries.
std::string hub_ref_text(const HubRef& ref);
bool is_commit_sha(std::string_view revision);

// An endpoint as given (HF_ENDPOINT, the page's field): http(s)://host[:port][/path], no
// trailing '/'. An error names the field `endpoint`.
Result<std::string> normalize_hub_endpoint(std::string_view endpoint);

// {endpoint}/api/models/{repo}/revision/{revision}?blobs=true: the commit sha the revision
// resolves to and every file with its size (huggingface_hub hf_api.py model_info, files_metadata).
std::string hub_model_info_url(const std::string& endpoint, const std::string& repo, const std::string& revision);
// {endpoint}/{repo}/resolve/{revision}/{file} (huggingface_hub file_download.py hf_hub_url).
std::string hub_resolve_url(const std::string& endpoint, const std::string& repo, const std::string& revision,
                            const std::string& file);
// The page people open for the model: {endpoint}/{repo} (/tree/{revision} when not main).
std::string hub_model_page_url(const std::string& endpoint, const HubRef& ref);

// Percent-encoding of one URL path segment (RFC 3986 unreserved characters kept); with
// keep_slash, '/' stays (a file path inside the repo).
std::string percent_encode(std::string_view text, bool keep_slash);

}  // namespace vramfit
