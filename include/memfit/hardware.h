// The hardware table: GPUs and Apple silicon Macs by name, with the memory
// their drivers report and where each figure comes from (docs/hardware.md).
// `--gpu NAME` and `--mac NAME` describe a machine from it; `memfit
// hardware` lists it.
//
// The rows are data/hardware/gpus.tsv and data/hardware/apple.tsv, embedded
// into the library at build time (cmake/embed_text_files.cmake), so an
// installed binary needs no file. Each row keeps its sources; a figure no
// driver was seen to print is derived by a rule the row states.
#ifndef MEMFIT_HARDWARE_H_
#define MEMFIT_HARDWARE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class HardwareVendor { kNvidia, kAmd, kIntel };
std::string_view to_string(HardwareVendor vendor);  // "nvidia", "amd", "intel"

// One GPU: one device as its driver lists it (an MI250X is two).
struct GpuSpec {
  std::string id;       // "h100-80gb-sxm": unique, lower case
  HardwareVendor vendor = HardwareVendor::kNvidia;
  std::string name;     // as nvidia-smi / rocm-smi prints it: "NVIDIA H100 80GB HBM3"
  std::vector<std::string> aliases;  // "h100", "h100-80gb", ...
  // The driver's total (nvidia-smi memory.total, rocm-smi VRAM total), MiB;
  // 0 when the row has none (an iGPU whose memory the BIOS sets).
  uint64_t memory_mib = 0;
  std::string memory_basis;      // "printed", "derived: <rule>" or "none: <why>"
  std::string memory_source;     // URL(s) of the printed figure(s)
  std::string memory_marketing;  // "80 GB"
  // Speed figures for the speed estimate; 0 when unknown. Dense, per device.
  double bandwidth_gb_s = 0;     // GB/s, 10^9 bytes per second
  double fp16_dense_tflops = 0;  // FP16/BF16 tensor, FP32 accumulate
  double int8_dense_tops = 0;
  double fp8_dense_tflops = 0;
  // FP16 on the shader ALUs, no matrix units (packed where the ALUs pack
  // two); what llama.cpp's Vulkan prompt products run at on a driver that
  // exposes no cooperative matrices (docs/speed.md, "Vulkan"). 0 unknown.
  double fp16_vector_tflops = 0;
  std::string vector_source;     // URL, or "derived: <rule> <URL>"
  std::string arch;              // CUDA compute capability "9.0", or "gfx942"; "" unknown
  std::string spec_source;       // URL of the speed figures
  std::string notes;

  // memory_mib x 2^20: 81559 MiB is 85,520,809,984 bytes.
  uint64_t memory_bytes() const { return memory_mib << 20; }
};

// One Apple silicon configuration: a chip with one memory size.
struct MacSpec {
  std::string id;        // "m3-pro-18gb"
  std::string chip;      // "M3 Pro"
  std::string tier;      // "base", "pro", "max", "ultra"
  uint64_t gpu_cores = 0;
  uint64_t unified_memory_gb = 0;  // Apple's "GB" is GiB: 18 GB is 18 x 2^30 bytes
  double bandwidth_gb_s = 0;       // 0 when unknown
  double fp16_tflops = 0;
  // The GPU's attainable read bandwidth where a public measurement shows it
  // short of the spec (GB/s; 0: none known, the spec holds), and that
  // measurement's source. The speed bound reads decode_bandwidth_gb_s()
  // (docs/speed.md, "Attainable bandwidth").
  double gpu_read_bandwidth_gb_s = 0;
  std::string gpu_read_bandwidth_source;
  bool macos_26 = false;           // the wired limit below is macOS 26's, else an older macOS's
  // Metal's default recommendedMaxWorkingSetSize (the GPU wired limit),
  // bytes: the printed value when the basis is "printed" (decimal MB as
  // printed, x 10^6), else the rule of docs/hardware.md ("Macs").
  uint64_t wired_limit_bytes = 0;
  std::string wired_limit_basis;   // "printed" or "derived: <rule>"
  std::string wired_limit_source;
  std::string spec_source;
  std::string notes;

  uint64_t ram_bytes() const { return unified_memory_gb << 30; }
  // The bandwidth a token's bytes are read at: the measured figure where
  // the table has one, else the spec.
  double decode_bandwidth_gb_s() const {
    return gpu_read_bandwidth_gb_s > 0 ? gpu_read_bandwidth_gb_s : bandwidth_gb_s;
  }
  // "M3 Pro 18GB": how the name reads.
  std::string title() const;
};

struct HardwareTable {
  std::vector<GpuSpec> gpus;  // in the file's order
  std::vector<MacSpec> macs;
};

// Parses the two tables' texts (tab-separated, a header line naming the
// columns, one row a line; docs/hardware.md lists the columns). kInput
// naming the file, the line and the column on a missing column, a number
// that does not parse, a repeated id or an unknown vendor or basis.
Result<HardwareTable> parse_hardware_tables(std::string_view gpus_tsv, std::string_view apple_tsv);

// The embedded table, parsed once (thread-safe); kInternal when the
// embedded text does not parse (a test keeps that from shipping).
Result<const HardwareTable*> hardware_table();

// A name as matched: lower case, without spaces, '-', '_' and '(tm)' /
// '(r)' marks: "NVIDIA H100 80GB HBM3" is "nvidiah10080gbhbm3".
std::string hardware_key(std::string_view name);

// The GPU a name means: an id, an alias or the printed name, matched on
// hardware_key, with or without the vendor's prefix ("NVIDIA ", "AMD ",
// "Intel "). kUsage naming no field when none matches ("'rtx 4090 ti': no
// such GPU; nearest: rtx4090, rtx3090ti, rtx4080 (memfit hardware lists
// them)"), when a printed name is several rows' ("... is the printed name
// of rtx3080-10gb and rtx3080-12gb: give one of them") or when the row
// has no memory figure.
Result<const GpuSpec*> find_gpu(const HardwareTable& table, std::string_view name);
// The Mac a name means: its id ("m4-max-128gb") or chip and memory ("M3
// Pro 18GB", "Apple M3 Pro 18 GB"). kUsage as find_gpu; a chip without its
// memory lists the chip's sizes.
Result<const MacSpec*> find_mac(const HardwareTable& table, std::string_view name);

// macOS's default GPU wired limit (recommendedMaxWorkingSetSize) for
// `ram_bytes`: before macOS 26 2/3 of RAM up to 32 GiB and 3/4 above;
// macOS 26 0.78 of RAM. Rounded down to a byte.
uint64_t mac_default_wired_limit_bytes(uint64_t ram_bytes, bool macos_26);
// What memfit leaves macOS (docs/host.md): max(7 GiB, 15% of RAM), the 15%
// rounded up.
uint64_t mac_reserve_bytes(uint64_t ram_bytes);

// `memfit hardware --json` and GET /v1/hardware: {"gpus": [{"id", "vendor", "name",
// "aliases", "memory_mib", "memory_bytes", "memory_basis", "memory_source",
// "memory_marketing", "bandwidth_gb_s", "fp16_dense_tflops", "int8_dense_tops",
// "fp8_dense_tflops", "fp16_vector_tflops", "vector_source", "arch",
// "spec_source", "notes"}], "macs": [{"id", "name", "chip", "tier",
// "gpu_cores", "unified_memory_gb", "ram_bytes", "bandwidth_gb_s",
// "fp16_tflops", "gpu_read_bandwidth_gb_s", "gpu_read_bandwidth_source",
// "macos", "wired_limit_bytes", "wired_limit_basis",
// "wired_limit_source", "reserve_bytes", "spec_source", "notes"}]}; an
// unknown figure is null.
nlohmann::ordered_json hardware_to_json(const HardwareTable& table);
// `memfit hardware`: one line a row, the id, the memory and its basis.
std::string render_hardware_text(const HardwareTable& table);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_HARDWARE_H_
