// A modelled figure's error band, as the corpus of real runtime logs
// measured it (data/bands/bands.tsv; docs/validation-logs.md, "Error
// bands"), and what --confidence adds for it. Engines' estimates carry one
// ReportBands; their reports print each band beside its figure.
#ifndef MEMFIT_ERROR_BAND_H_
#define MEMFIT_ERROR_BAND_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// A band is printed only over at least this many logs; fewer: the report
// says "fewer than 5 logs" and --confidence adds nothing for the figure.
inline constexpr uint64_t kMinBandLogs = 5;

// One modelled figure of a report, beside its band.
struct FigureBand {
  std::string figure;   // check-log's figure name: "model", "compute", "weights", "peak", ...
  std::string backend;  // "CPU", "CUDA", "ROCm", "Metal", "Vulkan", "GPU" (a GPU of no known backend)
  uint64_t logs = 0;    // the corpus's logs behind it (modelled and priced)
  // memfit / printed, the least and the greatest over those logs; unset
  // under kMinBandLogs logs.
  std::optional<double> low;
  std::optional<double> high;
  // Under --confidence with a band: the fraction of memfit's figure added
  // (the band row's margin at that level) and its bytes,
  // ceil(bytes x margin); unset and 0 otherwise.
  std::optional<double> margin;
  uint64_t margin_bytes = 0;
};

// Every modelled figure of one estimate and the margin they add.
struct ReportBands {
  uint64_t confidence = 0;  // --confidence (90, 95 or 99); 0: not given
  std::vector<FigureBand> figures;
  uint64_t margin_bytes = 0;  // the figures' margin_bytes summed (in the estimate's total)
};

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_ERROR_BAND_H_
