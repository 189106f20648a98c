#pragma once
// SmallJson: the JSON value of the web build (the page, the JavaScript API, the wasm CLI and
// tests), a small stand-in for nlohmann::json with the part of its interface vramfit uses
// and the same text in and out:
//   - the same grammar: RFC 8259, strict (no comments, no trailing commas), UTF-8 checked,
//     a leading UTF-8 BOM skipped, numbers that overflow a double rejected;
//   - the same number kinds: a non-negative integer is unsigned, a negative one signed,
//     one out of 64-bit range or with a fraction or exponent a double (parsed exactly);
//   - the same dump(): keys sorted, nlohmann's indentation and escapes, doubles through
//     nlohmann's own to_chars (Grisu2) so every digit matches.
// Why: nlohmann/json's lexer, parser, SAX handlers and serializer are about 13 KB of the
// page's gzip size; this is a fraction of that. Native builds keep nlohmann/json (io/json.hpp
// picks). tests/test_small_json.cpp and fuzz/fuzz_small_json.cpp hold the two side by side.
//
// Where nlohmann would throw (wrong type, missing key in at()), this throws std::runtime_error
// when exceptions are on and aborts when they are off, as nlohmann does with
// JSON_NOEXCEPTION. Differences: value() gives the fallback for a field of the wrong type;
// const operator[] on a missing key gives null; nesting deeper than kMaxDepth is a parse error.
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace vramfit {

class SmallJson {
 public:
  enum class value_t : uint8_t { null, object, array, string, boolean, number_integer, number_unsigned, number_float, discarded };
  using object_t = std::map<std::string, SmallJson, std::less<>>;
  using array_t = std::vector<SmallJson>;
  static constexpr int kMaxDepth = 512;

  // ---- construction ----
  SmallJson() noexcept {}
  SmallJson(std::nullptr_t) noexcept {}
  SmallJson(bool b) noexcept : type_(value_t::boolean) { value_.boolean = b; }
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  SmallJson(T v) noexcept {
    if constexpr (std::is_signed_v<T>) { type_ = value_t::number_integer; value_.integer = v; }
    else { type_ = value_t::number_unsigned; value_.unsigned_integer = v; }
  }
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  SmallJson(T v) noexcept : type_(value_t::number_float) { value_.number = static_cast<double>(v); }
  SmallJson(const char* s) : SmallJson(std::string(s)) {}
  SmallJson(std::string_view s) : SmallJson(std::string(s)) {}
  SmallJson(std::string s) : type_(value_t::string) { value_.string = new std::string(std::move(s)); }
  template <class T>
  SmallJson(const std::vector<T>& items) : type_(value_t::array) {
    value_.array = new array_t(items.begin(), items.end());
  }
  // nlohmann's rule: a braced list whose every element is a [string, value] pair is an
  // object ({{"a", 1}, {"b", 2}}), anything else an array.
  SmallJson(std::initializer_list<SmallJson> items);
  SmallJson(const SmallJson& other);
  SmallJson(SmallJson&& other) noexcept : type_(other.type_), value_(other.value_) { other.type_ = value_t::null; }
  SmallJson& operator=(SmallJson other) noexcept {
    std::swap(type_, other.type_);
    std::swap(value_, other.value_);
    return *this;
  }
  ~SmallJson() { destroy(); }

  static SmallJson array(std::initializer_list<SmallJson> items = {});
  static SmallJson object();

  // ---- parsing and writing ----
  // The callback argument is nlohmann's; only nullptr is accepted. With allow_exceptions
  // false a failed parse gives a value whose is_discarded() is true.
  static SmallJson parse(std::string_view text, std::nullptr_t = nullptr, bool allow_exceptions = true,
                         bool ignore_comments = false);
  template <class Byte, std::enable_if_t<sizeof(Byte) == 1, int> = 0>
  static SmallJson parse(const Byte* first, const Byte* last, std::nullptr_t = nullptr, bool allow_exceptions = true) {
    return parse(std::string_view(reinterpret_cast<const char*>(first), static_cast<size_t>(last - first)), nullptr,
                 allow_exceptions);
  }
  std::string dump(int indent = -1, char indent_char = ' ') const;

  // ---- type ----
  value_t type() const noexcept { return type_; }
  const char* type_name() const noexcept;
  bool is_null() const noexcept { return type_ == value_t::null; }
  bool is_boolean() const noexcept { return type_ == value_t::boolean; }
  bool is_number() const noexcept { return is_number_integer() || type_ == value_t::number_float; }
  bool is_number_integer() const noexcept { return type_ == value_t::number_integer || type_ == value_t::number_unsigned; }
  bool is_number_unsigned() const noexcept { return type_ == value_t::number_unsigned; }
  bool is_number_float() const noexcept { return type_ == value_t::number_float; }
  bool is_string() const noexcept { return type_ == value_t::string; }
  bool is_array() const noexcept { return type_ == value_t::array; }
  bool is_object() const noexcept { return type_ == value_t::object; }
  bool is_primitive() const noexcept { return !is_array() && !is_object() && !is_discarded(); }
  bool is_structured() const noexcept { return is_array() || is_object(); }
  bool is_discarded() const noexcept { return type_ == value_t::discarded; }

  // ---- values ----
  // Numbers convert among themselves (and from booleans) with static_cast, as in nlohmann.
  template <class T>
  T get() const {
    if constexpr (std::is_same_v<T, SmallJson>) {
      return *this;
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!is_string()) type_error("string");
      return *value_.string;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!is_boolean()) type_error("boolean");
      return value_.boolean;
    } else if constexpr (std::is_arithmetic_v<T>) {
      switch (type_) {
        case value_t::number_integer: return static_cast<T>(value_.integer);
        case value_t::number_unsigned: return static_cast<T>(value_.unsigned_integer);
        case value_t::number_float: return static_cast<T>(value_.number);
        case value_t::boolean: return static_cast<T>(value_.boolean);
        default: type_error("number");
      }
    } else {
      static_assert(sizeof(T) == 0, "SmallJson::get: unsupported type");
    }
  }
  // The field's value when it is there and of the fallback's kind, else the fallback.
  template <class T>
  T value(std::string_view key, const T& fallback) const {
    const SmallJson* v = find_value(key);
    if (!v) return fallback;
    if constexpr (std::is_same_v<T, std::string>) return v->is_string() ? *v->value_.string : fallback;
    else if constexpr (std::is_same_v<T, bool>) return v->is_boolean() ? v->value_.boolean : fallback;
    else if constexpr (std::is_arithmetic_v<T>) return v->is_number() ? v->get<T>() : fallback;
    else return *v;
  }
  std::string value(std::string_view key, const char* fallback) const { return value(key, std::string(fallback)); }

  // ---- objects ----
  SmallJson& operator[](std::string_view key);              // null becomes an object; inserts null
  const SmallJson& operator[](std::string_view key) const;  // null when missing
  SmallJson& operator[](const char* key) { return (*this)[std::string_view(key)]; }
  const SmallJson& operator[](const char* key) const { return (*this)[std::string_view(key)]; }
  SmallJson& at(std::string_view key);
  const SmallJson& at(std::string_view key) const;
  bool contains(std::string_view key) const { return find_value(key) != nullptr; }
  size_t erase(std::string_view key);

  // ---- arrays ----
  SmallJson& operator[](size_t index);  // null becomes an array; grows with nulls
  const SmallJson& operator[](size_t index) const;
  SmallJson& at(size_t index);
  const SmallJson& at(size_t index) const;
  // Any integer index (a literal 0 would otherwise also match the const char* key).
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  SmallJson& operator[](T index) { return (*this)[static_cast<size_t>(index)]; }
  template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
  const SmallJson& operator[](T index) const { return (*this)[static_cast<size_t>(index)]; }
  void push_back(SmallJson item);
  template <class... Args>
  SmallJson& emplace_back(Args&&... args) {
    push_back(SmallJson(std::forward<Args>(args)...));
    return value_.array->back();
  }

  // ---- both ----
  size_t size() const noexcept;   // null 0, a primitive 1
  bool empty() const noexcept;    // null true, a primitive false
  void clear() noexcept;

  // Iteration over an array's elements or an object's values (key() names them).
  template <bool Const>
  class basic_iterator {
    using array_it = std::conditional_t<Const, array_t::const_iterator, array_t::iterator>;
    using object_it = std::conditional_t<Const, object_t::const_iterator, object_t::iterator>;

   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = SmallJson;
    using difference_type = std::ptrdiff_t;
    using reference = std::conditional_t<Const, const SmallJson&, SmallJson&>;
    using pointer = std::conditional_t<Const, const SmallJson*, SmallJson*>;

    basic_iterator() = default;
    explicit basic_iterator(array_it it) : array_(it) {}
    explicit basic_iterator(object_it it) : object_(it), in_object_(true) {}
    reference operator*() const { return in_object_ ? object_->second : *array_; }
    pointer operator->() const { return &**this; }
    basic_iterator& operator++() {
      if (in_object_) ++object_; else ++array_;
      return *this;
    }
    basic_iterator operator++(int) { basic_iterator before = *this; ++*this; return before; }
    bool operator==(const basic_iterator& other) const {
      return in_object_ == other.in_object_ && (in_object_ ? object_ == other.object_ : array_ == other.array_);
    }
    bool operator!=(const basic_iterator& other) const { return !(*this == other); }
    const std::string& key() const { return object_->first; }
    reference value() const { return **this; }

   private:
    array_it array_{};
    object_it object_{};
    bool in_object_ = false;
  };
  using iterator = basic_iterator<false>;
  using const_iterator = basic_iterator<true>;
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;
  iterator find(std::string_view key);
  const_iterator find(std::string_view key) const;

  friend bool operator==(const SmallJson& a, const SmallJson& b) noexcept;
  friend bool operator!=(const SmallJson& a, const SmallJson& b) noexcept { return !(a == b); }

 private:
  friend class SmallJsonReader;
  union Value {
    bool boolean;
    int64_t integer;
    uint64_t unsigned_integer;
    double number;
    std::string* string;
    array_t* array;
    object_t* object;
  };
  void destroy() noexcept;
  const SmallJson* find_value(std::string_view key) const;
  [[noreturn]] void type_error(const char* wanted) const;
  [[noreturn]] static void fail(const char* what, std::string_view detail);

  value_t type_ = value_t::null;
  Value value_{};
};

}  // namespace vramfit
