// The prefill guard, case by case as docs/service.md ("POST /v1/admit")
// and memfit/prefill_guard.h define them. Geometry A is Qwen3-8B: 32
// query heads, 8 kv heads, head_dim 128, 36 layers x 2 x 8 x 128 x 2 B =
// 147,456 B of KV per token.
#include <gtest/gtest.h>

#include "memfit/prefill_guard.h"
#include "support/corpus.h"

namespace memfit {
namespace {

AttentionGeometry geometry_a() {
  return attention_geometry(testing::corpus_spec("qwen3/Qwen3-8B"), KvElement::kFp16);
}

AttentionGeometry heads(uint64_t q, uint64_t kv, uint64_t head_dim) {
  AttentionGeometry g;
  g.q_heads = q;
  g.kv_heads = kv;
  g.head_dim = head_dim;
  return g;
}

const SdpaKernels kNoTiled;

TEST(AttentionGeometry, FromTheModelSpec) {
  AttentionGeometry g = geometry_a();
  EXPECT_EQ(g.q_heads, 32u);
  EXPECT_EQ(g.kv_heads, 8u);
  EXPECT_EQ(g.head_dim, 128u);
  EXPECT_EQ(g.every_layer_kv_bytes_per_token, 147456u);
  // Hybrid: only the 16 attention layers of Qwen3.5-27B: 16 x 2 x 4 x 256 x 2 = 65,536.
  EXPECT_EQ(attention_geometry(testing::corpus_spec("qwen3_5/Qwen3.5-27B"), KvElement::kFp16)
                .every_layer_kv_bytes_per_token, 65536u);
  // MLA: the latent rate, 61 x (512 + 64) x 2 = 70,272; int8 halves it.
  EXPECT_EQ(attention_geometry(testing::corpus_spec("deepseek_v3/DeepSeek-V3"), KvElement::kInt8)
                .every_layer_kv_bytes_per_token, 35136u);
}

TEST(Sdpa, DecodeQueriesAreFusedForVectorHeadDims) {
  // q 1, gqa 32/8 = 4, 1 x 4 <= 32: output only, 32 x 1 x 128 x 4 = 16,384.
  EXPECT_TRUE(uses_fused_sdpa(geometry_a(), 1, 1000));
  EXPECT_EQ(sdpa_transient_bytes(geometry_a(), kNoTiled, 1, 1000), 16384u);
  // q 8: 8 x 4 = 32 <= 32, still fused: 32 x 8 x 128 x 4 = 131,072.
  EXPECT_EQ(sdpa_transient_bytes(geometry_a(), kNoTiled, 8, 1000), 131072u);
}

TEST(Sdpa, DecodeWithTooWideGqaFallsBack) {
  // 64 q / 8 kv = 8; q 8 x 8 = 64 > 32: unfused.
  // output 64 x 8 x 128 x 4 = 262,144; scores 64 x 8 x 1000 x 2 = 1,024,000; 1,286,144.
  EXPECT_FALSE(uses_fused_sdpa(heads(64, 8, 128), 8, 1000));
  EXPECT_EQ(sdpa_transient_bytes(heads(64, 8, 128), kNoTiled, 8, 1000), 1286144u);
}

TEST(Sdpa, DecodeHeadDim80IsNotAVectorDim) {
  // output 32 x 1 x 80 x 4 = 10,240; scores 32 x 1 x 1000 x 2 = 64,000; 74,240.
  EXPECT_EQ(sdpa_transient_bytes(heads(32, 8, 80), kNoTiled, 1, 1000), 74240u);
  // ...but 80 is a full-prefill dim: q 100 fused, 32 x 100 x 80 x 4 = 1,024,000.
  EXPECT_EQ(sdpa_transient_bytes(heads(32, 8, 80), kNoTiled, 100, 1000), 1024000u);
}

TEST(Sdpa, PrefillFusedForFullHeadDims) {
  // 32 x 2048 x 128 x 4 = 33,554,432.
  EXPECT_EQ(sdpa_transient_bytes(geometry_a(), kNoTiled, 2048, 10000), 33554432u);
}

TEST(Sdpa, PrefillHeadDim256MaterialisesScores) {
  // 16 q heads: output 16 x 2048 x 256 x 4 = 33,554,432;
  // scores 16 x 2048 x 4096 x 2 = 268,435,456; total 301,989,888.
  EXPECT_EQ(sdpa_transient_bytes(heads(16, 2, 256), kNoTiled, 2048, 4096), 301989888u);
}

TEST(Sdpa, KvShorterThanQueryIsNeverFused) {
  // q 16 over 8 keys: output 32 x 16 x 128 x 4 = 262,144 + scores 32 x 16 x 8 x 2 = 8,192.
  EXPECT_FALSE(uses_fused_sdpa(geometry_a(), 16, 8));
  EXPECT_EQ(sdpa_transient_bytes(geometry_a(), kNoTiled, 16, 8), 270336u);
}

TEST(Sdpa, RegisteredTiledHeadDimCostsOneTile) {
  SdpaKernels tiled;
  tiled.register_tiled_head_dim(256);  // tile 1024, from kv 8192
  // kv 16384: output 33,554,432 + 16 x 2048 x 1024 x 2 = 67,108,864 -> 100,663,296.
  EXPECT_EQ(sdpa_transient_bytes(heads(16, 2, 256), tiled, 2048, 16384), 100663296u);
  // Below the threshold the full score matrix is charged: 301,989,888 (as above).
  EXPECT_EQ(sdpa_transient_bytes(heads(16, 2, 256), tiled, 2048, 4096), 301989888u);
  // A custom tile and threshold: tile 512 from 2048: 33,554,432 + 16 x 2048 x 512 x 2
  // = 33,554,432 + 33,554,432 = 67,108,864.
  SdpaKernels custom;
  custom.register_tiled_head_dim(256, 512, 2048);
  EXPECT_EQ(sdpa_transient_bytes(heads(16, 2, 256), custom, 2048, 4096), 67108864u);
}

TEST(Sdpa, UnknownGeometryCostsNothing) {
  EXPECT_EQ(sdpa_transient_bytes(AttentionGeometry{}, kNoTiled, 2048, 4096), 0u);
  EXPECT_EQ(sdpa_transient_bytes(geometry_a(), kNoTiled, 0, 4096), 0u);
}

TEST(PrefillPeak, LastChunkPlusNewTokensKv) {
  // prompt 10,000, nothing cached, chunk 2048: attention over 10,000 keys, fused:
  // 33,554,432; KV 10,000 x 147,456 = 1,474,560,000; peak 1,508,114,432.
  EXPECT_EQ(prefill_peak_bytes(geometry_a(), kNoTiled, 10000, 0, 2048), 1508114432u);
}

TEST(PrefillPeak, CachedTokensWidenAttentionButAddNoKv) {
  // 6,000 cached: 4,000 new; KV 4,000 x 147,456 = 589,824,000 + 33,554,432 = 623,378,432.
  EXPECT_EQ(prefill_peak_bytes(geometry_a(), kNoTiled, 10000, 6000, 2048), 623378432u);
  // hd 256 shows the span: 16 q heads, 1 kv head-byte per token for clarity.
  AttentionGeometry g = heads(16, 2, 256);
  g.every_layer_kv_bytes_per_token = 1;
  // 4,000 new of 10,000: chunk 2048 over 10,000 keys:
  // 33,554,432 + 16 x 2048 x 10,000 x 2 = 655,360,000 -> 688,914,432; + 4,000 = 688,918,432.
  EXPECT_EQ(prefill_peak_bytes(g, kNoTiled, 10000, 6000, 2048), 688918432u);
}

TEST(PrefillPeak, ShortPromptIsChargedItsOwnLengthNotTheChunk) {
  // 100 tokens: 32 x 100 x 128 x 4 = 1,638,400 + 100 x 147,456 = 14,745,600 -> 16,384,000.
  EXPECT_EQ(prefill_peak_bytes(geometry_a(), kNoTiled, 100, 0, 2048), 16384000u);
}

TEST(PrefillPeak, HybridCountsOnlyKvLayers) {
  // Qwen3.5-27B, 8192 tokens, chunk 2048, hd 256 unfused:
  // output 24 x 2048 x 256 x 4 = 50,331,648; scores 24 x 2048 x 8192 x 2 = 805,306,368;
  // KV 8192 x 65,536 = 536,870,912; peak 1,392,508,928.
  AttentionGeometry g = attention_geometry(testing::corpus_spec("qwen3_5/Qwen3.5-27B"),
                                           KvElement::kFp16);
  EXPECT_EQ(prefill_peak_bytes(g, kNoTiled, 8192, 0, 2048), 1392508928u);
}

TEST(PrefillPeak, NothingNewOrUnknownGeometryIsZero) {
  EXPECT_EQ(prefill_peak_bytes(geometry_a(), kNoTiled, 100, 100, 2048), 0u);
  EXPECT_EQ(prefill_peak_bytes(geometry_a(), kNoTiled, 100, 200, 2048), 0u);
  EXPECT_EQ(prefill_peak_bytes(AttentionGeometry{}, kNoTiled, 100, 0, 2048), 0u);
}

PrefillRequest request(uint64_t limit) {
  PrefillRequest r;
  r.request_id = "req-1";
  r.prompt_tokens = 10000;
  r.current_usage_bytes = 10ull << 30;  // 10,737,418,240
  r.hard_limit_bytes = limit;
  return r;
}

TEST(Admission, RefusesWithBothFiguresAndWhatToChange) {
  // 10,737,418,240 + 1,508,114,432 = 12,245,532,672 > 11 GiB = 11,811,160,064.
  AdmissionDecision d = check_prefill(geometry_a(), kNoTiled, request(11ull << 30));
  EXPECT_FALSE(d.admitted);
  EXPECT_EQ(d.request_id, "req-1");
  EXPECT_EQ(d.peak_bytes, 1508114432u);
  EXPECT_EQ(d.estimated_bytes, 12245532672u);
  EXPECT_EQ(d.limit_bytes, 11811160064u);
  EXPECT_EQ(d.message,
            "request req-1: prefill of 10000 new tokens (0 cached) needs an estimated 1508114432 "
            "bytes on top of 10737418240 bytes in use, 12245532672 in all, over the hard limit of "
            "11811160064 bytes by 434372608 bytes; shorten the prompt, lower the prefill chunk "
            "(2048 tokens now), or wait for memory to free");
}

TEST(Admission, AdmitsAtOrUnderTheLimit) {
  EXPECT_TRUE(check_prefill(geometry_a(), kNoTiled, request(12245532672u)).admitted);
  AdmissionDecision d = check_prefill(geometry_a(), kNoTiled, request(12ull << 30));
  EXPECT_TRUE(d.admitted);
  EXPECT_EQ(d.peak_bytes, 1508114432u);
}

TEST(Admission, AlwaysAdmitsWhenItCannotJudge) {
  PrefillRequest disabled = request(1);
  disabled.enabled = false;
  EXPECT_TRUE(check_prefill(geometry_a(), kNoTiled, disabled).admitted);
  PrefillRequest no_limit = request(1);
  no_limit.hard_limit_bytes.reset();
  EXPECT_TRUE(check_prefill(geometry_a(), kNoTiled, no_limit).admitted);
  EXPECT_TRUE(check_prefill(AttentionGeometry{}, kNoTiled, request(1)).admitted);
  PrefillRequest all_cached = request(1);
  all_cached.cached_tokens = all_cached.prompt_tokens;
  EXPECT_TRUE(check_prefill(geometry_a(), kNoTiled, all_cached).admitted);
}

TEST(Admission, GeneratesARequestIdWhenAbsent) {
  PrefillRequest r = request(1);
  r.request_id.clear();
  AdmissionDecision d = check_prefill(geometry_a(), kNoTiled, r);
  EXPECT_EQ(d.request_id.rfind("req-", 0), 0u);
  EXPECT_EQ(d.request_id.size(), 20u);  // "req-" + 16 hex digits
  EXPECT_NE(d.message.find(d.request_id), std::string::npos);
}

TEST(Admission, AbsurdUsageSaturatesAndIsRefused) {
  PrefillRequest r = request(UINT64_MAX - 1);
  r.current_usage_bytes = UINT64_MAX - 10;
  EXPECT_FALSE(check_prefill(geometry_a(), kNoTiled, r).admitted);
}

}  // namespace
}  // namespace memfit
