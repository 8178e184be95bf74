// The hardware table as `memfit hardware` and GET /v1/hardware show it
// (memfit/hardware.h): every row with its figures and their sources.
#include <fmt/format.h>

#include "memfit/hardware.h"
#include "memfit/memory_size.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

Json number_or_null(double value) { return value > 0 ? Json(value) : Json(nullptr); }
Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

Json gpu_json(const GpuSpec& g) {
  const bool has_memory = g.memory_mib != 0;
  return {{"id", g.id},
          {"vendor", std::string(to_string(g.vendor))},
          {"name", g.name},
          {"aliases", g.aliases},
          {"memory_mib", has_memory ? Json(g.memory_mib) : Json(nullptr)},
          {"memory_bytes", has_memory ? Json(g.memory_bytes()) : Json(nullptr)},
          {"memory_basis", g.memory_basis},
          {"memory_source", text_or_null(g.memory_source)},
          {"memory_marketing", g.memory_marketing},
          {"bandwidth_gb_s", number_or_null(g.bandwidth_gb_s)},
          {"fp16_dense_tflops", number_or_null(g.fp16_dense_tflops)},
          {"int8_dense_tops", number_or_null(g.int8_dense_tops)},
          {"fp8_dense_tflops", number_or_null(g.fp8_dense_tflops)},
          {"fp16_vector_tflops", number_or_null(g.fp16_vector_tflops)},
          {"vector_source", text_or_null(g.vector_source)},
          {"arch", text_or_null(g.arch)},
          {"spec_source", text_or_null(g.spec_source)},
          {"notes", g.notes}};
}

Json mac_json(const MacSpec& m) {
  return {{"id", m.id},
          {"name", m.title()},
          {"chip", m.chip},
          {"tier", m.tier},
          {"gpu_cores", m.gpu_cores},
          {"unified_memory_gb", m.unified_memory_gb},
          {"ram_bytes", m.ram_bytes()},
          {"bandwidth_gb_s", number_or_null(m.bandwidth_gb_s)},
          {"fp16_tflops", number_or_null(m.fp16_tflops)},
          {"gpu_read_bandwidth_gb_s", number_or_null(m.gpu_read_bandwidth_gb_s)},
          {"gpu_read_bandwidth_source", text_or_null(m.gpu_read_bandwidth_source)},
          {"macos", m.macos_26 ? "26" : "before 26"},
          {"wired_limit_bytes", m.wired_limit_bytes},
          {"wired_limit_basis", m.wired_limit_basis},
          {"wired_limit_source", text_or_null(m.wired_limit_source)},
          {"reserve_bytes", mac_reserve_bytes(m.ram_bytes())},
          {"spec_source", text_or_null(m.spec_source)},
          {"notes", m.notes}};
}

// "printed" or "derived" (the rule is in --json and docs/hardware.md).
std::string_view basis_word(std::string_view basis) { return basis.substr(0, basis.find(':')); }

}  // namespace

nlohmann::ordered_json hardware_to_json(const HardwareTable& table) {
  Json gpus = Json::array();
  for (const GpuSpec& g : table.gpus) gpus.push_back(gpu_json(g));
  Json macs = Json::array();
  for (const MacSpec& m : table.macs) macs.push_back(mac_json(m));
  return {{"gpus", std::move(gpus)}, {"macs", std::move(macs)}};
}

std::string render_hardware_text(const HardwareTable& table) {
  std::string out = fmt::format(
      "GPUs ({}): --gpu ID, an alias or the name as the driver prints it\n", table.gpus.size());
  out += fmt::format("  {:<24} {:>10} {:<8} {}\n", "id", "MiB", "basis", "name");
  for (const GpuSpec& g : table.gpus) {
    out += fmt::format("  {:<24} {:>10} {:<8} {}\n", g.id,
                       g.memory_mib == 0 ? std::string("-") : std::to_string(g.memory_mib),
                       basis_word(g.memory_basis), g.name);
  }
  out += fmt::format("\nMacs ({}): --mac ID or \"CHIP NNGB\"; wired = Metal's default GPU limit\n",
                     table.macs.size());
  out += fmt::format("  {:<16} {:>6} {:>11} {:<8} {:>11} {}\n", "id", "RAM", "wired", "basis",
                     "reserve", "macOS");
  for (const MacSpec& m : table.macs) {
    out += fmt::format(
        "  {:<16} {:>6} {:>11} {:<8} {:>11} {}\n", m.id, fmt::format("{} GB", m.unified_memory_gb),
        format_bytes(m.wired_limit_bytes), basis_word(m.wired_limit_basis),
        format_bytes(mac_reserve_bytes(m.ram_bytes())), m.macos_26 ? "26" : "before 26");
  }
  out += "\nSources and rules: memfit hardware --json, docs/hardware.md\n";
  return out;
}

}  // namespace memfit
