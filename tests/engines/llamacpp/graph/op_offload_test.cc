// Op offload's split (src/engines/llamacpp/graph/op_offload.cc,
// ggml_graph::offload_split) on graphs small enough to place by hand,
// 32-byte alignment.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "engines/llamacpp/graph/ggml_graph.h"

namespace memfit::ggml_graph {
namespace {

using Kind = AllocEvent::Kind;
using Events = std::vector<std::tuple<Kind, std::string, uint64_t, uint64_t>>;

// x (host input, [4, n] f32) -> a = w1 x ([8, n]) -> b = w2 a ([4, n]) ->
// c = w3 b ([2, n], the output); w1 (1000 B) and w2 (640 B) the host's,
// w3 GPU 0's.
Graph chain(uint64_t n) {
  Graph full;
  full.set_named_weights(true);
  const int x = full.input(Type::kF32, {4, n, 1, 1}, "x");
  full.set_layer(0);
  const int w1 = full.weight(-1, "w1");
  const int w2 = full.weight(-1, "w2");
  const int w3 = full.weight(-1, "w3");
  full.set_home(w1, kHomeHost, 1000);
  full.set_home(w2, kHomeHost, 640);
  full.set_home(w3, 0, 10000);
  const int a = full.op(Op::kMulMat, Type::kF32, {8, n, 1, 1}, {w1, x}, "a");
  const int b = full.op(Op::kMulMat, Type::kF32, {4, n, 1, 1}, {w2, a}, "b");
  const int c = full.op(Op::kMulMat, Type::kF32, {2, n, 1, 1}, {w3, b}, "c");
  full.set_output(c);
  full.expand(c);
  return full;
}

Events events_of(const Graph& g, const std::vector<AllocEvent>& trace) {
  Events out;
  for (const AllocEvent& e : trace) out.emplace_back(e.kind, g.at(e.tensor).name, e.offset, e.size);
  return out;
}

TEST(OpOffload, EachHostWeightIsCopiedAtItsOwnSplitsStart) {
  // n = 32: a and b read host weights with a batch (ne1) of 32, so the
  // GPU runs them (offload_op), c runs where w3 is. Split 1 (a): inputs
  // w1 and x, copied first; b reads another host weight while the split
  // has inputs: split 2, input w2. On the GPU: w1's copy 1000 -> 1024 B
  // at 0, x's 512 at 1024, a (1024) at 1536; both copies freed: hole
  // [0, 1536). w2's copy (640) best-fits it at 0, b (512) the rest of it
  // at 640; w2's copy and a freed; c (256) best-fits [0, 640) at 0. The
  // high-water mark is a's end: 1536 + 1024 = 2560 B.
  const Result<Graph> g = offload_split(chain(32), {.offload_gpu = 0, .min_batch = 32}, 0);
  ASSERT_TRUE(g) << g.error().message();
  std::vector<AllocEvent> trace;
  Result<uint64_t> bytes = replay_allocation(*g, 32, &trace);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 2560u);
  const Events expected = {
      {Kind::kAlloc, "w1 (copy)", 0, 1024}, {Kind::kAlloc, "x (copy)", 1024, 512}, {Kind::kAlloc, "a", 1536, 1024},
      {Kind::kFree, "w1 (copy)", 0, 1024},  {Kind::kFree, "x (copy)", 1024, 512},  {Kind::kAlloc, "w2 (copy)", 0, 640},
      {Kind::kAlloc, "b", 640, 512},        {Kind::kFree, "w2 (copy)", 0, 640},     {Kind::kFree, "a", 1536, 1024},
      {Kind::kAlloc, "c", 0, 256},          {Kind::kFree, "b", 640, 512},
  };
  EXPECT_EQ(events_of(*g, trace), expected);
}

TEST(OpOffload, ABatchBelow32StaysOnTheHost) {
  // n = 16: a and b run on the host with their weights; the GPU's split
  // (c) copies b: 4 x 16 x 4 = 256 B at 0, c (128) at 256 -> 384 B.
  const Result<Graph> g = offload_split(chain(16), {.offload_gpu = 0, .min_batch = 32}, 0);
  ASSERT_TRUE(g) << g.error().message();
  Result<uint64_t> bytes = replay_allocation(*g, 32);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 384u);
}

// x and pos (host inputs: [4, 32] f32, 32 i32) -> a = w1 x ([8, 32], w1
// the host's, 1000 B) -> r = rope(a, pos, freqs) -> c = w3 r ([2, 32],
// the output, w3 GPU 0's); the RoPE frequency factors (64 B) where
// `freqs_home` says.
Graph roped(int freqs_home) {
  Graph full;
  full.set_named_weights(true);
  const int x = full.input(Type::kF32, {4, 32, 1, 1}, "x");
  const int pos = full.input(Type::kI32, {32, 1, 1, 1}, "pos");
  full.set_layer(0);
  const int w1 = full.weight(-1, "w1");
  const int freqs = full.weight(-1, "freqs");
  const int w3 = full.weight(-1, "w3");
  full.set_home(w1, kHomeHost, 1000);
  full.set_home(freqs, freqs_home, 64);
  full.set_home(w3, 0, 10000);
  const int a = full.op(Op::kMulMat, Type::kF32, {8, 32, 1, 1}, {w1, x}, "a");
  const int r = full.op(Op::kRope, Type::kF32, {8, 32, 1, 1}, {a, pos, freqs}, "r");
  const int c = full.op(Op::kMulMat, Type::kF32, {2, 32, 1, 1}, {w3, r}, "c");
  full.set_output(c);
  full.expand(c);
  return full;
}

TEST(OpOffload, AHostRopeFactorStartsASplitOfItsOwn) {
  // The RoPE skips the weight rule and follows a to the GPU (pass 2), but
  // its host factors are a weight of another backend: a new split, whose
  // inputs pos (128 B) and the factors (64) are placed where w1's copy
  // (1000 -> 1024 at 0) and x's (512 at 1024) were, freed after a (1024 at
  // 1536): pos at 0, the factors at 128; r runs in place over a (ROPE, a's
  // one user); pos and the factors freed, c (256) best-fits the hole at 0.
  // The high-water mark is a's end, 2,560 B.
  const Result<Graph> g = offload_split(roped(kHomeHost), {.offload_gpu = 0, .min_batch = 32}, 0);
  ASSERT_TRUE(g) << g.error().message();
  std::vector<AllocEvent> trace;
  Result<uint64_t> bytes = replay_allocation(*g, 32, &trace);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 2560u);
  const Events expected = {
      {Kind::kAlloc, "w1 (copy)", 0, 1024},  {Kind::kAlloc, "x (copy)", 1024, 512}, {Kind::kAlloc, "a", 1536, 1024},
      {Kind::kFree, "w1 (copy)", 0, 1024},   {Kind::kFree, "x (copy)", 1024, 512},  {Kind::kAlloc, "pos (copy)", 0, 128},
      {Kind::kAlloc, "freqs (copy)", 128, 64}, {Kind::kInplace, "r", 1536, 1024},     {Kind::kFree, "pos (copy)", 0, 128},
      {Kind::kFree, "freqs (copy)", 128, 64}, {Kind::kAlloc, "c", 0, 256},            {Kind::kFree, "r", 1536, 1024},
  };
  EXPECT_EQ(events_of(*g, trace), expected);
  // The factors on the GPU: one split, pos copied at its start with w1
  // and x (at 1536, 128 B), a above it at 1664 (r in place over it):
  // 1664 + 1024 = 2,688 B.
  const Result<Graph> one = offload_split(roped(0), {.offload_gpu = 0, .min_batch = 32}, 0);
  ASSERT_TRUE(one) << one.error().message();
  Result<uint64_t> one_bytes = replay_allocation(*one, 32);
  ASSERT_TRUE(one_bytes) << one_bytes.error().message();
  EXPECT_EQ(*one_bytes, 2688u);
}

TEST(OpOffload, AWeightWithoutAHomeIsAnError) {
  Graph full = chain(32);
  full.set_home(1, kHomeUnset, 0);  // w1 (x is tensor 0)
  EXPECT_FALSE(offload_split(full, {.offload_gpu = 0, .min_batch = 32}, 0));
}

}  // namespace
}  // namespace memfit::ggml_graph
