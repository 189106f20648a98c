#include "report/hub_files.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/units.hpp"
#include "io/header_reads.hpp"

namespace vramfit {

namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "-00001-of-00003" at the end of a GGUF stem (llama.cpp's gguf-split naming, LLM_FFN... split_path):
// the part number and count, or {0, 0}.
std::pair<int, int> split_part(const std::string& stem) {
  const size_t of = stem.rfind("-of-");
  if (of == std::string::npos || of < 6 || stem.size() - of != 9) return {0, 0};
  const std::string part = stem.substr(of - 5, 5), count = stem.substr(of + 4);
  if (stem[of - 6] != '-') return {0, 0};
  for (char c : part + count) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return {0, 0};
  }
  return {std::stoi(part), std::stoi(count)};
}

std::string gguf_stem(const std::string& file) {
  std::string stem = base_name(file);
  if (ends_with(lower(stem), ".gguf")) stem.resize(stem.size() - 5);
  if (split_part(stem).second > 0) stem.resize(stem.size() - 15);
  return stem;
}

bool is_mmproj(const std::string& file) { return lower(base_name(file)).rfind("mmproj", 0) == 0; }

}  // namespace

std::string gguf_quant_from_name(const std::string& file) {
  const std::string stem = gguf_stem(file);
  const size_t cut = stem.find_last_of("-.");
  return cut == std::string::npos ? stem : stem.substr(cut + 1);
}

std::vector<HubFileEntry> hub_files_of(const json& info) {
  std::vector<HubFileEntry> files;
  if (!info.contains("siblings") || !info["siblings"].is_array()) return files;
  for (const json& s : info["siblings"]) {
    if (!s.is_object() || !s.contains("rfilename") || !s["rfilename"].is_string()) continue;
    HubFileEntry f{s["rfilename"].get<std::string>(), -1};
    if (s.contains("size") && s["size"].is_number_integer()) f.size = s["size"].get<int64_t>();
    if (s.contains("lfs") && s["lfs"].is_object() && s["lfs"].contains("size") && s["lfs"]["size"].is_number_integer()) {
      f.size = s["lfs"]["size"].get<int64_t>();
    }
    files.push_back(f);
  }
  return files;
}

void list_ggufs(const std::vector<HubFileEntry>& files, HubModel& model) {
  for (const HubFileEntry& f : files) {
    if (!ends_with(lower(f.name), ".gguf")) continue;
    if (is_mmproj(f.name)) {
      model.mmproj_files.push_back(f.name);
      continue;
    }
    const auto [part, count] = split_part(base_name(f.name).substr(0, base_name(f.name).size() - 5));
    if (part > 1) continue;
    HubGguf g{f.name, gguf_quant_from_name(f.name), std::max<int64_t>(f.size, 0), std::max(count, 1)};
    if (count > 1) {
      g.size = 0;
      const std::string prefix = f.name.substr(0, f.name.size() - 20);  // "-00001-of-0000N.gguf"
      for (const HubFileEntry& other : files) {
        if (other.name.rfind(prefix, 0) == 0 && other.name.size() == f.name.size() && ends_with(lower(other.name), ".gguf")) {
          g.size += std::max<int64_t>(other.size, 0);
        }
      }
    }
    model.ggufs.push_back(g);
  }
}

std::string quants_text(const std::vector<HubGguf>& ggufs) {
  std::string text;
  for (const HubGguf& g : ggufs) text += (text.empty() ? "" : ", ") + g.quant + " (" + format_bytes(g.size, DisplayUnits::gb) + ")";
  return text;
}

const HubGguf* gguf_of_quant(const std::vector<HubGguf>& ggufs, const std::string& quant) {
  for (const HubGguf& g : ggufs) {
    if (lower(g.quant) == lower(quant) || ends_with(lower(gguf_stem(g.file)), lower(quant))) return &g;
  }
  return nullptr;
}

const HubGguf* default_gguf(const std::vector<HubGguf>& ggufs) {
  const HubGguf* chosen = nullptr;
  for (const HubGguf& g : ggufs) {
    if (lower(g.quant) == "q4_k_m") chosen = &g;
  }
  return chosen ? chosen : ggufs.empty() ? nullptr : &ggufs.front();
}

std::vector<std::string> gguf_later_parts(const HubGguf& gguf) {
  std::vector<std::string> parts;
  const std::string prefix = gguf.file.substr(0, gguf.file.size() - 20);
  for (int k = 2; k <= gguf.parts; ++k) {
    char part[32];
    std::snprintf(part, sizeof part, "-%05d-of-%05d.gguf", k, gguf.parts);
    parts.push_back(prefix + part);
  }
  return parts;
}

}  // namespace vramfit
