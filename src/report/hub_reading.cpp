#include "report/hub_reading.hpp"

#include "report/hub_files.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/units.hpp"
#include "io/header_reads.hpp"
#include "io/hf_config.hpp"
#include "io/request_json.hpp"
#include "report/estimate.hpp"

namespace vramfit {

namespace {

// A string member, or fallback (nlohmann's value() would throw on another type).
std::string string_member(const json& object, const char* key, const std::string& fallback) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_string()) return fallback;
  return object[key].get<std::string>();
}

std::string size_text(int64_t bytes) { return format_bytes(bytes, DisplayUnits::gb); }

}  // namespace

HubReading::HubReading(HubRef ref, std::string endpoint, const FormatTables& formats, bool token_given)
    : formats_(formats), token_given_(token_given), result_(make_error("hub.unfinished", "hf", "hf: not read yet")) {
  model_.ref = std::move(ref);
  model_.endpoint = std::move(endpoint);
  pending_ = HubFetch{HubFetch::Kind::file_list, hub_model_info_url(model_.endpoint, model_.ref.repo, model_.ref.revision),
                      "", -1, -1};
}

std::string HubReading::where(const std::string& file) const {
  std::string text = "hf: " + model_.ref.repo;
  if (model_.ref.revision != "main") text += "@" + model_.ref.revision;
  return text + (file.empty() ? "" : ": " + file);
}

void HubReading::fail(Error error) {
  pending_.reset();
  stage_ = Stage::done;
  result_ = std::move(error);
}

const HubFileEntry* HubReading::entry(const std::string& name) const {
  for (const HubFileEntry& f : files_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

void HubReading::fetch_file(const std::string& file, int64_t first, int64_t last) {
  pending_ = HubFetch{HubFetch::Kind::file, hub_resolve_url(model_.endpoint, model_.ref.repo, model_.sha, file), file,
                      first, last};
}

// Checks an answer's status; false (and the reading failed, with the reason in words) unless 2xx.
bool HubReading::file_answer(const HubAnswer& a) {
  const std::string file = pending_ ? pending_->file : "";
  const std::string what = where(file);
  const std::string page = hub_model_page_url(model_.endpoint, model_.ref);
  if (a.status == 0) {
    fail(make_error("hub.unreachable", "hf", what + ": " + (a.transport_error.empty() ? "no answer" : a.transport_error)));
    return false;
  }
  if (a.status >= 200 && a.status < 300) return true;
  const std::string code = a.error_code;
  const bool gated = code == "GatedRepo" || a.body.find("gated") != std::string::npos;
  if ((a.status == 401 || a.status == 403) && gated) {
    fail(make_error("hub.gated", "hf",
                    what + ": gated: accept the licence on the model page (" + page + "), then give a read token" +
                        (token_given_ ? " (the token given has no access to it yet)" : " (HF_TOKEN)")));
  } else if (a.status == 401 || a.status == 403) {
    fail(make_error("hub.unauthorized", "hf",
                    what + ": " + std::to_string(a.status) + ": not found, private or gated: check the id" +
                        (token_given_ ? "; the token given has no access to it" : ", or give a read token (HF_TOKEN)")));
  } else if (a.status == 404 && code == "RevisionNotFound") {
    fail(make_error("hub.not_found", "hf", what + ": revision " + model_.ref.revision + " not found"));
  } else if (a.status == 404 && code == "EntryNotFound") {
    fail(make_error("hub.not_found", "hf", what + ": no such file in the repository"));
  } else if (a.status == 404 && file.empty()) {
    fail(make_error("hub.not_found", "hf", what + ": no such model on " + model_.endpoint + ": check the id"));
  } else if (a.status == 404) {
    fail(make_error("hub.not_found", "hf", what + ": not found (404)"));
  } else if (a.status == 429) {
    fail(make_error("hub.rate_limited", "hf",
                    what + ": rate-limited by the Hub (429)" +
                        (a.retry_after.empty() ? ": try again later" : ": retry after " + a.retry_after + " s") +
                        (token_given_ ? "" : "; a token raises the limit")));
  } else {
    fail(make_error("hub.http_error", "hf",
                    what + ": the server answered " + std::to_string(a.status) +
                        (a.error_message.empty() ? "" : " (" + a.error_message + ")")));
  }
  return false;
}

void HubReading::answer(const HubAnswer& a) {
  if (!pending_) return;
  if (!a.from_cache) {
    model_.bytes_fetched += static_cast<int64_t>(a.body.size());
    model_.fetches += 1;
  }
  if (!file_answer(a)) return;
  const HubFetch fetch = *pending_;
  if (stage_ == Stage::file_list) {
    const json info = parse_json(a.body);
    if (info.is_discarded() || !info.is_object()) {
      const bool html = a.content_type.find("html") != std::string::npos || a.body.find("<html") != std::string::npos ||
                        a.body.find("<!DOCTYPE") != std::string::npos;
      fail(make_error("hub.not_json", "hf",
                      where("") + ": the file list (" + fetch.url + ") is " +
                          (html ? "an HTML page" : "not JSON") + ", not the Hub's model API: is the endpoint a Hub?"));
      return;
    }
    plan_from_file_list(info);
    return;
  }
  // A whole file (config.json, an index) or a range of a header.
  if (fetch.first >= 0) {
    const int64_t wanted = fetch.last - fetch.first + 1;
    const int64_t got = static_cast<int64_t>(a.body.size());
    if (a.status == 200 && fetch.first > 0) {
      fail(make_error("hub.no_range", "hf", where(fetch.file) + ": the server ignored the Range request (200, not 206)"));
      return;
    }
    if (got > wanted) {
      fail(make_error("hub.no_range", "hf", where(fetch.file) + ": the server sent " + with_thousands(got) +
                                                " B for a range of " + with_thousands(wanted) + " B"));
      return;
    }
    if (got < wanted) {
      fail(make_error("hub.cut_short", "hf", where(fetch.file) + ": cut short: " + with_thousands(got) + " of " +
                                                 with_thousands(wanted) + " B of bytes " + with_thousands(fetch.first) +
                                                 "-" + with_thousands(fetch.last)));
      return;
    }
    bytes_.insert(bytes_.end(), a.body.begin(), a.body.end());
    next_header_range();
    return;
  }
  if (stage_ == Stage::adapter) {
    read_base_of_adapter(a.body);
    return;
  }
  if (stage_ == Stage::config) {
    model_.config = parse_json(a.body);
    model_.files_read.push_back("config.json");
    ++files_done_;
    if (model_.config.is_discarded() || !model_.config.is_object()) {
      fail(make_error("hub.bad_config", "hf", where("config.json") + ": not a JSON object"));
      return;
    }
    if (model_.config.contains("auto_map")) {
      std::string classes;
      if (model_.config["auto_map"].is_object()) {
        for (auto it = model_.config["auto_map"].begin(); it != model_.config["auto_map"].end(); ++it) {
          if (it.value().is_string()) classes += (classes.empty() ? "" : ", ") + it.value().get<std::string>();
        }
      }
      model_.notes.push_back("custom architecture: config.json's auto_map names remote code (" + classes +
                             "); vramfit reads its config keys as model_type " +
                             string_member(model_.config, "model_type", "(none)") + " and runs no code");
    }
    plan_weights_after_config();
    return;
  }
  if (stage_ == Stage::index) {
    auto index = read_safetensors_index(a.body, fetch.file);
    model_.files_read.push_back(fetch.file);
    ++files_done_;
    if (!index) {
      fail(make_error(index.error().id, "hf", where(fetch.file) + ": " + index.error().message));
      return;
    }
    if (pytorch_index_) {
      auto read = model_from_safetensors_index(*index, model_.config, fetch.file);
      if (!read) {
        fail(read.error());
        return;
      }
      model_.read = std::move(read).value();
      model_.read.weights.source = "pytorch-index";
      model_.has_weights = true;
      model_.notes.push_back("only pytorch_model.bin files: their total_size from " + fetch.file +
                             "; the dtype of every tensor is assumed from torch_dtype (a .bin has no header to read)");
      finish();
      return;
    }
    for (const std::string& shard : index->shards) {
      if (!entry(shard)) {
        fail(make_error("hub.missing_shard", "hf", where(fetch.file) + ": names " + shard + ", which the repository does not have"));
        return;
      }
    }
    read_headers(Stage::safetensors, index->shards);
  }
}

void HubReading::plan_from_file_list(const json& info) {
  model_.sha = string_member(info, "sha", "");
  if (!is_commit_sha(model_.sha)) {
    fail(make_error("hub.not_json", "hf", where("") + ": the file list gives no commit sha: is the endpoint a Hub?"));
    return;
  }
  files_ = hub_files_of(info);
  list_ggufs(files_, model_);
  bool failed = false;
  const HubGguf* gguf = gguf_asked(failed);
  if (failed) return;
  const bool has_config = entry("config.json") != nullptr;
  const bool has_weights = entry("model.safetensors.index.json") || entry("model.safetensors") ||
                           entry("pytorch_model.bin.index.json") || entry("pytorch_model.bin");
  if (!gguf && model_.ref.file.empty() && !(has_config && has_weights) && !model_.ggufs.empty()) {
    // llama.cpp's -hf without a quant (common/arg.cpp): Q4_K_M, or the first GGUF file.
    gguf = default_gguf(model_.ggufs);
    if (model_.ggufs.size() > 1) {
      model_.notes.push_back("no quantization given: " + gguf->quant + ", as llama.cpp's -hf chooses (Q4_K_M, else the first "
                             "file); the repository has " + quants_text(model_.ggufs));
    }
  }
  if (gguf) {
    read_gguf_files(*gguf);
    return;
  }
  if (!has_config && entry("adapter_config.json") && !model_.adapter) {
    files_planned_ = 1;
    stage_ = Stage::adapter;
    fetch_file("adapter_config.json", -1, -1);
    return;
  }
  if (!has_config) {
    fail(make_error("hub.no_config", "hf",
                    where("") + ": no config.json and no GGUF file: vramfit reads a model's config.json (with its safetensors "
                                "headers) or a GGUF file"));
    return;
  }
  files_planned_ = files_done_ + 1;  // (after an adapter's adapter_config.json, one more)
  stage_ = Stage::config;
  fetch_file("config.json", -1, -1);
}

// The GGUF the id names: by its file, or by its quantization after ":"; null when it names
// none (then `failed` says whether that is an error, already given).
const HubGguf* HubReading::gguf_asked(bool& failed) {
  const HubRef& ref = model_.ref;
  failed = true;
  if (!ref.file.empty()) {
    if (!entry(ref.file)) {
      fail(make_error("hub.not_found", "hf", where(ref.file) + ": not in the repository at " + model_.sha.substr(0, 12)));
      return nullptr;
    }
    const ModelFileKind kind = model_file_kind(ref.file);
    if (kind == ModelFileKind::gguf) {
      for (const HubGguf& g : model_.ggufs) {
        if (g.file == ref.file) { failed = false; return &g; }
      }
      fail(make_error("hub.bad_file", "hf", where(ref.file) + ": a projector or a later part of a split GGUF: name the model's (first) GGUF"));
      return nullptr;
    }
    if (kind != ModelFileKind::safetensors && ref.file != "config.json") {  // a shard: read after config.json
      fail(make_error("hub.bad_file", "hf", where(ref.file) + ": not a .gguf, .safetensors or config.json file"));
      return nullptr;
    }
  } else if (!ref.quant.empty()) {
    const HubGguf* gguf = gguf_of_quant(model_.ggufs, ref.quant);
    if (!gguf) {
      fail(make_error("hub.no_quant", "hf",
                      where("") + ": no GGUF file of quantization " + ref.quant +
                          (model_.ggufs.empty() ? " (the repository has no GGUF files)" : "; it has " + quants_text(model_.ggufs))));
      return nullptr;
    }
    failed = false;
    return gguf;
  }
  failed = false;
  return nullptr;
}

// A GGUF chosen: its headers read, every part of a split file.
void HubReading::read_gguf_files(const HubGguf& gguf) {
  model_.chosen = gguf.file;
  if (!model_.mmproj_files.empty()) {
    model_.notes.push_back("the repository has a multimodal projector (" + model_.mmproj_files.front() +
                           ") that llama.cpp's -hf also loads; not read here (give it with --mmproj-gguf)");
  }
  queue_.clear();
  queue_.push_back(gguf.file);
  for (const std::string& part : gguf_later_parts(gguf)) {
    if (!entry(part)) {
      fail(make_error("hub.missing_shard", "hf", where(gguf.file) + ": part " + part + " is not in the repository"));
      return;
    }
    queue_.push_back(part);
  }
  read_headers(Stage::gguf, queue_);
}

void HubReading::plan_weights_after_config() {
  if (!model_.ref.file.empty() && model_file_kind(model_.ref.file) == ModelFileKind::safetensors) {
    read_headers(Stage::safetensors, {model_.ref.file});
    return;
  }
  if (!model_.ref.file.empty()) {  // config.json itself
    finish();
    return;
  }
  for (const char* index : {"model.safetensors.index.json", "pytorch_model.bin.index.json"}) {
    if (entry(index) && (std::string(index) != "pytorch_model.bin.index.json" || !entry("model.safetensors"))) {
      pytorch_index_ = std::string(index) == "pytorch_model.bin.index.json";
      files_planned_ += 1;
      stage_ = Stage::index;
      fetch_file(index, -1, -1);
      return;
    }
  }
  if (entry("model.safetensors")) {
    read_headers(Stage::safetensors, {"model.safetensors"});
    return;
  }
  model_.notes.push_back(entry("pytorch_model.bin")
                             ? "only pytorch_model.bin (no header to read): the weights from config.json, in its torch_dtype"
                             : "no weights files: the weights from config.json, in its torch_dtype");
  finish();
}

// Reads the headers of `files` in turn (safetensors shards, or a GGUF and its split parts).
void HubReading::read_headers(Stage stage, std::vector<std::string> files) {
  queue_ = std::move(files);
  files_planned_ += static_cast<int>(queue_.size());
  queue_index_ = 0;
  stage_ = stage;
  bytes_.clear();
  next_header_range();
}

// The next range of the current file under io/header_reads.hpp's policy (only the bytes not
// yet read), or, when its header is complete, the file read and the next file begun.
void HubReading::next_header_range() {
  for (;;) {
    const std::string& file = queue_[queue_index_];
    const HubFileEntry* e = entry(file);
    if (!e || e->size < 0) {
      fail(make_error("hub.no_size", "hf", where(file) + ": the file list gives no size for it"));
      return;
    }
    file_size_ = e->size;
    const ModelFileKind kind = stage_ == Stage::gguf ? ModelFileKind::gguf : ModelFileKind::safetensors;
    const int64_t have = static_cast<int64_t>(bytes_.size());
    int64_t length = 0;
    if (have == 0) {
      length = next_header_read(kind, file_size_, 0, nullptr, false);
    } else {
      bool runs_on = false;
      if (kind == ModelFileKind::gguf) {
        auto gguf = read_gguf(bytes_.data(), have, base_name(file), file_size_);
        runs_on = !gguf && gguf.error().id == "gguf.truncated";
      }
      length = next_header_read(kind, file_size_, have, bytes_.data(), runs_on);
    }
    if (length > have) {
      fetch_file(file, have, length - 1);
      return;
    }
    // The header is complete (or the policy stops): read it as a local file is read.
    model_.files_read.push_back(file);
    ++files_done_;
    if (kind == ModelFileKind::gguf) {
      auto gguf = read_gguf(bytes_.data(), have, base_name(file), file_size_);
      if (!gguf) {
        fail(make_error(gguf.error().id, "hf", where(file) + ": " + gguf.error().message));
        return;
      }
      gguf_parts_.push_back(std::move(gguf).value());
    } else {
      auto st = read_safetensors(bytes_.data(), have, base_name(file), file_size_);
      if (!st) {
        fail(make_error(st.error().id, "hf", where(file) + ": " + st.error().message));
        return;
      }
      shards_.push_back(std::move(st).value());
    }
    bytes_.clear();
    if (++queue_index_ < queue_.size()) continue;
    finish();
    return;
  }
}

void HubReading::finish() {
  pending_.reset();
  stage_ = Stage::done;
  if (!gguf_parts_.empty()) {
    GgufFile merged = gguf_parts_.front();
    for (size_t i = 1; i < gguf_parts_.size(); ++i) {
      merged.tensors.insert(merged.tensors.end(), gguf_parts_[i].tensors.begin(), gguf_parts_[i].tensors.end());
    }
    if (gguf_parts_.size() > 1) {
      model_.notes.push_back("a split GGUF: the tensors of its " + std::to_string(gguf_parts_.size()) + " parts together");
    }
    auto read = model_from_gguf(formats_, merged, base_name(model_.chosen));
    if (!read) {
      result_ = make_error(read.error().id, "hf", where(model_.chosen) + ": " + read.error().message);
      return;
    }
    model_.read = std::move(read).value();
    model_.has_weights = true;
  } else if (!shards_.empty()) {
    std::vector<std::string> names;
    for (const std::string& shard : queue_) names.push_back(base_name(shard));
    auto read = model_from_safetensors(shards_, &model_.config, names);
    if (!read) {
      result_ = make_error(read.error().id, "hf", where("") + ": " + read.error().message);
      return;
    }
    model_.read = std::move(read).value();
    model_.has_weights = true;
  } else if (!model_.has_weights) {
    model_.config_name = "config.json";
  }
  result_ = model_;
}

int64_t vllm_lora_rank_for(int64_t rank) {
  for (int64_t allowed : {1, 8, 16, 32, 64, 128, 256, 320, 512}) {
    if (rank <= allowed) return allowed;
  }
  return 0;
}

// adapter_config.json read: the adapter is kept, and the reading starts again on its base model.
void HubReading::read_base_of_adapter(const std::string& body) {
  const json config = parse_json(body);
  model_.files_read.push_back("adapter_config.json");
  ++files_done_;
  const std::string file = where("adapter_config.json");
  if (config.is_discarded() || !config.is_object()) {
    fail(make_error("hub.bad_config", "hf", file + ": not a JSON object"));
    return;
  }
  const std::string type = string_member(config, "peft_type", "");
  if (type != "LORA") {
    fail(make_error("hub.bad_adapter", "hf", file + ": a " + (type.empty() ? "(no peft_type)" : type) +
                                                 " adapter; vramfit reads LoRA adapters (peft_type LORA)"));
    return;
  }
  const std::string base = string_member(config, "base_model_name_or_path", "");
  auto base_ref = parse_hub_ref(base);
  if (base.empty() || !base_ref) {
    fail(make_error("hub.bad_adapter", "hf", file + ": base_model_name_or_path '" + base +
                                                 "' is not a Hub id: read the base model by its id, then its adapter"));
    return;
  }
  HubAdapter adapter;
  adapter.repo = model_.ref.repo;
  adapter.sha = model_.sha;
  if (!config.contains("r") || !config["r"].is_number_integer() || config["r"].get<int64_t>() < 1) {
    fail(make_error("hub.bad_adapter", "hf", file + ": r (the LoRA rank) is not a positive whole number"));
    return;
  }
  adapter.rank = config["r"].get<int64_t>();
  adapter.vllm_max_lora_rank = vllm_lora_rank_for(adapter.rank);
  if (config.contains("target_modules") && config["target_modules"].is_array()) {
    for (const json& t : config["target_modules"]) {
      if (t.is_string()) adapter.targets.push_back(t.get<std::string>());
    }
  } else if (config.contains("target_modules") && config["target_modules"].is_string()) {
    adapter.targets.push_back(config["target_modules"].get<std::string>());
  }
  for (const char* weights : {"adapter_model.safetensors", "adapter_model.bin"}) {
    if (const HubFileEntry* e = entry(weights); e && adapter.weights_file.empty()) {
      adapter.weights_file = weights;
      adapter.weights_size = e->size;
    }
  }
  std::string targets;
  for (const std::string& t : adapter.targets) targets += (targets.empty() ? "" : ", ") + t;
  std::string note = "a LoRA adapter (rank " + std::to_string(adapter.rank) + (targets.empty() ? "" : " on " + targets) +
                     (adapter.weights_size >= 0 ? ", " + adapter.weights_file + " " + size_text(adapter.weights_size) : "") +
                     ") of " + base_ref->repo + ", read from there; ";
  note += adapter.vllm_max_lora_rank > 0
              ? "vLLM serves it with --enable-lora --max-lora-rank " + std::to_string(adapter.vllm_max_lora_rank) +
                    " (set); llama.cpp's --lora takes it converted to GGUF (convert_lora_to_gguf.py)"
              : "its rank is over vLLM's largest --max-lora-rank (512)";
  model_.notes.push_back(note);
  model_.adapter = std::move(adapter);
  // The base model from its file list on, as if its id had been given.
  model_.ref = *base_ref;
  model_.sha.clear();
  files_.clear();
  model_.ggufs.clear();
  model_.mmproj_files.clear();
  stage_ = Stage::file_list;
  pending_ = HubFetch{HubFetch::Kind::file_list, hub_model_info_url(model_.endpoint, model_.ref.repo, model_.ref.revision),
                      "", -1, -1};
}

json hub_model_fragment_json(const HubModel& model) {
  json fragment;
  if (model.has_weights) {
    Request request;
    if (auto e = apply_model_file(request, model.read)) return error_to_json(*e);
    const json full = request_to_json(request);
    fragment = {{"model", full["model"]}, {"weights", full["weights"]}};
  } else {
    fragment = read_config_fragment_json(model.config.dump(), model.config_name);
    if (fragment.contains("error")) return fragment;
  }
  json ggufs = json::array();
  for (const HubGguf& g : model.ggufs) ggufs.push_back({{"file", g.file}, {"quant", g.quant}, {"size", g.size}, {"parts", g.parts}});
  fragment["hub"] = {{"repo", model.ref.repo},      {"revision", model.ref.revision}, {"sha", model.sha},
                     {"file", model.chosen},        {"ggufs", ggufs},                 {"files_read", model.files_read},
                     {"notes", model.notes},        {"bytes_fetched", model.bytes_fetched},
                     {"fetches", model.fetches}};
  if (model.adapter) {
    const HubAdapter& a = *model.adapter;
    fragment["hub"]["adapter"] = {{"repo", a.repo}, {"sha", a.sha}, {"rank", a.rank}, {"targets", a.targets},
                                  {"weights_file", a.weights_file}, {"weights_size", a.weights_size}};
    if (a.vllm_max_lora_rank > 0) fragment["vllm"] = {{"enable-lora", true}, {"max-lora-rank", a.vllm_max_lora_rank}};
  }
  return fragment;
}

}  // namespace vramfit
