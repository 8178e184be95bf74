// A GPU's name: checked when given (parse_gpu_name, vllm.h) and read for
// its class (classify_gpu, shared/gpu_class.h).
#include "engines/shared/gpu_class.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include <fmt/format.h>

#include "base/ascii_lower.h"
#include "memfit/untrusted_text.h"
#include "memfit/vllm.h"

namespace memfit {
namespace {

struct Family {
  GpuClass gpu_class;
  std::array<std::string_view, 5> parts;  // lowercase; "" pads a shorter list
};

// Tried in order; the first family with a part in the name wins.
constexpr std::array<Family, 4> kFamilies = {{
    {GpuClass::kBlackwellDatacenter, {"b100", "b200", "b300", "gb200", "gb300"}},
    {GpuClass::kHopperH100H200, {"h100", "h200", "gh200", "", ""}},
    {GpuClass::kHopperOther, {"h800", "h20", "", "", ""}},
    {GpuClass::kAmpereA100, {"a100", "", "", "", ""}},
}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }

}  // namespace

Result<std::string> parse_gpu_name(std::string_view text) {
  const bool printable =
      std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
  const bool blank = text.find_first_not_of(' ') == std::string_view::npos;
  if (text.size() > kMaxGpuNameBytes || !printable || blank) {
    return Error::usage(fmt::format("{}: expected a GPU's name as nvidia-smi prints it, e.g. "
                                    "\"NVIDIA H100 80GB HBM3\" (1 to {} printable ASCII characters)",
                                    quote_untrusted(text), kMaxGpuNameBytes));
  }
  return std::string(text);
}

GpuClass classify_gpu(std::string_view name) {
  if (name.empty()) return GpuClass::kUnknown;
  const std::string lower = ascii_lower(name);
  for (const Family& f : kFamilies) {
    for (std::string_view part : f.parts) {
      if (!part.empty() && lower.find(part) != std::string::npos) return f.gpu_class;
    }
  }
  return GpuClass::kOther;
}

bool is_hopper(GpuClass gpu_class) {
  return gpu_class == GpuClass::kHopperH100H200 || gpu_class == GpuClass::kHopperOther;
}

bool names_amd_gpu(std::string_view name) {
  const std::string lower = ascii_lower(name);
  for (std::string_view word : {"amd", "radeon", "instinct"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  for (size_t i = 0; i < lower.size(); ++i) {
    const bool word_start = i == 0 || !is_alnum(lower[i - 1]);
    if (lower.compare(i, 3, "gfx") == 0 && i + 3 < lower.size() && is_digit(lower[i + 3])) return true;
    if (word_start && lower.compare(i, 2, "mi") == 0) {
      size_t digits = 0;
      while (i + 2 + digits < lower.size() && is_digit(lower[i + 2 + digits])) ++digits;
      if (digits == 2 || digits == 3) return true;
    }
  }
  return false;
}

}  // namespace memfit
