// A Hub repository's file list, as its model info (/api/models/<id>/revision/<rev>) gives it:
// the files and their sizes, the GGUF model files by quantization (a split file's parts counted
// once, projectors apart), and which GGUF an id's ":quant" names.
#pragma once
#include <string>
#include <vector>

#include "io/json.hpp"
#include "report/hub_reading.hpp"

namespace vramfit {

// The siblings of the model info, with their sizes (an LFS file's own size where given).
std::vector<HubFileEntry> hub_files_of(const json& info);

// The GGUF model files into model.ggufs, the projectors (mmproj-*) into model.mmproj_files.
void list_ggufs(const std::vector<HubFileEntry>& files, HubModel& model);

// "Q4_K_M (4.92 GB), Q8_0 (8.54 GB)": the quantizations a message lists.
std::string quants_text(const std::vector<HubGguf>& ggufs);

// The GGUF of a quantization ("q4_k_m", or the end of its file's stem), or null.
const HubGguf* gguf_of_quant(const std::vector<HubGguf>& ggufs, const std::string& quant);

// llama.cpp's -hf without a quant (common/arg.cpp): Q4_K_M, else the first GGUF file; null when none.
const HubGguf* default_gguf(const std::vector<HubGguf>& ggufs);

// Parts 2..n of a split GGUF (llama.cpp's gguf-split naming: -0000k-of-0000n.gguf).
std::vector<std::string> gguf_later_parts(const HubGguf& gguf);

}  // namespace vramfit
