// A bounds-checked little-endian cursor over untrusted bytes. Every read checks the
// remaining length first; nothing is allocated from a length the bytes merely claim.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

namespace vramfit {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, int64_t size) : data_(data), size_(size) {}

  int64_t offset() const { return offset_; }
  int64_t remaining() const { return size_ - offset_; }

  template <class T>
  bool read(T& value) {
    if (remaining() < static_cast<int64_t>(sizeof(T))) return false;
    std::memcpy(&value, data_ + offset_, sizeof(T));  // little-endian hosts (x86, wasm, arm)
    offset_ += static_cast<int64_t>(sizeof(T));
    return true;
  }

  bool skip(int64_t bytes) {
    if (bytes < 0 || remaining() < bytes) return false;
    offset_ += bytes;
    return true;
  }

  // Reads `length` bytes into `out`; false (and nothing allocated) if they are not there.
  bool read_string(uint64_t length, std::string& out) {
    if (length > static_cast<uint64_t>(remaining())) return false;
    out.assign(reinterpret_cast<const char*>(data_ + offset_), static_cast<size_t>(length));
    offset_ += static_cast<int64_t>(length);
    return true;
  }

 private:
  const uint8_t* data_;
  int64_t size_;
  int64_t offset_ = 0;
};

}  // namespace vramfit
