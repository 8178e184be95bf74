// memfit_speed_validate: every published run (data/speed/published-runs.tsv)
// predicted by the speed estimate, as one JSON object on stdout, for
// scripts/gen-validation-speed.py to write docs/validation-speed.md from.
//
//   {"runs": [{"line", "source", "engine", "backend", "device", "model",
//              "quant", "family", "size_bytes", "prefill_test",
//              "decode_test", "build_date", "batch", "decode": {"fit_group",
//              "published", "bound", "fitted": {"modelled", "median",
//              "low", "high", "basis"}, "held_out": {...}, "left_out":
//              {...}, "never_seen": {...}}, "prefill": {...}}],
//    "bands": {"decode": [{"backend", "family", "efficiency",
//              "layer_overhead_s", "median", "low", "high", "runs",
//              "basis"}], "prefill": [...]}}
// An unknown figure is null. Exit 1 with the error on stderr when the
// tables do not load.
#include <iostream>

#include <nlohmann/json.hpp>

#include "memfit/published_runs.h"

namespace memfit {
namespace {

using Json = nlohmann::ordered_json;

Json number_or_null(std::optional<double> value) { return value ? Json(*value) : Json(); }

Json range_json(const std::optional<SpeedRange>& range) {
  if (!range) return Json();
  return {{"modelled", range->modelled},
          {"median", range->median},
          {"low", range->low},
          {"high", range->high},
          {"basis", range->efficiency.basis}};
}

Json phase_json(const std::string& group, std::optional<double> published,
                std::optional<double> bound,
                const std::optional<SpeedRange>& fitted, const std::optional<SpeedRange>& held_out,
                const std::optional<SpeedRange>& left_out,
                const std::optional<SpeedRange>& never_seen) {
  return {{"fit_group", group},
          {"published", number_or_null(published)},
          {"bound", number_or_null(bound)},
          {"fitted", range_json(fitted)},
          {"held_out", range_json(held_out)},
          {"left_out", range_json(left_out)},
          {"never_seen", range_json(never_seen)}};
}

Json bands_json(const EfficiencyTable& table) {
  Json out = Json::array();
  for (const EfficiencyBand& b : table.bands()) {
    out.push_back({{"backend", b.backend},
                   {"family", b.family},
                   {"efficiency", b.efficiency},
                   {"layer_overhead_s", b.layer_overhead_s},
                   {"median", b.median},
                   {"low", b.low},
                   {"high", b.high},
                   {"runs", b.runs},
                   {"basis", b.basis}});
  }
  return out;
}

int run() {
  Result<const HardwareTable*> table = hardware_table();
  Result<const PublishedRuns*> runs = published_runs();
  if (!table || !runs) {
    std::cerr << "memfit_speed_validate: "
              << (!table ? table.error().message() : runs.error().message()) << "\n";
    return 1;
  }
  Result<std::vector<RunPrediction>> predictions = predict_published_runs(**runs, **table);
  Result<EfficiencyTable> decode = fit_published_efficiency(**runs, **table, SpeedPhase::kDecode);
  Result<EfficiencyTable> prefill =
      fit_published_efficiency(**runs, **table, SpeedPhase::kPrefill);
  if (!predictions || !decode || !prefill) {
    std::cerr << "memfit_speed_validate: "
              << (!predictions ? predictions.error().message() : "fit failed") << "\n";
    return 1;
  }
  Json rows = Json::array();
  for (const RunPrediction& p : *predictions) {
    const PublishedRun& r = *p.run;
    rows.push_back(
        {{"line", r.line},
         {"source", r.source},
         {"engine", r.engine},
         {"backend", r.backend},
         {"device", r.device},
         {"model", r.model},
         {"quant", r.quant},
         {"family", p.family},
         {"size_bytes", r.size_bytes},
         {"prefill_test", r.prefill_test},
         {"decode_test", r.decode_test},
         {"build_date", r.build_date},
         {"batch", r.batch},
         {"decode",
          phase_json(fit_group(r, SpeedPhase::kDecode), r.decode_tokens_per_second,
                     p.decode_bound, p.decode_fitted, p.decode_held_out, p.decode_left_out,
                     p.decode_never_seen)},
         {"prefill",
          phase_json(fit_group(r, SpeedPhase::kPrefill), r.prefill_tokens_per_second,
                     p.prefill_bound, p.prefill_fitted, p.prefill_held_out, p.prefill_left_out,
                     p.prefill_never_seen)}});
  }
  const Json out = {{"runs", std::move(rows)},
                    {"bands", {{"decode", bands_json(*decode)}, {"prefill", bands_json(*prefill)}}}};
  std::cout << out.dump(1) << "\n";
  return 0;
}

}  // namespace
}  // namespace memfit

int main() { return memfit::run(); }
