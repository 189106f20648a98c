#include "safetensors.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "io/json.hpp"

namespace vramfit {

int64_t SafetensorsTensor::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t safetensors_dtype_bytes(const std::string& dtype) {
  static const std::pair<const char*, int64_t> sizes[] = {
      {"F64", 8}, {"I64", 8}, {"U64", 8}, {"F32", 4}, {"I32", 4}, {"U32", 4}, {"F16", 2}, {"BF16", 2},
      {"I16", 2}, {"U16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}};
  for (const auto& s : sizes) if (dtype == s.first) return s.second;
  return 0;
}

namespace {
Error st_error(const std::string& id, const std::string& origin, const std::string& path, const std::string& what) {
  return make_error(id, path, origin + ": " + (path.empty() ? "" : path + ": ") + what);
}
}  // namespace

Result<int64_t> safetensors_header_size(const uint8_t* data, int64_t size, const std::string& origin) {
  if (size < 8) return st_error("safetensors.truncated", origin, "", "shorter than the 8-byte header length");
  uint64_t length = 0;
  for (int i = 7; i >= 0; --i) length = (length << 8) | data[i];
  if (length > static_cast<uint64_t>(SafetensorsLimits::max_header_bytes)) {
    return st_error("safetensors.too_long", origin, "", "header length " + std::to_string(length) +
                                                            " is over the format's 100 MB limit");
  }
  return static_cast<int64_t>(8 + length);
}

Result<SafetensorsFile> read_safetensors(const uint8_t* data, int64_t size, const std::string& origin, int64_t file_size) {
  auto header = safetensors_header_size(data, size, origin);
  if (!header) return header.error();
  if (*header > size) {
    return st_error("safetensors.truncated", origin, "", "the header needs " + std::to_string(*header) +
                                                             " bytes but only " + std::to_string(size) + " were read");
  }
  if (file_size > 0 && *header > file_size) {
    return st_error("safetensors.truncated", origin, "", "the header length runs past the end of the file");
  }
  const json root = parse_json(data + 8, data + *header);
  if (root.is_discarded()) return st_error("safetensors.bad_json", origin, "", "the header is not valid JSON");
  if (!root.is_object()) return st_error("safetensors.bad_json", origin, "", "the header is not a JSON object");
  if (root.size() > SafetensorsLimits::max_tensors) {
    return st_error("safetensors.too_many", origin, "", std::to_string(root.size()) + " entries is over the limit");
  }
  SafetensorsFile file;
  file.header_bytes = *header;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string path = it.key();
    const json& entry = it.value();
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") || !entry.contains("data_offsets")) {
      return st_error("safetensors.bad_entry", origin, path, "needs dtype, shape and data_offsets");
    }
    SafetensorsTensor t;
    t.name = path;
    if (!entry["dtype"].is_string()) return st_error("safetensors.bad_entry", origin, path + ".dtype", "must be a string");
    t.dtype = entry["dtype"].get<std::string>();
    const int64_t element_bytes = safetensors_dtype_bytes(t.dtype);
    if (element_bytes == 0) return st_error("safetensors.bad_dtype", origin, path + ".dtype", "unknown dtype '" + t.dtype + "'");
    const json& shape = entry["shape"];
    if (!shape.is_array() || shape.size() > SafetensorsLimits::max_dims) {
      return st_error("safetensors.bad_shape", origin, path + ".shape", "must be an array of at most 8 dimensions");
    }
    int64_t elements = 1;
    for (const json& d : shape) {
      if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<int64_t>() >= 0)) {
        return st_error("safetensors.bad_shape", origin, path + ".shape", "dimensions must be non-negative integers (got " + d.dump() + ")");
      }
      const uint64_t dim = d.get<uint64_t>();
      if (dim > uint64_t(SafetensorsLimits::max_elements) ||
          (dim > 0 && elements > SafetensorsLimits::max_elements / static_cast<int64_t>(dim))) {
        return st_error("safetensors.bad_shape", origin, path + ".shape", "the element count overflows");
      }
      elements *= static_cast<int64_t>(dim);
      t.shape.push_back(static_cast<int64_t>(dim));
    }
    const json& offsets = entry["data_offsets"];
    if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) {
      return st_error("safetensors.bad_offsets", origin, path + ".data_offsets", "must be two non-negative integers");
    }
    const uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
    if (end < begin || end > uint64_t(INT64_MAX) / 2) {
      return st_error("safetensors.bad_offsets", origin, path + ".data_offsets", "end must not be before begin");
    }
    t.bytes = static_cast<int64_t>(end - begin);
    if (t.bytes != elements * element_bytes) {
      return st_error("safetensors.bad_offsets", origin, path + ".data_offsets",
                      std::to_string(t.bytes) + " bytes do not hold " + std::to_string(elements) + " " + t.dtype + " elements");
    }
    if (file_size > 0 && static_cast<int64_t>(end) > file_size - *header) {
      return st_error("safetensors.bad_offsets", origin, path + ".data_offsets", "runs past the end of the file");
    }
    ranges.emplace_back(static_cast<int64_t>(begin), static_cast<int64_t>(end));
    file.data_bytes += t.bytes;
    file.tensors.push_back(std::move(t));
  }
  // Tensors must not overlap (the format requires a dense, non-overlapping layout).
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) {
      return st_error("safetensors.bad_offsets", origin, "", "two tensors' data_offsets overlap");
    }
  }
  std::sort(file.tensors.begin(), file.tensors.end(),
            [](const SafetensorsTensor& a, const SafetensorsTensor& b) { return a.name < b.name; });
  return file;
}

Result<SafetensorsIndex> read_safetensors_index(const std::string& text, const std::string& origin) {
  const json root = parse_json(text);
  if (root.is_discarded() || !root.is_object()) return st_error("safetensors.bad_json", origin, "", "not a JSON object");
  SafetensorsIndex index;
  if (!root.contains("metadata") || !root["metadata"].is_object() || !root["metadata"].contains("total_size")) {
    return st_error("safetensors.bad_index", origin, "metadata.total_size", "missing");
  }
  const json& total = root["metadata"]["total_size"];
  if (total.is_number_unsigned() && total.get<uint64_t>() > (uint64_t(1) << 52)) {
    return st_error("safetensors.bad_index", origin, "metadata.total_size", "is above the limit of 2^52 bytes (4 PiB)");
  }
  if (total.is_number_unsigned() || (total.is_number_integer() && total.get<int64_t>() >= 0)) {
    index.total_size = total.get<int64_t>();
  } else if (total.is_number_float() && std::isfinite(total.get<double>()) && total.get<double>() >= 0 &&
             total.get<double>() <= 4.5e15 && total.get<double>() == std::floor(total.get<double>())) {
    index.total_size = static_cast<int64_t>(total.get<double>());  // some exporters write 1.6e10
  } else {
    return st_error("safetensors.bad_index", origin, "metadata.total_size", "must be a non-negative integer (got " + total.dump() + ")");
  }
  if (!root.contains("weight_map") || !root["weight_map"].is_object()) {
    return st_error("safetensors.bad_index", origin, "weight_map", "missing or not an object");
  }
  std::set<std::string> shards;
  for (auto it = root["weight_map"].begin(); it != root["weight_map"].end(); ++it) {
    if (!it.value().is_string()) return st_error("safetensors.bad_index", origin, "weight_map." + it.key(), "must be a file name");
    index.tensor_names.push_back(it.key());
    shards.insert(it.value().get<std::string>());
  }
  index.shards.assign(shards.begin(), shards.end());
  return index;
}

}  // namespace vramfit
