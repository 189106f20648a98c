#include "device_limit.hpp"

#include "core/units.hpp"
#include "engines.hpp"
#include "estimate.hpp"

namespace vramfit {

bool is_unified_memory(const Gpu& gpu) { return gpu.segment == "unified"; }

std::string unified_memory_note(const Gpu& gpu) {
  if (!is_unified_memory(gpu)) return {};
  // In GiB whatever the report's units: the RAM as the maker sells it ("128 GB" is 128 GiB), the
  // limit as llama.cpp's "MiB free" counts it.
  const std::string usable = format_bytes(gpu.usable_bytes(), DisplayUnits::gib), ram = format_bytes(gpu.total_bytes, DisplayUnits::gib);
  // The rule of each vendor's entries (data/gpus.json "about"; the Apple share checked against
  // llama.cpp's printed recommendedMaxWorkingSetSize in validation/devices/metal_working_set.json).
  if (gpu.vendor == "Apple") {
    return "The GPU may use " + usable + " of this Mac's " + ram +
           " of unified memory (Metal's recommendedMaxWorkingSetSize: 2/3 of RAM up to 32 GB, 3/4 above, as macOS 13-15 set "
           "it; macOS 26 sets more, llama.cpp prints it at start, and sudo sysctl iogpu.wired_limit_mb=N raises it). The CPU's "
           "share comes from the same memory.";
  }
  return "The GPU may use " + usable + " of the " + ram +
         " of unified memory (the largest Variable Graphics Memory setting). The CPU's share comes from the same memory.";
}

std::string unified_memory_note(const Report& report) {
  if (report.engine) {
    for (const Gpu& device : report.engine->devices) {
      if (is_unified_memory(device)) return unified_memory_note(device);
    }
  }
  return unified_memory_note(report.gpu);
}

}  // namespace vramfit
