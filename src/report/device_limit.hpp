// What a unified-memory device's GPU may use, said with every verdict on it (issue 36): the
// limit, the RAM it is a share of, the rule that sets it, and that the CPU's share comes from the
// same memory. Devices with memory of their own have no note.
#pragma once
#include <string>

#include "core/fit.hpp"

namespace vramfit {

struct Report;

bool is_unified_memory(const Gpu& gpu);
// "" for a device with memory of its own.
std::string unified_memory_note(const Gpu& gpu);
// The report's device (an engine's first unified device, else the chosen GPU).
std::string unified_memory_note(const Report& report);

}  // namespace vramfit
