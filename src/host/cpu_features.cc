// parse_cpuinfo(): /proc/cpuinfo is one block per processor of
// "name<tabs>: value" lines, blocks separated by an empty line. x86
// kernels list the extensions on "flags", arm64 kernels on "Features";
// every processor of a machine lists the same set, so the first line of
// either kind decides.
#include "memfit/cpu_features.h"

#include <string>

#include "host/host_status.h"
#include "host/proc_fields.h"

namespace memfit {
namespace {

bool has_word(std::string_view words, std::string_view word) {
  while (!words.empty()) {
    const size_t start = words.find_first_not_of(" \t");
    if (start == std::string_view::npos) return false;
    words.remove_prefix(start);
    const size_t end = words.find_first_of(" \t");
    if (words.substr(0, end) == word) return true;
    if (end == std::string_view::npos) return false;
    words.remove_prefix(end);
  }
  return false;
}

}  // namespace

CpuFeatures parse_cpuinfo(std::string_view text) {
  CpuFeatures cpu;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view name = host::trim_space(line.substr(0, colon));
    const std::string_view value = line.substr(colon + 1);
    if (name == "flags") {
      cpu.arch = CpuFeatures::Arch::kX86;
      cpu.avx2 = has_word(value, "avx2");
      cpu.avx512f = has_word(value, "avx512f");
      cpu.amx_int8 = has_word(value, "amx_int8");
      return cpu;
    }
    if (name == "Features") {
      cpu.arch = CpuFeatures::Arch::kArm;
      cpu.asimddp = has_word(value, "asimddp");
      cpu.i8mm = has_word(value, "i8mm");
      return cpu;
    }
  }
  return cpu;
}

}  // namespace memfit

namespace memfit::host {

CpuFeatures read_cpu_features(HostFiles& files) {
  Result<std::optional<std::string>> text = files.read("/proc/cpuinfo");
  if (!text.ok() || !text->has_value()) return CpuFeatures{};
  return parse_cpuinfo(**text);
}

}  // namespace memfit::host
