// vLLM's KV cache for DeepSeek V4 (docs/engine-vllm.md, "DeepSeek V4"),
// worked by hand on DeepSeek-V4-Flash's config (the log corpus's copy):
// 43 decoder layers, compress_ratios [0, 0, then 4, 128 in turn, ..., 4]
// (21 layers of ratio 4, 20 of ratio 128, 2 window-only), sliding_window
// 128, head_dim 512, index_head_dim 128.
#include <gtest/gtest.h>

#include <array>

#include "engines/vllm/compressed_kv.h"
#include "engines/vllm/parts.h"
#include "memfit/model_spec.h"
#include "support/corpus.h"

namespace memfit {
namespace {

constexpr const char* kFlashConfig = "logs/vllm/vllm-ptocu-deepseek-v4-flash-tp2-h200nvl-4k-v0230.config.json";

ModelSpec flash() {
  Result<ModelSpec> spec = parse_model_config(testing::read_test_data(kFlashConfig));
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message());
  return spec.ok() ? *spec : ModelSpec{};
}

VllmSettings fp8_settings(uint64_t max_model_len) {
  VllmSettings s;
  s.kv_cache_fp8 = true;
  s.max_model_len = max_model_len;
  s.max_num_batched_tokens = 8192;
  return s;
}

TEST(VllmCompressedKv, TheConfigGivesEveryDecoderLayersRatio) {
  const ModelSpec spec = flash();
  const CompressedAttentionGeometry& g = spec.compressed_attention;
  // compress_ratios has 44 entries: the 43 decoder layers', then the MTP
  // layer's; only the first 43 are read.
  ASSERT_EQ(g.compress_ratios.size(), 43u);
  EXPECT_EQ(g.compress_ratios[0], 0u);
  EXPECT_EQ(g.compress_ratios[2], 4u);
  EXPECT_EQ(g.compress_ratios[3], 128u);
  EXPECT_EQ(g.compress_ratios[42], 4u);
  EXPECT_EQ(g.window_tokens, 128u);
  EXPECT_EQ(g.head_dim, 512u);
  EXPECT_EQ(g.index_head_dim, 128u);
}

TEST(VllmCompressedKv, OtherModelsHaveNoCompressedLayout) {
  const ModelSpec v3 = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  EXPECT_TRUE(v3.compressed_attention.compress_ratios.empty());
  EXPECT_FALSE(vllm_compressed_layout(v3, fp8_settings(4096)).has_value());
}

TEST(VllmCompressedKv, LayerTuplesPadTheGroupsLeast) {
  // Flash's groups hold 21 (full: 21 x 37,440 B pages, 21 x 8,640, 20 x
  // 1,728), 43 (windows), 21 (ratio-4 states) and 20 (ratio-128 states)
  // layer tuples. From 21: d = 21 pads 43 -> 63 (20) and 20 -> 21 (1):
  // 21; d = 22 pads 1 + 1 + 1 + 2 = 5; d = 23: 2 + 3 + 2 + 3 = 10. 22.
  const std::array<uint64_t, 4> counts{21, 43, 21, 20};
  EXPECT_EQ(vllm_layer_tuples(counts, 21), 22u);
  // A tie keeps the larger: {2, 3} from 2: d = 2 pads 0 + 1, d = 3 pads
  // 1 + 0: 3.
  const std::array<uint64_t, 2> tie{2, 3};
  EXPECT_EQ(vllm_layer_tuples(tie, 2), 3u);
  const std::array<uint64_t, 1> one{5};
  EXPECT_EQ(vllm_layer_tuples(one, 9), 9u);  // past every count: the bound
}

TEST(VllmCompressedKv, Fp8PagesGroupsAndPool) {
  // fp8_ds_mla rows of 584 B, pages padded to 576 B:
  //   window: 64 x 584 = 37,376 -> 37,440 (65 x 576);
  //   ratio 4 rows: 256 / 4 = 64 x 584 -> 37,440;
  //   ratio 128 rows: 2 x 584 = 1,168 -> 1,728 (3 x 576);
  //   indexer keys: 64 x (128 + 4) = 8,448 -> 8,640 (15 x 576);
  //   ratio-4 state: 4 x 2 x 2 x 512 x 4 B = 32,768 -> 32,832 (57 x 576);
  //   ratio-4 indexer state: 4 x 2 x 2 x 128 x 4 = 8,192 -> 8,640;
  //   ratio-128 state: 8 x 2 x 1 x 512 x 4 = 32,768 -> 32,832.
  // The states pad up to the nearest full page: 32,832 -> 37,440, 8,640
  // stays. Groups (T = 22 tuples): full (62 layers), windows 43 split
  // 22 + 21, ratio-4 states (42: 21 at 37,440 and 21 at 8,640), ratio-128
  // states (20).
  const std::optional<VllmKvLayout> l = vllm_compressed_layout(flash(), fp8_settings(65536));
  ASSERT_TRUE(l.has_value());
  ASSERT_EQ(l->groups.size(), 5u);
  EXPECT_EQ(l->group_size, 22u);
  EXPECT_EQ(l->attention_block_size, 256u);
  EXPECT_EQ(l->page_size_bytes, 37440u);
  // Full: 21 x 37,440 + 21 x 8,640 + 20 x 1,728 = 786,240 + 181,440 + 34,560.
  EXPECT_EQ(l->groups[0].kind, VllmSpecKind::kMla);
  EXPECT_EQ(l->groups[0].layers, 62u);
  EXPECT_EQ(l->groups[0].page_bytes, 1002240u);
  EXPECT_EQ(l->groups[1].window, 128u);
  EXPECT_EQ(l->groups[1].block_size, 64u);
  EXPECT_EQ(l->groups[1].page_bytes, 22u * 37440);
  EXPECT_EQ(l->groups[2].page_bytes, 21u * 37440);
  EXPECT_EQ(l->groups[3].window, 8u);   // coff 2 x ratio 4
  EXPECT_EQ(l->groups[3].block_size, 4u);
  EXPECT_EQ(l->groups[3].layers, 42u);
  EXPECT_EQ(l->groups[3].page_bytes, 21u * (37440 + 8640));
  EXPECT_EQ(l->groups[4].window, 128u);  // coff 1 x ratio 128
  EXPECT_EQ(l->groups[4].block_size, 8u);
  EXPECT_EQ(l->groups[4].page_bytes, 20u * 37440);
  // The pool per page size holds the most layers of it in one group:
  // 37,440 x 22 (windows) + 8,640 x 21 + 1,728 x 20 = 1,039,680 B a block.
  EXPECT_EQ(l->bytes_per_block, 1039680u);
  // The start check's tuple: 22 x (37,440 + 8,640 + 1,728) = 1,051,776.
  EXPECT_EQ(l->request_unit_bytes, 1002240u);
  EXPECT_EQ(l->request_tuple_bytes, 1051776u);
}

TEST(VllmCompressedKv, TokensAreConcurrencyTimesLength) {
  // uv-xiao/pto-cu's 64K probe (vLLM 0.23.0): 32.08 GiB = 34,445,637,714 B
  // of KV memory // 1,039,680 = 33,130 blocks. A request of 65,536 tokens,
  // 8,192 batched: full cdiv(65,536, 256) = 256 pages; windows
  // cdiv(min(127 + 8,192, 65,536), 64) + 1 = 131; ratio-4 states
  // cdiv(7 + 8,192, 4) + 1 = 2,051; ratio-128 states cdiv(8,319, 8) + 1 =
  // 1,041. Weighted: 256 x 1,002,240 + 131 x 823,680 + 131 x 786,240 +
  // 2,051 x 967,680 + 1,041 x 748,800 = 3,231,685,440 B;
  // cdiv(3,231,685,440, 1,002,240) = 3,225 blocks a request (3,224.46).
  // 33,130 / 3,225 = 10.2729x (printed 10.27x); int(10.2729 x 65,536) =
  // 673,242 tokens (printed 673,323: the 32.08 GiB print is rounded).
  VllmKvLayout l = *vllm_compressed_layout(flash(), fp8_settings(65536));
  vllm_request_blocks(l, fp8_settings(65536), 65536);
  EXPECT_EQ(l.groups[0].blocks_per_request, 256u);
  EXPECT_EQ(l.groups[1].blocks_per_request, 131u);
  EXPECT_EQ(l.groups[3].blocks_per_request, 2051u);
  EXPECT_EQ(l.groups[4].blocks_per_request, 1041u);
  EXPECT_EQ(l.blocks_per_request, 3225u);
  const VllmCapacity c = vllm_capacity(l, 34445637714ull, 65536, VllmTokensForm::kConcurrencyTimesLen);  // v0.23
  EXPECT_EQ(c.num_blocks, 33130u);
  EXPECT_EQ(c.kv_tokens, 673242u);  // 33,130 x 65,536 / 3,225 = 673,242.7
  EXPECT_DOUBLE_EQ(c.max_concurrency, 33130.0 / 3225.0);
  // A release whose form is blocks per group (a log printing no version)
  // still prints this layout as concurrency x length: vLLM runs DeepSeek V4
  // from the 0.22 line only (33,130 // 5 groups x the smallest block, 4,
  // would be 26,504).
  EXPECT_EQ(vllm_kv_tokens(l, 33130, 65536, VllmTokensForm::kBlocksPerGroup), 673242u);
}

TEST(VllmCompressedKv, StartCheckWeighsEveryGroupsPages) {
  // vllm#44376 (v0.22, the LLM class: 16,384 batched tokens), 30,000
  // tokens: pages full cdiv(30,000, 256) = 118; windows cdiv(min(127 +
  // 16,384, 30,000), 64) + 1 = 259 twice; ratio-4 states cdiv(16,391, 4)
  // + 1 = 4,099; ratio-128 states cdiv(16,511, 8) + 1 = 2,065; 6,800 in
  // all x 1,051,776 = 7,152,076,800 B = 6.66 GiB (printed "6.66 GiB KV
  // cache is needed"), past the 5.44 GiB it had.
  VllmSettings s = fp8_settings(30000);
  s.max_num_batched_tokens = 16384;
  VllmKvLayout l = *vllm_compressed_layout(flash(), s);
  vllm_request_blocks(l, s, 30000);
  EXPECT_EQ(l.request_bytes, 7152076800ull);
  const uint64_t available = 5841155523ull;  // 5.44 GiB
  EXPECT_FALSE(vllm_request_fits(l, available / l.bytes_per_block, available));
  EXPECT_TRUE(vllm_request_fits(l, 0, 7152076800ull));
}

TEST(VllmCompressedKv, SixteenBitRowsAreUnpadded) {
  // --kv-cache-dtype auto: plain 16-bit rows of 512 and no 576 B padding
  // but the indexer's: window 64 x 1,024 = 65,536; ratio 4 64 x 1,024 =
  // 65,536; ratio 128 2 x 1,024 = 2,048; indexer 8,640; states 32,768 and
  // 8,192. States pad to full pages: 32,768 -> 65,536, 8,192 -> 8,640.
  // Pool: 65,536 x 22 + 8,640 x 21 + 2,048 x 20 = 1,664,192 B a block.
  VllmSettings s = fp8_settings(4096);
  s.kv_cache_fp8 = false;
  const std::optional<VllmKvLayout> l = vllm_compressed_layout(flash(), s);
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->groups[0].page_bytes, 21u * 65536 + 21u * 8640 + 20u * 2048);
  EXPECT_EQ(l->bytes_per_block, 1664192u);
}

}  // namespace
}  // namespace memfit
