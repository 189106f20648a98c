#include "report_text.hpp"

#include "active_fit.hpp"

namespace vramfit {

std::string headline(const Request& request, const Result<Report>& report, const char* strong) {
  if (!report) return "vramfit: " + report.error().message;
  const Report& r = *report;
  const ActiveFit fit = active_fit(request, r);
  const std::string gpus = fit.gpu_count > 1 ? std::to_string(fit.gpu_count) + " x " + r.gpu.name : r.gpu.name;
  return strong + r.model_name + strong + " on " + gpus + ": " + strong + (fit.fits ? "fits" : "does not fit") + strong +
         " (" + (fit.gpu_count > 1 ? "per GPU " : "") + format_bytes(r.breakdown.total_bytes, request.units) + " of " +
         format_bytes(fit.capacity_bytes, request.units) + ")";
}

std::string spoken_summary(const Request& request, const Result<Report>& report) {
  std::string text = headline(request, report, "") + ".";
  if (report) {
    for (const std::string& warning : report->breakdown.warnings) text += " Warning: " + warning;
    for (const BreakdownItem& item : report->breakdown.items) {
      text += " " + item.label + ": " + format_bytes(item.bytes, request.units) + ".";
    }
  }
  return text;
}

std::string markdown(const Request& request, const Result<Report>& report) {
  if (!report) return headline(request, report, "") + "\n";
  const Report& r = *report;
  std::string md = headline(request, report, "**") + "\n\n";
  md += "| item | memory | formula |\n| --- | ---: | --- |\n";
  for (const BreakdownItem& item : r.breakdown.items) {
    md += "| " + item.label + " | " + format_bytes(item.bytes, request.units) + " | " + item.formula + " |\n";
  }
  md += "| **total** | **" + format_bytes(r.breakdown.total_bytes, request.units) + "** | " +
        with_thousands(r.breakdown.total_bytes) + " B |\n";
  return md;
}

std::string embed_snippet(const std::string& embed_url) {
  // clipboard-write: the embed's Copy buttons work on another origin only with it.
  return "<iframe src=\"" + embed_url +
         "\" width=\"760\" height=\"460\" style=\"border:0\" title=\"vramfit\" loading=\"lazy\" allow=\"clipboard-write\"></iframe>";
}

}  // namespace vramfit
