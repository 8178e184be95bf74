// MlxRunAhead: MLX's commit and in-flight rules (mlx_runahead.h), replayed
// on small op lists worked by hand. Held sizes are bytes; inputs elements
// (Mi = 2^20).
#include <gtest/gtest.h>

#include "engines/mlxlm/mlx_runahead.h"

namespace memfit {
namespace {

constexpr uint64_t kMi = 1ull << 20;

TEST(MlxRunAhead, CommitsAfterMaxOpsAndKeepsMaxActiveBuffersInFlight) {
  // A buffer commits once it holds more than 2 ops (after the third); two
  // committed buffers stay in flight. Each op holds 10 B.
  MlxRunAhead ra(MlxBufferLimits{2, 50, true, 2});
  for (int i = 0; i < 10; ++i) ra.op({}, 10);
  // Ops 1-3: 30, committed; 4-6: 30 + 30, committed; 7-9: 30 + 60 = 90,
  // committed, and the first buffer completes; op 10: 10 + 60 = 70.
  EXPECT_EQ(ra.peak_bytes(), 90u);
}

TEST(MlxRunAhead, CountsInputElementsDistinctOnMetalAndEveryOneOnCuda) {
  // Commit once the inputs reach 2 Mi elements ((elements >> 20) > 1); one
  // buffer in flight.
  auto replay = [](bool distinct) {
    MlxRunAhead ra(MlxBufferLimits{100, 1, distinct, 1});
    ra.op({{1, kMi}}, 5);
    ra.op({{1, kMi}}, 7);   // the same array again: free on Metal
    ra.op({{2, kMi}}, 11);
    ra.op({{3, 3 * kMi}}, 100);
    ra.op({}, 20);
    return ra.peak_bytes();
  };
  // Metal: A, B, C (2 Mi) commit 23; D alone commits 100 over 23 in flight
  // (123), and 23 completes; E: 20 + 100 = 120. Peak 123.
  EXPECT_EQ(replay(true), 123u);
  // CUDA: A, B (2 Mi) commit 12; C, D commit 111 (peak 111 + 12 = 123);
  // E: 20 + 111 = 131.
  EXPECT_EQ(replay(false), 131u);
}

TEST(MlxRunAhead, SaturatesInsteadOfWrapping) {
  MlxRunAhead ra(MlxBufferLimits{0, 50, true, 10});
  ra.op({}, UINT64_MAX - 1);
  ra.op({}, 5);
  EXPECT_EQ(ra.peak_bytes(), UINT64_MAX);
}

}  // namespace
}  // namespace memfit
