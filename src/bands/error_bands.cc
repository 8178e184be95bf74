// The band table's reader and the bands' report texts (error_bands.h).
// The table is written by scripts/gen-validation-logs.py, which says how
// each column is made; this file only reads it and applies it.
#include "bands/error_bands.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "base/split_fields.h"
#include "bands/embedded_bands.h"
#include "memfit/checked_math.h"
#include "memfit/memory_size.h"
#include "memfit/number_text.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

Result<ErrorBandRow> parse_row(const std::vector<std::string_view>& f, size_t line) {
  auto bad = [line](std::string_view what) {
    return Error(fmt::format("band table: line {}: {}", line, what));
  };
  if (f.size() != 9) return bad(fmt::format("{} fields, a row has 9", f.size()));
  ErrorBandRow row{std::string(f[0]), std::string(f[1]), std::string(f[2])};
  const auto [end, ec] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), row.logs);
  if (ec != std::errc() || end != f[3].data() + f[3].size()) return bad("logs is not a count");
  double* numbers[] = {&row.low, &row.high, &row.margin_90, &row.margin_95, &row.margin_99};
  for (size_t i = 0; i < 5; ++i) {
    std::optional<double> value = parse_double(f[4 + i]);
    if (!value || !std::isfinite(*value)) return bad(fmt::format("'{}' is not a number", f[4 + i]));
    *numbers[i] = *value;
  }
  if (row.low > row.high) return bad("low is above high");
  if (row.margin_90 < 0 || row.margin_95 < row.margin_90 || row.margin_99 < row.margin_95) {
    return bad("the margins are negative or fall as the level rises");
  }
  return row;
}

double margin_at(const ErrorBandRow& row, uint64_t confidence) {
  return confidence == 90 ? row.margin_90 : confidence == 95 ? row.margin_95 : row.margin_99;
}

// A ratio's distance from 1 in per cent, one decimal, rounded outward
// (`up`: toward +inf), with its sign: "-14.3 %", "+0.1 %".
std::string percent_off(double ratio, bool up) {
  const double tenths = up ? std::ceil((ratio - 1) * 1000 - 1e-9) : std::floor((ratio - 1) * 1000 + 1e-9);
  return fmt::format("{}{:.1f} %", tenths < 0 ? "-" : "+", std::fabs(tenths) / 10);
}

}  // namespace

uint64_t margin_bytes_of(uint64_t bytes, double margin) {
  // In ten-thousandths, the table's 4 decimals, so the product is exact;
  // past 2^64 (a figure of petabytes) it saturates.
  const auto parts = static_cast<uint64_t>(std::llround(std::max(margin, 0.0) * 10000));
  return CheckedBytes::ceil_div(CheckedBytes(bytes) * parts, 10000).saturated();
}

Result<ErrorBandTable> parse_error_bands(std::string_view tsv) {
  ErrorBandTable table;
  size_t line_number = 0;
  for (std::string_view line : split_fields(tsv, '\n')) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    Result<ErrorBandRow> row = parse_row(split_fields(line, '\t'), line_number);
    if (!row) return row.error();
    table.push_back(std::move(*row));
  }
  return table;
}

namespace {
const ErrorBandTable* g_table_for_testing = nullptr;
}  // namespace

ScopedErrorBandTable::ScopedErrorBandTable(ErrorBandTable table) : table_(std::move(table)) {
  previous_ = g_table_for_testing;
  g_table_for_testing = &table_;
}

ScopedErrorBandTable::~ScopedErrorBandTable() { g_table_for_testing = previous_; }

Result<const ErrorBandTable*> corpus_error_bands() {
  if (g_table_for_testing != nullptr) return g_table_for_testing;
  static const Result<ErrorBandTable> table = parse_error_bands(bands::embedded_bands_tsv());
  if (!table) return Error("the embedded band table: " + table.error().message(), ErrorKind::kInternal);
  return &*table;
}

FigureBand band_for(const ErrorBandTable& table, std::string_view engine, std::string_view backend,
                    std::string_view figure, uint64_t bytes, uint64_t confidence) {
  FigureBand band;
  band.figure = figure;
  band.backend = backend;
  auto row = std::find_if(table.begin(), table.end(), [&](const ErrorBandRow& r) {
    return r.engine == engine && r.backend == backend && r.figure == figure;
  });
  if (row == table.end()) return band;
  band.logs = row->logs;
  if (row->logs < kMinBandLogs) return band;
  band.low = row->low;
  band.high = row->high;
  if (confidence != 0) {
    band.margin = margin_at(*row, confidence);
    band.margin_bytes = margin_bytes_of(bytes, *band.margin);
  }
  return band;
}

Result<ReportBands> report_bands(std::string_view engine, std::string_view backend,
                                 const std::vector<ModelledFigure>& figures, uint64_t confidence) {
  Result<const ErrorBandTable*> table = corpus_error_bands();
  if (!table) return table.error();
  ReportBands out;
  out.confidence = confidence;
  CheckedBytes sum = 0;
  for (const ModelledFigure& f : figures) {
    out.figures.push_back(
        band_for(**table, engine, backend, f.figure, f.bytes, f.takes_margin ? confidence : 0));
    sum += out.figures.back().margin_bytes;
  }
  out.margin_bytes = sum.saturated();
  return out;
}

std::string band_note(const FigureBand& band, uint64_t confidence) {
  if (!band.low || !band.high) {
    return fmt::format("fewer than {} {} logs ({})", kMinBandLogs, band.backend, band.logs);
  }
  std::string note = fmt::format("{} to {} over {} {} logs", percent_off(*band.low, false),
                                 percent_off(*band.high, true), band.logs, band.backend);
  if (band.margin) note += fmt::format(", +{:.2f} % at {} % confidence", *band.margin * 100, confidence);
  return note;
}

std::string confidence_note(const ReportBands& bands) {
  if (bands.figures.empty()) return "nothing added: every figure is exact";
  std::vector<std::string> with, without, left;
  for (const FigureBand& b : bands.figures) {
    (b.margin ? with : b.low ? left : without).push_back(b.figure);
  }
  std::vector<std::string> parts;
  parts.push_back(with.empty() ? "nothing added"
                               : fmt::format("the corpus's margin on {}", fmt::join(with, ", ")));
  if (!without.empty()) {
    parts.push_back(fmt::format("none for {} (fewer than {} logs)", fmt::join(without, ", "), kMinBandLogs));
  }
  if (!left.empty()) parts.push_back(fmt::format("{} is what is left", fmt::join(left, ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string with_band(std::string_view lead, const ReportBands& bands, std::string_view figure) {
  for (const FigureBand& b : bands.figures) {
    if (b.figure == figure) return fmt::format("{}, {}", lead, band_note(b, bands.confidence));
  }
  return std::string(lead);
}

void add_report_bands(Json& j, const ReportBands& bands) {
  Json list = Json::array();
  for (const FigureBand& b : bands.figures) {
    const bool banded = b.low && b.high;
    list.push_back({{"figure", b.figure},
                    {"backend", b.backend},
                    {"logs", b.logs},
                    {"low", banded ? Json(*b.low) : Json(nullptr)},
                    {"high", banded ? Json(*b.high) : Json(nullptr)},
                    {"basis", banded ? "min/max over the corpus" : "fewer than 5 logs"},
                    {"margin", b.margin ? Json(*b.margin) : Json(nullptr)},
                    {"margin_bytes", b.margin_bytes}});
  }
  j["bands"] = std::move(list);
  j["confidence"] = bands.confidence == 0 ? Json(nullptr)
                                          : Json{{"level", bands.confidence},
                                                 {"margin_bytes", bands.margin_bytes}};
}

}  // namespace memfit
