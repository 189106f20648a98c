// libFuzzer: URL hash text -> request; an accepted hash re-encodes to the same request.
#include "fuzz_common.hpp"
#include "io/request_json.hpp"
#include "io/url_hash.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vramfit;
  auto request = decode_url_hash(std::string(reinterpret_cast<const char*>(data), size));
  if (!request) return 0;
  auto again = decode_url_hash(encode_url_hash(*request));
  fuzz::require(again.ok(), "a decoded hash failed to re-decode");
  fuzz::require(request_to_json(*again) == request_to_json(*request), "URL hash does not round-trip");
  return 0;
}
