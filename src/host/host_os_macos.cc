// The macOS OS layer: RAM from sysctl and host_statistics64, the GPU's share
// from Metal (dlopen'ed), process gauges from task_info.
#include <dlfcn.h>
#include <mach/mach.h>
#include <mach/mach_host.h>
#include <mach/vm_page_size.h>
#include <sys/sysctl.h>

#include <cstdint>
#include <cstring>
#include <optional>

#include "host/host_os.h"
#include "host/unified_memory.h"
#include "memfit/process_gauges.h"

namespace memfit::host {
namespace {

// A numeric sysctl of 4 or 8 bytes; nullopt when absent.
std::optional<uint64_t> sysctl_number(const char* name) {
  unsigned char buffer[8] = {};
  size_t size = sizeof buffer;
  if (::sysctlbyname(name, buffer, &size, nullptr, 0) != 0) return std::nullopt;
  if (size == sizeof(uint64_t)) {
    uint64_t value = 0;
    std::memcpy(&value, buffer, sizeof value);
    return value;
  }
  if (size == sizeof(uint32_t)) {
    uint32_t value = 0;
    std::memcpy(&value, buffer, sizeof value);
    return value;
  }
  return std::nullopt;
}

std::optional<vm_statistics64_data_t> vm_statistics() {
  vm_statistics64_data_t vm{};
  mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
  const mach_port_t host = ::mach_host_self();
  const kern_return_t result =
      ::host_statistics64(host, HOST_VM_INFO64, reinterpret_cast<host_info64_t>(&vm), &count);
  ::mach_port_deallocate(::mach_task_self(), host);
  if (result != KERN_SUCCESS) return std::nullopt;
  return vm;
}

// Metal is reached through the Objective-C runtime found with dlopen, so
// memfit links no framework and needs no Objective-C compiler:
//   device = MTLCreateSystemDefaultDevice();           // +1 reference
//   bytes  = [device recommendedMaxWorkingSetSize];    // objc_msgSend -> uint64_t
//   [device release];
// The working set does not change while the machine runs, so it is read
// once per process; 0 when there is no Metal device.
uint64_t metal_recommended_working_set_bytes() {
  static const uint64_t bytes = [] {
    // MTLCreateSystemDefaultDevice gives no device to a process without
    // Core Graphics (Apple's documentation of the function: command line
    // tools must link it), so it is loaded first; if it is missing, Metal
    // is still asked.
    ::dlopen("/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics",
             RTLD_LAZY | RTLD_LOCAL);
    void* metal =
        ::dlopen("/System/Library/Frameworks/Metal.framework/Metal", RTLD_LAZY | RTLD_LOCAL);
    void* objc = ::dlopen("/usr/lib/libobjc.A.dylib", RTLD_LAZY | RTLD_LOCAL);
    if (metal == nullptr || objc == nullptr) return uint64_t{0};
    // No library is closed: frameworks are never really unloaded.
    using CreateDevice = void* (*)();
    using RegisterSelector = void* (*)(const char*);
    using PoolPush = void* (*)();
    using PoolPop = void (*)(void*);
    const auto create =
        reinterpret_cast<CreateDevice>(::dlsym(metal, "MTLCreateSystemDefaultDevice"));
    const auto selector = reinterpret_cast<RegisterSelector>(::dlsym(objc, "sel_registerName"));
    const auto pool_push = reinterpret_cast<PoolPush>(::dlsym(objc, "objc_autoreleasePoolPush"));
    const auto pool_pop = reinterpret_cast<PoolPop>(::dlsym(objc, "objc_autoreleasePoolPop"));
    void* message = ::dlsym(objc, "objc_msgSend");
    if (create == nullptr || selector == nullptr || message == nullptr || pool_push == nullptr ||
        pool_pop == nullptr) {
      return uint64_t{0};
    }
    // objc_msgSend must be called through a pointer of the method's type.
    const auto send_u64 = reinterpret_cast<uint64_t (*)(void*, void*)>(message);
    const auto send_void = reinterpret_cast<void (*)(void*, void*)>(message);
    void* pool = pool_push();
    uint64_t working_set = 0;
    if (void* device = create(); device != nullptr) {
      working_set = send_u64(device, selector("recommendedMaxWorkingSetSize"));
      send_void(device, selector("release"));
    }
    pool_pop(pool);
    return working_set;
  }();
  return bytes;
}

}  // namespace

RamReading read_os_ram(const HostQueryOptions&) {
  RamReading ram;
  ram.os = "macos";
  if (std::optional<uint64_t> memsize = sysctl_number("hw.memsize")) {
    ram.ram_total_bytes = *memsize;
  } else {
    ram.warnings.push_back("sysctl hw.memsize failed; host RAM is unknown");
  }
  const uint64_t page_bytes = vm_kernel_page_size;
  if (std::optional<vm_statistics64_data_t> vm = vm_statistics()) {
    VmPageCounts pages;
    pages.free = vm->free_count;
    pages.speculative = vm->speculative_count;
    pages.purgeable = vm->purgeable_count;
    pages.inactive = vm->inactive_count;
    pages.file_backed = vm->external_page_count;
    ram.available_now_bytes = unified_available_now_bytes(pages, page_bytes);
  } else {
    ram.warnings.push_back("host_statistics64 failed; memory available now is unknown");
  }
  ram.ram_available_bytes = ram.available_now_bytes;
  ram.reserve_bytes = unified_memory_reserve_bytes(ram.ram_total_bytes);

  ram.metal_working_set_bytes = metal_recommended_working_set_bytes();
  if (ram.metal_working_set_bytes == 0) {
    // Without Metal, a raised GPU wired limit (sysctl iogpu.wired_limit_mb,
    // 0 = the default) is the best account of what the GPU may hold.
    const uint64_t wired_limit_mib = sysctl_number("iogpu.wired_limit_mb").value_or(0);
    ram.metal_working_set_bytes = wired_limit_mib << 20;
  }
  if (ram.metal_working_set_bytes > 0) {
    ram.ram_budget_bytes = ram.metal_working_set_bytes;
  } else {
    ram.warnings.push_back("Metal's recommended working set is unknown; the budget is all of RAM");
    ram.ram_budget_bytes = ram.ram_total_bytes;
  }
  ram.ram_budget_source = ram.ram_budget_bytes > 0 ? BudgetSource::kUnifiedMemory : BudgetSource::kUnavailable;
  return ram;
}

Result<uint64_t> read_os_wired_bytes(const std::string&) {
  const std::optional<vm_statistics64_data_t> vm = vm_statistics();
  if (!vm) return Error("host_statistics64 failed");
  return uint64_t{vm->wire_count} * uint64_t{vm_kernel_page_size};
}

std::vector<std::string> default_nvml_library_names() { return {}; }
std::vector<std::string> default_rocm_smi_library_names() { return {}; }

}  // namespace memfit::host

namespace memfit {

ProcessGauges read_process_gauges(const std::string&) {
  ProcessGauges gauges;
  task_vm_info_data_t info{};
  mach_msg_type_number_t count = TASK_VM_INFO_COUNT;
  if (::task_info(::mach_task_self(), TASK_VM_INFO, reinterpret_cast<task_info_t>(&info), &count) !=
      KERN_SUCCESS) {
    return gauges;
  }
  // phys_footprint arrived with revision 1 of the structure; older kernels
  // fill fewer fields and say so in `count`.
  if (count >= TASK_VM_INFO_REV1_COUNT) gauges.footprint_bytes = info.phys_footprint;
  gauges.swapped_bytes = info.compressed;
  return gauges;
}

}  // namespace memfit
