#include "gguf.hpp"

#include "byte_reader.hpp"

namespace vramfit {

namespace {

enum GgufType : uint32_t {
  u8 = 0, i8 = 1, u16 = 2, i16 = 3, u32 = 4, i32 = 5, f32 = 6, boolean = 7, string = 8, array = 9,
  u64 = 10, i64 = 11, f64 = 12
};

int64_t scalar_size(uint32_t type) {
  switch (type) {
    case u8: case i8: case boolean: return 1;
    case u16: case i16: return 2;
    case u32: case i32: case f32: return 4;
    case u64: case i64: case f64: return 8;
    default: return 0;
  }
}

struct Parser {
  ByteReader in;
  std::string origin;
  int64_t file_size;
  std::optional<Error> error;

  bool fail(const std::string& id, const std::string& what) {
    if (!error) {
      error = make_error(id, "offset " + std::to_string(in.offset()),
                         origin + ": " + what + " (at byte offset " + std::to_string(in.offset()) + ")");
    }
    return false;
  }

  bool truncated(const std::string& what) {
    std::string hint = file_size > 0 ? " of a " + std::to_string(file_size) + "-byte file" : "";
    return fail("gguf.truncated", "truncated while reading " + what + ": the header continues past the " +
                                      std::to_string(in.offset() + in.remaining()) + " bytes read" + hint);
  }

  bool read_string(std::string& out, uint64_t limit, const char* what) {
    uint64_t length = 0;
    if (!in.read(length)) return truncated(std::string(what) + " length");
    if (length > limit) return fail("gguf.too_long", std::string(what) + " claims " + std::to_string(length) + " bytes, more than the limit of " + std::to_string(limit));
    if (length > static_cast<uint64_t>(in.remaining())) return truncated(what);
    return in.read_string(length, out);
  }

  bool read_scalar(uint32_t type, GgufValue& v) {
    switch (type) {
      case u8: { uint8_t x; if (!in.read(x)) return truncated("a u8"); v.integer = x; return true; }
      case i8: { int8_t x; if (!in.read(x)) return truncated("an i8"); v.integer = x; return true; }
      case u16: { uint16_t x; if (!in.read(x)) return truncated("a u16"); v.integer = x; return true; }
      case i16: { int16_t x; if (!in.read(x)) return truncated("an i16"); v.integer = x; return true; }
      case u32: { uint32_t x; if (!in.read(x)) return truncated("a u32"); v.integer = x; return true; }
      case i32: { int32_t x; if (!in.read(x)) return truncated("an i32"); v.integer = x; return true; }
      case u64: {
        uint64_t x; if (!in.read(x)) return truncated("a u64");
        v.integer = x > uint64_t(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(x);
        return true;
      }
      case i64: { int64_t x; if (!in.read(x)) return truncated("an i64"); v.integer = x; return true; }
      case f32: { float x; if (!in.read(x)) return truncated("an f32"); v.kind = GgufValue::Kind::real; v.real = x; return true; }
      case f64: { double x; if (!in.read(x)) return truncated("an f64"); v.kind = GgufValue::Kind::real; v.real = x; return true; }
      case boolean: {
        uint8_t x; if (!in.read(x)) return truncated("a bool");
        if (x > 1) return fail("gguf.bad_value", "a bool holds " + std::to_string(x));
        v.kind = GgufValue::Kind::boolean; v.boolean = x != 0; return true;
      }
      default: return fail("gguf.bad_type", "unknown value type " + std::to_string(type));
    }
  }

  bool read_value(uint32_t type, GgufValue& v, int depth, const std::string& key) {
    if (type == string) {
      v.kind = GgufValue::Kind::string;
      return read_string(v.string, GgufLimits::max_string_length, ("string value of " + key).c_str());
    }
    if (type != array) return read_scalar(type, v);
    if (depth >= GgufLimits::max_array_nesting) return fail("gguf.bad_value", key + ": arrays nested too deep");
    uint32_t item_type = 0;
    uint64_t length = 0;
    if (!in.read(item_type)) return truncated("array type of " + key);
    if (!in.read(length)) return truncated("array length of " + key);
    if (length > GgufLimits::max_array_length) return fail("gguf.too_long", key + ": array of " + std::to_string(length) + " items is over the limit");
    v.kind = GgufValue::Kind::array;
    v.array_length = length;
    const int64_t item = scalar_size(item_type);
    if (item > 0) {
      // Fixed-size items: check the whole array is there before reading any of it.
      if (length > static_cast<uint64_t>(in.remaining() / item)) return truncated("array " + key);
      const bool keep = item_type != f32 && item_type != f64 && item_type != boolean && length <= 4096;
      for (uint64_t i = 0; i < length; ++i) {
        GgufValue element;
        if (!read_scalar(item_type, element)) return false;
        if (keep) v.array_integers.push_back(element.integer);
      }
      return true;
    }
    if (item_type != string && item_type != array) return fail("gguf.bad_type", key + ": unknown array item type " + std::to_string(item_type));
    // Each string or array item takes at least 8 bytes (its length).
    if (length > static_cast<uint64_t>(in.remaining() / 8)) return truncated("array " + key);
    for (uint64_t i = 0; i < length; ++i) {
      GgufValue element;
      if (!read_value(item_type, element, depth + 1, key)) return false;
    }
    return true;
  }
};

}  // namespace

int64_t GgufTensorInfo::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

const GgufValue* GgufFile::find(const std::string& key) const {
  auto it = metadata.find(key);
  return it == metadata.end() ? nullptr : &it->second;
}

int64_t GgufFile::integer_or(const std::string& key, int64_t fallback) const {
  const GgufValue* v = find(key);
  return v && v->kind == GgufValue::Kind::integer ? v->integer : fallback;
}

std::string GgufFile::string_or(const std::string& key, const std::string& fallback) const {
  const GgufValue* v = find(key);
  return v && v->kind == GgufValue::Kind::string ? v->string : fallback;
}

Result<GgufFile> read_gguf(const uint8_t* data, int64_t size, const std::string& origin, int64_t file_size) {
  Parser p{ByteReader(data, size), origin, file_size, std::nullopt};
  GgufFile file;
  uint32_t magic = 0;
  if (!p.in.read(magic)) { p.truncated("the magic"); return *p.error; }
  if (magic != 0x46554747u) {  // "GGUF" little-endian
    p.in = ByteReader(data, size);
    p.fail("gguf.bad_magic", "not a GGUF file (the first 4 bytes are not \"GGUF\")");
    return *p.error;
  }
  if (!p.in.read(file.version)) { p.truncated("the version"); return *p.error; }
  if (file.version != 2 && file.version != 3) {
    p.fail("gguf.bad_version", "GGUF version " + std::to_string(file.version) + " is not supported (2 and 3 are)");
    return *p.error;
  }
  uint64_t tensor_count = 0, kv_count = 0;
  if (!p.in.read(tensor_count)) { p.truncated("the tensor count"); return *p.error; }
  if (!p.in.read(kv_count)) { p.truncated("the key count"); return *p.error; }
  if (tensor_count > GgufLimits::max_tensor_count) {
    p.fail("gguf.too_many", "tensor count " + std::to_string(tensor_count) + " is over the limit of " + std::to_string(GgufLimits::max_tensor_count));
    return *p.error;
  }
  if (kv_count > GgufLimits::max_kv_count) {
    p.fail("gguf.too_many", "key count " + std::to_string(kv_count) + " is over the limit of " + std::to_string(GgufLimits::max_kv_count));
    return *p.error;
  }

  for (uint64_t i = 0; i < kv_count; ++i) {
    std::string key;
    uint32_t type = 0;
    if (!p.read_string(key, GgufLimits::max_key_length, "a key")) return *p.error;
    if (!p.in.read(type)) { p.truncated("the type of " + key); return *p.error; }
    GgufValue value;
    if (!p.read_value(type, value, 0, key)) return *p.error;
    file.metadata[key] = std::move(value);
  }

  // Each tensor info takes at least 8 (name length) + 4 + 8 + 4 + 8 bytes.
  if (tensor_count > static_cast<uint64_t>(p.in.remaining() / 32)) { p.truncated("the tensor infos"); return *p.error; }
  file.tensors.reserve(static_cast<size_t>(tensor_count));
  for (uint64_t i = 0; i < tensor_count; ++i) {
    GgufTensorInfo t;
    if (!p.read_string(t.name, GgufLimits::max_key_length, "a tensor name")) return *p.error;
    uint32_t n_dims = 0;
    if (!p.in.read(n_dims)) { p.truncated("the dimensions of " + t.name); return *p.error; }
    if (n_dims == 0 || n_dims > GgufLimits::max_dims) {
      p.fail("gguf.bad_dims", "tensor " + t.name + " has " + std::to_string(n_dims) + " dimensions (1 to 4 allowed)");
      return *p.error;
    }
    int64_t elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t dim = 0;
      if (!p.in.read(dim)) { p.truncated("the shape of " + t.name); return *p.error; }
      if (dim == 0 || dim > uint64_t(GgufLimits::max_elements) ||
          elements > GgufLimits::max_elements / static_cast<int64_t>(dim)) {
        p.fail("gguf.bad_dims", "tensor " + t.name + ": dimension " + std::to_string(dim) + " makes the element count overflow or vanish");
        return *p.error;
      }
      elements *= static_cast<int64_t>(dim);
      t.dims.push_back(static_cast<int64_t>(dim));
    }
    uint32_t type = 0;
    if (!p.in.read(type)) { p.truncated("the type of " + t.name); return *p.error; }
    t.ggml_type = static_cast<int>(type > 1000 ? 1000 : type);
    if (!p.in.read(t.offset)) { p.truncated("the offset of " + t.name); return *p.error; }
    file.tensors.push_back(std::move(t));
  }
  int64_t alignment = file.integer_or("general.alignment", 32);
  if (alignment <= 0 || (alignment & (alignment - 1)) != 0 || alignment > (1 << 20)) alignment = 32;
  file.header_bytes = (p.in.offset() + alignment - 1) / alignment * alignment;
  file.file_size = file_size;
  return file;
}

}  // namespace vramfit
