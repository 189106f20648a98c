#include "request.hpp"

namespace vramfit {

// Out of line and never inlined: a Request (and every Report, which holds one) is copied and
// destroyed in many places; one call each keeps the page's module small.
[[gnu::noinline]] Request::Request() = default;
[[gnu::noinline]] Request::Request(const Request&) = default;
[[gnu::noinline]] Request::Request(Request&&) noexcept = default;
[[gnu::noinline]] Request& Request::operator=(const Request&) = default;
[[gnu::noinline]] Request& Request::operator=(Request&&) noexcept = default;
[[gnu::noinline]] Request::~Request() = default;

}  // namespace vramfit
