// compare_engines() (engine_compare.h): run() once per registered engine,
// each total read from the engine's own JSON report, so the comparison
// names no engine and a newly registered one joins it.
#include "memfit/engine_compare.h"

#include <fmt/format.h>

#include "memfit/engine.h"
#include "memfit/memory_size.h"
#include "memfit/run_report.h"

namespace memfit {
namespace {

EngineComparison priced_row(const EstimateRun& run) {
  const nlohmann::ordered_json report = run.engine->report_json(run);
  EngineComparison row;
  row.engine = std::string(run.engine->name());
  row.figure = std::string(run.engine->summary());
  row.priced = true;
  row.total_bytes = report.value("total_bytes", uint64_t{0});
  row.budget_bytes = report.value("budget_bytes", uint64_t{0});
  row.fits = run.fits();
  return row;
}

}  // namespace

Result<std::vector<EngineComparison>> compare_engines(const EstimateRequest& request,
                                                      RequestContext& context) {
  Result<EstimateRun> own = run(request, context);
  if (!own) return own.error();
  std::vector<EngineComparison> rows;
  for (const EngineProfile* engine : EngineRegistry::instance().all()) {
    if (engine == own->engine) {
      rows.push_back(priced_row(*own));
      rows.back().chosen = true;
      continue;
    }
    EstimateRequest other = request;
    other.engine = std::string(engine->name());
    Result<EstimateRun> priced = run(other, context);
    if (priced) {
      rows.push_back(priced_row(*priced));
      continue;
    }
    if (priced.error().kind() != ErrorKind::kUsage) return priced.error();
    EngineComparison row;
    row.engine = std::string(engine->name());
    row.figure = std::string(engine->summary());
    row.refusal = priced.error().message();
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::ordered_json comparison_to_json(std::span<const EngineComparison> rows) {
  using Json = nlohmann::ordered_json;
  Json out = Json::array();
  for (const EngineComparison& r : rows) {
    out.push_back({{"engine", r.engine},
                   {"chosen", r.chosen},
                   {"priced", r.priced},
                   {"total_bytes", r.priced ? Json(r.total_bytes) : Json(nullptr)},
                   {"budget_bytes", r.priced ? Json(r.budget_bytes) : Json(nullptr)},
                   {"fits", r.priced ? Json(r.fits) : Json(nullptr)},
                   {"figure", r.figure},
                   {"refusal", r.priced ? Json(nullptr) : Json(r.refusal)}});
  }
  return out;
}

std::string render_comparison_text(std::span<const EngineComparison> rows) {
  std::string out;
  for (const EngineComparison& r : rows) {
    const std::string_view mark = r.chosen ? "* " : "  ";
    if (!r.priced) {
      out += fmt::format("{}{:<9} refused: {}\n", mark, r.engine, r.refusal);
      continue;
    }
    out += fmt::format("{}{:<9} {:>11} of {:>11}  {:<12}  {}\n", mark, r.engine,
                       format_bytes(r.total_bytes), format_bytes(r.budget_bytes),
                       r.fits ? "FITS" : "DOES NOT FIT", r.figure);
  }
  return out;
}

}  // namespace memfit
