// The allocator replay (src/engines/llamacpp/graph/ggml_graph.h) on graphs small enough
// to place by hand, 32-byte alignment as on the CPU.
#include "engines/llamacpp/graph/ggml_graph.h"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

namespace memfit::ggml_graph {
namespace {

using Kind = AllocEvent::Kind;

struct Placed {
  Kind kind;
  int tensor;
  uint64_t offset;
  uint64_t size;
  bool operator==(const Placed&) const = default;
};

std::vector<Placed> placed(const std::vector<AllocEvent>& trace) {
  std::vector<Placed> out;
  for (const AllocEvent& e : trace) out.push_back({e.kind, e.tensor, e.offset, e.size});
  return out;
}

TEST(GgmlGraphReplay, InPlaceBestFitAndMergedHoles) {
  Graph g;
  const int x = g.input(Type::kF32, {16, 1, 1, 1}, "x");              // 64 B
  const int y = g.op(Op::kOther, Type::kF32, {32, 1, 1, 1}, {x});     // 128 B
  const int z = g.op(Op::kMul, Type::kF32, {32, 1, 1, 1}, {y});       // in place on y
  const int w = g.op(Op::kOther, Type::kF32, {8, 1, 1, 1}, {z});      // 32 B
  const int v = g.op(Op::kOther, Type::kF32, {48, 1, 1, 1}, {w});     // 192 B
  g.set_output(v);
  g.expand(v);
  std::vector<AllocEvent> trace;
  // x at 0; y above it at 64, then x is freed: hole [0, 64). z takes y's
  // bytes in place (y's only user, same layout). w (32 B) best-fits the
  // hole at 0, leaving [32, 64); freeing z's [64, 192) merges it with that
  // hole and the open end into [32, ...). v (192 B) goes at 32 while w
  // still lives: the buffer is 32 + 192 = 224 B.
  Result<uint64_t> bytes = replay_allocation(g, 32, &trace);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 224u);
  const std::vector<Placed> expected = {
      {Kind::kAlloc, x, 0, 64},    {Kind::kAlloc, y, 64, 128}, {Kind::kFree, x, 0, 64},
      {Kind::kInplace, z, 64, 128}, {Kind::kAlloc, w, 0, 32},  {Kind::kFree, z, 64, 128},
      {Kind::kAlloc, v, 32, 192},  {Kind::kFree, w, 0, 32},
  };
  EXPECT_EQ(placed(trace), expected);
}

TEST(GgmlGraphReplay, ADeviceSplitPlacesTheCopiesOfItsInputsFirst) {
  // The host keeps the inputs and the token rows' gather; the GPU's split
  // reads copies of the rows and the mask, made in the order it first
  // reads them (the rows by `a`, the mask by its cast), placed first.
  Graph full;
  const int weight = full.external();
  const int tok = full.input(Type::kI32, {4, 1, 1, 1}, "tok");                          // 16 B
  const int rows = full.op(Op::kOther, Type::kF32, {16, 1, 1, 1}, {weight, tok}, "rows");  // 64 B
  full.set_host(rows);
  const int mask = full.input(Type::kF32, {8, 1, 1, 1}, "mask");                        // 32 B
  const int cast = full.op(Op::kOther, Type::kF16, {8, 1, 1, 1}, {mask}, "cast");       // 16 B -> 32
  const int a = full.op(Op::kOther, Type::kF32, {16, 1, 1, 1}, {weight, rows}, "a");    // 64 B
  const int b = full.op(Op::kAdd, Type::kF32, {16, 1, 1, 1}, {a, rows}, "b");           // in place on a
  const int c = full.op(Op::kOther, Type::kF32, {8, 1, 1, 1}, {b, cast}, "c");          // 32 B
  full.set_output(c);
  full.expand(c);
  const Graph g = device_split(full);
  std::vector<AllocEvent> trace;
  // rows' copy at 0, the mask's at 64; a at 96, b over it in place; the
  // rows' copy is freed after b, its last reader: hole [0, 64). The cast
  // (32 B) best-fits it at 0, then the mask's copy is freed, the hole
  // [32, 96); c at 32. b is freed, c (an output) stays: the buffer's
  // high-water mark is a's end, 96 + 64 = 160 B. The host's tok and rows
  // are not placed here.
  Result<uint64_t> bytes = replay_allocation(g, 32, &trace);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 160u);
  std::vector<std::tuple<Kind, std::string, uint64_t, uint64_t>> events;
  for (const AllocEvent& e : trace) events.emplace_back(e.kind, g.at(e.tensor).name, e.offset, e.size);
  const std::vector<std::tuple<Kind, std::string, uint64_t, uint64_t>> expected = {
      {Kind::kAlloc, "rows (copy)", 0, 64}, {Kind::kAlloc, "mask (copy)", 64, 32}, {Kind::kAlloc, "a", 96, 64},
      {Kind::kInplace, "b", 96, 64},        {Kind::kFree, "rows (copy)", 0, 64},   {Kind::kAlloc, "cast", 0, 32},
      {Kind::kFree, "mask (copy)", 64, 32}, {Kind::kAlloc, "c", 32, 32},           {Kind::kFree, "b", 96, 64},
      {Kind::kFree, "cast", 0, 32},
  };
  EXPECT_EQ(events, expected);
}

TEST(GgmlGraphReplay, UnderALayerSplitTheNextGpuCopiesTheLastRowsAndTheCast) {
  // Layer 0 on GPU 0, layer 1 and the output on GPU 1. The mask's cast
  // belongs to no layer and runs where the node before it does (layer 0's
  // a); GPU 1's split reads layer 0's output b and the cast, copied first
  // in that order (its first node d reads b, then e reads the cast).
  Graph full;
  const int weight = full.external();
  const int x = full.input(Type::kF32, {16, 1, 1, 1}, "x");                       // 64 B
  const int mask = full.input(Type::kF32, {8, 1, 1, 1}, "mask");                 // 32 B
  full.set_layer(0);
  const int a = full.op(Op::kOther, Type::kF32, {16, 1, 1, 1}, {weight, x}, "a");  // 64 B
  full.set_layer(-1);
  const int cast = full.op(Op::kOther, Type::kF16, {8, 1, 1, 1}, {mask}, "cast");  // 16 B -> 32
  full.set_layer(0);
  const int b = full.op(Op::kAdd, Type::kF32, {16, 1, 1, 1}, {a, cast}, "b");   // in place on a
  full.set_layer(1);
  const int d = full.op(Op::kOther, Type::kF32, {32, 1, 1, 1}, {weight, b}, "d");  // 128 B
  const int e = full.op(Op::kOther, Type::kF32, {8, 1, 1, 1}, {d, cast}, "e");     // 32 B
  full.set_output(e);
  full.expand(a);
  full.expand(cast);
  full.expand(e);
  const Graph g = device_split(full, {0, 1, 1}, 1);
  // b's copy at 0 (64 B), the cast's at 64 (32 B); d at 96 (128 B), then
  // b's copy is freed; e (32 B) best-fits the hole at 0. The high-water
  // mark is d's end: 96 + 128 = 224 B. GPU 0's a, b and the cast are not
  // placed here.
  std::vector<AllocEvent> trace;
  Result<uint64_t> bytes = replay_allocation(g, 32, &trace);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 224u);
  std::vector<std::tuple<Kind, std::string, uint64_t, uint64_t>> events;
  for (const AllocEvent& ev : trace) events.emplace_back(ev.kind, g.at(ev.tensor).name, ev.offset, ev.size);
  const std::vector<std::tuple<Kind, std::string, uint64_t, uint64_t>> expected = {
      {Kind::kAlloc, "b (copy)", 0, 64}, {Kind::kAlloc, "cast (copy)", 64, 32}, {Kind::kAlloc, "d", 96, 128},
      {Kind::kFree, "b (copy)", 0, 64},  {Kind::kAlloc, "e", 0, 32},            {Kind::kFree, "d", 96, 128},
      {Kind::kFree, "cast (copy)", 64, 32},
  };
  EXPECT_EQ(events, expected);
}

TEST(GgmlGraphReplay, ViewsKeepTheirSourceAndOutputsStay) {
  Graph g;
  const int weight = g.external();
  const int a = g.op(Op::kOther, Type::kF32, {10, 1, 1, 1}, {weight});  // 40 B -> 64
  const int r = g.reshape(a, {5, 2, 1, 1});
  const int b = g.op(Op::kOther, Type::kF32, {8, 1, 1, 1}, {weight});   // 32 B
  const int c = g.op(Op::kAdd, Type::kF32, {5, 2, 1, 1}, {r, b});       // 40 B
  g.set_output(c);
  g.expand(c);
  std::vector<AllocEvent> trace;
  // a at 0 (40 B rounded to 64), b at 64. c may not reuse a through its
  // view r (a view is never reused in place) nor b (another layout), so it
  // goes at 96 -> 96 + 64 = 160 B. Then r's last user frees a; b is freed;
  // c is an output and never freed.
  Result<uint64_t> bytes = replay_allocation(g, 32, &trace);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 160u);
  const std::vector<Placed> expected = {
      {Kind::kAlloc, a, 0, 64}, {Kind::kAlloc, b, 64, 32}, {Kind::kAlloc, c, 96, 64},
      {Kind::kFree, a, 0, 64},  {Kind::kFree, b, 64, 32},
  };
  EXPECT_EQ(placed(trace), expected);
}

TEST(GgmlGraphReplay, LeavesAreListedDepthFirstAndPlacedFirst) {
  Graph g;
  const int weight = g.external();
  const int t1 = g.input(Type::kI32, {4, 1, 1, 1}, "t1");    // 16 B -> 32
  const int t2 = g.input(Type::kI64, {8, 1, 1, 1}, "t2");    // 64 B
  const int unused = g.input(Type::kF32, {8, 1, 1, 1}, "u"); // never read
  const int a = g.op(Op::kOther, Type::kF32, {8, 1, 1, 1}, {weight, t2});
  const int b = g.op(Op::kOther, Type::kF32, {8, 1, 1, 1}, {a, t1});
  g.expand(b);
  g.expand(unused);
  EXPECT_EQ(g.leaves(), (std::vector<int>{weight, t2, t1, unused}));
  EXPECT_EQ(g.nodes(), (std::vector<int>{a, b}));
  // t2 [0, 64), t1 [64, 96), u [96, 128) (never freed: nothing reads it),
  // a [128, 160); t2 freed after a; b best-fits t2's hole at 0.
  std::vector<AllocEvent> trace;
  Result<uint64_t> bytes = replay_allocation(g, 32, &trace);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, 160u);
  ASSERT_EQ(trace.size(), 8u);
  EXPECT_EQ(trace[5].tensor, b);
  EXPECT_EQ(trace[5].offset, 0u);
}

TEST(GgmlGraphReplay, AbsurdShapesAreRefused) {
  Graph g;
  const int a = g.input(Type::kF32, {uint64_t{1} << 40, uint64_t{1} << 30, 1, 1}, "a");
  g.expand(g.op(Op::kOther, Type::kF32, {1, 1, 1, 1}, {a}));
  Result<uint64_t> bytes = replay_allocation(g, 32);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().kind(), ErrorKind::kOverflow);
}

}  // namespace
}  // namespace memfit::ggml_graph
