// vLLM's KV cache for DeepSeek-V3.2 (docs/engine-vllm.md, "DeepSeek-V3.2"):
// the MLA latent and the sparse-attention indexer's keys, each a cache of
// its own on every layer, one block table, 64-token blocks. Worked by hand
// on DeepSeek-V3.2-Exp's config (61 layers, kv_lora_rank 512, rope 64,
// index_head_dim 128).
#include <gtest/gtest.h>

#include "memfit/vllm.h"
#include "engines/vllm/sparse_mla.h"
#include "logs/log_test_data.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;
constexpr const char* kV32 = "deepseek_v32/DeepSeek-V3.2-Exp-ptpc";
const MemoryBudget kBudgetSparseMla{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

VllmEstimate run_sparse_mla(const VllmSettings& s) {
  Result<VllmEstimate> e = estimate_vllm(testing::corpus_model(kV32, 1000), {}, s, kBudgetSparseMla);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : VllmEstimate{};
}

TEST(VllmSparseMla, TheConfigCarriesTheIndexerKeyInItsRate) {
  // memfit's own rate: (512 + 64 + 128) elements a layer; vLLM caches the
  // last 128, the indexer key, apart.
  const ModelSpec spec = testing::corpus_spec(kV32);
  ASSERT_EQ(spec.layers.size(), 61u);
  EXPECT_EQ(spec.layers[0].elems_per_token, 704u);
  // DeepSeek-V3 has no indexer: no sparse-MLA rates.
  VllmSettings s;
  s.max_model_len = 4096;
  s.kv_cache_memory = kGiB;
  Result<VllmEstimate> v3 = estimate_vllm(testing::corpus_model("deepseek_v3/DeepSeek-V3", 1000),
                                          {}, s, kBudgetSparseMla);
  ASSERT_TRUE(v3.ok());
  EXPECT_FALSE(vllm_sparse_mla(testing::corpus_spec("deepseek_v3/DeepSeek-V3"), s).has_value());
  EXPECT_EQ(v3->layout.attention_block_size, 16u);
  EXPECT_EQ(v3->layout.bytes_per_block, 61u * 16 * 576 * 2);
}

TEST(VllmSparseMla, SixteenBitLatentAndIndexerShareOneBlock) {
  // --kv-cache-dtype auto: the latent at 16 bits, (512 + 64) x 2 = 1,152 B
  // a token; the indexer 128 fp8 B + 128 / 128 x 4 B of float32 scale =
  // 132 B a token. Block 64 tokens whatever --block-size says: pages
  // 64 x 1,152 = 73,728 and 64 x 132 = 8,448 B; both MLA specs of one
  // block size, so one group whose block is every layer's two pages:
  // 61 x 82,176 = 5,012,736 B.
  VllmSettings s;
  s.block_size = 16;
  s.max_model_len = 32768;
  s.kv_cache_memory = 10 * kGiB;
  s.tensor_parallel = 8;
  const VllmEstimate e = run_sparse_mla(s);
  EXPECT_EQ(e.layout.attention_block_size, 64u);
  const std::optional<VllmSparseMla> rates =
      vllm_sparse_mla(testing::corpus_spec(kV32), e.settings);
  ASSERT_TRUE(rates.has_value());
  EXPECT_EQ(rates->mla_token_bytes, 1152u);
  EXPECT_EQ(rates->indexer_token_bytes, 132u);
  EXPECT_TRUE(e.layout.uniform_type);
  EXPECT_EQ(e.layout.bytes_per_block, 5012736u);
  ASSERT_EQ(e.layout.groups.size(), 1u);
  EXPECT_EQ(e.layout.groups[0].kind, VllmSpecKind::kMla);
  EXPECT_EQ(e.layout.groups[0].block_size, 64u);
  EXPECT_EQ(e.layout.group_size, 122u);  // 61 latent + 61 indexer caches
  // 10 GiB = 10,737,418,240 B // 5,012,736 = 2,142 blocks (2,142.03);
  // 2,142 x 64 = 137,088 tokens. A request of 32,768 tokens: cdiv(32,768,
  // 64) = 512 blocks; 2,142 / 512 = 4.18x.
  EXPECT_EQ(e.num_blocks, 2142u);
  EXPECT_EQ(e.kv_tokens, 137088u);
  EXPECT_EQ(e.layout.blocks_per_request, 512u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 2142.0 / 512.0);
  EXPECT_EQ(e.max_num_seqs_fit, 4u);
  EXPECT_EQ(e.max_model_len_fit, 137088u);
  // 256 requests: (512 x 256 + 1) x 5,012,736 = 657,034,345,728 B.
  EXPECT_EQ(e.kv_cache_memory_for_seqs, 657034345728ull);
}

TEST(VllmSparseMla, Fp8IsTheDeepSeekLayoutAndTheIndexerStaysAsItIs) {
  // --kv-cache-dtype fp8 is fp8_ds_mla: 656 B a token (512 fp8 + 4 float32
  // scales + 64 bf16 rope); the indexer keeps its 132 B. Pages 64 x 656 =
  // 41,984 and 8,448 B; a block 61 x 50,432 = 3,076,352 B. 10 GiB //
  // 3,076,352 = 3,490 blocks (3,490.3), 223,360 tokens; 3,490 / 512 =
  // 6.82x. The latent alone at 1 B an element (576 B a token) would have
  // said 10 GiB // (61 x 64 x 576 = 2,248,704) = 4,774 blocks: 37 % more.
  VllmSettings s;
  s.max_model_len = 32768;
  s.kv_cache_memory = 10 * kGiB;
  s.kv_cache_fp8 = true;
  const VllmEstimate e = run_sparse_mla(s);
  const std::optional<VllmSparseMla> rates =
      vllm_sparse_mla(testing::corpus_spec(kV32), e.settings);
  ASSERT_TRUE(rates.has_value());
  EXPECT_EQ(rates->mla_token_bytes, 656u);
  EXPECT_EQ(rates->indexer_token_bytes, 132u);
  EXPECT_EQ(e.layout.bytes_per_block, 3076352u);
  EXPECT_EQ(e.num_blocks, 3490u);
  EXPECT_EQ(e.kv_tokens, 223360u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 3490.0 / 512.0);
  EXPECT_EQ(e.max_num_seqs_fit, 6u);
}

TEST(VllmSparseMla, TensorParallelKeepsBothCachesWhole) {
  // Neither the latent nor the indexer key is split by TP: TP 1 and TP 8
  // give the same block.
  VllmSettings s;
  s.max_model_len = 4096;
  s.kv_cache_memory = kGiB;
  s.tensor_parallel = 1;
  const uint64_t tp1 = run_sparse_mla(s).layout.bytes_per_block;
  s.tensor_parallel = 8;
  EXPECT_EQ(tp1, 5012736u);
  EXPECT_EQ(run_sparse_mla(s).layout.bytes_per_block, tp1);
}

TEST(VllmSparseMla, Glm5IsSparseByItsIndexerNotItsModelType) {
  // GLM-5-FP8 (glm_moe_dsa, 78 layers, kv_lora_rank 512, rope 64,
  // index_topk 2048, index_head_dim 128), as vLLM runs it: a
  // DeepseekV2ForCausalLM with the Indexer. --kv-cache-dtype auto: the
  // latent (512 + 64) x 2 = 1,152 B a token, the indexer 128 + 128 / 128 x 4
  // = 132 B, as DeepSeek-V3.2's.
  Result<ModelSpec> glm5 = parse_model_config(
      testing::read_test_log("vllm", "vllm-nevervllm6-fpolica-glm5-fp8-tp8-mi300x-v0160.config.json"));
  ASSERT_TRUE(glm5.ok()) << glm5.error().message();
  ASSERT_EQ(glm5->layers.size(), 78u);
  EXPECT_EQ(glm5->layers[0].index_elems, 128u);
  VllmSettings s;
  const std::optional<VllmSparseMla> rates = vllm_sparse_mla(*glm5, s);
  ASSERT_TRUE(rates.has_value());
  EXPECT_EQ(rates->mla_token_bytes, 1152u);
  EXPECT_EQ(rates->indexer_token_bytes, 132u);
}

}  // namespace
}  // namespace memfit
