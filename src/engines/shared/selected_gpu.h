// The GPU a request's device selector picks among the ones found
// (--device cuda:N / rocm:N, or the first with auto): the rule the GPU
// engines (vLLM, SGLang) share. Private to the library.
#ifndef MEMFIT_ENGINES_SHARED_SELECTED_GPU_H_
#define MEMFIT_ENGINES_SHARED_SELECTED_GPU_H_

#include "memfit/host_memory.h"
#include "memfit/request.h"

namespace memfit {

// The GPU the request selects, else the first found; null when none.
const GpuMemory* selected_gpu(const EstimateRequest& r, const HostMemoryStatus& host);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_SELECTED_GPU_H_
