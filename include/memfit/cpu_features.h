// CpuFeatures: the instruction-set extensions of the host CPU that decide
// which weights llama.cpp's CPU backend repacks (docs/llamacpp-rules.md,
// "Model weights"). Read from /proc/cpuinfo's flag lines on Linux; unknown
// elsewhere and when the file cannot be read.
#ifndef MEMFIT_CPU_FEATURES_H_
#define MEMFIT_CPU_FEATURES_H_

#include <string_view>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

struct CpuFeatures {
  enum class Arch { kUnknown, kX86, kArm };
  Arch arch = Arch::kUnknown;  // kUnknown: nothing below was read
  // x86 ("flags" line)
  bool avx2 = false;
  bool avx512f = false;
  bool amx_int8 = false;
  // aarch64 ("Features" line)
  bool asimddp = false;  // NEON dot product
  bool i8mm = false;     // int8 matrix multiply
};

// The features of the first processor entry of a /proc/cpuinfo text: its
// "flags" line (x86) or "Features" line (aarch64), space-separated names.
// Arch::kUnknown when neither line is present. Never fails; the text is
// untrusted and only scanned.
CpuFeatures parse_cpuinfo(std::string_view text);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_CPU_FEATURES_H_
