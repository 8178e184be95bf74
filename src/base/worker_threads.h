// Work shared by a few threads, this one among them: the safetensors
// header scan (model/safetensors/header_sum.cc) and the Hub's prefetch
// (hub/remote_file_system.cc). Private to the library.
#ifndef MEMFIT_BASE_WORKER_THREADS_H_
#define MEMFIT_BASE_WORKER_THREADS_H_

#include <functional>

namespace memfit {

// Runs `work` on `threads` threads, the calling one included, and returns
// once each has returned. A thread the system will not start is done
// without (std::system_error swallowed): those started and this one do
// the work, so `work` takes its items from a shared counter until none is
// left. `threads` 0 or 1: `work` runs on this thread alone.
void run_on_threads(unsigned threads, const std::function<void()>& work);

}  // namespace memfit

#endif  // MEMFIT_BASE_WORKER_THREADS_H_
