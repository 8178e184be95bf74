// The spellings of the `weights_source` report field (docs/weights.md,
// "Sources").
#include "memfit/weights.h"

namespace memfit {

std::string_view to_string(WeightsSource source) {
  switch (source) {
    case WeightsSource::kSafetensorsHeader:
      return "safetensors_header";
    case WeightsSource::kSafetensorsIndex:
      return "safetensors_index";
    case WeightsSource::kGgufHeader:
      return "gguf_header";
    case WeightsSource::kAnalyticalConfig:
      return "analytical_config";
    case WeightsSource::kFallback:
      return "fallback";
  }
  return "unknown";
}

}  // namespace memfit
