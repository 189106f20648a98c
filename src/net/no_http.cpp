// hub_http_get in the WebAssembly CLI (Node.js): it has no HTTP client, so a Hub model is read
// from the cache (--offline) or by the native CLI; the page reads the Hub with the browser's
// fetch() instead (web/shell.js).
#include "net/hub_client.hpp"

namespace vramfit {

HubAnswer hub_http_get(const HubFetch&, const HubSettings&) {
  HubAnswer answer;
  answer.transport_error = "this build of vramfit has no HTTP client (the WebAssembly CLI): use the native vramfit, "
                           "the page, or --offline with a cache the native CLI filled";
  return answer;
}

}  // namespace vramfit
