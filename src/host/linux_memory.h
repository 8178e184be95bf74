// Linux RAM figures from /proc/meminfo and the process's cgroup.
//
// These functions read through HostFiles and compile on every OS, so the
// tests that drive them with fake trees run everywhere.
#ifndef MEMFIT_SRC_HOST_LINUX_MEMORY_H_
#define MEMFIT_SRC_HOST_LINUX_MEMORY_H_

#include <string_view>

#include "host/host_files.h"
#include "host/host_os.h"
#include "memfit/process_gauges.h"

namespace memfit::host {

// RAM total and available from /proc/meminfo (MemAvailable; MemTotal with
// a warning when the kernel predates MemAvailable), clamped by the cgroup
// headroom (host/cgroup.h):
//   ram_budget = min(MemAvailable, limit - (usage - inactive_file))
// with source "cgroup" when the cgroup is strictly tighter. The reserve is
// 0: MemAvailable already leaves out the kernel's own watermarks and the
// page cache it cannot reclaim (docs/host.md).
RamReading read_linux_ram(HostFiles& files);

// /proc/meminfo Mlocked: every page locked by mlock() on the machine.
Result<uint64_t> read_linux_locked_bytes(HostFiles& files);

// The gauges of /proc/self/status: VmRSS, VmSwap, VmLck ("N kB" each). A
// missing or malformed line leaves its gauge nullopt.
ProcessGauges parse_proc_status_gauges(std::string_view status_text);

}  // namespace memfit::host

#endif  // MEMFIT_SRC_HOST_LINUX_MEMORY_H_
