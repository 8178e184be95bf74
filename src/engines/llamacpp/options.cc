// The llama.cpp profile's enumerations as llama.cpp's flags spell them
// (common/arg.cpp: kv_cache_types, --flash-attn).
#include <fmt/format.h>

#include "memfit/llamacpp.h"
#include "memfit/untrusted_text.h"

namespace memfit {

std::string_view to_string(FlashAttn mode) {
  switch (mode) {
    case FlashAttn::kOn:
      return "on";
    case FlashAttn::kOff:
      return "off";
    case FlashAttn::kAuto:
      return "auto";
  }
  return "auto";
}

Result<FlashAttn> parse_flash_attn(std::string_view text) {
  if (text == "on") return FlashAttn::kOn;
  if (text == "off") return FlashAttn::kOff;
  if (text == "auto") return FlashAttn::kAuto;
  return Error::usage(fmt::format("{}: expected on, off or auto", quote_untrusted(text)));
}

std::string_view to_string(RepackCpu cpu) {
  switch (cpu) {
    case RepackCpu::kAuto:
      return "auto";
    case RepackCpu::kNone:
      return "none";
    case RepackCpu::kX86Avx2:
      return "x86-avx2";
    case RepackCpu::kX86Avx512:
      return "x86-avx512";
    case RepackCpu::kArm:
      return "arm";
  }
  return "auto";
}

Result<RepackCpu> parse_repack_cpu(std::string_view text) {
  for (RepackCpu cpu : {RepackCpu::kAuto, RepackCpu::kNone, RepackCpu::kX86Avx2,
                        RepackCpu::kX86Avx512, RepackCpu::kArm}) {
    if (text == to_string(cpu)) return cpu;
  }
  return Error::usage(fmt::format("{}: expected auto, none, x86-avx2, x86-avx512 or arm",
                                  quote_untrusted(text)));
}

Result<GgmlType> parse_llamacpp_cache_type(std::string_view text) {
  for (GgmlType type : {GgmlType::kF32, GgmlType::kF16, GgmlType::kBF16, GgmlType::kQ8_0,
                        GgmlType::kQ4_0, GgmlType::kQ4_1, GgmlType::kQ5_0, GgmlType::kQ5_1,
                        GgmlType::kIQ4_NL}) {
    if (text == ggml_type_traits(type).name) return type;
  }
  return Error::usage(fmt::format("{}: expected f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1 or iq4_nl",
                                  quote_untrusted(text)));
}

}  // namespace memfit
