// Work shared by a few threads (base/worker_threads.h).
#include "base/worker_threads.h"

#include <system_error>
#include <thread>
#include <vector>

namespace memfit {

void run_on_threads(unsigned threads, const std::function<void()>& work) {
  std::vector<std::thread> workers;
  try {
    for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work);
  } catch (const std::system_error&) {
    // Fewer threads than asked: those started and this one do the work.
  }
  work();
  for (std::thread& worker : workers) worker.join();
}

}  // namespace memfit
