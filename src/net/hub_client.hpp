// The Hub, from the command line and the desktop: a HubReading (report/hub_reading.hpp) carried
// out over HTTP, with huggingface_hub's settings and an on-disk cache of what was fetched.
//   HF_ENDPOINT               the Hub or a mirror (default https://huggingface.co)
//   HF_TOKEN                  a read token; else the file huggingface_hub's `hf auth login` writes:
//                             HF_TOKEN_PATH, else $HF_HOME/token ($HF_HOME: $XDG_CACHE_HOME/huggingface,
//                             ~/.cache/huggingface)  (huggingface_hub constants.py)
//   HF_HUB_OFFLINE=1          the cache only (as --offline)
//   HF_HUB_DOWNLOAD_TIMEOUT   seconds without a byte before a request fails (default 10)
//   VRAMFIT_HUB_CACHE         the cache folder (default $XDG_CACHE_HOME/vramfit/hub, ~/.cache/vramfit/hub)
// The token goes only to the endpoint (as a bearer token, which libcurl does not pass on to the
// storage host a redirect names); it is never in a URL, a message, the cache or a report.
// The cache keeps, per endpoint and repository, each revision's commit sha and, under that sha,
// the file list and every byte range read: a second answer for the same model reads nothing
// but the file list, and --offline reads nothing at all.
#pragma once
#include <atomic>
#include <functional>
#include <string>

#include "core/formats.hpp"
#include "core/result.hpp"
#include "report/hub_reading.hpp"

namespace vramfit {

struct HubSettings {
  std::string endpoint = kDefaultHubEndpoint;
  std::string token;         // "" : none
  bool offline = false;
  std::string cache_dir;     // "" : no cache
  long timeout_seconds = 10;
  // Set from another thread (the desktop's Cancel): the request under way stops, and the
  // reading ends with hub.cancelled. Null: nothing cancels.
  const std::atomic<bool>* cancel = nullptr;
};

// The settings from the environment (the variables above); an error names the variable.
Result<HubSettings> hub_settings_from_environment();

// One GET as the fetch says (a Range header when it has one), following redirects (at most 10).
// Natively libcurl (net/curl_http.cpp); in the WebAssembly CLI no HTTP client (net/no_http.cpp).
HubAnswer hub_http_get(const HubFetch& fetch, const HubSettings& settings);

// Reads the model: each fetch from the cache when it is there, else over `get` (and into the
// cache). after_each_answer, when given, sees the reading after each answer (its progress:
// files_done, files_planned, bytes_fetched). Cancelled (settings.cancel): hub.cancelled.
Result<HubModel> read_hub_model(const HubRef& ref, const HubSettings& settings, const FormatTables& formats,
                                const std::function<void(const HubReading&)>& after_each_answer = {},
                                const std::function<HubAnswer(const HubFetch&, const HubSettings&)>& get = hub_http_get);

}  // namespace vramfit
