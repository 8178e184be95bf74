// Efficiency bands (memfit/speed.h): the fraction of the bound published
// runs reached, per backend and quantization family, as a median and its
// 10th-90th percentile spread (docs/speed.md, "Efficiency").
#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "memfit/speed.h"

namespace memfit {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The p-th quantile (0..1) of sorted values, linear between neighbours.
double quantile(const std::vector<double>& sorted, double p) {
  const double at = p * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(at);
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = at - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * weight;
}

EfficiencyBand band_of(std::string backend, std::string family, std::vector<double> fractions,
                       std::string basis) {
  std::sort(fractions.begin(), fractions.end());
  EfficiencyBand band;
  band.backend = std::move(backend);
  band.family = std::move(family);
  band.median = quantile(fractions, 0.5);
  band.low = quantile(fractions, 0.1);
  band.high = quantile(fractions, 0.9);
  band.runs = fractions.size();
  band.basis = std::move(basis);
  return band;
}

}  // namespace

std::string quant_family(std::string_view quant) {
  const std::string q = lower(quant);
  if (q.starts_with("f16") || q.starts_with("bf16") || q.starts_with("fp16") ||
      q.starts_with("16bit")) {
    return "16-bit";
  }
  if (q.starts_with("q8") || q.starts_with("8bit") || q.starts_with("fp8") ||
      q.starts_with("int8")) {
    return "8-bit";
  }
  return "under 8-bit";
}

std::string_view to_string(SpeedPhase phase) {
  return phase == SpeedPhase::kDecode ? "decode" : "prefill";
}

EfficiencyTable EfficiencyTable::fit(std::span<const EfficiencySample> samples) {
  std::map<std::pair<std::string, std::string>, std::vector<double>> by_group;
  std::map<std::string, std::vector<double>> by_backend;
  std::vector<double> all;
  for (const EfficiencySample& s : samples) {
    if (!(s.fraction > 0)) continue;
    by_group[{s.backend, s.family}].push_back(s.fraction);
    by_backend[s.backend].push_back(s.fraction);
    all.push_back(s.fraction);
  }
  EfficiencyTable table;
  for (auto& [key, fractions] : by_group) {
    table.bands_.push_back(band_of(key.first, key.second, fractions, "backend and family"));
  }
  for (auto& [backend, fractions] : by_backend) {
    table.bands_.push_back(band_of(backend, "", fractions, "backend, all families"));
  }
  if (!all.empty()) table.bands_.push_back(band_of("", "", all, "all backends"));
  return table;
}

std::optional<EfficiencyBand> EfficiencyTable::find(std::string_view backend,
                                                    std::string_view family) const {
  const auto match = [&](std::string_view b, std::string_view f) -> const EfficiencyBand* {
    for (const EfficiencyBand& band : bands_) {
      if (band.backend == b && band.family == f) return &band;
    }
    return nullptr;
  };
  if (const EfficiencyBand* own = match(backend, family); own && own->runs >= kMinEfficiencyRuns) {
    return *own;
  }
  if (const EfficiencyBand* b = match(backend, ""); b && b->runs >= kMinEfficiencyRuns) {
    EfficiencyBand band = *b;
    band.family = std::string(family);
    return band;
  }
  if (const EfficiencyBand* all = match("", "")) {
    EfficiencyBand band = *all;
    band.backend = std::string(backend);
    band.family = std::string(family);
    return band;
  }
  return std::nullopt;
}

SpeedRange apply_efficiency(double bound, const EfficiencyBand& band) {
  return SpeedRange{bound, bound * band.median, bound * band.low, bound * band.high, band};
}

}  // namespace memfit
