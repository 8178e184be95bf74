// The parallel plan's field a refusal names (engines that price no
// per-rank plan refuse it). Private to the library.
#ifndef MEMFIT_ENGINES_SHARED_PARALLEL_FIELD_H_
#define MEMFIT_ENGINES_SHARED_PARALLEL_FIELD_H_

#include <string_view>

#include "memfit/parallel_plan.h"

namespace memfit {

// The plan's field the request gives: "tensor_parallel" unless it is 1,
// else "pipeline_parallel".
inline std::string_view parallel_field_given(const ParallelConfig& c) {
  return c.tensor_parallel != 1 ? "tensor_parallel" : "pipeline_parallel";
}

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_PARALLEL_FIELD_H_
