// What the llama.cpp profile's replayed compute buffer costs
// (docs/llamacpp-rules.md, "Compute buffers (replayed)"): estimate_llamacpp
// on corpus configs whose graph memfit rebuilds and replays (llama,
// qwen3moe: tens of thousands of tensors at 94-126 layers) and on one it
// prices with the phase model (phi3), at the default ubatch and at 4096.
// docs/performance.md, "The llama.cpp compute replay", has results.
//
//   build/release/bench/llamacpp_compute_bench
#include <benchmark/benchmark.h>

#include <string>

#include "memfit/file_system.h"
#include "memfit/llamacpp.h"
#include "memfit/model.h"

namespace memfit {
namespace {

Model corpus_model(const std::string& dir) {
  auto fs = make_real_file_system();
  Result<Model> m = open_model(*fs, std::string(MEMFIT_SOURCE_DIR) + "/tests/data/corpus/" + dir);
  if (!m) return Model{};
  return *m;
}

void Estimate(benchmark::State& state, const std::string& dir) {
  const Model model = corpus_model(dir);
  if (model.spec.layers.empty()) {
    state.SkipWithError("corpus config not found");
    return;
  }
  LlamaCppSettings s;
  s.ctx_size = 32768;
  s.ubatch_size = static_cast<uint64_t>(state.range(0));
  s.batch_size = s.ubatch_size;
  const MemoryBudget budget{1ull << 40, 1ull << 40, BudgetSource::kExplicit};
  bool replayed = false;
  for (auto _ : state) {
    Result<LlamaCppEstimate> e = estimate_llamacpp(model, s, budget);
    if (!e) {
      state.SkipWithError(e.error().message().c_str());
      return;
    }
    replayed = e->compute_replayed;
    benchmark::DoNotOptimize(e->compute_bytes);
  }
  state.counters["layers"] = static_cast<double>(model.spec.layers.size());
  state.counters["replayed"] = replayed ? 1 : 0;
}

BENCHMARK_CAPTURE(Estimate, llama_405b, std::string("llama3/Meta-Llama-3.1-405B"))->Arg(512)->Arg(4096);
BENCHMARK_CAPTURE(Estimate, qwen3_30b_a3b, std::string("qwen3_moe/Qwen3-30B-A3B"))->Arg(512)->Arg(4096);
BENCHMARK_CAPTURE(Estimate, phi3_phase_model, std::string("phi3/Phi-3.5-mini-instruct"))->Arg(512)->Arg(4096);

}  // namespace
}  // namespace memfit

BENCHMARK_MAIN();
