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

TEST(MlxRunAhead, CountsOutputsOnMetalButNotOnCuda) {
  // Metal's set_output_array binds through set_input_array, so an op's
  // output counts toward the buffer's elements (mlx/backend/metal/device.cpp);
  // CUDA's does not. Commit at 2 Mi elements; one buffer in flight; no op
  // consumes another's output.
  auto replay = [](bool outputs) {
    MlxBufferLimits limits{100, 1, true, 1};
    limits.count_outputs = outputs;
    MlxRunAhead ra(limits);
    ra.op({{1, kMi}}, 5, {2, kMi});
    ra.op({{4, kMi}}, 7, {3, kMi});
    ra.op({}, 11);
    return ra.peak_bytes();
  };
  // Outputs counted: A's input and output reach 2 Mi, so A commits alone
  // (peak 5); B's input and output reach 2 Mi: 7 + 5 = 12, committed, and
  // A completes; C: 11 + 7 = 18.
  EXPECT_EQ(replay(true), 18u);
  // Inputs alone: A (1 Mi) stays open; B adds 1 Mi: 12 held, committed;
  // C: 11 + 12 = 23.
  EXPECT_EQ(replay(false), 23u);
}

TEST(MlxRunAhead, AnOutputLivesUntilItsLastConsumersBufferCompletes) {
  // A buffer commits after its second op; one buffer in flight. A's output
  // (10 B) is consumed by C, in the next buffer: MLX's completion handler
  // of C's buffer holds it, so it stays when A's buffer completes.
  MlxRunAhead ra(MlxBufferLimits{1, 1000, true, 1});
  ra.op({}, 10, {1, 1});       // A
  ra.op({}, 20, {2, 1});       // B: A + B (30) committed
  ra.op({{1, 1}}, 5, {3, 1});  // C takes A's 10 into the open buffer: 15 + 20
  ra.op({}, 1);                // D: 16 + 20 = 36, committed; A and B's buffer
                               // completes with B's 20 (A's 10 moved on)
  ra.op({}, 100);              // E: 100 + 16 = 116 (without the move: 100 + 6)
  EXPECT_EQ(ra.peak_bytes(), 116u);
}

TEST(MlxRunAhead, AnOutputWrittenIntoAnInputCountsOnce) {
  // An in-place op's output is the input's buffer: Metal's distinct count
  // sees it once. 1 Mi bound, below the 2 Mi commit point: one open buffer
  // holds 3 + 4 = 7.
  MlxRunAhead ra(MlxBufferLimits{100, 1, true, 1});
  ra.op({{1, kMi}}, 3, {1, kMi});
  ra.op({}, 4);
  EXPECT_EQ(ra.peak_bytes(), 7u);
}

TEST(MlxRunAhead, SaturatesInsteadOfWrapping) {
  MlxRunAhead ra(MlxBufferLimits{0, 50, true, 10});
  ra.op({}, UINT64_MAX - 1);
  ra.op({}, 5);
  EXPECT_EQ(ra.peak_bytes(), UINT64_MAX);
}

}  // namespace
}  // namespace memfit
