// hub_http_get over libcurl (Debian's libcurl4-openssl-dev): the native CLI's and the desktop
// app's HTTP client.
#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>

#include "net/hub_client.hpp"
#include "core/units.hpp"

namespace vramfit {

namespace {

struct Transfer {
  HubAnswer* answer;
  int64_t limit;      // the most body bytes to accept: the range asked, or 64 MiB for a whole file
  bool over = false;  // more arrived than asked
};

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (static_cast<int64_t>(t->answer->body.size() + n) > t->limit) {
    t->over = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  t->answer->body.append(data, n);
  return n;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The headers of the last response (each redirect's response starts the list again).
size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* a = static_cast<HubAnswer*>(user);
  const std::string line(data, size * count);
  if (line.rfind("HTTP/", 0) == 0) {
    a->content_type.clear();
    a->error_code.clear();
    a->error_message.clear();
    a->retry_after.clear();
    return line.size();
  }
  const size_t colon = line.find(':');
  if (colon == std::string::npos) return line.size();
  const std::string name = lower(line.substr(0, colon));
  std::string value = line.substr(colon + 1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) value.erase(value.begin());
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.pop_back();
  if (name == "content-type") a->content_type = value;
  if (name == "x-error-code") a->error_code = value;
  if (name == "x-error-message") a->error_message = value;
  if (name == "retry-after") a->retry_after = value;
  return line.size();
}

// libcurl asks this about once a second and on every chunk: a set cancel flag ends the transfer.
int on_transfer_info(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;  // non-zero: CURLE_ABORTED_BY_CALLBACK
}

std::string host_of(const std::string& url) {
  const size_t start = url.find("://");
  if (start == std::string::npos) return url;
  const size_t end = url.find('/', start + 3);
  return url.substr(start + 3, end == std::string::npos ? std::string::npos : end - start - 3);
}

}  // namespace

HubAnswer hub_http_get(const HubFetch& fetch, const HubSettings& settings) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  HubAnswer answer;
  // One handle per thread, reset between requests: its connections stay open, so the reading's
  // many small GETs to the Hub and to its storage host reuse two TLS connections instead of
  // opening one each.
  struct Handle {
    CURL* curl = curl_easy_init();
    ~Handle() { if (curl) curl_easy_cleanup(curl); }
  };
  thread_local Handle handle;
  CURL* curl = handle.curl;
  if (curl) curl_easy_reset(curl);
  if (!curl) {
    answer.transport_error = "libcurl could not start a transfer";
    return answer;
  }
  Transfer transfer{&answer, fetch.first >= 0 ? fetch.last - fetch.first + 1 : int64_t(64) << 20};
  curl_easy_setopt(curl, CURLOPT_URL, fetch.url.c_str());
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "vramfit/0.1");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, settings.timeout_seconds);
  // No byte for timeout_seconds: give up (huggingface_hub's HF_HUB_DOWNLOAD_TIMEOUT).
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, settings.timeout_seconds);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &answer);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  if (settings.cancel) {
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_transfer_info);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(settings.cancel));
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  }
  const std::string range = std::to_string(fetch.first) + "-" + std::to_string(fetch.last);
  if (fetch.first >= 0) curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  if (!settings.token.empty()) {
    // A bearer token, sent to the endpoint's host only: libcurl drops it on a redirect to another
    // host (CURLOPT_UNRESTRICTED_AUTH stays off), as the Hub redirects LFS files to its storage.
    curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BEARER);
    curl_easy_setopt(curl, CURLOPT_XOAUTH2_BEARER, settings.token.c_str());
  }
  const CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (code == CURLE_OK) {
    answer.status = static_cast<int>(status);
    return answer;
  }
  const std::string host = host_of(fetch.url);
  const int64_t got = static_cast<int64_t>(answer.body.size());
  answer.status = 0;
  switch (code) {
    case CURLE_WRITE_ERROR:
      answer.transport_error = transfer.over ? (fetch.first >= 0 ? "the server ignored the Range request (it sent more than the " +
                                                                       with_thousands(transfer.limit) + " B asked)"
                                                                 : "more than 64 MiB: not a file vramfit reads whole")
                                             : "the answer could not be kept";
      break;
    case CURLE_ABORTED_BY_CALLBACK: answer.transport_error = "cancelled"; break;
    case CURLE_TOO_MANY_REDIRECTS: answer.transport_error = "a redirect loop (more than 10 redirects)"; break;
    case CURLE_OPERATION_TIMEDOUT:
      answer.transport_error = "timed out: nothing came for " + std::to_string(settings.timeout_seconds) +
                               " s (HF_HUB_DOWNLOAD_TIMEOUT)";
      break;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
      answer.transport_error = "the connection was cut after " + with_thousands(got) + " B";
      break;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
      answer.transport_error = "cannot reach " + host + " (" + curl_easy_strerror(code) +
                               "): offline? --offline answers from the cache";
      break;
    default: answer.transport_error = std::string(curl_easy_strerror(code)) + " (" + host + ")"; break;
  }
  return answer;
}

}  // namespace vramfit
