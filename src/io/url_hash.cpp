#include "url_hash.hpp"

#include "io/json.hpp"

#include "request_json.hpp"

namespace vramfit {

namespace {
const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int decode_char(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}
}  // namespace

std::string base64url_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  uint32_t buffer = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(buffer >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (6 - bits)) & 63];
  return out;  // unpadded, as URLs prefer
}

bool base64url_decode(const std::string& text, std::string& bytes) {
  bytes.clear();
  uint32_t buffer = 0;
  int bits = 0;
  size_t end = text.size();
  while (end > 0 && text[end - 1] == '=') --end;  // tolerate padding
  if (end % 4 == 1) return false;                 // no valid encoding has this length
  for (size_t i = 0; i < end; ++i) {
    const int value = decode_char(text[i]);
    if (value < 0) return false;
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return true;
}

std::string encode_url_hash(const Request& request) {
  const json full = request_to_json(request);
  const json defaults = request_to_json(Request{});
  json compact = json::object();
  for (auto it = full.begin(); it != full.end(); ++it) {
    if (it.key() == "v" || !defaults.contains(it.key()) || defaults[it.key()] != it.value()) compact[it.key()] = it.value();
  }
  return "r=" + base64url_encode(compact.dump());
}

Result<Request> decode_url_hash(const std::string& hash) {
  std::string text = !hash.empty() && hash[0] == '#' ? hash.substr(1) : hash;
  if (text.empty()) return Request{};
  if (text.size() > kMaxUrlHashLength) {
    return make_error("url.too_long", "#", "link: the configuration in the URL is longer than " +
                                               std::to_string(kMaxUrlHashLength) + " characters");
  }
  if (text.rfind("r=", 0) != 0) return make_error("url.bad_prefix", "#", "link: the URL hash does not start with r=");
  std::string decoded;
  if (!base64url_decode(text.substr(2), decoded)) {
    return make_error("url.bad_base64", "#r", "link: the configuration in the URL is not valid base64url");
  }
  auto request = request_from_text(decoded);
  if (!request) {
    Error e = request.error();
    e.message = "link: " + e.message;
    return e;
  }
  return request;
}

}  // namespace vramfit
