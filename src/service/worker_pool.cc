#include "service/worker_pool.h"

#include <algorithm>
#include <utility>

namespace memfit::service {

WorkerPool::WorkerPool(size_t threads, size_t max_queued)
    : capacity_(std::max<size_t>(threads, 1) + max_queued) {
  threads = std::max<size_t>(threads, 1);
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quitting_ = true;
  }
  ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

bool WorkerPool::try_submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Counting running jobs too makes the bound exact: with every thread
    // busy, max_queued more wait and the next is refused, whatever the
    // threads are doing at the instant of the call.
    if (admitted_ >= capacity_) return false;
    ++admitted_;
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
  return true;
}

void WorkerPool::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ready_.wait(lock, [this] { return quitting_ || !queue_.empty(); });
      if (queue_.empty()) return;  // quitting, and every admitted job taken
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job();
    std::lock_guard<std::mutex> lock(mu_);
    --admitted_;
  }
}

}  // namespace memfit::service
