// A program outside the memfit tree, built against an installed memfit
// (tests/package/package_test.sh): opens a model with the C++ API and
// prints its estimate at the defaults (8192 tokens, batch 1, fp16 KV)
// against an explicit 64 GiB budget, one line:
//   weights_bytes=W kv_bytes=K total_bytes=T fits=0|1
// Usage: consumer MODEL_DIR. Exits 1 when the model cannot be opened or
// sized, 2 on a usage error.
#include <cinttypes>
#include <cstdio>
#include <memory>

#include "memfit/mlxcel.h"
#include "memfit/file_system.h"
#include "memfit/model.h"
#include "memfit/mlxcel_settings.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer MODEL_DIR\n");
    return 2;
  }
  std::unique_ptr<memfit::FileSystem> fs = memfit::make_real_file_system();
  memfit::Result<memfit::Model> model = memfit::open_model(*fs, argv[1]);
  if (!model) {
    std::fprintf(stderr, "consumer: %s\n", model.error().message().c_str());
    return 1;
  }
  memfit::MemoryBudget budget;
  budget.budget_bytes = 64ull << 30;
  budget.source = memfit::BudgetSource::kExplicit;
  // Default settings, not the environment's: the figures must not depend on
  // MEMFIT_* variables where the test runs.
  memfit::Result<memfit::MlxcelEstimate> estimate =
      memfit::estimate_mlxcel(*model, memfit::MlxcelInputs{}, memfit::MlxcelSettings{},
                              memfit::build_platform(), budget);
  if (!estimate) {
    std::fprintf(stderr, "consumer: %s\n", estimate.error().message().c_str());
    return 1;
  }
  std::printf("weights_bytes=%" PRIu64 " kv_bytes=%" PRIu64 " total_bytes=%" PRIu64 " fits=%d\n",
              estimate->weights_bytes, estimate->kv.total_bytes, estimate->total_bytes,
              estimate->fits ? 1 : 0);
  return 0;
}
