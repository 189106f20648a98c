#include "decimal.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace vramfit {

namespace {

// More significant digits than any double needs to be rounded right (767 can matter); the
// digits after them only count as "something nonzero follows".
constexpr size_t kMaxDigits = 800;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// An unsigned big integer, 32-bit limbs, least significant first.
struct Big {
  std::vector<uint32_t> limbs;

  void trim() { while (!limbs.empty() && limbs.back() == 0) limbs.pop_back(); }
  bool zero() const { return limbs.empty(); }
  int64_t bit_length() const {
    if (limbs.empty()) return 0;
    int64_t bits = static_cast<int64_t>(limbs.size() - 1) * 32;
    for (uint32_t top = limbs.back(); top; top >>= 1) ++bits;
    return bits;
  }
  bool bit(int64_t i) const {
    const size_t limb = static_cast<size_t>(i / 32);
    return i >= 0 && limb < limbs.size() && ((limbs[limb] >> (i % 32)) & 1u);
  }
  bool any_bit_below(int64_t n) const {  // is one of bits [0, n) set?
    for (int64_t i = 0; i < n && i < static_cast<int64_t>(limbs.size()) * 32; i += 32) {
      const int64_t width = n - i < 32 ? n - i : 32;
      const uint32_t mask = width == 32 ? 0xffffffffu : ((1u << width) - 1);
      if (limbs[static_cast<size_t>(i / 32)] & mask) return true;
    }
    return false;
  }
  void multiply_add(uint32_t factor, uint32_t add) {
    uint64_t carry = add;
    for (uint32_t& limb : limbs) {
      const uint64_t v = static_cast<uint64_t>(limb) * factor + carry;
      limb = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    if (carry) limbs.push_back(static_cast<uint32_t>(carry));
  }
  void multiply_pow10(int64_t exponent) {
    for (; exponent >= 9; exponent -= 9) multiply_add(1000000000u, 0);
    static const uint32_t small[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    if (exponent > 0) multiply_add(small[exponent], 0);
  }
  void shift_left(int64_t bits) {
    if (zero() || bits <= 0) return;
    const size_t whole = static_cast<size_t>(bits / 32), old_size = limbs.size();
    const int part = static_cast<int>(bits % 32);
    limbs.resize(old_size + whole + 1, 0u);
    for (size_t i = old_size; i-- > 0;) {  // from the top: every limb moves up `whole` places and `part` bits
      const uint64_t v = static_cast<uint64_t>(limbs[i]) << part;
      limbs[i + whole + 1] |= static_cast<uint32_t>(v >> 32);
      limbs[i + whole] = static_cast<uint32_t>(v);
    }
    for (size_t i = 0; i < whole; ++i) limbs[i] = 0;
    trim();
  }
  void shift_right_one() {
    for (size_t i = 0; i < limbs.size(); ++i) {
      limbs[i] = (limbs[i] >> 1) | (i + 1 < limbs.size() ? (limbs[i + 1] << 31) : 0u);
    }
    trim();
  }
  static int compare(const Big& a, const Big& b) {
    if (a.limbs.size() != b.limbs.size()) return a.limbs.size() < b.limbs.size() ? -1 : 1;
    for (size_t i = a.limbs.size(); i-- > 0;) {
      if (a.limbs[i] != b.limbs[i]) return a.limbs[i] < b.limbs[i] ? -1 : 1;
    }
    return 0;
  }
  void subtract(const Big& b) {  // *this >= b
    int64_t borrow = 0;
    for (size_t i = 0; i < limbs.size(); ++i) {
      int64_t v = static_cast<int64_t>(limbs[i]) - borrow - (i < b.limbs.size() ? static_cast<int64_t>(b.limbs[i]) : 0);
      borrow = v < 0;
      limbs[i] = static_cast<uint32_t>(v + (borrow << 32));
    }
    trim();
  }
};

// value = q x 2^scale, and `sticky` when something nonzero was cut off below q: the double
// nearest to it, ties to even, with subnormals rounded on their own grid.
double round_to_double(const Big& q, int64_t scale, bool sticky) {
  const int64_t length = q.bit_length();
  if (length == 0) return 0.0;
  const int64_t exponent = length - 1 + scale;  // of the leading bit
  if (exponent > 1023) return HUGE_VAL;
  const int64_t precision = exponent >= -1022 ? 53 : 53 - (-1022 - exponent);  // bits the result keeps
  const int64_t drop = length - precision;
  uint64_t mantissa = 0;  // the bits kept: all of q when it fits in the precision
  for (int64_t i = length - 1; i >= std::max<int64_t>(drop, 0); --i) mantissa = (mantissa << 1) | (q.bit(i) ? 1u : 0u);
  if (drop <= 0) return std::ldexp(static_cast<double>(mantissa), static_cast<int>(scale));
  const bool half = q.bit(drop - 1);
  sticky = sticky || q.any_bit_below(drop - 1);
  if (half && (sticky || (mantissa & 1u))) ++mantissa;
  return std::ldexp(static_cast<double>(mantissa), static_cast<int>(scale + drop));
}

// digits x 10^exponent, exactly rounded: the quotient gets at least 56 significant bits and
// the remainder tells whether anything follows them.
double big_decimal_to_double(const std::string& digits, int64_t exponent) {
  Big n;
  for (char c : digits) n.multiply_add(10, static_cast<uint32_t>(c - '0'));
  if (exponent >= 0) {
    n.multiply_pow10(exponent);
    return round_to_double(n, 0, false);
  }
  Big d;
  d.limbs.push_back(1);
  d.multiply_pow10(-exponent);
  const int64_t shift = std::max<int64_t>(0, 56 + d.bit_length() - n.bit_length());
  n.shift_left(shift);
  // Long division, one quotient bit per step, from the highest place the quotient can have.
  const int64_t top = n.bit_length() - d.bit_length();
  Big quotient;
  if (top >= 0) {
    d.shift_left(top);
    quotient.limbs.assign(static_cast<size_t>(top / 32 + 1), 0u);
    for (int64_t place = top; place >= 0; --place) {
      if (Big::compare(n, d) >= 0) {
        n.subtract(d);
        quotient.limbs[static_cast<size_t>(place / 32)] |= 1u << (place % 32);
      }
      d.shift_right_one();
    }
    quotient.trim();
  }
  return round_to_double(quotient, -shift, !n.zero());
}

// 10^0 .. 10^22: every one exactly a double.
constexpr double kExactPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

}  // namespace

size_t parse_decimal(const char* begin, const char* end, double& value) {
  const char* p = begin;
  bool negative = false;
  if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
  std::string digits;  // significant digits, no leading zeros
  int64_t exponent = 0;  // value = digits x 10^exponent
  bool any_digit = false, cut_nonzero = false;
  for (; p < end && is_digit(*p); ++p) {
    any_digit = true;
    if (digits.empty() && *p == '0') continue;
    if (digits.size() < kMaxDigits) digits += *p;
    else { ++exponent; cut_nonzero = cut_nonzero || *p != '0'; }
  }
  if (p < end && *p == '.') {
    const char* fraction = p + 1;
    for (p = fraction; p < end && is_digit(*p); ++p) {
      any_digit = true;
      if (digits.empty() && *p == '0') { --exponent; continue; }
      if (digits.size() < kMaxDigits) { digits += *p; --exponent; }
      else cut_nonzero = cut_nonzero || *p != '0';
    }
    if (!any_digit) return 0;
  }
  if (!any_digit) return 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    const char* q = p + 1;
    bool exponent_negative = false;
    if (q < end && (*q == '+' || *q == '-')) exponent_negative = *q++ == '-';
    if (q < end && is_digit(*q)) {
      int64_t e = 0;
      for (; q < end && is_digit(*q); ++q) if (e < 1000000) e = e * 10 + (*q - '0');
      exponent += exponent_negative ? -e : e;
      p = q;
    }
  }
  const size_t used = static_cast<size_t>(p - begin);
  if (cut_nonzero) { digits += '1'; --exponent; }  // a digit past the last kept one stands for the rest
  while (!digits.empty() && digits.back() == '0') { digits.pop_back(); ++exponent; }
  const double sign = negative ? -1.0 : 1.0;
  if (digits.empty()) { value = sign * 0.0; return used; }
  const int64_t leading = static_cast<int64_t>(digits.size()) - 1 + exponent;  // decimal exponent of the first digit
  if (leading > 309) { value = sign * HUGE_VAL; return used; }
  if (leading < -325) { value = sign * 0.0; return used; }
  if (digits.size() <= 15 && exponent >= -22 && exponent <= 22) {  // Clinger: exact operands, one rounding
    double mantissa = 0;
    for (char c : digits) mantissa = mantissa * 10 + (c - '0');
    value = sign * (exponent < 0 ? mantissa / kExactPowers[-exponent] : mantissa * kExactPowers[exponent]);
    return used;
  }
  value = sign * big_decimal_to_double(digits, exponent);
  return used;
}

}  // namespace vramfit
