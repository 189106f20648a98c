// Reading a model from the Hugging Face Hub without downloading it: a plan of HTTP GETs (the
// model's file list, config.json, and the headers of its safetensors shards or GGUF file by
// byte ranges) that a front end carries out with its own HTTP client (libcurl natively,
// fetch() in the page), answer by answer. No network here: the reading says what to fetch
// next and reads each answer through the same readers as a file on disk (io/gguf,
// io/safetensors, io/hf_config) under the same header-reading policy (io/header_reads), so a
// Hub model and the same files read locally give the same request, byte for byte.
//
// What is read, in order:
//   1. {endpoint}/api/models/{repo}/revision/{rev}?blobs=true: the commit sha and the files
//      with their sizes (every later URL names that sha, so the reading is of one commit)
//   2. a file named (.../blob/<rev>/<file>), or a GGUF by quantization (repo:Q4_K_M, llama.cpp's
//      -hf: case-insensitive, Q4_K_M when none is given, else the first GGUF file), or, where the
//      repo has a config.json with weights, config.json, then model.safetensors.index.json and
//      each shard's header (or model.safetensors alone); pytorch_model.bin.index.json's
//      total_size when the repo has only .bin files (dtypes assumed from torch_dtype)
//   3. a GGUF's header by growing ranges until its tensor table is complete; the other parts
//      of a split GGUF (-00001-of-0000N) likewise, their tensors added to the first's
// A LoRA repository (PEFT's adapter_config.json, no config.json): its adapter_config.json, then
// the base model it names (base_model_name_or_path) from step 1, as if that id had been given;
// the adapter's rank and target modules come with the model (HubAdapter).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/formats.hpp"
#include "core/result.hpp"
#include "io/gguf.hpp"
#include "io/hub_ref.hpp"
#include "io/json.hpp"
#include "io/model_file.hpp"
#include "io/safetensors.hpp"

namespace vramfit {

struct HubFetch {
  enum class Kind { file_list, file } kind = Kind::file_list;
  std::string url;
  std::string file;             // the repo's file ("" for the file list)
  int64_t first = -1, last = -1;  // the byte range, inclusive; -1: the whole body
};

// What came back: the status and body, or (status 0) the client's words for why nothing did.
struct HubAnswer {
  int status = 0;
  std::string body;
  std::string content_type;
  std::string error_code;       // the Hub's X-Error-Code (GatedRepo, RepoNotFound, EntryNotFound, RevisionNotFound)
  std::string error_message;    // X-Error-Message
  std::string retry_after;      // Retry-After (429)
  std::string transport_error;  // status 0: unreachable, timed out, cut, redirect loop ...
  bool from_cache = false;
};

struct HubFileEntry {
  std::string name;
  int64_t size = -1;
};

// A GGUF model file of the repo (projectors, mmproj-*, apart), as a picker offers it.
struct HubGguf {
  std::string file;     // the first part of a split file
  std::string quant;    // "Q4_K_M", from the name
  int64_t size = 0;     // all parts
  int parts = 1;
};

// A PEFT LoRA adapter read before its base model (adapter_config.json: peft_type LORA, r,
// lora_alpha, target_modules, base_model_name_or_path; peft/tuners/lora/config.py LoraConfig).
struct HubAdapter {
  std::string repo, sha;
  int64_t rank = 0;                      // r
  std::vector<std::string> targets;      // target_modules as written ("q_proj", ..., or "all-linear")
  std::string weights_file;              // adapter_model.safetensors (or .bin), "" when the repo has none
  int64_t weights_size = -1;             // its size from the file list
  int64_t vllm_max_lora_rank = 0;        // the smallest rank vLLM accepts that holds r (0: r is over 512)
};

struct HubModel {
  HubRef ref;
  std::string endpoint;
  std::string sha;                    // the commit the revision resolved to
  std::vector<HubGguf> ggufs;         // every GGUF model file, for the quantization picker
  std::vector<std::string> mmproj_files;
  std::string chosen;                 // the GGUF read, or "" (config.json and safetensors)
  std::vector<std::string> files_read;
  // The model: `read` (weights from headers) when has_weights, else `config` alone, named
  // config_name, as a config.json given by itself.
  bool has_weights = false;
  ModelFileRead read;
  json config;
  std::string config_name;
  std::optional<HubAdapter> adapter;  // the repository asked for was this adapter of the model read
  std::vector<std::string> notes;     // what was chosen and assumed, for the CLI and the page
  int64_t bytes_fetched = 0;          // bodies, from the network (not the cache)
  int fetches = 0;                    // requests over the network (not answered by the cache)
};

class HubReading {
 public:
  // token_given: whether the client sends a token (the 401/403 message differs).
  HubReading(HubRef ref, std::string endpoint, const FormatTables& formats, bool token_given);

  // The next GET to make, or null when the reading is over (then result()).
  const HubFetch* next() const { return pending_ ? &*pending_ : nullptr; }
  void answer(const HubAnswer& answer);
  const Result<HubModel>& result() const { return result_; }
  // The repository being read: the one asked for, or the base model of a LoRA adapter.
  const HubRef& current_ref() const { return model_.ref; }

  // Progress: files whose reading is over, of those planned (0 before the file list).
  int files_done() const { return files_done_; }
  int files_planned() const { return files_planned_; }
  int64_t bytes_fetched() const { return model_.bytes_fetched; }

 private:
  enum class Stage { file_list, adapter, config, index, safetensors, gguf, done };
  void fail(Error error);
  void finish();
  void plan_from_file_list(const json& info);
  const HubGguf* gguf_asked(bool& failed);
  void read_gguf_files(const HubGguf& gguf);
  void plan_weights_after_config();
  void read_base_of_adapter(const std::string& body);
  void fetch_file(const std::string& file, int64_t first, int64_t last);
  void read_headers(Stage stage, std::vector<std::string> files);
  void next_header_range();
  bool file_answer(const HubAnswer& answer);
  const HubFileEntry* entry(const std::string& name) const;
  std::string where(const std::string& file) const;

  const FormatTables& formats_;
  bool token_given_ = false;
  std::optional<HubFetch> pending_;
  Result<HubModel> result_;
  HubModel model_;
  Stage stage_ = Stage::file_list;
  std::vector<HubFileEntry> files_;
  // the file whose header is being read: its queue (shards, GGUF parts), bytes and size
  std::vector<std::string> queue_;
  size_t queue_index_ = 0;
  std::vector<uint8_t> bytes_;
  int64_t file_size_ = 0;
  std::vector<SafetensorsFile> shards_;
  std::vector<GgufFile> gguf_parts_;
  bool pytorch_index_ = false;
  int files_done_ = 0, files_planned_ = 0;
};

// The quantization a GGUF file's name gives: the part after the last '-' or '.' of its stem
// (a split file's -0000K-of-0000N taken off): "Qwen3-8B-Q4_K_M.gguf" -> "Q4_K_M".
std::string gguf_quant_from_name(const std::string& file);

// vLLM's --max-lora-rank choices (vllm/config/lora.py MaxLoRARanks): the smallest that holds
// rank, or 0 when none does.
int64_t vllm_lora_rank_for(int64_t rank);

// The request fields a Hub model gives, as read_model_file_json gives a file's:
// {"model": {...}, "weights": {...}} (and "hub": where it was read from), or {"error": ...};
// a LoRA adapter's model adds {"vllm": {"enable-lora": true, "max-lora-rank": R}}.
json hub_model_fragment_json(const HubModel& model);

}  // namespace vramfit
