// The corpus's error bands (data/bands/bands.tsv, embedded at build time;
// docs/validation-logs.md, "Error bands"): per engine profile, backend and
// figure, the spread of memfit / printed over the logs where memfit
// modelled that figure, and the margins --confidence adds. Private to the
// library; engines fill their estimates' ReportBands (memfit/error_band.h)
// with band_for() and their reports print them with band_note() and
// report_bands_json().
#ifndef MEMFIT_SRC_BANDS_ERROR_BANDS_H_
#define MEMFIT_SRC_BANDS_ERROR_BANDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/error_band.h"
#include "memfit/result.h"

namespace memfit {

// One row of the table: tab-separated, '#' lines are comments.
//   engine backend figure logs low high margin_90 margin_95 margin_99
// ratios memfit / printed; margins fractions of memfit's figure.
struct ErrorBandRow {
  std::string engine;   // the profile that priced the logs ("llamacpp" for Ollama's too)
  std::string backend;
  std::string figure;
  uint64_t logs = 0;
  double low = 0;
  double high = 0;
  double margin_90 = 0;
  double margin_95 = 0;
  double margin_99 = 0;
};
using ErrorBandTable = std::vector<ErrorBandRow>;

// The --confidence levels the table carries a margin for.
inline constexpr uint64_t kConfidenceLevels[] = {90, 95, 99};

// The table from its text. kInput naming the line: a row of other than 9
// fields, a count or a number that does not parse, low > high, a negative
// margin, a level's margin below the one before it.
Result<ErrorBandTable> parse_error_bands(std::string_view tsv);

// The embedded table, parsed once; kInternal when it does not parse (a
// test parses it, so a build never ships one that fails).
Result<const ErrorBandTable*> corpus_error_bands();

// Tests only: `table` stands for the embedded one (corpus_error_bands)
// while the guard lives; guards nest. Not thread-safe.
class ScopedErrorBandTable {
 public:
  explicit ScopedErrorBandTable(ErrorBandTable table);
  ~ScopedErrorBandTable();
  ScopedErrorBandTable(const ScopedErrorBandTable&) = delete;
  ScopedErrorBandTable& operator=(const ScopedErrorBandTable&) = delete;

 private:
  ErrorBandTable table_;
  const ErrorBandTable* previous_ = nullptr;
};

// The band of `figure` as `engine` prices it on `backend`, `bytes` memfit's
// figure: logs from the row (0 when the table has none), low and high when
// logs >= kMinBandLogs, and under `confidence` (0 none, else one of
// kConfidenceLevels) the margin and ceil(bytes x margin) (saturating).
FigureBand band_for(const ErrorBandTable& table, std::string_view engine,
                    std::string_view backend, std::string_view figure, uint64_t bytes,
                    uint64_t confidence);

// ceil(bytes x margin), saturating at 2^64 - 1: what a margin adds to a
// figure of `bytes`. The margin is read at the table's 4 decimals, so the
// product is exact integer arithmetic.
uint64_t margin_bytes_of(uint64_t bytes, double margin);

// The band of every figure in `figures` ({figure name, memfit's bytes}) from
// the embedded table, their margin summed (saturating). The embedded table
// failing to parse is kInternal.
// A figure with takes_margin false shows its band and adds no margin (a
// residue, vLLM's KV cache: what the others' margins leave).
struct ModelledFigure {
  std::string_view figure;
  uint64_t bytes = 0;
  bool takes_margin = true;
};
Result<ReportBands> report_bands(std::string_view engine, std::string_view backend,
                                 const std::vector<ModelledFigure>& figures, uint64_t confidence);

// What a report prints after "modelled": "-2 % to +4 % over 37 CUDA logs"
// (low - 1 and high - 1, whole per cent, rounded away from 1), or "fewer
// than 5 CUDA logs (2)"; under --confidence with a band ", +3.10 % at 95 %
// confidence" follows.
std::string band_note(const FigureBand& band, uint64_t confidence);

// The note of a report's "Confidence P %" row (its bytes: bands.margin_bytes),
// parts joined by "; ": "the corpus's margin on model, compute" (or
// "nothing added"), "none for output (fewer than 5 logs)", "kv_cache_available
// is what is left" (a figure that takes no margin); "nothing added: every
// figure is exact" when there are none.
std::string confidence_note(const ReportBands& bands);

// band_note() of `figure` in `bands` after `lead` ("modelled, -2.0 % to
// ..."); `lead` alone when the figure is not among them.
std::string with_band(std::string_view lead, const ReportBands& bands, std::string_view figure);

// The report's "bands" array, one object per modelled figure: figure,
// backend, logs, low, high (null under 5 logs), basis ("min/max over the
// corpus" or "fewer than 5 logs"), margin and margin_bytes; and
// "confidence": {level, margin_bytes} or null.
void add_report_bands(nlohmann::ordered_json& j, const ReportBands& bands);

}  // namespace memfit

#endif  // MEMFIT_SRC_BANDS_ERROR_BANDS_H_
