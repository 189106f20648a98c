// What the app's engine files share (src/app/engines/<engine>.cpp: an engine's input fields and
// its answer): the parts of a device's bar, a device's row, an engine's answer as the app shows it,
// and the small widgets the input fields use.
#pragma once
#include <imgui.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/request.hpp"
#include "report/engines.hpp"

namespace vramfit {

struct Part {
  const char* name;
  int64_t bytes;
  ImU32 colour;
};
inline const ImU32 kWeights = IM_COL32(86, 145, 222, 255), kKv = IM_COL32(96, 190, 120, 255), kWork = IM_COL32(170, 120, 220, 255),
            kOther = IM_COL32(242, 171, 60, 255), kMore = IM_COL32(150, 150, 150, 255), kDraft = IM_COL32(64, 180, 190, 255),
            kLora = IM_COL32(220, 110, 160, 255), kMmproj = IM_COL32(200, 190, 80, 255);
inline const ImU32 kFits = IM_COL32(96, 190, 120, 255), kDoesNotFit = IM_COL32(235, 90, 80, 255), kTight = IM_COL32(242, 171, 60, 255);
// The safety margin's colour, as the generic breakdown draws it (verdict.cpp).
inline const ImU32 kMargin = IM_COL32(206, 93, 151, 255);

// One device (a GPU, a vLLM rank, the host): its parts against its capacity (0: not checked),
// whether the engine starts on it (its own allocations, no margin) and, apart, the margin the
// user keeps on top (margin_fraction x what it uses), its own segment of the bar.
struct DeviceRow {
  std::string name;
  std::vector<Part> parts;
  int64_t capacity = 0;
  bool fits = true;            // the engine starts on it
  int64_t margin = 0;          // the user's reserve on top of the parts
  std::string warning = {};    // it starts, but something beyond the engine's own checks may not fit
  int64_t need() const {
    int64_t sum = 0;
    for (const Part& p : parts) sum += p.bytes;
    return sum;
  }
  bool keeps_margin() const { return capacity <= 0 || need() + margin <= capacity; }
  ImU32 colour() const { return !fits ? kDoesNotFit : !warning.empty() || !keeps_margin() ? kTight : kFits; }
};


// An engine's answer as the app shows it and Copy Markdown and screen readers say it.
struct EngineAnswer {
  bool fits = false;
  std::string verdict;             // "llama.cpp: FITS on 2 GPUs and the host"
  std::vector<std::string> facts;  // under the verdict
  std::vector<Part> legend;        // the parts' names and colours
  std::vector<DeviceRow> devices;
  std::vector<std::string> limits;   // what fits, the speed bounds
  std::string printer;               // "llama.cpp", "vLLM", "your script"
  std::vector<std::string> printed;  // the lines it prints
  std::vector<std::string> assumptions;
};

// "Prefill: at most 12,345 tokens/s (an upper bound) at <rate>".
std::string per_second(const char* what, double value, const std::string& rate);
// "1 GPU", "2 GPUs".
std::string devices_text(size_t count);

// Each engine's answer (src/app/engines/<engine>.cpp).
EngineAnswer llamacpp_answer(const Request& request, const EngineReport& e);
EngineAnswer vllm_answer(const Request& request, const EngineReport& e);
EngineAnswer transformers_answer(const Request& request, const EngineReport& e);

// The long flag name and its meaning, on hovering the last item (the field's label).
void tip(const char* text);
// A llama.cpp cache type (-ctk, -ctv and the draft's).
bool cache_type_combo(const char* label, std::string& type);

}  // namespace vramfit
