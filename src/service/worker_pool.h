// WorkerPool: a fixed set of threads running jobs from a bounded queue, so
// that a burst of requests is refused at once instead of queued without
// bound (docs/service.md, "Limits").
#ifndef MEMFIT_SERVICE_WORKER_POOL_H_
#define MEMFIT_SERVICE_WORKER_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace memfit::service {

class WorkerPool {
 public:
  // Starts `threads` threads (at least 1). At most `threads + max_queued`
  // jobs are admitted at once: running or waiting.
  WorkerPool(size_t threads, size_t max_queued);
  // Runs every admitted job to its end, then joins the threads. Must not be
  // called from a job.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Admits `job` and returns true, or returns false at once (the job is
  // dropped unrun) when threads + max_queued jobs are already admitted.
  // A job must not throw. Thread-safe.
  bool try_submit(std::function<void()> job);

 private:
  void run();

  const size_t capacity_;  // threads + max_queued
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  size_t admitted_ = 0;                      // guarded by mu_: queued + running
  bool quitting_ = false;                    // guarded by mu_
  std::vector<std::thread> threads_;
};

}  // namespace memfit::service

#endif  // MEMFIT_SERVICE_WORKER_POOL_H_
