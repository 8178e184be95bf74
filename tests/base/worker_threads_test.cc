// run_on_threads (base/worker_threads.h): the work shared from a counter,
// each item taken once, the calling thread among the workers.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "base/worker_threads.h"

namespace memfit {
namespace {

TEST(WorkerThreads, EveryItemOnceOverFourThreads) {
  constexpr size_t kItems = 1000;
  std::vector<std::atomic<int>> taken(kItems);
  std::atomic<size_t> next{0};
  run_on_threads(4, [&] {
    for (size_t i = next++; i < kItems; i = next++) ++taken[i];
  });
  for (size_t i = 0; i < kItems; ++i) EXPECT_EQ(taken[i].load(), 1) << i;
  // Each of the 4 workers stops at its first index past the end: 1000 + 4.
  EXPECT_EQ(next.load(), kItems + 4);
}

TEST(WorkerThreads, OneThreadOrNoneIsThisOne) {
  for (unsigned threads : {0u, 1u}) {
    std::vector<std::thread::id> ran;
    run_on_threads(threads, [&] { ran.push_back(std::this_thread::get_id()); });
    ASSERT_EQ(ran.size(), 1u) << threads;
    EXPECT_EQ(ran[0], std::this_thread::get_id());
  }
}

}  // namespace
}  // namespace memfit
