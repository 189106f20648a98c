// The URL hash: a request survives the round trip; malformed hashes are errors.
#include "helpers.hpp"

#include "io/url_hash.hpp"

using namespace vramfit;
using namespace vramfit::test;
using vramfit::json;

TEST_CASE("base64url encodes and decodes every byte", "[url]") {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n <= all.size(); n += 37) {
    std::string decoded;
    REQUIRE(base64url_decode(base64url_encode(all.substr(0, n)), decoded));
    CHECK(decoded == all.substr(0, n));
  }
  CHECK(base64url_encode("vramfit") == "dnJhbWZpdA");
  std::string out;
  CHECK_FALSE(base64url_decode("ab+c", out));  // '+' is base64, not base64url
  CHECK_FALSE(base64url_decode("abcde", out));  // impossible length
}

TEST_CASE("a request round-trips through the URL hash", "[url]") {
  auto request = request_from_json({{"model", {{"preset", "qwen3-32b"}}}, {"weights", {{"format", "awq-int4"}}},
                                    {"context_tokens", 65536}, {"gpu", {{"id", "l40s"}}}, {"gpu_count", 2}});
  REQUIRE(request);
  const std::string hash = encode_url_hash(*request);
  CHECK(hash.rfind("r=", 0) == 0);
  auto back = decode_url_hash("#" + hash);
  REQUIRE(back);
  CHECK(request_to_json(*back) == request_to_json(*request));
  // Only what differs from the defaults is in the link.
  CHECK(encode_url_hash(Request{}).size() < 20);
  CHECK(decode_url_hash("").ok());
  CHECK(decode_url_hash("#").ok());
}

TEST_CASE("malformed hashes are errors, never a crash", "[url][errors]") {
  CHECK(decode_url_hash("#x=abc").error().id == "url.bad_prefix");
  CHECK(decode_url_hash("#r=***").error().id == "url.bad_base64");
  CHECK(decode_url_hash("#r=" + base64url_encode("{nope")).error().id == "request.bad_json");
  const Error range = decode_url_hash("#r=" + base64url_encode(R"({"context_tokens": -1})")).error();
  CHECK(range.field == "context_tokens");
  CHECK(range.message.rfind("link: ", 0) == 0);
  CHECK(decode_url_hash("#r=" + std::string(kMaxUrlHashLength, 'A')).error().id == "url.too_long");
}
