// An engine's answer in the app: the verdict, and apart from it the headroom and the margin; one
// bar per device (a GPU, a vLLM rank, the host) of its parts against its capacity; what fits; the
// lines the engine prints; the same as Markdown (Copy Markdown) and for screen readers.
#include "engine_view.hpp"
#include "engines/engine_answer.hpp"

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

namespace {

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
