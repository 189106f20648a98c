#include "hub_worker.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "catalog/catalog.hpp"
#include "io/hub_ref.hpp"
#include "net/hub_client.hpp"
#include "report/estimate.hpp"
#include "report/hub_reading.hpp"

namespace vramfit {

namespace {

// The reading itself, on the worker: {model, weights, hub} or {error}, as the page's
// JavaScript API answers (web/vramfit-api.js readHubModel).
json read_model(const std::string& id, const std::string& endpoint, const std::string& token,
                const std::atomic<bool>& cancel, const std::function<void(const HubReading&)>& progress) {
  auto ref = parse_hub_ref(id);
  if (!ref) return error_to_json(ref.error());
  auto where = normalize_hub_endpoint(endpoint.empty() ? kDefaultHubEndpoint : endpoint);
  if (!where) return error_to_json(where.error());
  auto settings = hub_settings_from_environment();  // the cache, the timeout, HF_HUB_OFFLINE
  if (!settings) return error_to_json(settings.error());
  HubSettings s = *settings;
  s.endpoint = *where;
  s.token = token;  // the field's, even when empty: a token the user forgot is not sent
  s.cancel = &cancel;
  auto model = read_hub_model(*ref, s, builtin_catalog().formats, progress);
  if (!model) return error_to_json(model.error());
  return hub_model_fragment_json(*model);
}

std::filesystem::path token_path() {
  const char* config = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (config && *config) return std::filesystem::path(config) / "vramfit.hub_token";
  if (home && *home) return std::filesystem::path(home) / ".config" / "vramfit.hub_token";
  return {};
}

}  // namespace

void HubWorker::stop() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();  // libcurl gives up within a second of the flag
}

void HubWorker::start(const std::string& id, const std::string& endpoint, const std::string& token) {
  stop();
  unsigned generation = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation = ++generation_;
    progress_.clear();
    answer_.reset();
  }
  cancel_ = false;
  thread_ = std::thread([this, generation, id, endpoint, token] {
    json answer = read_model(id, endpoint, token, cancel_, [&](const HubReading& reading) {
      post(generation,
           {{"files_done", reading.files_done()}, {"files_planned", reading.files_planned()},
            {"bytes_fetched", reading.bytes_fetched()}},
           std::nullopt);
    });
    post(generation, nullptr, std::move(answer));
  });
}

void HubWorker::post(unsigned generation, json progress, std::optional<json> answer) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (generation != generation_) return;
    if (!progress.is_null()) progress_.push_back(std::move(progress));
    if (answer) answer_ = std::move(answer);
  }
  if (wake_) wake_();
}

void HubWorker::deliver(App& app) {
  std::vector<json> progress;
  std::optional<json> answer;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    progress.swap(progress_);
    answer.swap(answer_);
  }
  for (const json& p : progress) app.hub_progress(p);
  if (answer) app.hub_answer(*answer);
}

std::string desktop_hub_token() {
  std::ifstream in(token_path());
  std::string token;
  if (in && std::getline(in, token) && !token.empty()) return token;
  auto settings = hub_settings_from_environment();
  return settings ? settings->token : "";
}

void keep_desktop_hub_token(const std::string& token) {
  const std::filesystem::path path = token_path();
  if (path.empty()) return;
  std::error_code ignored;
  if (token.empty()) {
    std::filesystem::remove(path, ignored);
    return;
  }
  std::filesystem::create_directories(path.parent_path(), ignored);
  { std::ofstream create(path, std::ios::app); }  // owner-only before the token is in it
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::replace, ignored);
  std::ofstream(path, std::ios::trunc) << token << "\n";
}

std::string desktop_hub_endpoint() {
  const char* value = std::getenv("HF_ENDPOINT");
  if (!value || !*value) return "";
  auto endpoint = normalize_hub_endpoint(value);
  return endpoint ? *endpoint : "";
}

}  // namespace vramfit
