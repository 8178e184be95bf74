// The Metal backend's reorder of a split (src/engines/llamacpp/graph/metal_reorder.h)
// on graphs small enough to follow by hand.
#include "engines/llamacpp/graph/metal_reorder.h"

#include "engines/llamacpp/graph/builders.h"

#include <gtest/gtest.h>

#include <vector>

namespace memfit::ggml_graph {
namespace {

// A = W x; B = W A reads A, so B closes the running set {A}; C = W x
// reads only x and writes its own tensor: concurrent with {A} and with B
// (passed over), so it runs beside A, ahead of B.
TEST(MetalReorder, MovesAConcurrentNodeAheadOfTheClosingOne) {
  Graph g;
  const int w = g.external();
  const int x = g.input(Type::kF32, {16, 1, 1, 1}, "x");
  const int a = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {w, x});
  const int b = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {w, a});
  const int c = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {w, x});
  for (int t : {a, b, c}) g.expand(t);
  EXPECT_EQ(metal_reorder(g).nodes(), (std::vector<int>{a, c, b}));
}

// The same, with an op off the safe list (kOther: CONT, FLASH_ATTN_EXT,
// ...) between B and C: the search stops there and nothing moves.
TEST(MetalReorder, StopsAtAnOpOffTheSafeList) {
  Graph g;
  const int w = g.external();
  const int x = g.input(Type::kF32, {16, 1, 1, 1}, "x");
  const int a = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {w, x});
  const int b = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {w, a});
  const int d = g.op(Op::kOther, Type::kF32, {16, 1, 1, 1}, {x});
  const int c = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {w, x});
  for (int t : {a, b, d, c}) g.expand(t);
  EXPECT_EQ(metal_reorder(g).nodes(), (std::vector<int>{a, b, d, c}));
}

// A layer's K cache (slot 0, [0, 1)) ends where its V cache (slot 1,
// [1, 2)) starts. The check conflicts where r.lo < c.hi && r.hi >= c.lo:
// V's store against K's range is 1 < 1, false (concurrent); K's store
// against V's range is 0 < 2 && 1 >= 1 (a conflict).
TEST(MetalReorder, TouchingCacheRangesConflictOneWay) {
  for (bool k_first : {true, false}) {
    Graph g;
    g.external();  // an external ahead of the caches, as a layer has its weights
    const int k = g.cache_external("cache_k");
    const int v = g.cache_external("cache_v");
    const int x = g.input(Type::kF32, {16, 1, 1, 1}, "x");
    const int first_cache = k_first ? k : v;
    const int other_cache = k_first ? v : k;
    // Store into the first cache, read it (through a view) in a product,
    // then store into the other.
    const int s1 = g.op(Op::kSetRows, Type::kExternal, {1, 1, 1, 1}, {x, first_cache}, "set_rows");
    const int view = g.permute(first_cache, 0, 2, 1, 3);
    const int r = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {view, x});
    const int s2 = g.op(Op::kSetRows, Type::kExternal, {1, 1, 1, 1}, {x, other_cache}, "set_rows");
    for (int t : {s1, r, s2}) g.expand(t);
    ASSERT_EQ(g.nodes(), (std::vector<int>{s1, view, r, s2}));
    // r reads what s1 wrote: it closes {s1, view}. V's store joins ahead
    // of r where K came first; K's store stays after r where V came first.
    const std::vector<int> want = k_first ? std::vector<int>{s1, view, s2, r} : std::vector<int>{s1, view, r, s2};
    EXPECT_EQ(metal_reorder(g).nodes(), want) << (k_first ? "K first" : "V first");
  }
}

// A fused run (RMS_NORM then MUL, the norm's one user) moves as one: N
// and its MUL M ride ahead of B together, after A.
TEST(MetalReorder, MovesAFusedRunWhole) {
  Graph g;
  const int w = g.external();
  const int x = g.input(Type::kF32, {16, 1, 1, 1}, "x");
  const int a = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {w, x});
  const int b = g.op(Op::kMulMat, Type::kF32, {16, 1, 1, 1}, {w, a});
  const int n = g.op(Op::kRmsNorm, Type::kF32, {16, 1, 1, 1}, {x});
  const int m = g.op(Op::kMul, Type::kF32, {16, 1, 1, 1}, {n, w});
  for (int t : {a, b, m}) g.expand(t);
  ASSERT_EQ(g.nodes(), (std::vector<int>{a, b, n, m}));
  EXPECT_EQ(metal_reorder(g).nodes(), (std::vector<int>{a, n, m, b}));
}

// Llama 3.2 3B's attention (24 heads, 8 KV heads of 128, F16 cache: a
// cell's K row is 8 * 128 * 2 = 2,048 B) over 4,096 cells.
llamacpp::graph::AttentionShape llama32_metal_attention() {
  llamacpp::graph::AttentionShape s;
  s.heads = 24;
  s.kv_heads = 8;
  s.head_dim = 128;
  s.n_kv = 4096;
  s.k_cell_bytes = 2048;
  s.v_cell_bytes = 2048;
  return s;
}

TEST(MetalFlashAttnScratch, Llama32At128And1Queries) {
  llamacpp::graph::AttentionShape s = llama32_metal_attention();
  // 128 queries: pad 64 * (2,048 * 8 + 2,048 * 8 + 2 * 128) = 2,113,536;
  // blk (128 / 8) * (4,096 / 64) = 1,024; tmp 4 * 32 * 24 * 32 * 130 =
  // 12,779,520. Sum 14,894,080.
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 128), 14'894'080u);
  // 1 query (the vector kernel): pad 64 * (16,384 + 16,384 + 2) =
  // 2,097,280; blk 1 * (4,096 / 32) = 128; tmp 4 * 1 * 24 * 32 * 130 =
  // 399,360. Sum 2,496,768.
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 1), 2'496'768u);
}


// The same shape under each build's rule (llamacpp::MetalFaScratch).
TEST(MetalFlashAttnScratch, Llama32ByRule) {
  using llamacpp::MetalFaScratch;
  llamacpp::graph::AttentionShape s = llama32_metal_attention();
  s.metal_rule = MetalFaScratch::kNone;
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 1), 0u);
  // b6473 to b7590: the vector kernel's partials alone, 4 x 1 x 24 x 32 x
  // 130 = 399,360; nothing for the 8-query kernel.
  s.metal_rule = MetalFaScratch::kVecPartials;
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 1), 399'360u);
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 128), 0u);
  // b7591 to b8509: the vector kernel pads 32 cells, 32 x (16,384 +
  // 16,384 + 2) = 1,048,640; + 128 + 399,360 = 1,448,128. 128 queries as
  // from b8510 (64 cells): 14,894,080.
  s.metal_rule = MetalFaScratch::kKernelPad;
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 1), 1'448'128u);
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 128), 14'894'080u);
  // The pinned v0.4.0: + F16 copies of K and V, each 2 x 128 x 4,096 x 8 =
  // 8,388,608: 2,496,768 + 16,777,216 = 19,273,984 for one query.
  s.metal_rule = MetalFaScratch::kKvF16;
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 1), 19'273'984u);
  // A Q8_0 cache (a cell's K row 1,024 / 32 x 34 = 1,088 B): 128 queries
  // use the F16 copy, so the padding reads its head rows, 2 x 128 = 256 B:
  // 64 x (256 x 8 + 256 x 8 + 2 x 128) = 278,528; + 1,024 + 12,779,520 +
  // 16,777,216 = 29,836,288.
  s.k_cell_bytes = 1088;
  s.v_cell_bytes = 1088;
  s.k_f16_copy_type = true;
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 128), 29'836'288u);
  // 16 queries (the vector kernel, no copy used): 64 x (1,088 x 8 x 2 +
  // 2 x 16) = 1,116,160; the block map 16 x (4,096 / 32) = 2,048; the
  // partials 4 x 16 x 24 x 32 x 130 = 6,389,760; + 16,777,216: 24,285,184.
  EXPECT_EQ(llamacpp::graph::metal_flash_attn_scratch(s, 16), 24'285'184u);
}

}  // namespace
}  // namespace memfit::ggml_graph
