// The Linux OS layer: everything is a file under the sysroot.
#include "host/host_files.h"
#include "host/host_os.h"
#include "host/linux_memory.h"
#include "memfit/process_gauges.h"

namespace memfit::host {

RamReading read_os_ram(const HostQueryOptions& options) {
  SysrootFiles files(options.sysroot);
  return read_linux_ram(files);
}

Result<uint64_t> read_os_wired_bytes(const std::string& sysroot) {
  SysrootFiles files(sysroot);
  return read_linux_locked_bytes(files);
}

std::vector<std::string> default_nvml_library_names() {
  return {"libnvidia-ml.so.1", "libnvidia-ml.so"};
}

std::vector<std::string> default_rocm_smi_library_names() {
  // The unversioned name comes with the -dev package only; ROCm installs
  // under /opt/rocm and does not always register it with ld.so.
  return {"librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5",
          "/opt/rocm/lib/librocm_smi64.so"};
}

}  // namespace memfit::host

namespace memfit {

ProcessGauges read_process_gauges(const std::string& sysroot) {
  host::SysrootFiles files(sysroot);
  Result<std::optional<std::string>> status = files.read("/proc/self/status");
  if (!status.ok() || !status.value()) return {};
  return host::parse_proc_status_gauges(**status);
}

}  // namespace memfit
