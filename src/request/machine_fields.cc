// The request fields that describe the machine priced (request.h:
// MachineRequest; docs/hardware.md): --gpu and --mac, read by every engine,
// and the host CPU's bandwidth for the speed estimate (docs/speed.md).
// Each row keeps the names as given; prepare() looks them up in the
// hardware table (request/machine.cc), so a name the table does not know
// fails there, naming the field, before the model is opened.
#include "memfit/request.h"
#include "request/field_table.h"
#include "request/field_text.h"
#include "request/machine.h"

namespace memfit::request {
namespace {

using R = EstimateRequest;
using Text = std::string_view;

// The fastest host memory of any CPU is a few hundred GB/s (12 channels
// of DDR5: 460 GB/s); past 10,000 the figure is a typo, not a machine.
constexpr double kMaxHostBandwidthGbS = 10'000;

Result<double> parse_host_bandwidth(Text text) { return parse_ratio(text, 0, kMaxHostBandwidthGbS); }

constexpr RequestField kMachineFields[] = {
    {.name = "gpu",
     .flags = "--gpu",
     .help = "a GPU of the machine priced, one per device, from memfit hardware: an id, an alias "
             "(rtx4090, h100-80gb, mi300x) or the name as nvidia-smi / rocm-smi prints it",
     .type = FieldType::kList,
     .apply = [](R& r, Text t) {
       r.machine.gpu.emplace_back(t);
       return Status::Ok();
     },
     .given = [](const R& r) { return !r.machine.gpu.empty(); },
     .example = "h100-80gb",
     .doc = "the machine's GPUs, one name per device (repeat the flag; JSON: a string or an array): "
            "each device's total memory as its driver reports it, its name and its vendor, from "
            "the hardware table (docs/hardware.md), for every engine; this host's GPUs are not "
            "read. Names match ignoring case, spaces and dashes; an unknown one is refused with "
            "the nearest"},
    {.name = "mac",
     .flags = "--mac",
     .help = "the Mac priced, from memfit hardware: its id (m4-max-128gb) or chip and memory "
             "(\"M3 Pro 18GB\")",
     .type = FieldType::kText,
     .apply = [](R& r, Text t) {
       r.machine.mac = std::string(t);
       return Status::Ok();
     },
     .given = [](const R& r) { return r.machine.mac.has_value(); },
     .example = "M3 Pro 18GB",
     .doc = "an Apple silicon Mac from the hardware table (docs/hardware.md): its unified memory, "
            "macOS's reserve and Metal's default GPU wired limit (the budget), its GPU cores; "
            "nothing of this host is read. With `memory_limit` (a raised wired limit) the budget "
            "is held to RAM minus the reserve"},
    {.name = kHostBandwidthField,
     .flags = "--host-bandwidth",
     .help = "the host CPU's memory read bandwidth in GB/s, for the speed of the layers and "
             "experts left on the CPU (memfit hardware --measure prints this host's)",
     .unit = "GB/s",
     .type = FieldType::kRatio,
     .apply = [](R& r, Text t) {
       Result<double> value = parse_host_bandwidth(t);
       if (!value) return Status(value.error());
       r.engine_fields.insert_or_assign(std::string(kHostBandwidthField), std::string(t));
       return Status::Ok();
     },
     .given = [](const R& r) { return r.engine_fields.contains(kHostBandwidthField); },
     .json_expects = "a number of GB/s in (0, 10000]",
     .example = "60",
     .doc = "the host CPU's memory read bandwidth, 10^9 bytes a second: the layers, experts "
            "(`--n-cpu-moe`) and KV cache left on the CPU are read at it with every decoded token "
            "(docs/speed.md, \"The host CPU\"). Default: unknown, and a plan holding bytes on the "
            "CPU has no decode figure; `memfit hardware --measure` measures this host's. Refused "
            "with `mac` (a Mac's CPU reads the unified memory at the table's bandwidth) and by the "
            "engines that hold nothing on the CPU (vllm, sglang)"},
};

}  // namespace

std::span<const RequestField> machine_fields() { return kMachineFields; }

Result<std::optional<double>> host_bandwidth_gb_s(const EstimateRequest& request) {
  const auto it = request.engine_fields.find(kHostBandwidthField);
  if (it == request.engine_fields.end()) return std::optional<double>();
  Result<double> value = parse_host_bandwidth(it->second);
  if (!value) return Error::usage(kHostBandwidthField, value.error().message());
  return std::optional<double>(*value);
}

}  // namespace memfit::request
