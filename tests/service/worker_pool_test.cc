// WorkerPool: the admission bound is exact (threads + queue), refused jobs
// never run, and the destructor runs every admitted job.
#include "service/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace memfit::service {
namespace {

// Jobs that block until open() is called.
class Gate {
 public:
  void pass() {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
  }
  bool wait_waiting(int count) {
    std::unique_lock<std::mutex> lock(mu_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return waiting_ >= count; });
  }
  void open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  int waiting_ = 0;
  bool open_ = false;
};

TEST(WorkerPool, AdmitsThreadsPlusQueueAndRefusesTheNext) {
  Gate gate;
  std::atomic<int> ran{0};
  {
    WorkerPool pool(2, 3);
    // 2 running + 3 waiting = 5 admitted; the 6th and 7th are refused.
    for (int i = 0; i < 5; ++i) {
      EXPECT_TRUE(pool.try_submit([&] {
        gate.pass();
        ++ran;
      }));
    }
    ASSERT_TRUE(gate.wait_waiting(2));  // both threads are busy
    EXPECT_FALSE(pool.try_submit([&] { ran += 100; }));
    EXPECT_FALSE(pool.try_submit([&] { ran += 100; }));
    gate.open();
  }  // the destructor finishes the 3 waiting jobs too
  EXPECT_EQ(ran.load(), 5);
}

TEST(WorkerPool, ZeroQueueAdmitsOneJobPerThread) {
  Gate gate;
  WorkerPool pool(1, 0);
  EXPECT_TRUE(pool.try_submit([&] { gate.pass(); }));
  EXPECT_FALSE(pool.try_submit([] {}));
  gate.open();
}

TEST(WorkerPool, RoomReturnsWhenAJobEnds) {
  // Declared before the pool, so it outlives the pool's destructor, which
  // runs the second job (clang's ASan saw it written after its scope).
  std::atomic<int> ran{0};
  WorkerPool pool(1, 0);
  EXPECT_TRUE(pool.try_submit([&] { ++ran; }));
  // The one place is taken until the job is done; then a second job is
  // admitted. Bounded wait: 1000 tries, 10 ms apart.
  bool admitted = false;
  for (int i = 0; i < 1000 && !admitted; ++i) {
    admitted = pool.try_submit([&] { ++ran; });
    if (!admitted) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(admitted);
}

}  // namespace
}  // namespace memfit::service
