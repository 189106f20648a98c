#include "net/hub_client.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/units.hpp"

namespace vramfit {

namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

bool read_whole(const fs::path& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

// Written to a temporary name, then renamed: a reader never sees half a file.
void write_whole(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  const fs::path temporary = path.string() + ".part";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) return;
  }
  fs::rename(temporary, path, ec);
}

std::string user_cache_home() {
  const std::string xdg = env("XDG_CACHE_HOME");
  if (!xdg.empty()) return xdg;
  const std::string home = env("HOME");
  return home.empty() ? std::string() : home + "/.cache";
}

// The cache of one endpoint and repository: <cache>/<endpoint>/<org>/<name>/.
struct HubCache {
  fs::path root;  // empty: no cache
  fs::path ref_path(const std::string& revision) const { return root / "refs" / percent_encode(revision, false); }
  fs::path file_list_path(const std::string& sha) const { return root / sha / "file-list.json"; }
  fs::path fetch_path(const std::string& sha, const HubFetch& f) const {
    std::string name = percent_encode(f.file, false);
    if (f.first >= 0) name += "@" + std::to_string(f.first) + "-" + std::to_string(f.last);
    return root / sha / "files" / name;
  }
};

// A cached body answers as the server did: 206 for a range, 200 for a whole file.
HubAnswer cached_answer(const HubFetch& fetch, std::string body) {
  HubAnswer a;
  a.status = fetch.first >= 0 ? 206 : 200;
  a.body = std::move(body);
  a.from_cache = true;
  return a;
}

}  // namespace

Result<HubSettings> hub_settings_from_environment() {
  HubSettings s;
  if (!env("HF_ENDPOINT").empty()) {
    auto endpoint = normalize_hub_endpoint(env("HF_ENDPOINT"));
    if (!endpoint) return make_error(endpoint.error().id, "HF_ENDPOINT", "HF_ENDPOINT: " + endpoint.error().message.substr(10));
    s.endpoint = *endpoint;
  }
  s.token = trimmed(env("HF_TOKEN"));
  if (s.token.empty()) s.token = trimmed(env("HUGGING_FACE_HUB_TOKEN"));  // huggingface_hub's older name
  if (s.token.empty()) {
    std::string path = env("HF_TOKEN_PATH");
    if (path.empty()) {
      std::string hf_home = env("HF_HOME");
      if (hf_home.empty() && !user_cache_home().empty()) hf_home = user_cache_home() + "/huggingface";
      if (!hf_home.empty()) path = hf_home + "/token";
    }
    std::string text;
    if (!path.empty() && read_whole(path, text)) s.token = trimmed(text);
  }
  const std::string offline = env("HF_HUB_OFFLINE");
  s.offline = offline == "1" || offline == "true" || offline == "TRUE" || offline == "yes" || offline == "ON" || offline == "on";
  if (!env("HF_HUB_DOWNLOAD_TIMEOUT").empty()) {
    int64_t seconds = 0;
    std::string why;
    if (!parse_count(env("HF_HUB_DOWNLOAD_TIMEOUT"), seconds, why) || seconds < 1 || seconds > 3600) {
      return make_error("hub.bad_timeout", "HF_HUB_DOWNLOAD_TIMEOUT",
                        "HF_HUB_DOWNLOAD_TIMEOUT: '" + env("HF_HUB_DOWNLOAD_TIMEOUT") + "' is not a whole number of seconds from 1 to 3600");
    }
    s.timeout_seconds = static_cast<long>(seconds);
  }
  s.cache_dir = env("VRAMFIT_HUB_CACHE");
  if (s.cache_dir.empty() && !user_cache_home().empty()) s.cache_dir = user_cache_home() + "/vramfit/hub";
  return s;
}

Result<HubModel> read_hub_model(const HubRef& ref, const HubSettings& settings, const FormatTables& formats,
                                const std::function<void(const HubReading&)>& after_each_answer,
                                const std::function<HubAnswer(const HubFetch&, const HubSettings&)>& get) {
  HubReading reading(ref, settings.endpoint, formats, !settings.token.empty());
  // The cache of the repository being read: the one asked for, then (a LoRA adapter's) its base.
  HubCache cache;
  HubRef cached;
  std::string sha;
  auto cache_for = [&](const HubRef& now) {
    cached = now;
    sha = is_commit_sha(now.revision) ? now.revision : "";
    if (!settings.cache_dir.empty()) cache.root = fs::path(settings.cache_dir) / percent_encode(settings.endpoint, false) / now.repo;
  };
  cache_for(ref);
  auto cancelled = [&] { return settings.cancel && settings.cancel->load(); };
  while (const HubFetch* fetch = reading.next()) {
    if (cancelled()) break;
    const HubFetch f = *fetch;
    if (f.kind == HubFetch::Kind::file_list && reading.current_ref().repo != cached.repo) cache_for(reading.current_ref());
    HubAnswer answer;
    bool have = false;
    std::string text;
    if (!cache.root.empty()) {
      if (f.kind == HubFetch::Kind::file_list) {
        // A revision's sha is looked up again unless offline (a branch moves); a sha's list never changes.
        std::string known = sha;
        if (known.empty() && settings.offline && read_whole(cache.ref_path(cached.revision), text)) known = trimmed(text);
        if (!known.empty() && (settings.offline || known == cached.revision) && read_whole(cache.file_list_path(known), text)) {
          answer = cached_answer(f, text);
          have = true;
        }
      } else if (!sha.empty() && read_whole(cache.fetch_path(sha, f), text)) {
        answer = cached_answer(f, text);
        have = true;
      }
    }
    if (!have && settings.offline) {
      answer.status = 0;
      answer.transport_error = std::string("offline (--offline or HF_HUB_OFFLINE), and ") +
                               (f.kind == HubFetch::Kind::file_list ? "the cache has no file list of this revision"
                                                                    : f.file + " is not in the cache");
      have = true;
    }
    if (!have) answer = get(f, settings);
    reading.answer(answer);
    if (f.kind == HubFetch::Kind::file_list && !reading.result() && reading.next()) {
      // The file list was read: the sha every later fetch names.
      const std::string& url = reading.next()->url;
      const std::string marker = "/resolve/";
      const size_t at = url.find(marker);
      if (at != std::string::npos) sha = url.substr(at + marker.size(), 40);
    }
    const bool ok = answer.status >= 200 && answer.status < 300 && (reading.next() || reading.result());
    if (ok && !answer.from_cache && !cache.root.empty() && !sha.empty()) {
      if (f.kind == HubFetch::Kind::file_list) {
        write_whole(cache.file_list_path(sha), answer.body);
        write_whole(cache.ref_path(cached.revision), sha + "\n");
      } else {
        write_whole(cache.fetch_path(sha, f), answer.body);
      }
    }
    if (after_each_answer) after_each_answer(reading);
  }
  if (cancelled()) return make_error("hub.cancelled", "hf", "hf: " + hub_ref_text(ref) + ": cancelled");
  return reading.result();
}

}  // namespace vramfit
