// Models by their Hugging Face id: the ids and URLs people copy (io/hub_ref) and the reading
// of a repository by ranged GETs (report/hub_reading), answered here by an in-memory repository
// that serves real-shaped headers (tests/support/model_file_writers.hpp) with the Hub's
// answers. The same reading over HTTP, against a local Hub-shaped server: tests/hub/.
#include <fstream>
#include <functional>
#include <map>

#include "helpers.hpp"
#include "io/hub_ref.hpp"
#include "io/safetensors.hpp"
#include "report/hub_reading.hpp"
#include "support/model_file_writers.hpp"
#include "support/published_gguf.hpp"
#include "text/messages.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

const std::string kSha = "0123456789abcdef0123456789abcdef01234567";

// A repository: each file's leading bytes (the header; the rest reads as zeros) and its size.
struct FakeRepo {
  std::map<std::string, std::pair<std::vector<uint8_t>, int64_t>> files;
  int gated_status = 0;  // 401/403: every file answers so (the Hub's GatedRepo)
  void add(const std::string& name, std::vector<uint8_t> bytes, int64_t size = -1) {
    const int64_t n = size < 0 ? static_cast<int64_t>(bytes.size()) : size;
    files[name] = {std::move(bytes), n};
  }
  void add_text(const std::string& name, const std::string& text) { add(name, {text.begin(), text.end()}); }
};

std::string file_list_json(const FakeRepo& repo) {
  json siblings = json::array();
  for (const auto& [name, file] : repo.files) siblings.push_back({{"rfilename", name}, {"size", file.second}});
  return json{{"id", "org/model"}, {"sha", kSha}, {"siblings", siblings}}.dump();
}

HubAnswer serve(const FakeRepo& repo, const HubFetch& fetch) {
  HubAnswer a;
  if (fetch.kind == HubFetch::Kind::file_list) {
    a.status = 200;
    a.body = file_list_json(repo);
    return a;
  }
  if (repo.gated_status) {
    a.status = repo.gated_status;
    a.error_code = "GatedRepo";
    return a;
  }
  const std::string tail = "/resolve/" + kSha + "/" + percent_encode(fetch.file, true);
  CHECK(fetch.url.compare(fetch.url.size() - std::min(fetch.url.size(), tail.size()), tail.size(), tail) == 0);
  const auto it = repo.files.find(fetch.file);
  if (it == repo.files.end()) {
    a.status = 404;
    a.error_code = "EntryNotFound";
    return a;
  }
  const auto& [bytes, size] = it->second;
  const int64_t first = fetch.first < 0 ? 0 : fetch.first;
  const int64_t last = fetch.last < 0 ? size - 1 : std::min(fetch.last, size - 1);
  a.status = fetch.first < 0 ? 200 : 206;
  for (int64_t i = first; i <= last; ++i) a.body.push_back(i < static_cast<int64_t>(bytes.size()) ? static_cast<char>(bytes[i]) : '\0');
  return a;
}

// Runs the reading to its end; `alter` may change an answer (a server's misbehaviour).
Result<HubModel> read_repo(const FakeRepo& repo, const std::string& id, bool token = false,
                           const std::function<void(const HubFetch&, HubAnswer&)>& alter = {}) {
  auto ref = parse_hub_ref(id);
  REQUIRE(ref);
  HubReading reading(*ref, "https://huggingface.co", builtin_catalog().formats, token);
  for (int guard = 0; reading.next() && guard < 100; ++guard) {
    HubAnswer a = serve(repo, *reading.next());
    if (alter) alter(*reading.next(), a);
    reading.answer(a);
  }
  REQUIRE_FALSE(reading.next());
  return reading.result();
}

json without_hub(json fragment) {
  fragment.erase("hub");
  return fragment;
}

json local_fragment(const ModelFileRead& read) {
  Request request;
  REQUIRE_FALSE(apply_model_file(request, read));
  const json full = request_to_json(request);
  return {{"model", full["model"]}, {"weights", full["weights"]}};
}

std::vector<uint8_t> safetensors_of(const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors, int64_t& size) {
  auto bytes = write_safetensors(tensors, "BF16", 2);
  auto file = read_safetensors(bytes.data(), static_cast<int64_t>(bytes.size()), "x.safetensors");
  REQUIRE(file);
  size = static_cast<int64_t>(bytes.size()) + file->data_bytes;
  return bytes;
}

}  // namespace

TEST_CASE("Hub ids and URLs as people copy them", "[hub]") {
  struct Case {
    const char* text;
    const char* repo;
    const char* revision;
    const char* file;
    const char* quant;
  };
  const Case cases[] = {
      {"Qwen/Qwen3-8B", "Qwen/Qwen3-8B", "main", "", ""},
      {"gpt2", "gpt2", "main", "", ""},
      {"  meta-llama/Llama-3.1-70B-Instruct \n", "meta-llama/Llama-3.1-70B-Instruct", "main", "", ""},
      {"unsloth/Qwen3-8B-GGUF:Q4_K_M", "unsloth/Qwen3-8B-GGUF", "main", "", "Q4_K_M"},
      {"Qwen/Qwen3-8B@v1.0", "Qwen/Qwen3-8B", "v1.0", "", ""},
      {"Qwen/Qwen3-8B@0123456789abcdef0123456789abcdef01234567:q8_0", "Qwen/Qwen3-8B", kSha.c_str(), "", "q8_0"},
      {"https://huggingface.co/Qwen/Qwen3-8B", "Qwen/Qwen3-8B", "main", "", ""},
      {"https://huggingface.co/Qwen/Qwen3-8B/", "Qwen/Qwen3-8B", "main", "", ""},
      {"hf.co/Qwen/Qwen3-8B", "Qwen/Qwen3-8B", "main", "", ""},
      {"https://huggingface.co/Qwen/Qwen3-8B/tree/refs%2Fpr%2F3", "Qwen/Qwen3-8B", "refs/pr/3", "", ""},
      {"https://huggingface.co/unsloth/Qwen3-8B-GGUF/blob/main/Qwen3-8B-Q4_K_M.gguf", "unsloth/Qwen3-8B-GGUF", "main",
       "Qwen3-8B-Q4_K_M.gguf", ""},
      {"https://huggingface.co/unsloth/Qwen3-8B-GGUF/resolve/main/Qwen3-8B-Q4_K_M.gguf?download=true",
       "unsloth/Qwen3-8B-GGUF", "main", "Qwen3-8B-Q4_K_M.gguf", ""},
      {"https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json", "Qwen/Qwen3-8B", "main", "config.json", ""},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto ref = parse_hub_ref(c.text);
    REQUIRE(ref);
    CHECK(ref->repo == c.repo);
    CHECK(ref->revision == c.revision);
    CHECK(ref->file == c.file);
    CHECK(ref->quant == c.quant);
    // What a link carries reads back as the same reference.
    auto again = parse_hub_ref(hub_ref_text(*ref));
    REQUIRE(again);
    CHECK(again->repo == ref->repo);
    CHECK(again->revision == ref->revision);
    CHECK(again->file == ref->file);
    CHECK(again->quant == ref->quant);
  }
  for (const char* bad : {"", "   ", "org/", "/name", "org//name", "a/b/c", "org/na me", "org/a--b", "org/a..b",
                          "https://huggingface.co/datasets/org/data", "https://huggingface.co/spaces/org/app",
                          "Qwen/Qwen3-8B@", "Qwen/Qwen3-8B:", "ftp://huggingface.co/Qwen/Qwen3-8B"}) {
    INFO(bad);
    auto ref = parse_hub_ref(bad);
    REQUIRE_FALSE(ref);
    CHECK(ref.error().field == "hf");
    CHECK_FALSE(ref.error().message.empty());
  }
  CHECK_FALSE(parse_hub_ref("org/" + std::string(97, 'a')));
  CHECK(parse_hub_ref("org/" + std::string(96, 'a')));
  CHECK(is_commit_sha(kSha));
  CHECK_FALSE(is_commit_sha("main"));
  CHECK_FALSE(is_commit_sha(kSha.substr(1)));
}

TEST_CASE("the Hub's URLs: the model API, resolve, the model page, a mirror's endpoint", "[hub]") {
  CHECK(hub_model_info_url("https://huggingface.co", "Qwen/Qwen3-8B", "main") ==
        "https://huggingface.co/api/models/Qwen/Qwen3-8B/revision/main?blobs=true");
  CHECK(hub_model_info_url("https://huggingface.co", "Qwen/Qwen3-8B", "refs/pr/3") ==
        "https://huggingface.co/api/models/Qwen/Qwen3-8B/revision/refs%2Fpr%2F3?blobs=true");
  CHECK(hub_resolve_url("https://huggingface.co", "org/m", kSha, "sub dir/model 1.gguf") ==
        "https://huggingface.co/org/m/resolve/" + kSha + "/sub%20dir/model%201.gguf");
  HubRef ref;
  ref.repo = "org/m";
  CHECK(hub_model_page_url("https://huggingface.co", ref) == "https://huggingface.co/org/m");
  ref.revision = "v2";
  CHECK(hub_model_page_url("https://huggingface.co", ref) == "https://huggingface.co/org/m/tree/v2");
  CHECK(*normalize_hub_endpoint("https://hub.example.org/") == "https://hub.example.org");
  CHECK(*normalize_hub_endpoint("http://127.0.0.1:8080/hf") == "http://127.0.0.1:8080/hf");
  for (const char* bad : {"", "hub.example.org", "ftp://hub.example.org", "https://", "https://hub example"}) {
    INFO(bad);
    auto e = normalize_hub_endpoint(bad);
    REQUIRE_FALSE(e);
    CHECK(e.error().field == "endpoint");
  }
}

TEST_CASE("a sharded safetensors repo from the Hub reads as the same files on disk, headers only", "[hub]") {
  const ModelSpec& spec = preset("llama-3.1-8b").spec;
  const auto tensors = hf_dense_tensors(spec);
  const size_t half = tensors.size() / 2;
  int64_t size_a = 0, size_b = 0;
  const auto a = safetensors_of({tensors.begin(), tensors.begin() + static_cast<long>(half)}, size_a);
  const auto b = safetensors_of({tensors.begin() + static_cast<long>(half), tensors.end()}, size_b);
  const std::string sa = "model-00001-of-00002.safetensors", sb = "model-00002-of-00002.safetensors";
  json weight_map;
  for (size_t i = 0; i < tensors.size(); ++i) weight_map[tensors[i].first] = i < half ? sa : sb;
  FakeRepo repo;
  const json config = write_hf_config(spec);
  repo.add_text("config.json", config.dump());
  repo.add_text("model.safetensors.index.json",
                json{{"metadata", {{"total_size", size_a + size_b}}}, {"weight_map", weight_map}}.dump());
  repo.add(sa, a, size_a);
  repo.add(sb, b, size_b);
  repo.add_text("README.md", "# a model");
  auto model = read_repo(repo, "org/model");
  REQUIRE(model);
  CHECK(model->sha == kSha);
  CHECK(model->has_weights);
  CHECK(model->chosen.empty());
  CHECK(model->files_read == std::vector<std::string>{"config.json", "model.safetensors.index.json", sa, sb});
  // The file list, config.json, the index, then each shard's 8-byte length and its header.
  CHECK(model->fetches == 7);
  CHECK(model->bytes_fetched < static_cast<int64_t>(a.size() + b.size() + 4096 + file_list_json(repo).size() +
                                                    config.dump().size() + weight_map.dump().size() + 100));
  // The same shards read from disk (the CLI's --config with --safetensors).
  std::vector<SafetensorsFile> shards;
  for (const auto* bytes : {&a, &b}) {
    auto f = read_safetensors(bytes->data(), static_cast<int64_t>(bytes->size()), bytes == &a ? sa : sb,
                              bytes == &a ? size_a : size_b);
    REQUIRE(f);
    shards.push_back(*f);
  }
  auto local = model_from_safetensors(shards, &config, {sa, sb});
  REQUIRE(local);
  const json fragment = hub_model_fragment_json(*model);
  CHECK(without_hub(fragment) == local_fragment(*local));
  CHECK(fragment["hub"]["sha"] == kSha);
  CHECK(fragment["hub"]["repo"] == "org/model");
  CHECK(local->weights.parameters == count_parameters(spec));
  // An index naming a shard the repository lacks.
  FakeRepo missing = repo;
  missing.files.erase(sb);
  auto e = read_repo(missing, "org/model");
  REQUIRE_FALSE(e);
  CHECK(e.error().id == "hub.missing_shard");
  CHECK(e.error().message.find(sb) != std::string::npos);
}

TEST_CASE("a GGUF repo with several quantizations: llama.cpp's -hf choice, :quant, a named file", "[hub]") {
  // 150,000 listed tokens: the tokenizer alone is over the first 1 MiB read, so the header grows.
  const auto q4 = llama_3_2_1b_gguf("Q4_K_M", 150000);
  const auto q8 = llama_3_2_1b_gguf("Q8_0", 64);
  REQUIRE(q4.size() > (1u << 20));
  const int64_t q4_size = 808000000, q8_size = 1320000000;
  FakeRepo repo;
  repo.add("Llama-3.2-1B-Instruct-Q8_0.gguf", q8, q8_size);
  repo.add("Llama-3.2-1B-Instruct-Q4_K_M.gguf", q4, q4_size);
  repo.add("mmproj-F16.gguf", write_mmproj_gguf(), 600000000);
  repo.add_text("README.md", "# GGUF");
  auto model = read_repo(repo, "org/model");
  REQUIRE(model);
  CHECK(model->chosen == "Llama-3.2-1B-Instruct-Q4_K_M.gguf");
  REQUIRE(model->ggufs.size() == 2);
  CHECK(model->mmproj_files == std::vector<std::string>{"mmproj-F16.gguf"});
  CHECK(model->fetches == 3);  // the file list, the first MiB, then up to 4 MiB
  const json local = read_model_file_json("Llama-3.2-1B-Instruct-Q4_K_M.gguf", q4.data(), static_cast<int64_t>(q4.size()), q4_size);
  REQUIRE_FALSE(local.contains("error"));
  CHECK(without_hub(hub_model_fragment_json(*model)) == local);
  bool says_choice = false, says_mmproj = false;
  for (const std::string& note : model->notes) {
    says_choice |= note.find("Q4_K_M, as llama.cpp's -hf chooses") != std::string::npos && note.find("Q8_0") != std::string::npos;
    says_mmproj |= note.find("mmproj-F16.gguf") != std::string::npos;
  }
  CHECK(says_choice);
  CHECK(says_mmproj);
  // :quant, case-insensitive, as llama.cpp's -hf repo:quant.
  auto q8_model = read_repo(repo, "org/model:q8_0");
  REQUIRE(q8_model);
  CHECK(q8_model->chosen == "Llama-3.2-1B-Instruct-Q8_0.gguf");
  CHECK(q8_model->fetches == 2);
  CHECK(without_hub(hub_model_fragment_json(*q8_model)) ==
        read_model_file_json("Llama-3.2-1B-Instruct-Q8_0.gguf", q8.data(), static_cast<int64_t>(q8.size()), q8_size));
  // A blob URL names the file.
  auto named = read_repo(repo, "https://huggingface.co/org/model/blob/main/Llama-3.2-1B-Instruct-Q8_0.gguf");
  REQUIRE(named);
  CHECK(named->chosen == "Llama-3.2-1B-Instruct-Q8_0.gguf");
  // A quantization the repo lacks lists what it has.
  auto none = read_repo(repo, "org/model:IQ2_XXS");
  REQUIRE_FALSE(none);
  CHECK(none.error().id == "hub.no_quant");
  CHECK(none.error().message.find("Q8_0 (1.32 GB)") != std::string::npos);
  INFO(none.error().message);
  CHECK(none.error().message.find("Q4_K_M (808.00 MB)") != std::string::npos);
  auto projector = read_repo(repo, "https://huggingface.co/org/model/blob/main/mmproj-F16.gguf");
  REQUIRE_FALSE(projector);
  CHECK(projector.error().id == "hub.bad_file");
  CHECK(gguf_quant_from_name("Qwen3-8B-Q4_K_M.gguf") == "Q4_K_M");
  CHECK(gguf_quant_from_name("sub/DeepSeek-R1-UD-IQ1_S-00001-of-00003.gguf") == "IQ1_S");
  CHECK(gguf_quant_from_name("model.Q5_K_S.gguf") == "Q5_K_S");
}

TEST_CASE("repos without headers to read: config.json alone, pytorch_model.bin's index, remote code", "[hub]") {
  const std::string gpt2 = [] {
    std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/configs/gpt2.json");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  REQUIRE_FALSE(gpt2.empty());
  FakeRepo bin;
  bin.add_text("config.json", gpt2);
  bin.add("pytorch_model.bin", {}, 548118077);
  auto model = read_repo(bin, "gpt2");
  REQUIRE(model);
  CHECK_FALSE(model->has_weights);
  CHECK(model->files_read == std::vector<std::string>{"config.json"});
  const json fragment = hub_model_fragment_json(*model);
  CHECK(without_hub(fragment) == read_config_fragment_json(gpt2, "config.json"));
  REQUIRE(model->notes.size() == 1);
  CHECK(model->notes[0].find("only pytorch_model.bin") != std::string::npos);

  FakeRepo index = bin;
  index.files.erase("pytorch_model.bin");
  index.add_text("pytorch_model.bin.index.json",
                 json{{"metadata", {{"total_size", 6000000000}}},
                      {"weight_map", {{"a", "pytorch_model-00001-of-00002.bin"}, {"b", "pytorch_model-00002-of-00002.bin"}}}}
                     .dump());
  auto indexed = read_repo(index, "gpt2");
  REQUIRE(indexed);
  CHECK(indexed->has_weights);
  CHECK(indexed->read.weights.source == "pytorch-index");

  std::ifstream in(std::string(VRAMFIT_FIXTURES_DIR) + "/configs/internlm2_5-7b-chat.json");
  FakeRepo remote;
  remote.add_text("config.json", std::string(std::istreambuf_iterator<char>(in), {}));
  auto custom = read_repo(remote, "internlm/internlm2_5-7b-chat");
  REQUIRE(custom);
  REQUIRE_FALSE(custom->notes.empty());
  CHECK(custom->notes[0].find("auto_map names remote code") != std::string::npos);
  CHECK(custom->notes[0].find("runs no code") != std::string::npos);

  FakeRepo nothing;
  nothing.add_text("README.md", "empty");
  auto e = read_repo(nothing, "org/model");
  REQUIRE_FALSE(e);
  CHECK(e.error().id == "hub.no_config");
}

TEST_CASE("the Hub's refusals and a server's misbehaviour, each in words", "[hub]") {
  const auto q4 = llama_3_2_1b_gguf("Q4_K_M", 150000);
  FakeRepo repo;
  repo.add("m-Q4_K_M.gguf", q4, 808000000);
  auto with = [&](bool token, const std::function<void(const HubFetch&, HubAnswer&)>& alter) {
    auto r = read_repo(repo, "org/model", token, alter);
    REQUIRE_FALSE(r);
    CHECK(r.error().field == "hf");
    INFO(r.error().message);
    CHECK(r.error().message.rfind("hf: org/model", 0) == 0);
    return r.error();
  };
  auto on_list = [](int status, std::string code) {
    return [status, code](const HubFetch& f, HubAnswer& a) {
      if (f.kind != HubFetch::Kind::file_list) return;
      a = HubAnswer{};
      a.status = status;
      a.error_code = code;
      a.retry_after = status == 429 ? "30" : "";
    };
  };
  Error gated = with(false, on_list(401, "GatedRepo"));
  CHECK(gated.id == "hub.gated");
  CHECK(gated.message.find("https://huggingface.co/org/model") != std::string::npos);
  CHECK(gated.message.find("HF_TOKEN") != std::string::npos);
  CHECK(with(true, on_list(403, "GatedRepo")).message.find("the token given has no access") != std::string::npos);
  // In Arabic (data/messages/ar.json), the repository and the page's URL kept as they are.
  CHECK(translate_text(Language::arabic, gated.message) ==
        "hf: org/model: مقيد: اقبل الترخيص في صفحة النموذج (https://huggingface.co/org/model)، ثم أعط "
        "رمز قراءة (HF_TOKEN)");
  set_message_table(Language::arabic, nullptr);
  CHECK(with(false, on_list(401, "RepoNotFound")).id == "hub.unauthorized");
  Error missing = with(false, on_list(404, "RepoNotFound"));
  CHECK(missing.id == "hub.not_found");
  CHECK(missing.message.find("no such model on https://huggingface.co") != std::string::npos);
  CHECK(with(false, on_list(404, "RevisionNotFound")).message.find("revision main not found") != std::string::npos);
  Error limited = with(false, on_list(429, ""));
  CHECK(limited.id == "hub.rate_limited");
  CHECK(limited.message.find("retry after 30 s") != std::string::npos);
  CHECK(with(false, on_list(500, "")).message.find("answered 500") != std::string::npos);
  Error unreachable = with(false, [](const HubFetch& f, HubAnswer& a) {
    if (f.kind != HubFetch::Kind::file_list) return;
    a = HubAnswer{};
    a.transport_error = "cannot reach huggingface.co";
  });
  CHECK(unreachable.id == "hub.unreachable");
  Error html = with(false, [](const HubFetch& f, HubAnswer& a) {
    if (f.kind != HubFetch::Kind::file_list) return;
    a.body = "<!DOCTYPE html><html><body>a captive portal</body></html>";
    a.content_type = "text/html";
  });
  CHECK(html.id == "hub.not_json");
  CHECK(html.message.find("an HTML page") != std::string::npos);
  // A range answered with the whole file, and a body cut short.
  Error ignored = with(false, [](const HubFetch& f, HubAnswer& a) {
    if (f.first > 0) {
      a.status = 200;
      a.body.insert(0, std::string(static_cast<size_t>(f.first), '\0'));
    }
  });
  CHECK(ignored.id == "hub.no_range");
  Error cut = with(false, [](const HubFetch& f, HubAnswer& a) {
    if (f.first > 0) a.body.resize(a.body.size() / 2);
  });
  CHECK(cut.id == "hub.cut_short");
  CHECK(cut.message.find("m-Q4_K_M.gguf: cut short") != std::string::npos);
  // Gated files behind an open file list.
  FakeRepo gated_files = repo;
  gated_files.gated_status = 403;
  auto files = read_repo(gated_files, "org/model");
  REQUIRE_FALSE(files);
  CHECK(files.error().id == "hub.gated");
  CHECK(files.error().message.find("m-Q4_K_M.gguf") != std::string::npos);
}
