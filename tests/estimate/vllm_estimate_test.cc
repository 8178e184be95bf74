// estimate_vllm(): vLLM's per-rank weights and KV cache capacity rules
// (docs/engine-vllm.md) worked by hand on real corpus configs: a dense GQA
// model, an MoE under TP 4, a hybrid gated-delta-net model (Qwen3.5), a
// sliding-window model (Gemma 2) and an MLA model (DeepSeek-V3).
#include <gtest/gtest.h>

#include "memfit/vllm.h"
#include "support/corpus.h"

namespace memfit {
namespace {

constexpr uint64_t kGiB = 1ull << 30;
const MemoryBudget kBudget{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

Model corpus_model(const std::string& config, uint64_t weights = 1000) {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec(config);
  m.weights.bytes = weights;
  m.weights.source = WeightsSource::kSafetensorsIndex;
  return m;
}

VllmEstimate run(const Model& m, const VllmSettings& s) {
  Result<VllmEstimate> e = estimate_vllm(m, {}, s, kBudget);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : VllmEstimate{};
}

TEST(VllmWeights, MoeUnderTensorParallel4SplitsAllButNormsAndRouters) {
  // Qwen3-30B-A3B, 61,064,245,248 bytes (the index's total_size), TP 4.
  // Tables: 151,936 x 2,048 x 2 B = 622,329,856 each, embedding and LM
  // head (untied): 1,244,659,712; per rank 151,936 / 4 = 37,984 rows (151,936
  // is a multiple of 64) x 2,048 x 2 B x 2 = 311,164,928.
  // Replicated params: norms 48 x 2 x 2,048 + 2,048 = 198,656 and routers
  // 48 x 128 x 2,048 = 12,582,912: 12,781,568 at the rest's average width
  // (59,819,585,536 B over 29,909,780,480 params, 2 B plus the q/k norms
  // the count leaves out) = 25,563,147 B (rounded up).
  // Split: ceil((59,819,585,536 - 25,563,147) / 4) = 14,948,505,598.
  // Rope cache: 40,960 positions x 128 x 2 B = 10,485,760.
  Model m = corpus_model("qwen3_moe/Qwen3-30B-A3B", 61064245248ull);
  Result<VllmWeights> w = vllm_rank_weights(m, {}, 4);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->rope_cache_bytes, 10485760u);
  EXPECT_EQ(w->bytes, 14948505598ull + 25563147ull + 311164928ull + 10485760ull);  // 15,295,719,433
  EXPECT_FALSE(w->exact);
  // TP 1: the whole checkpoint plus the rope cache.
  Result<VllmWeights> one = vllm_rank_weights(m, {}, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->bytes, 61064245248ull + 10485760ull);
}

TEST(VllmWeights, TensorListSplitsEachTensorAsVllmDoes) {
  // Llama-3.2-1B-like tensors at TP 2: q [2048, 2048] bf16 split by rows,
  // k [512, 2048] with 8 KV heads split, a norm whole, the embedding's
  // 128,256 rows (a multiple of 64) split in two.
  Model m = corpus_model("llama3/Llama-3.2-1B-Instruct");
  const std::vector<SafetensorsTensor> tensors = {
      {"model.layers.0.self_attn.q_proj.weight", "BF16", {2048, 2048}, 2048ull * 2048 * 2},
      {"model.layers.0.self_attn.k_proj.weight", "BF16", {512, 2048}, 512ull * 2048 * 2},
      {"model.layers.0.input_layernorm.weight", "BF16", {2048}, 2048ull * 2},
      {"model.embed_tokens.weight", "BF16", {128256, 2048}, 128256ull * 2048 * 2},
  };
  Result<VllmWeights> w = vllm_rank_weights(m, tensors, 2);
  ASSERT_TRUE(w.ok());
  EXPECT_TRUE(w->from_tensor_list);
  // 4,194,304 + 1,048,576 + 4,096 + 262,668,288 + rope 131,072 x 64 x 2 = 16,777,216.
  EXPECT_EQ(w->bytes, 4194304ull + 1048576ull + 4096ull + 262668288ull + 16777216ull);
}

TEST(VllmKv, DenseGqaBlocksAreExactWhenTheMemoryIsGiven) {
  // Llama-3.1-70B: 80 layers, page 2 x 16 x 8 KV heads x 128 x 2 B = 65,536
  // B; one block across the layers 5,242,880 B. 1,381 blocks' worth given:
  // 1,381 blocks, 22,096 tokens, 1,381 / cdiv(2,048, 16) = 10.79x.
  VllmSettings s;
  s.max_model_len = 2048;
  s.kv_cache_memory = 1381ull * 5242880;
  VllmEstimate e = run(corpus_model("llama3/Meta-Llama-3.1-70B"), s);
  EXPECT_EQ(e.layout.page_size_bytes, 65536u);
  EXPECT_EQ(e.layout.bytes_per_block, 5242880u);
  ASSERT_EQ(e.layout.groups.size(), 1u);
  EXPECT_EQ(e.num_blocks, 1381u);
  EXPECT_EQ(e.kv_tokens, 22096u);
  EXPECT_EQ(e.layout.blocks_per_request, 128u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 1381.0 / 128.0);
  EXPECT_EQ(e.max_num_seqs_fit, 10u);
  EXPECT_EQ(e.max_model_len_fit, 1381u * 16);  // every block to one request
  // 256 requests of 2,048: 256 x 128 + 1 (the null block) blocks.
  EXPECT_EQ(e.kv_cache_memory_for_seqs, (256ull * 128 + 1) * 5242880);
  // TP 8: one KV head per rank, page 8,192 B.
  s.tensor_parallel = 8;
  EXPECT_EQ(run(corpus_model("llama3/Meta-Llama-3.1-70B"), s).layout.page_size_bytes, 8192u);
}

TEST(VllmKv, HybridPadsTheAttentionPageToTheMambaState) {
  // Qwen3.5-35B-A3B: 30 gated-delta-net layers and 10 full-attention layers
  // (2 KV heads x 256). Mamba state per layer: conv 3 x (2 x 16 x 128 + 32 x
  // 128) = 24,576 x 2 B (model dtype) = 49,152 + recurrent 32 x 128 x 128 x
  // 4 B (mamba_ssm_dtype float32) = 2,097,152: 2,146,304 B. fp8 KV:
  // attention 2 x 2 x 256 x 1 B = 1,024 B per token; block size 16 x
  // cdiv(2,146,304, 16 x 1,024) = 16 x 131 = 2,096 tokens, page 2,146,304 B.
  // Groups of min(10, 30) = 10 layers: 1 attention + 3 Mamba groups; one
  // block costs 10 x 2,146,304 = 21,463,040 B.
  // 5.98 GiB (6,420,976,107 B) given: 299 blocks. A 131,072-token request
  // needs cdiv(131,072, 2,096) = 63 attention blocks + 3 x (1 + 1
  // speculative token) Mamba blocks = 69: 299 / 69 = 4.33x, and the printed
  // tokens 299 x 131,072 / 69 = 567,978 (the published run's figures).
  VllmSettings s;
  s.kv_cache_fp8 = true;
  s.max_model_len = 131072;
  s.max_num_seqs = 1;
  s.num_speculative_tokens = 1;
  s.kv_cache_memory = static_cast<uint64_t>(5.98 * kGiB);
  VllmEstimate e = run(corpus_model("qwen3_5/Qwen3.5-35B-A3B"), s);
  EXPECT_EQ(e.layout.mamba_state_bytes, 2146304u);
  EXPECT_EQ(e.layout.attention_block_size, 2096u);
  EXPECT_EQ(e.layout.page_size_bytes, 2146304u);
  EXPECT_EQ(e.layout.group_size, 10u);
  ASSERT_EQ(e.layout.groups.size(), 4u);
  EXPECT_EQ(e.layout.bytes_per_block, 21463040u);
  EXPECT_EQ(e.num_blocks, 299u);
  EXPECT_EQ(e.layout.blocks_per_request, 69u);
  EXPECT_NEAR(e.max_concurrency, 4.3333, 1e-4);
  EXPECT_EQ(e.kv_tokens, 567978u);
}

TEST(VllmKv, SlidingWindowLayersNeedOnlyTheirWindow) {
  // Gemma-2-2B: 26 layers alternating sliding (4,096) and full, 4 KV heads x
  // 256: page 2 x 16 x 4 x 256 x 2 B = 65,536 B for both, 13 + 13 layers ->
  // 2 groups of 13, a block costs 13 x 65,536 = 851,968 B.
  // 1 GiB: 1,073,741,824 / 851,968 = 1,260 blocks; tokens 1,260 // 2 x 16 =
  // 10,080. At 8,192 tokens with 2,048 batched: full cdiv(8,192, 16) = 512,
  // sliding cdiv(min(4,095 + 2,048, 8,192), 16) + 1 = 384 + 1 = 385:
  // 897 blocks a request, 1,260 / 897 = 1.40x.
  VllmSettings s;
  s.max_model_len = 8192;
  s.max_num_batched_tokens = 2048;
  s.kv_cache_memory = kGiB;
  VllmEstimate e = run(corpus_model("gemma2/gemma-2-2b-it"), s);
  EXPECT_EQ(e.layout.page_size_bytes, 65536u);
  EXPECT_EQ(e.layout.group_size, 13u);
  ASSERT_EQ(e.layout.groups.size(), 2u);
  EXPECT_EQ(e.num_blocks, 1260u);
  EXPECT_EQ(e.kv_tokens, 10080u);
  EXPECT_EQ(e.layout.blocks_per_request, 897u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 1260.0 / 897.0);
}

TEST(VllmKv, MlaCachesTheLatentWholeOnEveryRank) {
  // DeepSeek-V3: 61 MLA layers, 512 + 64 latent elements x 2 B x 16 tokens
  // = 18,432 B a page, at TP 1 and TP 8 alike; a block 61 x 18,432 =
  // 1,124,352 B. 10 GiB: 9,549 blocks, 152,784 tokens; 32,768 tokens a
  // request: 2,048 blocks, 4.66x.
  VllmSettings s;
  s.max_model_len = 32768;
  s.kv_cache_memory = 10 * kGiB;
  s.tensor_parallel = 8;
  VllmEstimate e = run(corpus_model("deepseek_v3/DeepSeek-V3"), s);
  EXPECT_EQ(e.layout.page_size_bytes, 18432u);
  EXPECT_EQ(e.layout.bytes_per_block, 1124352u);
  EXPECT_EQ(e.num_blocks, 9549u);
  EXPECT_EQ(e.kv_tokens, 152784u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 9549.0 / 2048.0);
}

TEST(VllmEstimate, UtilizationSizesTheKvCacheFromWhatIsLeft) {
  // Llama-3.2-1B, weights 2,471,645,184 B (+ rope 131,072 x 64 x 2 B =
  // 16,777,216), 40 GiB GPU at 0.5: 21,474,836,480 requested. A 40 GiB
  // GPU takes vLLM's small defaults: 2,048 batched tokens, 256 rows.
  // Forward: hidden 2,048 x 2,048 x 2 x 4 = 33,554,432 + the MLP 2,048 x 3
  // x 8,192 x 2 = 100,663,296 (over attention 2,048 x (2 x 32 + 2 x 8) x 64
  // x 2 = 20,971,520) = 134,217,728. Sampler: the hidden states 2,048 x
  // 2,048 x 2 = 8,388,608 + 256 x 128,256 x 39 = 1,280,507,904, so
  // 1,288,896,512, the larger. Non-torch 144 MiB = 150,994,944.
  // KV 21,474,836,480 - 2,488,422,400 - 1,288,896,512 - 150,994,944 =
  // 17,546,522,624; a block 16 layers x 2 x 16 x 8 x 64 x 2 = 524,288 B:
  // 33,467 blocks. The peak: 20 GiB + the CUDA graphs' 1 GiB, captured past
  // the utilization.
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.gpu_memory_utilization = 0.5;
  s.max_model_len = 4096;
  VllmEstimate e = run(corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull), s);
  EXPECT_EQ(e.settings.max_num_batched_tokens, 2048u);
  EXPECT_EQ(e.settings.max_num_seqs, 256u);
  EXPECT_EQ(e.weights.bytes, 2471645184ull + 16777216ull);
  EXPECT_EQ(e.activation_bytes, 1288896512u);
  EXPECT_EQ(e.non_torch_bytes, 150994944u);
  EXPECT_EQ(e.requested_bytes, 20 * kGiB);
  EXPECT_EQ(e.kv_cache_bytes, 17546522624ull);
  EXPECT_EQ(e.num_blocks, 33467u);
  EXPECT_EQ(e.total_bytes, 21 * kGiB);
  EXPECT_TRUE(e.starts);
  EXPECT_TRUE(e.fits);
}

TEST(VllmEstimate, DefaultsFollowTheGpu) {
  // vLLM's batch defaults: 8,192 tokens and 1,024 rows on a GPU of at
  // least 70 GiB that is not an A100; 2,048 and 256 otherwise; rows at
  // most the tokens; given values stand.
  VllmSettings h100;
  h100.gpu_memory_total = 80 * kGiB;
  h100.gpu_name = "NVIDIA H100 80GB HBM3";
  vllm_resolve_defaults(h100);
  EXPECT_EQ(h100.max_num_batched_tokens, 8192u);
  EXPECT_EQ(h100.max_num_seqs, 1024u);
  VllmSettings a100 = VllmSettings{};
  a100.gpu_memory_total = 80 * kGiB;
  a100.gpu_name = "NVIDIA A100-SXM4-80GB";
  vllm_resolve_defaults(a100);
  EXPECT_EQ(a100.max_num_batched_tokens, 2048u);
  EXPECT_EQ(a100.max_num_seqs, 256u);
  VllmSettings small_batch;
  small_batch.gpu_memory_total = 24 * kGiB;
  small_batch.max_num_batched_tokens = 128;
  vllm_resolve_defaults(small_batch);
  EXPECT_EQ(small_batch.max_num_batched_tokens, 128u);
  EXPECT_EQ(small_batch.max_num_seqs, 128u);
  VllmSettings given;
  given.gpu_memory_total = 141 * kGiB;
  given.max_num_seqs = 8;
  vllm_resolve_defaults(given);
  EXPECT_EQ(given.max_num_batched_tokens, 8192u);
  EXPECT_EQ(given.max_num_seqs, 8u);
}

TEST(VllmEstimate, RefusesBadSettings) {
  Model m = corpus_model("llama3/Llama-3.2-1B-Instruct");
  VllmSettings s;
  s.gpu_memory_total = kGiB;
  s.gpu_memory_utilization = 1.5;
  Result<VllmEstimate> e = estimate_vllm(m, {}, s, kBudget);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().field(), "gpu_memory_utilization");
  s.gpu_memory_utilization = 0.9;
  s.block_size = 0;
  EXPECT_EQ(estimate_vllm(m, {}, s, kBudget).error().field(), "block_size");
  s.block_size = 16;
  s.gpu_memory_total = 0;
  EXPECT_EQ(estimate_vllm(m, {}, s, kBudget).error().field(), "gpu_memory_total");
}

TEST(VllmEstimate, TooLittleMemoryDoesNotStart) {
  // 1 GiB at 0.9 does not hold 2.5 GB of weights: no blocks, no start.
  VllmSettings s;
  s.gpu_memory_total = kGiB;
  Model m = corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull);
  VllmEstimate e = run(m, s);
  EXPECT_EQ(e.num_blocks, 0u);
  EXPECT_FALSE(e.starts);
  EXPECT_FALSE(e.fits);
}

}  // namespace
}  // namespace memfit
