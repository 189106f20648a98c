// An engine's answer in the app: the verdict, and apart from it the headroom and the margin; one
// bar per device (a GPU, a vLLM rank, the host) of its parts against its capacity; what fits; the
// lines the engine prints; the same as Markdown (Copy Markdown) and for screen readers.
#include "engine_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/fit.hpp"
#include "core/units.hpp"
#include "report/engines.hpp"
#include "ui_language.hpp"
#include "verdict.hpp"
#include "widgets.hpp"

namespace vramfit {

namespace {

// --- results ---------------------------------------------------------------------------

struct Part {
  const char* name;
  int64_t bytes;
  ImU32 colour;
};
const ImU32 kWeights = IM_COL32(86, 145, 222, 255), kKv = IM_COL32(96, 190, 120, 255), kWork = IM_COL32(170, 120, 220, 255),
            kOther = IM_COL32(242, 171, 60, 255), kMore = IM_COL32(150, 150, 150, 255), kDraft = IM_COL32(64, 180, 190, 255),
            kLora = IM_COL32(220, 110, 160, 255), kMmproj = IM_COL32(200, 190, 80, 255);
const ImU32 kFits = IM_COL32(96, 190, 120, 255), kDoesNotFit = IM_COL32(235, 90, 80, 255), kTight = IM_COL32(242, 171, 60, 255);
// The safety margin's colour, as the generic breakdown draws it (verdict.cpp).
const ImU32 kMargin = IM_COL32(206, 93, 151, 255);

// One device (a GPU, a vLLM rank, the host): its parts against its capacity (0: not checked),
// whether the engine starts on it (its own allocations, no margin) and, apart, the margin the
// user keeps on top (margin_fraction x what it uses), its own segment of the bar.
struct DeviceRow {
  std::string name;
  std::vector<Part> parts;
  int64_t capacity = 0;
  bool fits = true;            // the engine starts on it
  int64_t margin = 0;          // the user's reserve on top of the parts
  std::string warning;         // it starts, but something beyond the engine's own checks may not fit
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

std::string per_second(const char* what, double value, const std::string& rate) {
  char text[160];
  std::string number;
  if (value >= 1000.0) {
    number = with_thousands(static_cast<int64_t>(value));
  } else {
    std::snprintf(text, sizeof text, "%.1f", value);
    number = text;
  }
  return std::string(what) + ": at most " + number + " tokens/s (an upper bound)" + (rate.empty() ? "" : " at " + rate);
}

std::string devices_text(size_t count) { return std::to_string(count) + (count == 1 ? " GPU" : " GPUs"); }

EngineAnswer llamacpp_answer(const Request& request, const EngineReport& e) {
  const LlamaCppMemory& m = e.llamacpp;
  const LlamaCppFit& f = e.llamacpp_fit;
  EngineAnswer a;
  a.fits = f.fits;
  a.verdict = std::string(f.fits ? "llama.cpp: STARTS" : "llama.cpp: DOES NOT START") + " on " + devices_text(m.gpus.size()) +
              " and the host";
  a.facts.push_back("offloaded " + std::to_string(m.offloaded_layers) + "/" + std::to_string(m.layer_slots) + " layers to GPU; " +
                    with_thousands(m.n_ctx) + " KV cells; flash attention " + (m.flash_attention ? "on" : "off"));
  // With a draft model (-md) its buffers are one part of each device's bar.
  const LlamaCppMemory& d = e.llamacpp_draft;
  const bool draft = !e.draft_name.empty();
  if (draft) {
    a.facts.push_back("draft model (-md): " + e.draft_name + ", " + request.draft->weight_format + "; offloaded " +
                      std::to_string(d.offloaded_layers) + "/" + std::to_string(d.layer_slots) + " layers; " +
                      with_thousands(d.n_ctx) + " KV cells");
  }
  a.legend = {
      {"model", 0, kWeights}, {m.rs_cells > 0 ? "KV, RS" : "KV", 0, kKv}, {"compute", 0, kWork}, {"output", 0, kMore},
      {"CUDA context", 0, kOther}, {"margin", 0, kMargin}};
  if (draft) a.legend.push_back({"draft model", 0, kDraft});
  if (!request.llamacpp.lora.empty()) a.legend.push_back({"LoRA", 0, kLora});
  if (request.llamacpp.has_mmproj) a.legend.push_back({"mmproj", 0, kMmproj});
  for (size_t g = 0; g < m.gpus.size(); ++g) {
    const LlamaCppBuffers& b = m.gpus[g];
    const int64_t draft_bytes = draft ? d.gpus[g].total() : 0;
    const int64_t runtime = std::max<int64_t>(0, f.gpu_use[g] - b.total() - draft_bytes);
    a.devices.push_back({b.device + " " + e.devices[g].name + ", " + std::to_string(b.layers) + tr(" layers"),
                         {{"model", b.model, kWeights},
                          {"LoRA", b.lora, kLora},
                          {"mmproj", b.mmproj, kMmproj},
                          {"KV", b.kv, kKv},
                          {"RS", b.rs, kKv},
                          {"compute", b.compute, kWork},
                          {"output", b.output, kMore},
                          {"draft model", draft_bytes, kDraft},
                          {"CUDA context", runtime, kOther}},
                         f.gpu_capacity[g],
                         f.gpu_starts(g),
                         f.gpu_margin[g]});
  }
  const LlamaCppBuffers& h = m.host;
  a.devices.push_back({"host (CPU_Mapped, CPU KV, host compute)",
                       {{"model", h.model, kWeights},
                        {"LoRA", h.lora, kLora},
                        {"mmproj", h.mmproj, kMmproj},
                        {"KV", h.kv, kKv},
                        {"RS", h.rs, kKv},
                        {"compute", h.compute, kWork},
                        {"output", h.output, kMore},
                        {"draft model", draft ? d.host.total() : 0, kDraft}},
                       request.host_memory_bytes,
                       request.host_memory_bytes <= 0 || f.host_need <= request.host_memory_bytes});
  a.limits.push_back("the most -ngl that starts: " + std::to_string(f.max_gpu_layers) +
                     "; the longest -c: " + with_thousands(f.max_ctx_size));
  if (f.max_gpu_layers_with_margin != f.max_gpu_layers || f.max_ctx_size_with_margin != f.max_ctx_size) {
    a.limits.push_back("with the margin kept: -ngl " + std::to_string(f.max_gpu_layers_with_margin) + ", -c " +
                       with_thousands(f.max_ctx_size_with_margin));
  }
  if (e.llamacpp_decode.tokens_per_second_empty > 0) {
    a.limits.push_back(per_second("decode", e.llamacpp_decode.tokens_per_second_empty, ""));
  }
  if (e.llamacpp_prefill.tokens_per_second > 0) {
    a.limits.push_back(per_second("prompt", e.llamacpp_prefill.tokens_per_second, e.prefill_rate));
  }
  a.printer = "llama.cpp";
  a.printed = llamacpp_log_lines(m);
  if (draft) {
    a.printed.push_back("and for the draft model:");
    for (const std::string& line : llamacpp_log_lines(d)) a.printed.push_back(line);
  }
  return a;
}

EngineAnswer vllm_answer(const Request& request, const EngineReport& e) {
  const VllmMemory& m = e.vllm;
  EngineAnswer a;
  a.fits = m.fits;
  a.verdict = std::string(m.fits ? "vLLM: STARTS" : "vLLM: DOES NOT START") + " on " + devices_text(m.ranks.size());
  if (!m.fits) a.facts.push_back(m.refusal);
  if (!m.warning.empty()) a.facts.push_back("warning: " + m.warning);
  char text[200];
  std::snprintf(text, sizeof text, "KV cache: %s tokens; %.2fx requests of %s tokens at once",
                with_thousands(m.kv_tokens).c_str(), m.max_concurrency, with_thousands(m.max_model_len).c_str());
  a.facts.push_back(text);
  if (!e.draft_name.empty()) {
    a.facts.push_back("draft model (--speculative-config, " + std::to_string(request.vllm.num_speculative_tokens) + " tokens): " +
                      e.draft_name + ", " + request.draft->weight_format + "; " +
                      format_bytes(m.ranks.back().draft_weights, request.units) + " of each rank's weights");
  }
  a.legend = {{"weights", 0, kWeights},
              {"KV pool", 0, kKv},
              {"activation", 0, kWork},
              {"non-torch", 0, kMore},
              {"context + graphs", 0, kOther},
              {"margin", 0, kMargin}};
  for (size_t i = 0; i < m.ranks.size(); ++i) {
    const VllmRank& k = m.ranks[i];
    a.devices.push_back({"rank " + std::to_string(i) + " " + e.devices[i].name,
                         {{"weights", k.weights, kWeights},
                          {"KV pool", std::max<int64_t>(0, k.kv_available), kKv},
                          {"activation", k.activation_peak, kWork},
                          {"non-torch", k.non_torch, kMore},
                          {"context + graphs", k.outside_budget, kOther}},
                         k.total,
                         k.starts,
                         safety_margin_bytes(k.uses(), request.settings.margin_fraction),
                         k.beyond_total ? "CUDA graphs may not fit beyond the budget" : ""});
  }
  std::snprintf(text, sizeof text, "the longest --max-model-len: %s; the smallest --gpu-memory-utilization: %.3f",
                with_thousands(m.longest_model_len).c_str(), m.min_utilization);
  a.limits.push_back(text);
  if (e.vllm_decode.tokens_per_second_empty > 0)
    a.limits.push_back(per_second("decode", e.vllm_decode.tokens_per_second_empty, ""));
  if (e.vllm_prefill_tokens_per_second > 0)
    a.limits.push_back(per_second("prompt", e.vllm_prefill_tokens_per_second, e.prefill_rate));
  a.printer = "vLLM";
  a.printed = vllm_log_lines(m, request.vllm);
  return a;
}

EngineAnswer transformers_answer(const Request& request, const EngineReport& e) {
  const TransformersMemory& m = e.transformers;
  const TransformersSettings& t = request.transformers;
  EngineAnswer a;
  a.fits = m.fits;
  a.verdict = std::string(m.fits ? "Transformers: FITS" : "Transformers: DOES NOT FIT") + " on " + devices_text(m.gpus.size()) +
              (m.host.weights > 0 ? " and the host" : "");
  if (!m.fits) a.facts.push_back(m.refusal);
  a.legend = {{"weights", 0, kWeights}, {"KV cache", 0, kKv}, {"activations", 0, kWork}, {"CUDA context", 0, kOther},
              {"margin", 0, kMargin}};
  for (size_t i = 0; i < m.gpus.size(); ++i) {
    const TransformersDevice& d = m.gpus[i];
    const Gpu& gpu = e.devices[i];
    const int64_t total = gpu.cuda_visible_bytes();
    const int64_t kept = d.weights + d.buffers;
    // At the prompt's peak the cache holds the prompt; at the last step every token but one.
    const int64_t final_tokens = t.input_length + t.max_new_tokens - 1;
    const int64_t kv = d.peak() == d.decode_peak ? d.kv : d.kv / std::max<int64_t>(1, final_tokens) * t.input_length;
    a.devices.push_back(
        {"cuda:" + std::to_string(i) + " " + gpu.name +
             (d.layers() > 0 ? ", layers " + std::to_string(d.first_layer) + "-" + std::to_string(d.last_layer) : ""),
         {{"weights", kept, kWeights},
          {"KV cache", kv, kKv},
          {"activations", std::max<int64_t>(0, d.peak() - kept - kv), kWork},
          {"CUDA context", request.settings.runtime_bytes, kOther}},
         total,
         d.peak() + request.settings.runtime_bytes <= total,
         safety_margin_bytes(d.peak() + request.settings.runtime_bytes, request.settings.margin_fraction)});
  }
  if (m.host.weights > 0) {
    a.devices.push_back({"host (device_map \"cpu\")",
                         {{"weights", m.host.weights + m.host.buffers, kWeights}},
                         request.host_memory_bytes,
                         request.host_memory_bytes <= 0 || m.host.weights <= request.host_memory_bytes});
  }
  a.limits.push_back("the largest batch: " + std::to_string(e.transformers_fit.max_batch_size) +
                     "; the most max_new_tokens: " + with_thousands(e.transformers_fit.max_new_tokens));
  if (e.transformers_decode_tokens_per_second > 0) {
    a.limits.push_back(per_second("decode", e.transformers_decode_tokens_per_second, ""));
  }
  if (e.transformers_prefill_tokens_per_second > 0) {
    a.limits.push_back(per_second("prompt", e.transformers_prefill_tokens_per_second, e.prefill_rate));
  }
  a.printer = "your script";
  a.printed = transformers_log_lines(m);
  return a;
}

EngineAnswer engine_answer(const Request& request, const Report& report) {
  EngineAnswer a;
  if (!report.engine) return a;
  const EngineReport& e = *report.engine;
  switch (request.engine) {
    case Engine::llamacpp: a = llamacpp_answer(request, e); break;
    case Engine::vllm: a = vllm_answer(request, e); break;
    case Engine::transformers: a = transformers_answer(request, e); break;
    default: break;
  }
  a.assumptions = e.assumptions;
  return a;
}

// "24.51 GB of 25.77 GB" and what that means: the engine's start, then the margin apart.
std::string amount(const Request& request, const DeviceRow& d) {
  std::string text = format_bytes(d.need(), request.units) +
                     (d.capacity > 0 ? tr(" of ") + format_bytes(d.capacity, request.units) : std::string(tr(" (capacity not checked)")));
  if (!d.fits) return text + tr(": does not start");
  if (d.capacity <= 0) return text;
  if (!d.warning.empty()) return text + ": " + tr(d.warning.c_str());
  return text + (d.keeps_margin() ? tr(", margin kept: ") : tr(", less than the margin: ")) + format_bytes(d.margin, request.units) +
         tr(" of margin, ") + format_bytes(d.capacity - d.need(), request.units) + tr(" left");
}

// One device: its name, "need of capacity", and a bar of its parts, then its margin, against its capacity.
void device_bar(const Request& request, const DeviceRow& d) {
  align_line_end(d.name.c_str());
  ImGui::TextUnformatted(d.name.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, d.colour());
  text_wrapped_at_spaces(amount(request, d));
  ImGui::PopStyleColor();
  const double scale = static_cast<double>(std::max<int64_t>(1, std::max(d.capacity, d.need() + d.margin)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x, height = em(1.0f);
  dl->AddRectFilled(p, ImVec2(p.x + width, p.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
  float x = p.x;
  std::string hovered;
  std::vector<Part> parts = d.parts;
  if (d.capacity > 0 && d.margin > 0) parts.push_back({"margin", d.margin, kMargin});
  for (const Part& part : parts) {
    const float w = static_cast<float>(static_cast<double>(part.bytes) / scale * width);
    if (w > 0.5f) dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + w, p.y + height), part.colour);
    if (ImGui::IsMouseHoveringRect(ImVec2(x, p.y), ImVec2(x + w, p.y + height))) {
      hovered = std::string(part.name) + ": " + format_bytes(part.bytes, request.units);
    }
    x += w;
  }
  if (d.capacity > 0) {
    const float cap = p.x + static_cast<float>(static_cast<double>(d.capacity) / scale * width);
    dl->AddLine(ImVec2(cap, p.y - 2), ImVec2(cap, p.y + height + 2), ImGui::GetColorU32(ImGuiCol_Text), 2.0f);
  }
  ImGui::Dummy(ImVec2(width, height));
  if (!hovered.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", hovered.c_str());
}

void legend(const std::vector<Part>& parts) {
  ItemRow row;
  for (const Part& part : parts) legend_entry(row, part.colour, part.name);
}

// Under the verdict, apart from it: whether the margin is kept where the engine starts, on the
// GPU with the least left.
std::string headroom_line(const Request& request, const EngineAnswer& a) {
  const size_t index = fullest_device(a.devices.size(), [&](size_t i) -> std::optional<int64_t> {
    const DeviceRow& d = a.devices[i];
    if (d.capacity <= 0 || (d.margin <= 0 && d.parts.empty())) return std::nullopt;  // the host, a device with nothing on it
    return d.capacity - d.need();
  });
  if (!a.fits || index == a.devices.size()) return "";
  const DeviceRow* fullest = &a.devices[index];
  const int64_t left = fullest->capacity - fullest->need();
  if (left < 0) return tr("Headroom: none, ") + format_bytes(-left, request.units) + tr(" over on ") + fullest->name + tr(" (the warning above)");
  const int percent = static_cast<int>(request.settings.margin_fraction * 100 + 0.5);
  return std::string(tr(fullest->keeps_margin() ? "Headroom: the margin is kept on every GPU (" : "Headroom: less than the margin (")) +
         std::to_string(percent) + "%, " + tr("set under Margin (%)") + "): " + format_bytes(left, request.units) +
         tr(" left on ") + fullest->name;
}

}  // namespace

void draw_engine_results(const Request& request, const Report& report) {
  draw_engine_verdict(request, report);
  draw_engine_details(request, report);
}

void draw_engine_verdict(const Request& request, const Report& report) {
  const EngineAnswer a = engine_answer(request, report);
  if (a.verdict.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, a.fits ? kFits : kDoesNotFit);
  text_wrapped_at_spaces(a.verdict);
  ImGui::PopStyleColor();
  const std::string headroom = headroom_line(request, a);
  if (!headroom.empty()) text_wrapped_at_spaces(headroom);
  text_wrapped_at_spaces_disabled(tr("The engine's own allocation answers; Engine, in the inputs, switches to another."));
  draw_warnings(report);
  for (const std::string& fact : a.facts) text_wrapped_at_spaces(fact);
  legend(a.legend);
  for (const DeviceRow& d : a.devices) device_bar(request, d);
}

void draw_engine_details(const Request& request, const Report& report) {
  const EngineAnswer a = engine_answer(request, report);
  if (a.verdict.empty()) return;
  section("What fits");
  for (const std::string& line : a.limits) text_wrapped_at_spaces(line);
  section((std::string(tr("What ")) + tr(a.printer.c_str()) + tr(" will print")).c_str());
  for (const std::string& line : a.printed) text_wrapped_at_spaces(line);
  if (!a.assumptions.empty()) {
    section("Assumed");
    for (const std::string& line : a.assumptions) text_wrapped_at_spaces_disabled(line);
  }
}

namespace {

// The same answer as Markdown (Copy Markdown; screen readers hear it without the code block).
std::string answer_text(const Request& request, const Report& report, bool markdown) {
  const EngineAnswer a = engine_answer(request, report);
  // In Arabic the lines are translated as a whole (ui_text); the pieces composed here first.
  std::string out = (markdown ? "**" + report.model_name + "**, " : report.model_name + ", ") + ui_text(a.verdict) + "\n";
  const std::string headroom = headroom_line(request, a);
  if (!headroom.empty()) out += headroom + "\n";
  for (const std::string& warning : report.breakdown.warnings) out += "warning: " + warning + "\n";
  for (const std::string& fact : a.facts) out += fact + "\n";
  for (const DeviceRow& d : a.devices) {
    out += "- " + ui_text(d.name) + ": " + amount(request, d);
    std::string parts;
    for (const Part& p : d.parts) {
      if (p.bytes > 0) parts += std::string(parts.empty() ? "" : tr(", ")) + tr(p.name) + " " + format_bytes(p.bytes, request.units);
    }
    out += (parts.empty() ? "" : " (" + parts + ")") + "\n";
  }
  for (const std::string& line : a.limits) out += "- " + line + "\n";
  if (markdown) {
    out += "\nWhat " + a.printer + " will print:\n\n```\n";
    for (const std::string& line : a.printed) out += line + "\n";
    out += "```\n";
  }
  return out;
}

}  // namespace

std::string engine_markdown(const Request& request, const Report& report) { return answer_text(request, report, true); }
std::string engine_spoken(const Request& request, const Report& report) { return answer_text(request, report, false); }

}  // namespace vramfit
