// Errors as values: every reader and validator returns a Result, never throws to its caller.
#pragma once
#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace vramfit {

struct Error {
  std::string id;       // stable identifier tests and the UI key on, e.g. "request.out_of_range"
  std::string field;    // the input field or JSON path the error is about, e.g. "context_tokens"
  std::string message;  // one sentence for a person, naming the field and what was wrong
};

template <class T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Error error) : error_(std::move(error)) {}

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const { return *value_; }
  const T* operator->() const { return &*value_; }
  const Error& error() const { return error_; }

 private:
  std::optional<T> value_;
  Error error_;
};

inline Error make_error(std::string id, std::string field, std::string message) {
  return Error{std::move(id), std::move(field), std::move(message)};
}

// The last line of defence at an entry point: an exception that escapes `body` (a library
// bug, bad_alloc) becomes a value through `on_exception(what)`. The page's module is built
// without exceptions to save size (CMakeLists.txt); there the body runs unguarded, which the
// fuzzers justify: they call the readers and the estimator with exceptions on and no guard,
// and none has ever escaped.
template <class Body, class OnException>
auto guard_exceptions(Body body, OnException on_exception) -> decltype(body()) {
#if defined(__cpp_exceptions)
  try {
    return body();
  } catch (const std::exception& e) {
    return on_exception(e.what());
  }
#else
  (void)on_exception;
  return body();
#endif
}

}  // namespace vramfit
