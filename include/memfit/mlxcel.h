// The mlxcel profile's pre-load estimate (docs/engine-mlxcel.md):
//
//   total = weights + kv_cache + runtime_headroom
//   runtime_headroom = allocator_overhead + activation_reserve + backend_inflight
//
// estimate_mlxcel() is a pure function of the model, the request, the settings,
// the platform and the memory budget: the CLI, the C API and the service
// all call it, so they never disagree.
#ifndef MEMFIT_MLXCEL_H_
#define MEMFIT_MLXCEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memfit/kv_cache.h"
#include "memfit/memory_budget.h"
#include "memfit/model.h"
#include "memfit/result.h"
#include "memfit/mlxcel_settings.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

enum class HostOs { kLinux, kMacos, kWindows, kOther };
enum class Backend { kDefault, kRocm, kMetal, kCuda, kCpu };

struct Platform {
  HostOs os = HostOs::kLinux;
  Backend backend = Backend::kDefault;
  uint64_t metal_gpu_cores = 0;  // Metal only: sizes the decode workspace
};

// The platform this binary was built for, with the default backend.
Platform build_platform();

struct MlxcelInputs {
  uint64_t max_tokens = 8192;
  uint64_t batch = 1;
  KvElement kv_element = KvElement::kFp16;
  // The weight mode priced ("" when not given: the checkpoint's own);
  // weights_bytes is the model in that mode.
  std::string quant;
};

struct MlxcelEstimate {
  MlxcelInputs inputs;
  uint64_t weights_bytes = 0;
  KvCacheEstimate kv;
  std::optional<uint64_t> per_slot_overhead_bytes;
  uint64_t allocator_overhead_bytes = 0;
  uint64_t activation_bytes = 0;
  uint64_t backend_inflight_bytes = 0;
  uint64_t headroom_bytes = 0;  // allocator + activation + in-flight
  uint64_t headroom_factor_micros = 0;
  uint64_t host_shadow_bytes = 0;
  uint64_t ram_available_bytes = 0;
  bool host_shadow_fits = true;
  uint64_t budget_bytes = 0;
  uint64_t total_bytes = 0;  // weights + kv + headroom
  bool fits = false;
};

// Fails only on arithmetic overflow (absurd configs or requests) and on
// max_tokens == 0 or batch == 0.
Result<MlxcelEstimate> estimate_mlxcel(const Model& model, const MlxcelInputs& inputs,
                                       const MlxcelSettings& settings, const Platform& platform,
                                       const MemoryBudget& budget);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_MLXCEL_H_
