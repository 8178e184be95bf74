// The machine a request prices (request.h: MachineRequest): this one as
// the host reads it, or GPUs or a Mac from the hardware table
// (hardware.h), with the platform its engines' rules follow
// (docs/hardware.md). Private to the library.
#ifndef MEMFIT_SRC_REQUEST_MACHINE_H_
#define MEMFIT_SRC_REQUEST_MACHINE_H_

#include <optional>
#include <string_view>
#include <vector>

#include "memfit/mlxcel.h"
#include "memfit/hardware.h"
#include "memfit/host_memory.h"
#include "memfit/request.h"
#include "memfit/warning.h"

namespace memfit::request {

// The rows a request's names find; both empty when it describes none.
struct DescribedMachine {
  std::vector<const GpuSpec*> gpus;  // NVIDIA's first, then AMD's, each in the order given
  const MacSpec* mac = nullptr;
};

// Looks the request's names up in the hardware table, before anything is
// opened. kUsage naming the field: a name the table does not know (with
// the nearest), --gpu with --mac, an Intel GPU (no engine prices one).
Result<DescribedMachine> describe_machine(const MachineRequest& request);

// The platform `machine` runs: a Mac is macOS with Metal and its GPU
// cores; GPUs take their vendor's backend (CUDA, ROCm); none leaves
// `platform` as it is. The request's own backend field is applied after.
void apply_machine_platform(const DescribedMachine& machine, Platform& platform);

// The host a request prices:
//   none   context.host_memory(device, memory_limit); a limit given by the
//          request describes the budget, not this host (described_by
//          "memory_limit")
//   --gpu  this host's RAM (context.host_ram: the host side of a split),
//          the GPUs from the table (free = total), the budget chosen as
//          the host chooses it (compose_host_status); described_by "gpu"
//   --mac  nothing of this host: the Mac's RAM, reserve and default wired
//          limit (the budget, unified_memory), or the request's limit held
//          to RAM - reserve with a kRequest warning; described_by "mac"
// kUsage naming device: a --device the described machine has not.
Result<HostMemoryStatus> host_for_request(const EstimateRequest& request,
                                          const DescribedMachine& machine, RequestContext& context,
                                          std::vector<Warning>& warnings);

// The request field host_bandwidth_gb_s (machine_fields.cc): the host
// CPU's memory read bandwidth, GB/s. Its row keeps the text it accepted in
// EstimateRequest::engine_fields under this name (the request struct is
// the public API's; the field is read here only).
inline constexpr std::string_view kHostBandwidthField = "host_bandwidth_gb_s";
// Its value, parsed again (a C++ caller may fill engine_fields itself);
// nullopt when not given; kUsage naming the field when it does not parse
// or is outside (0, 10000].
Result<std::optional<double>> host_bandwidth_gb_s(const EstimateRequest& request);

// The devices' throughput for the speed estimate: a described Mac's
// unified memory, else each of `host`'s GPUs as the hardware table knows
// it by name (0: unknown), and the host CPU at `host_bandwidth_gb_s` (the
// request's host_bandwidth_gb_s; nullopt: unknown, 0). The host's FP16
// peak is unknown: no table lists CPUs (docs/speed.md).
SpeedMachine speed_machine(const DescribedMachine& machine, const HostMemoryStatus& host,
                           std::optional<double> host_bandwidth_gb_s);

}  // namespace memfit::request

#endif  // MEMFIT_SRC_REQUEST_MACHINE_H_
