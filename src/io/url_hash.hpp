// The request in a URL hash: "#r=" + base64url(JSON of the fields that differ from the
// defaults). A copied link reproduces the view; a malformed hash is an error value naming
// what was wrong (the page then shows a notice and falls back to the defaults).
#pragma once
#include <string>

#include "core/request.hpp"
#include "core/result.hpp"

namespace vramfit {

constexpr size_t kMaxUrlHashLength = 64 * 1024;

std::string encode_url_hash(const Request& request);       // "r=eyJ..." (no leading '#')
Result<Request> decode_url_hash(const std::string& hash);  // accepts a leading '#'; "" = defaults

std::string base64url_encode(const std::string& bytes);
bool base64url_decode(const std::string& text, std::string& bytes);

}  // namespace vramfit
