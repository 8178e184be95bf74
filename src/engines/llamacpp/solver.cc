// solve_llamacpp() (memfit/llamacpp_solver.h): the largest --ctx-size,
// --parallel or -ngl, or the fewest --n-cpu-moe, that fits: bisection, or
// every value tried, over estimate_llamacpp().
#include "memfit/llamacpp_solver.h"

#include <algorithm>

#include "engines/shared/largest_fitting.h"
#include "memfit/mlxcel_solver.h"

namespace memfit {
namespace {

// The estimate with `what` set to v; its error when it has one.
Result<LlamaCppEstimate> estimate_at(LlamaCppSolveFor what, uint64_t v, const Model& model,
                                     LlamaCppSettings settings, const MemoryBudget& budget) {
  switch (what) {
    case LlamaCppSolveFor::kCtxSize:
      settings.ctx_size = v;
      break;
    case LlamaCppSolveFor::kParallel:
      settings.parallel = v;
      break;
    case LlamaCppSolveFor::kGpuLayers:
      settings.placement.n_gpu_layers = v;
      break;
    case LlamaCppSolveFor::kNCpuMoe:
      settings.placement.n_cpu_moe = v;
      break;
  }
  return estimate_llamacpp(model, settings, budget);
}

// The first of `order` (each value, in order) whose estimate fits.
template <typename Order>
std::optional<uint64_t> first_fitting(LlamaCppSolveFor what, const Model& model,
                                      const LlamaCppSettings& settings, const MemoryBudget& budget,
                                      Order order) {
  for (uint64_t v : order) {
    Result<LlamaCppEstimate> e = estimate_at(what, v, model, settings, budget);
    if (e.ok() && e->fits) return v;
  }
  return std::nullopt;
}

// 0, 1, ..., n (up) or n, ..., 0 (down).
struct Range {
  uint64_t n;
  bool up;
  struct It {
    uint64_t i, n;
    bool up;
    uint64_t operator*() const { return up ? i : n - i; }
    It& operator++() { ++i; return *this; }
    bool operator!=(const It& o) const { return i != o.i; }
  };
  It begin() const { return {0, n, up}; }
  It end() const { return {n + 1, n, up}; }
};

Result<std::optional<uint64_t>> largest_ctx_size(const Model& model, const LlamaCppSettings& settings,
                                                 const MemoryBudget& budget, uint64_t ceiling) {
  auto fits = [&](uint64_t v) -> Result<bool> {
    Result<LlamaCppEstimate> e = estimate_at(LlamaCppSolveFor::kCtxSize, v, model, settings, budget);
    return e.ok() && e->fits;
  };
  return largest_fitting(1, ceiling, fits);
}

// Every n_seq is tried (the cells are not monotone in it); the largest
// that fits wins.
std::optional<uint64_t> largest_parallel(const Model& model, const LlamaCppSettings& settings,
                                         const MemoryBudget& budget, uint64_t ceiling) {
  for (uint64_t v = ceiling; v >= 1; --v) {
    Result<LlamaCppEstimate> e = estimate_at(LlamaCppSolveFor::kParallel, v, model, settings, budget);
    if (e.ok() && e->fits) return v;
  }
  return std::nullopt;
}

}  // namespace

Result<LlamaCppSolution> solve_llamacpp(LlamaCppSolveFor what, const Model& model,
                                        const LlamaCppSettings& settings, const MemoryBudget& budget) {
  // The smallest candidate: an error there is the settings' own.
  Result<LlamaCppEstimate> smallest = estimate_at(what, 1, model, settings, budget);
  if (!smallest) return smallest.error();

  LlamaCppSolution s;
  s.cache_type = settings.cache_type_k;
  uint64_t ceiling = 0;
  const uint64_t blocks = model.spec.layers.size() + model.spec.nextn_layers;
  if (what == LlamaCppSolveFor::kGpuLayers || what == LlamaCppSolveFor::kNCpuMoe) {
    if (settings.placement.gpus.empty()) {
      return Error::usage("solve", "needs GPUs: this machine's, or --gpu-memory 0=24GiB,...");
    }
    if (what == LlamaCppSolveFor::kNCpuMoe && model.spec.moe.experts == 0) {
      return Error::usage("solve", "n-cpu-moe needs a mixture-of-experts model");
    }
  }
  if (what == LlamaCppSolveFor::kGpuLayers) {
    ceiling = blocks + 1;
    s.value = first_fitting(what, model, settings, budget, Range{ceiling, false});
  } else if (what == LlamaCppSolveFor::kNCpuMoe) {
    s.value = first_fitting(what, model, settings, budget, Range{blocks, true});
  } else if (what == LlamaCppSolveFor::kCtxSize) {
    const uint64_t trained = model.spec.max_position_tokens;
    ceiling = trained != 0 ? std::min(trained, kMaxSolvedTokens) : kMaxSolvedTokens;
    Result<std::optional<uint64_t>> value = largest_ctx_size(model, settings, budget, ceiling);
    if (!value) return value.error();
    s.value = *value;
  } else {
    // The context as llama.cpp pads it, split into sequences of at least
    // kLlamaCppMinSequenceCells.
    const uint64_t cells = smallest->context.n_ctx;
    ceiling = std::clamp<uint64_t>(cells / kLlamaCppMinSequenceCells, 1, kLlamaCppMaxSequences);
    s.value = largest_parallel(model, settings, budget, ceiling);
  }
  if (s.value) {
    s.capped = what == LlamaCppSolveFor::kNCpuMoe ? *s.value == 0 : *s.value == ceiling;
    Result<LlamaCppEstimate> at = estimate_at(what, *s.value, model, settings, budget);
    if (!at) return at.error();
    s.estimate = *at;
  }
  return s;
}

Result<std::vector<LlamaCppSolution>> solve_llamacpp_each_cache_type(LlamaCppSolveFor what,
                                                                     const Model& model,
                                                                     const LlamaCppSettings& settings,
                                                                     const MemoryBudget& budget) {
  std::vector<LlamaCppSolution> out;
  for (GgmlType type : kLlamaCppSolvedCacheTypes) {
    if (type != GgmlType::kF16 && settings.flash_attn == FlashAttn::kOff) continue;
    LlamaCppSettings at = settings;
    at.cache_type_k = at.cache_type_v = type;
    Result<LlamaCppSolution> s = solve_llamacpp(what, model, at, budget);
    // A quantized type the model's rows cannot take (a head size that is
    // not a whole number of blocks) is left out; f16 always answers.
    if (!s && type != GgmlType::kF16) continue;
    if (!s) return s.error();
    out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace memfit
