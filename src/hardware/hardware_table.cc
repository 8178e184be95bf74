// The hardware table's loader (memfit/hardware.h): data/hardware/*.tsv as
// the build embedded them, parsed once. The format is base/tsv_table.h's.
#include <fmt/format.h>

#include <optional>

#include "base/split_fields.h"
#include "base/tsv_table.h"
#include "hardware/embedded_tables.h"
#include "host/unified_memory.h"
#include "memfit/hardware.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

std::optional<HardwareVendor> parse_vendor(std::string_view text) {
  if (text == "nvidia") return HardwareVendor::kNvidia;
  if (text == "amd") return HardwareVendor::kAmd;
  if (text == "intel") return HardwareVendor::kIntel;
  return std::nullopt;
}

bool is_derived(std::string_view basis) { return basis.starts_with("derived: "); }

Result<GpuSpec> read_gpu(const TsvTable& tsv, size_t row) {
  TsvRowReader r(tsv, row);
  GpuSpec g;
  g.id = std::string(r.text("id"));
  if (std::optional<HardwareVendor> vendor = parse_vendor(r.text("vendor"))) {
    g.vendor = *vendor;
  } else {
    r.bad("vendor", r.text("vendor"), "nvidia, amd or intel");
  }
  g.name = std::string(r.text("name"));
  for (std::string_view alias : split_fields(r.text("aliases"), ',')) {
    if (!alias.empty()) g.aliases.emplace_back(alias);
  }
  g.memory_mib = r.whole("memory_mib");
  g.memory_basis = std::string(r.text("memory_basis"));
  // A figure and its basis go together: printed or derived, or none.
  const bool none = g.memory_basis.starts_with("none: ");
  if (!(g.memory_basis == "printed" || is_derived(g.memory_basis) || none) ||
      (g.memory_mib == 0) != none) {
    r.bad("memory_basis", g.memory_basis, "printed or derived with a figure, or none without");
  }
  g.memory_source = std::string(r.text("memory_source"));
  g.memory_marketing = std::string(r.text("memory_marketing"));
  g.bandwidth_gb_s = r.number("bandwidth_gb_s");
  g.fp16_dense_tflops = r.number("fp16_dense_tflops");
  g.int8_dense_tops = r.number("int8_dense_tops");
  g.fp8_dense_tflops = r.number("fp8_dense_tflops");
  // Optional columns (a table written before them reads 0: unknown).
  if (tsv.columns.contains("fp16_vector_tflops")) {
    g.fp16_vector_tflops = r.number("fp16_vector_tflops");
    g.vector_source = std::string(r.text("vector_source"));
    if (g.fp16_vector_tflops > 0 && g.vector_source.empty()) {
      r.bad("vector_source", g.vector_source, "a source for fp16_vector_tflops");
    }
  }
  g.arch = std::string(r.text("arch"));
  g.spec_source = std::string(r.text("spec_source"));
  g.notes = std::string(r.text("notes"));
  if (g.id.empty() || g.name.empty()) r.bad("id", g.id, "an id with a name");
  if (r.error()) return *r.error();
  return g;
}

Result<MacSpec> read_mac(const TsvTable& tsv, size_t row) {
  TsvRowReader r(tsv, row);
  MacSpec m;
  m.id = std::string(r.text("id"));
  m.chip = std::string(r.text("chip"));
  m.tier = std::string(r.text("tier"));
  m.gpu_cores = r.whole("gpu_cores");
  m.unified_memory_gb = r.whole("unified_memory_gb");
  m.bandwidth_gb_s = r.number("bandwidth_gb_s");
  m.fp16_tflops = r.number("fp16_tflops");
  // Optional columns (a table written before them reads 0: the spec).
  if (tsv.columns.contains("gpu_read_bandwidth_gb_s")) {
    m.gpu_read_bandwidth_gb_s = r.number("gpu_read_bandwidth_gb_s");
    m.gpu_read_bandwidth_source = std::string(r.text("gpu_read_bandwidth_source"));
  }
  // A measured figure comes with its source and is below the spec (it is
  // what the chip reaches of it): docs/hardware.md.
  if (m.gpu_read_bandwidth_gb_s > 0 &&
      (m.gpu_read_bandwidth_source.empty() || m.gpu_read_bandwidth_gb_s > m.bandwidth_gb_s)) {
    r.bad("gpu_read_bandwidth_gb_s", r.text("gpu_read_bandwidth_gb_s"),
          "a figure at most bandwidth_gb_s with its gpu_read_bandwidth_source");
  }
  const std::string_view macos = r.text("macos");
  if (macos != "26" && macos != "before 26") r.bad("macos", macos, "26 or before 26");
  m.macos_26 = macos == "26";
  m.wired_limit_basis = std::string(r.text("wired_limit_basis"));
  // Printed: as printed, decimal MB (10^6 bytes) to at most 6 decimals,
  // so its millionths of a MB are bytes. Derived: the rule.
  const uint64_t printed_bytes = r.millionths("wired_limit_mb");
  if (m.wired_limit_basis == "printed" && printed_bytes != 0) {
    m.wired_limit_bytes = printed_bytes;
  } else if (is_derived(m.wired_limit_basis) && printed_bytes == 0) {
    m.wired_limit_bytes = mac_default_wired_limit_bytes(m.ram_bytes(), m.macos_26);
  } else {
    r.bad("wired_limit_basis", m.wired_limit_basis, "printed with a figure or derived without");
  }
  m.wired_limit_source = std::string(r.text("wired_limit_source"));
  m.spec_source = std::string(r.text("spec_source"));
  m.notes = std::string(r.text("notes"));
  if (m.id.empty() || m.chip.empty() || m.unified_memory_gb == 0) {
    r.bad("id", m.id, "an id with a chip and its memory");
  }
  if (r.error()) return *r.error();
  return m;
}

// Every id once, across both tables (a --gpu id is never a --mac one).
Status check_ids(const HardwareTable& table) {
  std::map<std::string, int, std::less<>> seen;
  for (const GpuSpec& g : table.gpus) ++seen[g.id];
  for (const MacSpec& m : table.macs) ++seen[m.id];
  for (const auto& [id, count] : seen) {
    if (count > 1) return Error(fmt::format("hardware table: id {} is used {} times", id, count));
  }
  return Status::Ok();
}

}  // namespace

std::string_view to_string(HardwareVendor vendor) {
  switch (vendor) {
    case HardwareVendor::kNvidia:
      return "nvidia";
    case HardwareVendor::kAmd:
      return "amd";
    case HardwareVendor::kIntel:
      return "intel";
  }
  return "nvidia";
}

std::string MacSpec::title() const { return fmt::format("{} {}GB", chip, unified_memory_gb); }

uint64_t mac_default_wired_limit_bytes(uint64_t ram_bytes, bool macos_26) {
  // Each fraction n/d as ram / d * n + ram % d * n / d: exact, no overflow.
  auto fraction = [ram_bytes](uint64_t n, uint64_t d) {
    return ram_bytes / d * n + ram_bytes % d * n / d;
  };
  if (macos_26) return fraction(78, 100);
  return ram_bytes <= 32 * kGiB ? fraction(2, 3) : fraction(3, 4);
}

uint64_t mac_reserve_bytes(uint64_t ram_bytes) {
  return host::unified_memory_reserve_bytes(ram_bytes);
}

Result<HardwareTable> parse_hardware_tables(std::string_view gpus_tsv, std::string_view apple_tsv) {
  Result<TsvTable> gpus = read_tsv("data/hardware/gpus.tsv", gpus_tsv);
  if (!gpus) return gpus.error();
  Result<TsvTable> macs = read_tsv("data/hardware/apple.tsv", apple_tsv);
  if (!macs) return macs.error();
  HardwareTable table;
  for (size_t i = 0; i < gpus->rows.size(); ++i) {
    Result<GpuSpec> gpu = read_gpu(*gpus, i);
    if (!gpu) return gpu.error();
    table.gpus.push_back(std::move(*gpu));
  }
  for (size_t i = 0; i < macs->rows.size(); ++i) {
    Result<MacSpec> mac = read_mac(*macs, i);
    if (!mac) return mac.error();
    table.macs.push_back(std::move(*mac));
  }
  if (Status ids = check_ids(table); !ids) return ids.error();
  return table;
}

Result<const HardwareTable*> hardware_table() {
  static const Result<HardwareTable> table =
      parse_hardware_tables(hardware::embedded_gpus_tsv(), hardware::embedded_apple_tsv());
  if (!table)
    return Error("the embedded hardware table: " + table.error().message(), ErrorKind::kInternal);
  return &*table;
}

}  // namespace memfit
