// Efficiency bands (memfit/speed.h): per backend and quantization family,
// the fraction of the bound's rate published runs moved at, a fixed cost a
// layer, and the runs' spread around that (docs/speed.md, "Efficiency").
#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "base/ascii_lower.h"
#include "memfit/speed.h"

namespace memfit {
namespace {

// The p-th quantile (0..1) of sorted values, linear between neighbours.
double quantile(const std::vector<double>& sorted, double p) {
  const double at = p * static_cast<double>(sorted.size() - 1);
  const size_t below = static_cast<size_t>(at);
  const size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = at - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * weight;
}

// Sums of the normal equations of min sum((a u + c v - 1)^2), u = bound
// seconds / measured seconds, v = layers / measured seconds: a is 1 /
// efficiency, c the overhead a layer.
struct Sums {
  double uu = 0, uv = 0, vv = 0, u = 0, v = 0, n = 0;
  double objective(double a, double c) const {
    return a * a * uu + c * c * vv + n + 2 * a * c * uv - 2 * a * u - 2 * c * v;
  }
};

// The least-squares (a, c) with a >= 1 (efficiency at most 1) and c >= 0:
// the free solution when it keeps both, else the better of the two edges.
std::pair<double, double> solve(const Sums& s) {
  // Collinear samples (one run, or runs of one shape) leave det at
  // rounding noise: no free solution then, only the edges.
  const double det = s.uu * s.vv - s.uv * s.uv;
  if (det > 1e-9 * s.uu * s.vv) {
    const double a = (s.u * s.vv - s.v * s.uv) / det;
    const double c = (s.uu * s.v - s.uv * s.u) / det;
    if (a >= 1 && c >= 0) return {a, c};
  }
  const std::pair<double, double> no_overhead{std::max(1.0, s.uu > 0 ? s.u / s.uu : 1.0), 0.0};
  const std::pair<double, double> full_rate{1.0, s.vv > 0 ? std::max(0.0, (s.v - s.uv) / s.vv) : 0};
  return s.objective(no_overhead.first, no_overhead.second) <=
                 s.objective(full_rate.first, full_rate.second)
             ? no_overhead
             : full_rate;
}

EfficiencyBand band_of(std::string backend, std::string family,
                       const std::vector<const EfficiencySample*>& samples, std::string basis) {
  Sums s;
  for (const EfficiencySample* e : samples) {
    const double u = e->bound_seconds / e->measured_seconds;
    const double v = static_cast<double>(e->n_layers) / e->measured_seconds;
    s.uu += u * u;
    s.uv += u * v;
    s.vv += v * v;
    s.u += u;
    s.v += v;
    s.n += 1;
  }
  const auto [a, c] = solve(s);
  // published / modelled speed = modelled seconds / published seconds.
  std::vector<double> ratios;
  for (const EfficiencySample* e : samples) {
    ratios.push_back((a * e->bound_seconds + c * static_cast<double>(e->n_layers)) /
                     e->measured_seconds);
  }
  std::sort(ratios.begin(), ratios.end());
  EfficiencyBand band;
  band.backend = std::move(backend);
  band.family = std::move(family);
  band.efficiency = 1 / a;
  band.layer_overhead_s = c;
  band.median = quantile(ratios, 0.5);
  band.low = ratios.front();  // the whole spread (memfit/speed.h)
  band.high = ratios.back();
  band.runs = ratios.size();
  band.basis = std::move(basis);
  return band;
}

}  // namespace

std::string quant_family(std::string_view quant) {
  const std::string q = ascii_lower(quant);
  if (q.starts_with("f16") || q.starts_with("bf16") || q.starts_with("fp16") ||
      q.starts_with("16bit")) {
    return "16-bit";
  }
  // GPTQ-Int8: GPTQ's 8-bit weights as Qwen's checkpoints name them
  // (QwenLM/Qwen2.5, docs/source/benchmark/speed_benchmark.rst).
  if (q.starts_with("q8") || q.starts_with("8bit") || q.starts_with("fp8") ||
      q.starts_with("int8") || q.starts_with("gptq-int8")) {
    return "8-bit";
  }
  return "under 8-bit";
}

std::string_view to_string(SpeedPhase phase) {
  return phase == SpeedPhase::kDecode ? "decode" : "prefill";
}

EfficiencyTable EfficiencyTable::fit(std::span<const EfficiencySample> samples) {
  std::map<std::pair<std::string, std::string>, std::vector<const EfficiencySample*>> by_group;
  std::map<std::string, std::vector<const EfficiencySample*>> by_backend;
  std::vector<const EfficiencySample*> all;
  for (const EfficiencySample& s : samples) {
    if (!(s.bound_seconds > 0) || !(s.measured_seconds > 0)) continue;
    by_group[{s.backend, s.family}].push_back(&s);
    by_backend[s.backend].push_back(&s);
    all.push_back(&s);
  }
  EfficiencyTable table;
  for (const auto& [key, group] : by_group) {
    table.bands_.push_back(band_of(key.first, key.second, group, "backend and family"));
  }
  for (const auto& [backend, group] : by_backend) {
    table.bands_.push_back(band_of(backend, "", group, "backend, all families"));
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

SpeedRange apply_efficiency(double bound_tokens_per_second, uint64_t n_layers,
                            const EfficiencyBand& band) {
  SpeedRange range;
  range.bound = bound_tokens_per_second;
  const double seconds = 1 / bound_tokens_per_second / band.efficiency +
                         static_cast<double>(n_layers) * band.layer_overhead_s;
  range.modelled = 1 / seconds;
  range.median = range.modelled * band.median;
  range.low = range.modelled * band.low;
  range.high = range.modelled * band.high;
  range.efficiency = band;
  return range;
}

}  // namespace memfit
