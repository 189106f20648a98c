// Devices whose GPU shares the computer's memory (issue 36): the share each catalog entry takes
// is held to public logs (validation/devices/metal_working_set.json), and every verdict on such a
// device names its limit: the JSON, the CLI under each engine's verdict, and the app (which draws
// the same note beside its warnings: tests/e2e).
#include <cstdio>
#include <sstream>

#include "cli/cli.hpp"
#include "helpers.hpp"
#include "report/device_limit.hpp"
#include "report/engines.hpp"

using namespace vramfit;
using namespace vramfit::test;

namespace {

json metal_logs() { return validation_data("devices/metal_working_set.json"); }

// The figure a log line prints ("= 73728,00 MB", "107.52 GiB"), as the digits after the last '='
// or ':' with a comma read as the decimal mark.
std::string printed_figure(std::string line) {
  const size_t at = line.find_last_of("=:");
  std::string figure;
  for (size_t i = at + 1; i < line.size(); ++i) {
    const char c = line[i];
    if ((c >= '0' && c <= '9') || c == '.' || c == ',') figure += c == ',' ? '.' : c;
    else if (!figure.empty()) break;
  }
  return figure;
}

// vramfit's usable bytes in the log's unit, printed as llama.cpp prints it (%.2f).
std::string vramfit_figure(const Gpu& gpu, double divisor) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", static_cast<double>(gpu.usable_bytes()) / divisor);
  return text;
}

}  // namespace

TEST_CASE("a Mac's usable memory is Metal's recommendedMaxWorkingSetSize as llama.cpp printed it", "[catalog][devices]") {
  const json logs = metal_logs();
  REQUIRE(logs.at("points").size() >= 4);
  for (const json& point : logs.at("points")) {
    INFO(point.at("id").get<std::string>() << ": " << point.at("log").get<std::string>());
    const Gpu* mac = builtin_catalog().find_gpu(point.at("catalog").get<std::string>());
    REQUIRE(mac);
    CHECK(vramfit_figure(*mac, point.at("printed_divisor").get<double>()) == printed_figure(point.at("log")));
  }
  // A listed miss still misses, and on the low side: vramfit never promises more than macOS gives.
  for (const json& miss : logs.at("misses")) {
    INFO(miss.at("id").get<std::string>() << ": " << miss.at("why").get<std::string>());
    const Gpu* mac = builtin_catalog().find_gpu(miss.at("catalog").get<std::string>());
    REQUIRE(mac);
    const double printed = std::stod(printed_figure(miss.at("log")));
    const double ours = static_cast<double>(mac->usable_bytes()) / miss.at("printed_divisor").get<double>();
    CHECK(ours < printed * 0.99);
  }
}

TEST_CASE("every Mac in the catalog takes the share the logs give for its RAM", "[catalog][devices]") {
  // data/gpus.json's rule, which the points above check at 16, 32 and 96 GB: 2/3 of RAM up to
  // 32 GB, 3/4 above; the RAM as Apple sells it (GB meaning GiB).
  int macs = 0;
  for (const Gpu& g : builtin_catalog().gpus) {
    if (g.vendor != "Apple") continue;
    ++macs;
    INFO(g.id);
    CHECK(is_unified_memory(g));
    CHECK(g.total_bytes % kGiB == 0);
    const int64_t share = g.total_bytes <= 32 * kGiB ? g.total_bytes / 3 * 2 : g.total_bytes / 4 * 3;
    CHECK(g.usable_bytes() >= share);
    CHECK(g.usable_bytes() - share < 16384);  // whole 16 KiB pages
  }
  CHECK(macs >= 20);  // M1 to M5, the Pro, Max and Ultra chips
}

TEST_CASE("a unified-memory device's verdict names its limit; a discrete GPU's says nothing of it", "[devices][cli]") {
  const Report mac = estimate_ok({{"model", {{"preset", "llama-3.1-70b"}}}, {"weights", {{"format", "gguf-q4_k_m"}}},
                                  {"gpu", {{"id", "apple-m4-max-128"}}}});
  const json fit = report_to_json(mac).at("fit");
  REQUIRE(fit.at("gpu").contains("unified_memory"));
  const std::string note = fit.at("gpu").at("unified_memory");
  CHECK(note.find("96.00 GiB of this Mac's 128.00 GiB") != std::string::npos);
  CHECK(note.find("recommendedMaxWorkingSetSize") != std::string::npos);
  CHECK(note.find("iogpu.wired_limit_mb") != std::string::npos);
  const Report strix = estimate_ok({{"model", {{"preset", "llama-3.1-70b"}}}, {"weights", {{"format", "gguf-q4_k_m"}}},
                                    {"gpu", {{"id", "ryzen-ai-max-395-128"}}}});
  CHECK(unified_memory_note(strix).find("96.00 GiB of the 128.00 GiB of unified memory (the largest Variable Graphics Memory") !=
        std::string::npos);
  const Report discrete = estimate_ok({{"model", {{"preset", "llama-3.1-8b"}}}, {"gpu", {{"id", "rx-7900-xtx"}}}});
  CHECK_FALSE(report_to_json(discrete).at("fit").at("gpu").contains("unified_memory"));

  // The CLI says it under the verdict, for vramfit's own answer and for an engine's.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"infer", "--model", "llama-3.1-8b", "--weights", "gguf-q4_k_m", "--gpu", "apple-m1-16"},
        std::vector<std::string>{"infer", "--model", "llama-3.1-8b", "--weights", "gguf-q4_k_m", "--gpu", "apple-m1-16",
                                 "--engine", "llama.cpp", "-c", "8192"}}) {
    std::ostringstream out, err;
    INFO(args.back());
    CHECK(run_cli(args, out, err) == 0);
    const std::string text = out.str();
    const size_t verdict = text.find("on 1 ");
    const size_t limit = text.find("The GPU may use 10.67 GiB of this Mac's 16.00 GiB");
    CHECK(verdict != std::string::npos);
    CHECK(limit != std::string::npos);
    CHECK(limit > verdict);
  }
}

TEST_CASE("llama.cpp's buffers are named by each GPU's backend: Metal on a Mac, ROCm on AMD, CUDA on NVIDIA", "[devices][llamacpp]") {
  auto lines_of = [](const json& gpus) {
    const Report r = estimate_ok({{"model", {{"preset", "llama-3.1-8b"}}}, {"weights", {{"format", "gguf-q4_k_m"}}},
                                  {"engine", "llama.cpp"}, {"gpus", gpus}, {"llama.cpp", {{"ctx-size", 8192}}}});
    REQUIRE(r.engine);
    std::string all;
    for (const std::string& line : llamacpp_log_lines(r.engine->llamacpp)) all += line + "\n";
    return all;
  };
  // ggml-metal-device.m names the device "MTL%d"; Metal maps the model file and has no pinned host
  // buffer, so the output and the host's compute buffer are the CPU's.
  const std::string mac = lines_of({"apple-m4-max-128"});
  INFO(mac);
  CHECK(mac.find("load_tensors: MTL0_Mapped model buffer size = ") != std::string::npos);
  CHECK(mac.find("llama_kv_cache: MTL0 KV buffer size = ") != std::string::npos);
  CHECK(mac.find("llama_context: CPU output buffer size = ") != std::string::npos);
  CHECK(mac.find("llama_context: MTL0 compute buffer size = ") != std::string::npos);
  CHECK(mac.find("CUDA") == std::string::npos);
  // ggml-cuda built for HIP names its devices ROCm0, ROCm1 and pins "ROCm_Host"; each backend
  // numbers its own devices, and the host buffer is the first GPU's backend's.
  const std::string mixed = lines_of({"rx-7900-xtx", "rtx-3090", "rx-7900-xtx"});
  INFO(mixed);
  CHECK(mixed.find("load_tensors: ROCm0 model buffer size = ") != std::string::npos);
  CHECK(mixed.find("load_tensors: CUDA0 model buffer size = ") != std::string::npos);
  CHECK(mixed.find("load_tensors: ROCm1 model buffer size = ") != std::string::npos);
  CHECK(mixed.find("llama_context: ROCm_Host output buffer size = ") != std::string::npos);
  CHECK(mixed.find("Mapped model buffer size") == mixed.find("CPU_Mapped model buffer size") + 4);
}
