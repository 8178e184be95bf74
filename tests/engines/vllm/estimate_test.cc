// estimate_vllm(): vLLM's per-rank weights and KV cache capacity rules
// (docs/engine-vllm.md) worked by hand on real corpus configs: a dense GQA
// model, an MoE under TP 4, a hybrid gated-delta-net model (Qwen3.5, fp8
// and 16-bit, TP 1 and 2), sliding-window models (Gemma 2, Gemma 3) and an
// MLA model (DeepSeek-V3), Mamba hybrids (Granite 4.0-H's layout,
// Nemotron-H) and MiniMax's lightning attention.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engines/shared/parallel_tensors.h"
#include "memfit/parallel_plan.h"
#include "memfit/vllm.h"
#include "engines/vllm/parts.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;
const MemoryBudget kBudget{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

Model corpus_model(const std::string& config, uint64_t weights = 1000) {
  return testing::corpus_model(config, weights);
}

VllmEstimate run(const Model& m, const VllmSettings& s) {
  Result<VllmEstimate> e = estimate_vllm(m, {}, s, kBudget);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : VllmEstimate{};
}

// The recurrent-state tests' run: one sequence of 8,192 tokens in 1 GiB
// of KV memory (the state's bytes do not depend on them).
VllmSettings one_sequence_of_8k_in_1_gib() {
  VllmSettings s;
  s.max_model_len = 8192;
  s.max_num_seqs = 1;
  s.kv_cache_memory = 1ull << 30;
  return s;
}

TEST(VllmWeights, MoeUnderTensorParallel4SplitsAllButNormsAndRouters) {
  // Qwen3-30B-A3B, 61,064,245,248 bytes (the index's total_size), TP 4.
  // Tables: 151,936 x 2,048 x 2 B = 622,329,856 each, embedding and LM
  // head (untied): 1,244,659,712; per rank 151,936 / 4 = 37,984 rows (151,936
  // is a multiple of 64) x 2,048 x 2 B x 2 = 311,164,928.
  // Replicated params: norms 48 x 2 x 2,048 + 2,048 = 198,656 and routers
  // 48 x 128 x 2,048 = 12,582,912: 12,781,568 at their own width, bf16 as
  // the checkpoint stores them (RMSNorm, the gate's ReplicatedLinear:
  // qwen3_moe.py) = 25,563,136 B.
  // Split: (59,819,585,536 - 25,563,136) / 4 = 14,948,505,600.
  // Rope cache: 40,960 positions x 128 x 2 B = 10,485,760.
  Model m = corpus_model("qwen3_moe/Qwen3-30B-A3B", 61064245248ull);
  Result<VllmWeights> w = vllm_rank_weights(m, {}, 4);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->rope_cache_bytes, 10485760u);
  EXPECT_EQ(w->bytes, 14948505600ull + 25563136ull + 311164928ull + 10485760ull);  // 15,295,719,424
  EXPECT_FALSE(w->exact);
  // TP 1: the whole checkpoint plus the rope cache.
  Result<VllmWeights> one = vllm_rank_weights(m, {}, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->bytes, 61064245248ull + 10485760ull);
}

TEST(VllmWeights, Qwen3VlHoldsItsDeepstackBuffersWholeOnEveryRank) {
  // Qwen3-VL-8B-Instruct: vision_config.deepstack_visual_indexes [8, 16,
  // 24], text hidden 4,096. Three buffers of max_num_batched_tokens x
  // 4,096 x 2 B: 3 x 2,048 x 4,096 x 2 = 50,331,648 at 2,048 tokens, the
  // same on each rank at TP 2 (not sharded); 3 x 8,192 x 4,096 x 2 =
  // 201,326,592 at 8,192.
  Model m = corpus_model("qwen3_vl/Qwen3-VL-8B-Instruct", 17534340096ull);
  EXPECT_EQ(m.spec.deepstack_levels, 3u);
  Model without = m;
  without.spec.deepstack_levels = 0;
  VllmSettings s;
  s.gpu_memory_total = 80 * kGiB;
  s.max_num_batched_tokens = 2048;
  for (uint64_t tp : {1u, 2u}) {
    s.tensor_parallel = tp;
    const VllmEstimate e = run(m, s);
    EXPECT_EQ(e.weights.deepstack_bytes, 50331648u) << "TP " << tp;
    EXPECT_EQ(e.weights.bytes - run(without, s).weights.bytes, 50331648u) << "TP " << tp;
  }
  s.max_num_batched_tokens = 8192;
  EXPECT_EQ(run(m, s).weights.deepstack_bytes, 201326592u);
  EXPECT_EQ(run(without, s).weights.deepstack_bytes, 0u);
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
  // speculative token) Mamba blocks = 69: 299 / 69 = 4.33x, and the tokens
  // vLLM 0.24.0 printed, 299 x 131,072 / 69 = 567,978 (the published run's
  // figures); the current line (0.11 to 0.20, the default) printed 299 // 4
  // groups x 2,096 = 74 x 2,096 = 155,104.
  VllmSettings s;
  s.kv_cache_fp8 = true;
  s.max_model_len = 131072;
  s.max_num_seqs = 1;
  s.num_speculative_tokens = 1;
  s.kv_cache_memory = static_cast<uint64_t>(5.98 * kGiB);
  s.release = VllmRelease{0, 20, 0, false};  // the tokens as 0.20 prints them (per group)
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
  EXPECT_EQ(e.kv_tokens, 155104u);
  EXPECT_EQ(vllm_kv_tokens(e.layout, e.num_blocks, 131072, VllmTokensForm::kConcurrencyTimesLen),
            567978u);
}

TEST(VllmKv, TheTokensPrintedFollowTheRelease) {
  // Qwen3.5-27B at TP 4 (vLLM 0.19.0's run, vllm-neverfiles-foam): 16
  // full-attention and 48 gated-delta-net layers, groups of 16: 1 attention
  // group of 784-token blocks and 3 Mamba groups (one state a block, here
  // given the attention block size, as vllm_kv_layout gives it). 4,359
  // blocks; a 262,144-token request takes cdiv(262,144, 784) = 335 + 3 x 1 =
  // 338 blocks: 4,359 / 338 = 12.896x (printed 12.90x).
  VllmKvLayout layout;
  layout.groups = {{.kind = VllmSpecKind::kFullAttention, .layers = 16, .block_size = 784},
                   {.kind = VllmSpecKind::kMamba, .layers = 16, .block_size = 784},
                   {.kind = VllmSpecKind::kMamba, .layers = 16, .block_size = 784},
                   {.kind = VllmSpecKind::kMamba, .layers = 16, .block_size = 784}};
  layout.blocks_per_request = 338;
  // Through 0.20: 4,359 // 4 groups = 1,089 x 784 = 853,776 (the print).
  EXPECT_EQ(vllm_tokens_form(VllmRelease{0, 19, 0, true}), VllmTokensForm::kBlocksPerGroup);
  EXPECT_EQ(vllm_tokens_form(VllmRelease{0, 20}), VllmTokensForm::kBlocksPerGroup);
  // No release: the current line's, the later form.
  EXPECT_EQ(vllm_tokens_form(std::nullopt), VllmTokensForm::kConcurrencyTimesLen);
  EXPECT_EQ(vllm_kv_tokens(layout, 4359, 262144, VllmTokensForm::kBlocksPerGroup), 853776u);
  // From 0.21: 262,144 x 4,359 / 338 = 1,142,685,696 / 338 = 3,380,726.9,
  // printed 3,380,726.
  EXPECT_EQ(vllm_tokens_form(VllmRelease{0, 21}), VllmTokensForm::kConcurrencyTimesLen);
  EXPECT_EQ(vllm_tokens_form(VllmRelease{1, 0}), VllmTokensForm::kConcurrencyTimesLen);
  EXPECT_EQ(vllm_kv_tokens(layout, 4359, 262144, VllmTokensForm::kConcurrencyTimesLen), 3380726u);
  // One full-attention group, 16-token blocks, 1,000 blocks: the forms agree
  // at 4,096 tokens (1,000 x 16 = 16,000; 4,096 x 1,000 / 256 = 16,000) and
  // part at 4,100 (cdiv(4,100, 16) = 257: 4,100,000 / 257 = 15,953.3).
  VllmKvLayout one;
  one.groups = {{.kind = VllmSpecKind::kFullAttention, .layers = 32, .block_size = 16}};
  one.blocks_per_request = 256;
  EXPECT_EQ(vllm_kv_tokens(one, 1000, 4096, VllmTokensForm::kBlocksPerGroup), 16000u);
  EXPECT_EQ(vllm_kv_tokens(one, 1000, 4096, VllmTokensForm::kConcurrencyTimesLen), 16000u);
  one.blocks_per_request = 257;
  EXPECT_EQ(vllm_kv_tokens(one, 1000, 4100, VllmTokensForm::kBlocksPerGroup), 16000u);
  EXPECT_EQ(vllm_kv_tokens(one, 1000, 4100, VllmTokensForm::kConcurrencyTimesLen), 15953u);
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
  s.release = VllmRelease{0, 20, 0, false};  // the tokens as 0.20 prints them (per group)
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
  EXPECT_EQ(e.kv_tokens, 152784u);  // 9,549 x 16
  EXPECT_DOUBLE_EQ(e.max_concurrency, 9549.0 / 2048.0);
  // One group of all 61 layers; cdiv(32,768, 16) = 2,048 blocks a request.
  EXPECT_EQ(e.layout.group_size, 61u);
  ASSERT_EQ(e.layout.groups.size(), 1u);
  EXPECT_EQ(e.layout.groups[0].kind, VllmSpecKind::kMla);
  EXPECT_EQ(e.layout.blocks_per_request, 2048u);
  EXPECT_EQ(e.max_num_seqs_fit, 4u);
  // Every block to one request: 9,549 x 16 = 152,784 tokens (under the
  // config's 163,840).
  EXPECT_EQ(e.max_model_len_fit, 152784u);
  // 256 requests: (2,048 x 256 + 1) x 1,124,352 = 589,485,385,728.
  EXPECT_EQ(e.kv_cache_memory_for_seqs, 589485385728ull);
  // The latent is not split by TP: the same page at TP 1.
  s.tensor_parallel = 1;
  EXPECT_EQ(run(corpus_model("deepseek_v3/DeepSeek-V3"), s).layout.page_size_bytes, 18432u);
}

TEST(VllmKv, MlaBlocksAreWhatTheGpusMlaBackendForces) {
  // DeepSeek-V3 on an H100 runs FlashMLA, which forces 64-token blocks:
  // a page 64 x 576 x 2 B = 73,728 B, a block 61 x 73,728 = 4,497,408 B.
  // 10 GiB = 10,737,418,240 B: 2,387 blocks (2,388 would take
  // 10,739,810,304), 152,768 tokens; 32,768 tokens a request: cdiv(32,768,
  // 64) = 512 blocks, 2,387 / 512 = 4.66x.
  VllmSettings s;
  s.max_model_len = 32768;
  s.kv_cache_memory = 10 * kGiB;
  s.gpu_name = "NVIDIA H100 80GB HBM3";
  const Model m = corpus_model("deepseek_v3/DeepSeek-V3");
  VllmEstimate e = run(m, s);
  EXPECT_EQ(e.layout.attention_block_size, 64u);
  EXPECT_EQ(e.layout.bytes_per_block, 4497408u);
  EXPECT_EQ(e.num_blocks, 2387u);
  EXPECT_EQ(e.kv_tokens, 152768u);
  EXPECT_EQ(e.layout.blocks_per_request, 512u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 2387.0 / 512.0);
  // A multiple of 64 stands (128: 2,387 / 2 = 1,193 blocks of 8,994,816 B).
  s.block_size = 128;
  EXPECT_EQ(run(m, s).layout.attention_block_size, 128u);
  // Datacenter Blackwell runs FlashInfer MLA: 32 stands, 16 becomes 64.
  s.gpu_name = "NVIDIA B200";
  s.block_size = 32;
  EXPECT_EQ(run(m, s).layout.attention_block_size, 32u);
  s.block_size = 16;
  EXPECT_EQ(run(m, s).layout.attention_block_size, 64u);
  // An A100 runs Triton MLA (no forcing): the 16 of MlaCachesTheLatent...
  s.gpu_name = "NVIDIA A100-SXM4-80GB";
  EXPECT_EQ(run(m, s).layout.attention_block_size, 16u);
  EXPECT_EQ(run(m, s).num_blocks, 9549u);
  // And so does a GPU memfit was not told the name of, or v0.7's accounting.
  s.gpu_name = "";
  EXPECT_EQ(run(m, s).layout.attention_block_size, 16u);
  s.gpu_name = "NVIDIA H100 80GB HBM3";
  s.release = VllmRelease{0, 7, 0, false};
  EXPECT_EQ(run(m, s).layout.attention_block_size, 16u);
  // A model without MLA keeps --block-size on an H100.
  s.release.reset();
  EXPECT_EQ(run(corpus_model("qwen3/Qwen3-8B"), s).layout.attention_block_size, 16u);
}

TEST(VllmKv, HybridQwen35At16BitsUnderTp2HalvesTheStateAndTheHeads) {
  // Qwen3.5-35B-A3B as above, 16-bit KV, TP 2. Attention: max(1, 2 / 2) =
  // 1 KV head x 256 x 2 (K, V) x 2 B = 1,024 B per token. Mamba state per
  // rank: the conv channels and the value heads split by TP,
  // ceil(2,146,304 / 2) = 1,073,152 B. Block size: 16 x cdiv(1,073,152,
  // 16 x 1,024) = 16 x 66 = 1,056 tokens (65.5 rounded up); page 1,056 x
  // 1,024 = 1,081,344 B, the Mamba page padded to it. Groups of 10 layers
  // (30 is not under 1.5 x 10): 1 attention + 3 Mamba groups, a block
  // 10 x 1,081,344 = 10,813,440 B.
  // 4 GiB given: 4,294,967,296 // 10,813,440 = 397 blocks. A 131,072-token
  // request: cdiv(131,072, 1,056) = 125 attention blocks + 3 x 1 Mamba
  // blocks = 128; 397 / 128 = 3.10x; tokens (the current line) 397 // 4
  // groups x 1,056 = 99 x 1,056 = 104,544; from 0.21, 397 x 131,072 / 128 =
  // 406,528.
  VllmSettings s;
  s.tensor_parallel = 2;
  s.max_model_len = 131072;
  s.max_num_seqs = 4;
  s.kv_cache_memory = 4 * kGiB;
  s.release = VllmRelease{0, 20, 0, false};  // the tokens as 0.20 prints them (per group)
  VllmEstimate e = run(corpus_model("qwen3_5/Qwen3.5-35B-A3B"), s);
  EXPECT_EQ(e.layout.mamba_state_bytes, 1073152u);
  EXPECT_EQ(e.layout.attention_block_size, 1056u);
  EXPECT_EQ(e.layout.page_size_bytes, 1081344u);
  EXPECT_EQ(e.layout.group_size, 10u);
  ASSERT_EQ(e.layout.groups.size(), 4u);
  EXPECT_EQ(e.layout.groups[0].kind, VllmSpecKind::kMamba);  // layer 0 is linear attention
  EXPECT_EQ(e.layout.groups[0].layers, 10u);
  EXPECT_EQ(e.layout.groups[0].blocks_per_request, 1u);
  EXPECT_EQ(e.layout.groups[3].kind, VllmSpecKind::kFullAttention);
  EXPECT_EQ(e.layout.groups[3].block_size, 1056u);
  EXPECT_EQ(e.layout.groups[3].blocks_per_request, 125u);
  EXPECT_EQ(e.layout.bytes_per_block, 10813440u);
  EXPECT_EQ(e.num_blocks, 397u);
  EXPECT_EQ(e.layout.blocks_per_request, 128u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 397.0 / 128.0);
  EXPECT_EQ(e.kv_tokens, 104544u);
  EXPECT_EQ(vllm_kv_tokens(e.layout, e.num_blocks, 131072, VllmTokensForm::kConcurrencyTimesLen),
            406528u);
  EXPECT_EQ(e.max_num_seqs_fit, 3u);
  // 4 requests: (128 x 4 + 1 null block) x 10,813,440 = 5,547,294,720.
  EXPECT_EQ(e.kv_cache_memory_for_seqs, 5547294720u);
  // Weights without a tensor list at TP 1: the checkpoint whole (here
  // 71,903,645,696 B) plus the rope cache, 262,144 positions x head dim 256 x 2 B = 134,217,728,
  // plus the allocator's rounding: every large parameter is a 2 MiB
  // multiple, and each of the 30 gated delta nets' dt_bias (32 x 2 B = 64),
  // A_log (32 x 4 B = 128) and norm (128 x 2 B = 256) take 512 B each:
  // 30 x (448 + 384 + 256) = 32,640.
  s.tensor_parallel = 1;
  VllmEstimate one = run(corpus_model("qwen3_5/Qwen3.5-35B-A3B", 71903645696ull), s);
  EXPECT_EQ(one.weights.rope_cache_bytes, 134217728u);
  EXPECT_EQ(one.weights.bytes, 71903645696ull + 134217728u + 32640u);
}

// A test config (tests/data/fixtures/NAME/config.json, or the corpus's),
// `extra` JSON fields merged over it ("" none), as a model with a config.
Model model_of_recurrent_config(const std::string& path, const std::string& extra) {
  nlohmann::json config = nlohmann::json::parse(testing::read_test_data(path));
  if (!extra.empty()) config.update(nlohmann::json::parse(extra));
  Model m;
  m.has_config = true;
  Result<ModelSpec> spec = parse_model_config(config.dump());
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message());
  if (spec.ok()) m.spec = *spec;
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsIndex;
  return m;
}

// Qwen3-Next-80B-A3B as the neverlogs13 run gave it (the config beside
// tests/data/logs/vllm/vllm-neverlogs13-v0102-qwen3-next-80b-tp2-h200.log).
Model qwen3_next_80b_of_the_log() {
  return model_of_recurrent_config("logs/vllm/vllm-neverlogs13-v0102-qwen3-next-80b-tp2-h200.config.json", "");
}

TEST(VllmKv, GatedDeltaStateKeepsTheModelDtypeUnlessTheQwen35HookSaysFloat32) {
  // A gated delta net's state per rank, 16 key heads, 32 value heads of 128,
  // kernel 4 (Qwen3-Next-80B-A3B and Qwen3.5-35B-A3B alike), TP 2:
  // conv (2 x 16 x 128 + 32 x 128) / 2 = 4,096 channels x 3 columns x 2 B =
  // 24,576; recurrent 32 / 2 = 16 heads x 128 x 128 = 262,144 elements.
  // Qwen3-Next: the model's bf16, 262,144 x 2 = 524,288: 548,864 B.
  // Qwen3.5 (mamba_ssm_dtype float32 through its config hook): 262,144 x 4
  // = 1,048,576: 1,073,152 B.
  const Model next = qwen3_next_80b_of_the_log();
  EXPECT_EQ(vllm_gated_delta_temporal_element_bytes(next.spec), 2u);
  EXPECT_EQ(vllm_gated_delta_state_bytes(next.spec, 2), 548864u);
  const Model q35 = corpus_model("qwen3_5/Qwen3.5-35B-A3B");
  EXPECT_EQ(vllm_gated_delta_temporal_element_bytes(q35.spec), 4u);
  EXPECT_EQ(vllm_gated_delta_state_bytes(q35.spec, 2), 1073152u);
  // TP 1: conv 8,192 x 3 x 2 = 49,152; Qwen3-Next's recurrent 32 x 128 x
  // 128 x 2 = 1,048,576: 1,097,728 B.
  EXPECT_EQ(vllm_gated_delta_state_bytes(next.spec, 1), 1097728u);
}

TEST(VllmKv, GraniteHybridMambaStateIsInTheModelDtypeWhateverItsConfigSays) {
  // The granite-hybrid fixture (Granite 4.0-H's layout): 48 Mamba heads,
  // d_head "auto", 1 group, state 128, conv 4, expand 2 x hidden 1,536:
  // d_ssm 3,072, head_dim 3,072 / 48 = 64. memfit's spec at f32: conv 3 x
  // (3,072 + 2 x 1 x 128) = 9,984 elements x 4 = 39,936 + SSM 48 x 64 x 128
  // = 393,216 x 4 = 1,572,864: 1,612,800 B.
  const Model granite = model_of_recurrent_config("fixtures/granite-hybrid/config.json", "");
  const LayerCache* mamba = nullptr;
  for (const LayerCache& l : granite.spec.layers) {
    if (l.kind == LayerKind::kSsm) mamba = &l;
  }
  ASSERT_NE(mamba, nullptr);
  EXPECT_EQ(mamba->state_bytes, 1612800u);
  // vLLM (mamba_ssm_cache_dtype "auto": the conv state's dtype, the
  // model's bf16): 9,984 x 2 = 19,968 + 393,216 x 2 = 786,432: 806,400 B.
  EXPECT_EQ(vllm_mamba_ssm_element_bytes(granite.spec), 2u);
  EXPECT_EQ(vllm_mamba2_state_bytes(granite.spec, 1), 806400u);
  // TP 2: the one group grows to 2 (extra_groups_for_head_shards): conv
  // (3,072 + 2 x 2 x 128) / 2 = 1,792 x 3 x 2 = 10,752; SSM 24 x 64 x 128
  // x 2 = 393,216: 403,968 B.
  EXPECT_EQ(vllm_mamba2_state_bytes(granite.spec, 2), 403968u);
  // A config's own mamba_ssm_cache_dtype float32 is not read by vLLM for
  // Granite (only Nemotron-H's and Qwen3.5's hooks read theirs).
  const Model said_f32 = model_of_recurrent_config("fixtures/granite-hybrid/config.json",
                                                   R"({"mamba_ssm_cache_dtype": "float32"})");
  EXPECT_EQ(vllm_mamba2_state_bytes(said_f32.spec, 1), 806400u);
  // The layout: attention 4 KV heads x 128 (1,536 / 12) x 2 (K, V) x 2 B =
  // 2,048 B a token; blocks 16 x cdiv(806,400, 16 x 2,048) = 16 x 25 = 400
  // tokens, a page of 400 x 2,048 = 819,200 B (the state at f32, 1,592,832
  // with a 16-bit conv, needed 16 x 49 = 784).
  VllmSettings s = one_sequence_of_8k_in_1_gib();
  VllmEstimate e = run(granite, s);
  EXPECT_EQ(e.layout.mamba_state_bytes, 806400u);
  EXPECT_EQ(e.layout.attention_block_size, 400u);
  EXPECT_EQ(e.layout.page_size_bytes, 819200u);
}

TEST(VllmKv, NemotronHSsmStateTakesItsConfigsCacheDtypeFloat32WhenAbsent) {
  // NVIDIA-Nemotron-3-Nano-30B-A3B: 64 Mamba heads x 64, 8 groups, state
  // 128, conv 4; its config says mamba_ssm_cache_dtype float32, which
  // NemotronHForCausalLMConfig hands vLLM. TP 1: conv 3 x (4,096 + 2 x 8 x
  // 128) = 18,432 x 2 = 36,864; SSM 64 x 64 x 128 = 524,288 x 4 =
  // 2,097,152: 2,134,016 B.
  const std::string nano = "corpus/nemotron_h/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/config.json";
  const Model f32 = model_of_recurrent_config(nano, "");
  EXPECT_EQ(vllm_mamba_ssm_element_bytes(f32.spec), 4u);
  EXPECT_EQ(vllm_mamba2_state_bytes(f32.spec, 1), 2134016u);
  // TP 2 (8 groups divide): conv 6,144 / 2 = 3,072 x 3 x 2 = 18,432; SSM
  // 32 x 64 x 128 x 4 = 1,048,576: 1,067,008 B.
  EXPECT_EQ(vllm_mamba2_state_bytes(f32.spec, 2), 1067008u);
  // The config saying bfloat16: 524,288 x 2 = 1,048,576 + 36,864 =
  // 1,085,440 B.
  const Model bf16 = model_of_recurrent_config(nano, R"({"mamba_ssm_cache_dtype": "bfloat16"})");
  EXPECT_EQ(vllm_mamba_ssm_element_bytes(bf16.spec), 2u);
  EXPECT_EQ(vllm_mamba2_state_bytes(bf16.spec, 1), 1085440u);
  // The field absent: float32 (vllm#39032's default), as memfit's reader.
  nlohmann::json without = nlohmann::json::parse(testing::read_test_data(nano));
  without.erase("mamba_ssm_cache_dtype");
  Result<ModelSpec> absent = parse_model_config(without.dump());
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(vllm_mamba_ssm_element_bytes(*absent), 4u);
}

TEST(VllmKv, NemotronHSsmStateFollowsTheReleaseOfItsConfigHook) {
  // Before 0.13 Nemotron-H had no hook (vllm#29978): "auto", the model's
  // 16 bits, whatever its config says: 36,864 + 524,288 x 2 = 1,085,440 B.
  const Model nano = model_of_recurrent_config(
      "corpus/nemotron_h/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/config.json", "");
  EXPECT_EQ(vllm_mamba_ssm_element_bytes(nano.spec, VllmRelease{0, 12, 0, false}), 2u);
  EXPECT_EQ(vllm_mamba2_state_bytes(nano.spec, 1, VllmRelease{0, 12, 0, false}), 1085440u);
  EXPECT_EQ(vllm_mamba2_state_bytes(nano.spec, 1, VllmRelease{0, 13, 0, false}), 2134016u);
}

TEST(VllmKv, NemotronH4BAtFloat16GivesTheBlockVllm0130Printed) {
  // NVIDIA-Nemotron-3-Nano-4B-FP8 under vLLM 0.13.0 (NVIDIA's 26.01
  // container, --kv-cache-dtype fp8), a public log: "Updating
  // mamba_ssm_cache_dtype to 'float16' for NemotronH model" (its config
  // names none: #29978's default), "Setting attention block size to 992
  // tokens", "Padding mamba page size by 0.35%". Its geometry: 96 Mamba
  // heads x 80, 8 groups, state 128, conv 4; attention 8 KV heads x 128.
  // State: conv 3 x (7,680 + 2 x 8 x 128) = 29,184 x 2 = 58,368; SSM 96 x
  // 80 x 128 = 983,040 x 2 = 1,966,080: 2,024,448 B. Attention 2 x 8 x 128
  // x 1 B = 2,048 B a token: 16 x cdiv(2,024,448, 32,768) = 16 x 62 = 992
  // tokens, a page of 2,031,616 B, 0.354 % above the state.
  Model four_b;
  four_b.has_config = true;
  four_b.weights.bytes = 1000;
  four_b.weights.source = WeightsSource::kSafetensorsIndex;
  Result<ModelSpec> spec = parse_model_config(
      R"({"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h",
          "hidden_size": 3136, "num_hidden_layers": 42, "intermediate_size": 12544,
          "hybrid_override_pattern": "M-M-M-MM-M-M*-M-M*-M-M-M*-M-M-MM*-MMM-M-M-",
          "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
          "mamba_num_heads": 96, "mamba_head_dim": 80, "n_groups": 8, "ssm_state_size": 128,
          "conv_kernel": 4, "vocab_size": 131072, "max_position_embeddings": 262144,
          "mamba_ssm_cache_dtype": "float16", "torch_dtype": "bfloat16"})");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  four_b.spec = *spec;
  VllmSettings s = one_sequence_of_8k_in_1_gib();
  s.kv_cache_fp8 = true;
  s.release = VllmRelease{0, 13, 0, false};
  VllmEstimate e = run(four_b, s);
  EXPECT_EQ(e.layout.mamba_state_bytes, 2024448u);
  EXPECT_EQ(e.layout.attention_block_size, 992u);
  EXPECT_EQ(e.layout.page_size_bytes, 2031616u);
}

TEST(VllmKv, MiniMaxLightningStateIsInTheModelDtype) {
  // The minimax-lightning fixture (MiniMax-Text-01's layout): 6 lightning
  // layers of 64 heads x 128 x 128, memfit's spec at f32: 4,194,304 B a
  // layer. vLLM's linear_attention_state_dtype keeps the model's bf16:
  // 64 x 128 x 128 x 2 = 2,097,152 B at TP 1; TP 8: 8 x 128 x 128 x 2 =
  // 262,144 B.
  const Model minimax = model_of_recurrent_config("fixtures/minimax-lightning/config.json", "");
  VllmSettings s = one_sequence_of_8k_in_1_gib();
  EXPECT_EQ(run(minimax, s).layout.mamba_state_bytes, 2097152u);
  s.tensor_parallel = 8;
  EXPECT_EQ(run(minimax, s).layout.mamba_state_bytes, 262144u);
}

TEST(VllmKv, MambaCacheDtypeFlagsPriceGraniteHybridsConvAndSsmStates) {
  // The granite-hybrid fixture at TP 1 (above): 9,984 convolution and
  // 393,216 SSM elements a Mamba layer.
  const Model granite = model_of_recurrent_config("fixtures/granite-hybrid/config.json", "");
  // Both flags auto: 9,984 x 2 + 393,216 x 2 = 806,400 B.
  EXPECT_EQ(vllm_mamba2_state_bytes(granite.spec, 1, std::nullopt, {"auto", "auto"}), 806400u);
  // --mamba-cache-dtype float32, the SSM flag auto (_mamba_state_dtype: the
  // conv state's dtype): 9,984 x 4 = 39,936 + 393,216 x 4 = 1,572,864:
  // 1,612,800 B.
  EXPECT_EQ(vllm_mamba_conv_element_bytes({"float32", "auto"}), 4u);
  EXPECT_EQ(vllm_mamba_ssm_element_bytes(granite.spec, std::nullopt, {"float32", "auto"}), 4u);
  EXPECT_EQ(vllm_mamba2_state_bytes(granite.spec, 1, std::nullopt, {"float32", "auto"}), 1612800u);
  // --mamba-ssm-cache-dtype float32 alone: 19,968 + 1,572,864 = 1,592,832 B.
  EXPECT_EQ(vllm_mamba2_state_bytes(granite.spec, 1, std::nullopt, {"auto", "float32"}), 1592832u);
  // Conv float32, SSM float16: 39,936 + 786,432 = 826,368 B.
  EXPECT_EQ(vllm_mamba2_state_bytes(granite.spec, 1, std::nullopt, {"float32", "float16"}), 826368u);
  // float16 and bfloat16 are 2 bytes as auto is: 806,400 B.
  EXPECT_EQ(vllm_mamba2_state_bytes(granite.spec, 1, std::nullopt, {"bfloat16", "float16"}), 806400u);
  // Through the estimate, --mamba-ssm-cache-dtype float32: blocks 16 x
  // cdiv(1,592,832, 16 x 2,048) = 16 x 49 = 784 tokens, a page of 784 x
  // 2,048 = 1,605,632 B (400 tokens at auto).
  VllmSettings s = one_sequence_of_8k_in_1_gib();
  s.mamba_ssm_cache_dtype = "float32";
  VllmEstimate e = run(granite, s);
  EXPECT_EQ(e.layout.mamba_state_bytes, 1592832u);
  EXPECT_EQ(e.layout.attention_block_size, 784u);
  EXPECT_EQ(e.layout.page_size_bytes, 1605632u);
}

TEST(VllmKv, ExplicitSsmCacheDtypeWinsOverNemotronHsConfigHook) {
  // NVIDIA-Nemotron-3-Nano-30B-A3B at TP 1 (its config: float32): 18,432
  // conv and 524,288 SSM elements.
  const Model nano = model_of_recurrent_config(
      "corpus/nemotron_h/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/config.json", "");
  // --mamba-ssm-cache-dtype float16 given: NemotronHForCausalLMConfig acts
  // only on "auto": 36,864 + 524,288 x 2 = 1,048,576: 1,085,440 B.
  EXPECT_EQ(vllm_mamba2_state_bytes(nano.spec, 1, std::nullopt, {"auto", "float16"}), 1085440u);
  // --mamba-cache-dtype float32 alone: the hook still sets the SSM state
  // from the config (float32): 18,432 x 4 = 73,728 + 2,097,152 = 2,170,880 B.
  EXPECT_EQ(vllm_mamba2_state_bytes(nano.spec, 1, std::nullopt, {"float32", "auto"}), 2170880u);
  // Before 0.13 (no hook) the SSM state follows the conv state's float32:
  // 73,728 + 524,288 x 4 = 2,170,880 B; with both auto, 1,085,440 B.
  const VllmRelease v012{0, 12, 0, false};
  EXPECT_EQ(vllm_mamba2_state_bytes(nano.spec, 1, v012, {"float32", "auto"}), 2170880u);
  EXPECT_EQ(vllm_mamba2_state_bytes(nano.spec, 1, v012, {"auto", "auto"}), 1085440u);
}

TEST(VllmKv, MambaCacheDtypeFlagsPriceGatedDeltaNetsOverTheQwen35Hook) {
  // TP 2 (above): 12,288 conv elements (4,096 channels x 3), 262,144
  // recurrent ones.
  const Model next = qwen3_next_80b_of_the_log();
  // Qwen3-Next, --mamba-ssm-cache-dtype float32: 24,576 + 1,048,576 =
  // 1,073,152 B.
  EXPECT_EQ(vllm_gated_delta_state_bytes(next.spec, 2, {"auto", "float32"}), 1073152u);
  // --mamba-cache-dtype float32 alone: both states 4 bytes: 49,152 +
  // 1,048,576 = 1,097,728 B.
  EXPECT_EQ(vllm_gated_delta_state_bytes(next.spec, 2, {"float32", "auto"}), 1097728u);
  // Qwen3.5 with --mamba-ssm-cache-dtype bfloat16: the hook acts only on
  // "auto": 24,576 + 262,144 x 2 = 548,864 B; conv float32 with the SSM
  // flag auto: the hook's float32, 49,152 + 1,048,576 = 1,097,728 B.
  const Model q35 = corpus_model("qwen3_5/Qwen3.5-35B-A3B");
  EXPECT_EQ(vllm_gated_delta_temporal_element_bytes(q35.spec, {"auto", "bfloat16"}), 2u);
  EXPECT_EQ(vllm_gated_delta_state_bytes(q35.spec, 2, {"auto", "bfloat16"}), 548864u);
  EXPECT_EQ(vllm_gated_delta_state_bytes(q35.spec, 2, {"float32", "auto"}), 1097728u);
}

TEST(VllmKv, GatedDeltaNetsReadTheSsmFlagFromVllm016) {
  // Qwen3-Next at TP 2 with --mamba-ssm-cache-dtype float32: 1,073,152 B
  // on the current line; under 0.15 (before vllm#34489 the state took
  // mamba_cache_dtype alone) the flag is ignored: 548,864 B.
  const Model next = qwen3_next_80b_of_the_log();
  VllmSettings s = one_sequence_of_8k_in_1_gib();
  s.tensor_parallel = 2;
  s.mamba_ssm_cache_dtype = "float32";
  EXPECT_EQ(run(next, s).layout.mamba_state_bytes, 1073152u);
  s.release = VllmRelease{0, 15, 0, false};
  EXPECT_EQ(run(next, s).layout.mamba_state_bytes, 548864u);
  s.release = VllmRelease{0, 16, 0, false};
  EXPECT_EQ(run(next, s).layout.mamba_state_bytes, 1073152u);
}

TEST(VllmKv, MambaCacheDtypeSetsTheLightningStateAndTheSsmFlagDoesNot) {
  // The minimax-lightning fixture at TP 8: 8 x 128 x 128 = 131,072
  // elements a layer; linear_attention_state_dtype reads mamba_cache_dtype
  // alone: float32 524,288 B; --mamba-ssm-cache-dtype float32 leaves the
  // model's 2 bytes, 262,144 B.
  const Model minimax = model_of_recurrent_config("fixtures/minimax-lightning/config.json", "");
  VllmSettings s = one_sequence_of_8k_in_1_gib();
  s.tensor_parallel = 8;
  s.mamba_cache_dtype = "float32";
  EXPECT_EQ(run(minimax, s).layout.mamba_state_bytes, 524288u);
  s.mamba_cache_dtype = "auto";
  s.mamba_ssm_cache_dtype = "float32";
  EXPECT_EQ(run(minimax, s).layout.mamba_state_bytes, 262144u);
}

TEST(VllmKv, MambaCacheDtypesAreCheckedAgainstTheRelease) {
  const Model granite = model_of_recurrent_config("fixtures/granite-hybrid/config.json", "");
  VllmSettings s = one_sequence_of_8k_in_1_gib();
  // float16 came with vllm#29978 (0.13): refused under 0.12, priced under 0.13.
  s.mamba_ssm_cache_dtype = "float16";
  s.release = VllmRelease{0, 12, 0, false};
  Result<VllmEstimate> v012 = estimate_vllm(granite, {}, s, kBudget);
  ASSERT_FALSE(v012.ok());
  EXPECT_EQ(v012.error().field(), "mamba_ssm_cache_dtype");
  s.release = VllmRelease{0, 13, 0, false};
  EXPECT_TRUE(estimate_vllm(granite, {}, s, kBudget).ok());
  // bfloat16 (vllm#41680) from 0.21: refused under 0.20.
  s.mamba_ssm_cache_dtype = "auto";
  s.mamba_cache_dtype = "bfloat16";
  s.release = VllmRelease{0, 20, 0, false};
  Result<VllmEstimate> v020 = estimate_vllm(granite, {}, s, kBudget);
  ASSERT_FALSE(v020.ok());
  EXPECT_EQ(v020.error().field(), "mamba_cache_dtype");
  // v0.7 has neither flag; a dtype vLLM has not is refused on any release.
  s.mamba_cache_dtype = "float32";
  s.release = VllmRelease{0, 7, 0, false};
  EXPECT_FALSE(estimate_vllm(granite, {}, s, kBudget).ok());
  s.release.reset();
  s.mamba_cache_dtype = "fp8";
  Result<VllmEstimate> fp8 = estimate_vllm(granite, {}, s, kBudget);
  ASSERT_FALSE(fp8.ok());
  EXPECT_EQ(fp8.error().field(), "mamba_cache_dtype");
}

TEST(VllmKv, Qwen3NextAtTp2GivesTheBlocksVllm0102Printed) {
  // The neverlogs13 run: vLLM 0.10.2, TP 2, bf16, max_model_len 262,144.
  // Attention (12 of 48 layers, 2 KV heads x 256): max(1, 2 / 2) = 1 head x
  // 256 x 2 (K, V) x 2 B = 1,024 B per token. Gated delta state 548,864 B
  // (above): block size 16 x cdiv(548,864, 16 x 1,024) = 16 x 34 = 544 tokens
  // (33.5 rounded up; the log: "Setting attention block size to 544
  // tokens"), page 544 x 1,024 = 557,056 B, the state padded by 8,192 B
  // (1.49 %, as the log prints). Groups of 12 (36 is not under 1.5 x 12):
  // 3 Mamba groups + 1 attention group, a block 12 x 557,056 = 6,684,672 B.
  // The KV memory the log says is in use, 47,878,721,024 B: 7,162 blocks
  // (7,162 x 6,684,672 = 47,875,620,864; one more is 47,882,305,536), the
  // printed num_gpu_blocks. A 262,144-token request: cdiv(262,144, 544) =
  // 482 attention blocks + 3 state blocks = 485; 7,162 / 485 = 14.767x
  // (printed 14.77x); tokens as 0.10.2 printed them: 7,162 // 4 groups =
  // 1,790 x 544 = 973,760 (printed 973,760). With the state at float32 the
  // block was 1,056 tokens and the blocks 3,741, half the print.
  VllmSettings s;
  s.tensor_parallel = 2;
  s.max_model_len = 262144;
  s.kv_cache_memory = 47878721024ull;
  // memfit models no 0.10 accounting: check-log prices 0.10.2 with 0.11's,
  // which prints the tokens per group as 0.10.2 did.
  s.release = VllmRelease{0, 11, 0, false};
  VllmEstimate e = run(qwen3_next_80b_of_the_log(), s);
  EXPECT_EQ(e.layout.mamba_state_bytes, 548864u);
  EXPECT_EQ(e.layout.attention_block_size, 544u);
  EXPECT_EQ(e.layout.page_size_bytes, 557056u);
  EXPECT_EQ(e.layout.group_size, 12u);
  ASSERT_EQ(e.layout.groups.size(), 4u);
  EXPECT_EQ(e.layout.bytes_per_block, 6684672u);
  EXPECT_EQ(e.num_blocks, 7162u);
  EXPECT_EQ(e.layout.blocks_per_request, 485u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 7162.0 / 485.0);
  EXPECT_EQ(e.kv_tokens, 973760u);
}

TEST(VllmKv, SlidingWindowGemma3SplitsItsLayersIntoGroupsOfTheGlobalCount) {
  // gemma-3-1b-it: 26 layers, 1 KV head x 256: page 2 x 16 x 1 x 256 x 2 B
  // = 16,384 B for the 22 sliding (window 512) and the 4 full layers alike.
  // Two kinds: groups of min(22, 4) = 4 layers (22 is not under 1.5 x 4);
  // sliding cdiv(22, 4) = 6 groups (4, 4, 4, 4, 3, 3), full 1 group of 4:
  // 7 groups; a block costs 4 x 16,384 = 65,536 B (4 tensors allocated).
  // 1 GiB given: 1,073,741,824 // 65,536 = 16,384 blocks; tokens 16,384 //
  // 7 = 2,340 x 16 = 37,440.
  // max_model_len from the config, 32,768, with 8,192 batched tokens: full
  // cdiv(32,768, 16) = 2,048; each sliding group cdiv(min(511 + 8,192,
  // 32,768), 16) + 1 = cdiv(8,703, 16) + 1 = 545, x 6 = 3,270: 5,318 blocks
  // a request; 16,384 / 5,318 = 3.08x.
  VllmSettings s;
  s.kv_cache_memory = kGiB;
  s.release = VllmRelease{0, 20, 0, false};  // the tokens as 0.20 prints them (per group)
  s.max_num_batched_tokens = 8192;
  VllmEstimate e = run(corpus_model("gemma3/gemma-3-1b-it"), s);
  EXPECT_EQ(e.settings.max_model_len, 32768u);
  EXPECT_EQ(e.layout.page_size_bytes, 16384u);
  EXPECT_EQ(e.layout.attention_block_size, 16u);
  EXPECT_EQ(e.layout.group_size, 4u);
  ASSERT_EQ(e.layout.groups.size(), 7u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(e.layout.groups[i].kind, VllmSpecKind::kSlidingWindow);
    EXPECT_EQ(e.layout.groups[i].window, 512u);
    EXPECT_EQ(e.layout.groups[i].layers, i < 4 ? 4u : 3u);
    EXPECT_EQ(e.layout.groups[i].blocks_per_request, 545u);
  }
  EXPECT_EQ(e.layout.groups[6].kind, VllmSpecKind::kFullAttention);
  EXPECT_EQ(e.layout.groups[6].blocks_per_request, 2048u);
  EXPECT_EQ(e.layout.bytes_per_block, 65536u);
  EXPECT_EQ(e.num_blocks, 16384u);
  EXPECT_EQ(e.kv_tokens, 37440u);
  EXPECT_EQ(e.layout.blocks_per_request, 5318u);
  EXPECT_DOUBLE_EQ(e.max_concurrency, 16384.0 / 5318.0);
  EXPECT_EQ(e.max_num_seqs_fit, 3u);
  // 256 requests: (5,318 x 256 + 1) x 65,536 = 89,221,300,224.
  EXPECT_EQ(e.kv_cache_memory_for_seqs, 89221300224ull);
  // The longest request the blocks hold: past 8,703 tokens a request needs
  // cdiv(L, 16) + 3,270 blocks, so up to 13,114 x 16 = 209,824 tokens; the
  // search stops at the config's 32,768.
  EXPECT_EQ(e.max_model_len_fit, 32768u);
}

TEST(VllmWeights, GatedDeltaNetTensorsSplitByTensorParallel) {
  // One Qwen3-Next-style linear-attention layer (hidden 2,048; 16 key heads
  // and 32 value heads of 128: key_dim 2,048, value_dim 4,096), bf16 but
  // A_log f32:
  //   in_proj_qkvz [2 x 2,048 + 2 x 4,096 = 12,288, 2,048] 50,331,648 B
  //   in_proj_ba   [2 x 32 = 64, 2,048]                       262,144 B
  //   conv1d       [2 x 2,048 + 4,096 = 8,192, 1, 4]           65,536 B
  //   A_log        [32] f32                                       128 B
  //   dt_bias      [32]                                            64 B
  //   norm         [128] (gated RMSNorm over head_v_dim)          256 B
  //   out_proj     [2,048, 4,096]                           16,777,216 B
  // TP 1: the sum, 67,436,992. TP 2 (vLLM): qkvz and ba are
  // MergedColumnParallelLinear, conv1d ColumnParallelLinear over its
  // channels, A_log / dt_bias split along the heads, out_proj
  // RowParallelLinear: halves 25,165,824 + 131,072 + 32,768 + 64 + 32 +
  // 8,388,608; the norm whole, 256: 33,718,624. qkvz interleaves q, k, v, z
  // per key-head group; 16 groups over 2 ranks are 8 whole groups a rank,
  // so its share is exactly half. Rope cache (Qwen3.5-35B-A3B's config):
  // 262,144 positions x 256 x 2 B = 134,217,728.
  Model m = corpus_model("qwen3_5/Qwen3.5-35B-A3B");
  const std::string a = "model.layers.0.linear_attn.";
  const std::vector<SafetensorsTensor> tensors = {
      {a + "in_proj_qkvz.weight", "BF16", {12288, 2048}, 12288ull * 2048 * 2},
      {a + "in_proj_ba.weight", "BF16", {64, 2048}, 64ull * 2048 * 2},
      {a + "conv1d.weight", "BF16", {8192, 1, 4}, 8192ull * 4 * 2},
      {a + "A_log", "F32", {32}, 32ull * 4},
      {a + "dt_bias", "BF16", {32}, 32ull * 2},
      {a + "norm.weight", "BF16", {128}, 128ull * 2},
      {a + "out_proj.weight", "BF16", {2048, 4096}, 2048ull * 4096 * 2},
  };
  Result<VllmWeights> one = vllm_rank_weights(m, tensors, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->rope_cache_bytes, 134217728u);
  EXPECT_EQ(one->bytes, 67436992ull + 134217728ull);
  Result<VllmWeights> two = vllm_rank_weights(m, tensors, 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->bytes, 33718624ull + 134217728ull);
  // Each tensor at TP 2, in the order above.
  const uint64_t halves[] = {25165824, 131072, 32768, 64, 32, 256, 8388608};
  const TensorSplit vllm2{ShardingRules::kVllm, 2, 2};
  for (size_t i = 0; i < tensors.size(); ++i) {
    Result<uint64_t> b = tp_rank_tensor_bytes(tensors[i], place_tensor(tensors[i].name).role, vllm2);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(*b, halves[i]) << tensors[i].name;
  }
  // Qwen3.5's checkpoint names split the same way; mlx-lm keeps them whole;
  // a Mamba mixer's conv1d (not under linear_attn) has its own role
  // (engines/shared/parallel_tensors_mamba_test.cc).
  const SafetensorsTensor qkv{"model.language_model.layers.0.linear_attn.in_proj_qkv.weight",
                              "BF16", {8192, 2048}, 8192ull * 2048 * 2};
  EXPECT_EQ(place_tensor(qkv.name).role, TensorRole::kLinearAttention);
  EXPECT_EQ(place_tensor(a + "in_proj_b.weight").role, TensorRole::kLinearAttention);
  Result<uint64_t> mlx = tp_rank_tensor_bytes(
      qkv, TensorRole::kLinearAttention, TensorSplit{ShardingRules::kMlxLm, 2, 2});
  ASSERT_TRUE(mlx.ok());
  EXPECT_EQ(*mlx, 8192ull * 2048 * 2);
  EXPECT_EQ(place_tensor("model.layers.0.mixer.conv1d.weight").role, TensorRole::kSsmConv);
}

TEST(VllmWeights, Gemma3OneKvHeadStaysWholeOnEveryRank) {
  // gemma-3-1b-it tensors at TP 2 (bf16): q [1,024, 1,152] 2,359,296 B
  // split in two; k and v [256, 1,152] 589,824 B each, the one KV head
  // kept whole on both ranks (max(1, 1 / 2)); o [1,152, 1,024] split;
  // the tied embedding's 262,144 rows (4,096 x 64) split: 131,072 x 1,152
  // x 2 = 301,989,888; a norm whole. Rope caches, Gemma 3's local and
  // global (rope_cache.h): 2 x 32,768 x 256 x 2 B = 33,554,432.
  Model m = corpus_model("gemma3/gemma-3-1b-it");
  const std::vector<SafetensorsTensor> tensors = {
      {"model.layers.0.self_attn.q_proj.weight", "BF16", {1024, 1152}, 1024ull * 1152 * 2},
      {"model.layers.0.self_attn.k_proj.weight", "BF16", {256, 1152}, 256ull * 1152 * 2},
      {"model.layers.0.self_attn.v_proj.weight", "BF16", {256, 1152}, 256ull * 1152 * 2},
      {"model.layers.0.self_attn.o_proj.weight", "BF16", {1152, 1024}, 1152ull * 1024 * 2},
      {"model.layers.0.input_layernorm.weight", "BF16", {1152}, 1152ull * 2},
      {"model.embed_tokens.weight", "BF16", {262144, 1152}, 262144ull * 1152 * 2},
  };
  Result<VllmWeights> w = vllm_rank_weights(m, tensors, 2);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->rope_cache_bytes, 33554432u);
  // 1,179,648 + 589,824 x 2 + 1,179,648 + 2,304 + 301,989,888 + 33,554,432.
  EXPECT_EQ(w->bytes, 1179648ull + 2 * 589824ull + 1179648ull + 2304ull + 301989888ull + 33554432ull);
}

TEST(VllmWeights, MlaDownProjectionsStayWholeUnderTp8) {
  // DeepSeek-V3's FP8 tensors of one MoE layer at TP 8 (1 B a weight):
  // q_a_proj [1,536, 7,168] 11,010,048 B and kv_a_proj_with_mqa [576,
  // 7,168] 4,128,768 B are ReplicatedLinear: whole; q_b_proj [24,576,
  // 1,536] 37,748,736 -> 4,718,592 and kv_b_proj [32,768, 512] 16,777,216
  // -> 2,097,152 are column-parallel; o_proj [7,168, 16,384] 117,440,512 ->
  // 14,680,064 row-parallel; the router (gate [256, 7,168] bf16, 3,670,016)
  // and its e_score_correction_bias [256] f32 (1,024) whole; one expert's
  // gate_proj and down_proj [2,048, 7,168] 14,680,064 -> 1,835,008 each;
  // q_b_proj's block scales [192, 12] f32 9,216 -> 1,152; the norms whole
  // (7,168 x 2 + 512 x 2). The embedding's 129,280 rows (2,020 x 64) ->
  // 16,160 a rank x 7,168 x 2 = 231,669,760. Rope cache: 163,840 positions
  // x hidden / heads 56 x 2 B = 18,350,080 (modelled: vLLM's MLA rotary is
  // qk_rope_head_dim 64 wide).
  Model m = corpus_model("deepseek_v3/DeepSeek-V3");
  const std::string a = "model.layers.3.self_attn.";
  const std::string f = "model.layers.3.mlp.";
  const std::vector<SafetensorsTensor> tensors = {
      {a + "q_a_proj.weight", "F8_E4M3", {1536, 7168}, 1536ull * 7168},
      {a + "kv_a_proj_with_mqa.weight", "F8_E4M3", {576, 7168}, 576ull * 7168},
      {a + "q_b_proj.weight", "F8_E4M3", {24576, 1536}, 24576ull * 1536},
      {a + "q_b_proj.weight_scale_inv", "F32", {192, 12}, 192ull * 12 * 4},
      {a + "kv_b_proj.weight", "F8_E4M3", {32768, 512}, 32768ull * 512},
      {a + "o_proj.weight", "F8_E4M3", {7168, 16384}, 7168ull * 16384},
      {a + "kv_a_layernorm.weight", "BF16", {512}, 512ull * 2},
      {f + "gate.weight", "BF16", {256, 7168}, 256ull * 7168 * 2},
      {f + "gate.e_score_correction_bias", "F32", {256}, 256ull * 4},
      {f + "experts.0.gate_proj.weight", "F8_E4M3", {2048, 7168}, 2048ull * 7168},
      {f + "experts.0.down_proj.weight", "F8_E4M3", {7168, 2048}, 7168ull * 2048},
      {"model.layers.3.input_layernorm.weight", "BF16", {7168}, 7168ull * 2},
      {"model.embed_tokens.weight", "BF16", {129280, 7168}, 129280ull * 7168 * 2},
  };
  Result<VllmWeights> w = vllm_rank_weights(m, tensors, 8);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->rope_cache_bytes, 18350080u);
  EXPECT_EQ(w->bytes, 11010048ull + 4128768ull + 4718592ull + 1152ull + 2097152ull + 14680064ull +
                          1024ull + 3670016ull + 1024ull + 2 * 1835008ull + 14336ull +
                          231669760ull + 18350080ull);
}

TEST(VllmEstimate, UtilizationSizesTheKvCacheFromWhatIsLeft) {
  // Llama-3.2-1B, weights 2,471,645,184 B (+ rope 131,072 x 64 x 2 B =
  // 16,777,216, + the allocator's 1,048,576: the tied table 128,256 x 2,048
  // x 2 B = 501 MiB holds a 502 MiB block; allocations.h), 40 GiB GPU at
  // 0.5: 21,474,836,480 requested. A 40 GiB
  // GPU takes vLLM's small defaults: 2,048 batched tokens, 256 rows.
  // Forward: hidden 2,048 x 2,048 x 2 x 4 = 33,554,432 + the MLP 2,048 x 3
  // x 8,192 x 2 = 100,663,296 (over attention 2,048 x (2 x 32 + 2 x 8) x 64
  // x 2 = 20,971,520) = 134,217,728. Sampler: the hidden states 2,048 x
  // 2,048 x 2 = 8,388,608 + 256 x 128,256 x 39 = 1,280,507,904, so
  // 1,288,896,512, the larger. Non-torch 144 MiB = 150,994,944.
  // KV 21,474,836,480 - 2,489,470,976 - 1,288,896,512 - 150,994,944 =
  // 17,545,474,048; a block 16 layers x 2 x 16 x 8 x 64 x 2 = 524,288 B:
  // 33,465 blocks. The peak: 20 GiB + the CUDA graphs, captured past the
  // utilization: 256 sequences capture 51 PIECEWISE and 35 FULL graphs,
  // 86 x 16 layers x 256 KiB = 360,710,144 B. Priced as 0.20 (0.11 to 0.20's accounting); the
  // current line's subtracts the graphs too (From021..., below).
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.gpu_memory_utilization = 0.5;
  s.max_model_len = 4096;
  s.release = VllmRelease{0, 20, 0, false};
  VllmEstimate e = run(corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull), s);
  EXPECT_EQ(e.settings.max_num_batched_tokens, 2048u);
  EXPECT_EQ(e.settings.max_num_seqs, 256u);
  EXPECT_EQ(e.weights.bytes, 2471645184ull + 16777216ull + 1048576ull);
  EXPECT_EQ(e.activation_bytes, 1288896512u);
  EXPECT_EQ(e.non_torch_bytes, 150994944u);
  EXPECT_EQ(e.requested_bytes, 20 * kGiB);
  EXPECT_EQ(e.kv_cache_bytes, 17545474048ull);
  EXPECT_EQ(e.num_blocks, 33465u);
  EXPECT_EQ(e.cuda_graph_bytes, 360710144u);
  EXPECT_EQ(e.total_bytes, 20 * kGiB + 360710144u);
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

TEST(VllmEstimate, V07AccountingSubtractsTheContextAndEveryRowsLogits) {
  // The Llama-3.2-1B run above priced by v0.7's V1 worker (--vllm-version
  // 0.7): a 40 GiB GPU with no name takes 2,048 batched tokens (the size
  // rule stands in for v0.7's name rule) and v0.7's 256 rows.
  // Forward as above, 134,217,728. The profile's logits: all 2,048 rows x
  // the vocabulary 128,256 (a multiple of 64) x 2 B = 525,336,576, with the
  // hidden states 8,388,608: 533,725,184, the larger. The runner's input
  // buffers: 2,048 x (2,048 x 2 + 4 + 8) = 8,413,184. Activation
  // 542,138,368. Non-torch 150,994,944, and the CUDA context 400 MiB =
  // 419,430,400. KV 21,474,836,480 - 2,489,470,976 (the weights with the
  // allocator's 1 MiB, as above) - 542,138,368 - 150,994,944 - 419,430,400
  // = 17,872,801,792; blocks of 524,288 B: 34,089 (34,090 would be
  // 17,872,977,920). The peak as before: 20 GiB +
  // the CUDA graphs' 1 GiB.
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.gpu_memory_utilization = 0.5;
  s.max_model_len = 4096;
  s.release = VllmRelease{0, 7, 0, false};
  VllmEstimate e = run(corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull), s);
  EXPECT_EQ(e.accounting, VllmAccounting::kV07);
  EXPECT_EQ(e.settings.max_num_batched_tokens, 2048u);
  EXPECT_EQ(e.settings.max_num_seqs, 256u);
  EXPECT_EQ(e.activation_bytes, 542138368u);
  EXPECT_EQ(e.non_torch_bytes, 150994944u);
  EXPECT_EQ(e.cuda_context_bytes, 419430400u);
  EXPECT_EQ(e.kv_cache_bytes, 17872801792ull);
  EXPECT_EQ(e.num_blocks, 34089u);
  EXPECT_EQ(e.total_bytes, 21 * kGiB);
  // 0.11 to 0.20's: no context, the graphs past the utilization.
  s.release = VllmRelease{0, 11, 0, true};
  VllmEstimate now = run(corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull), s);
  EXPECT_EQ(now.accounting, VllmAccounting::kV011);
  EXPECT_EQ(now.cuda_context_bytes, 0u);
  EXPECT_EQ(now.kv_cache_bytes, 17545474048ull);
  EXPECT_FALSE(now.cuda_graphs_subtracted);
  // The graphs past it: 256 sequences and 2,048 batched tokens (a 40 GiB
  // GPU's defaults) capture 51 PIECEWISE and 35 FULL graphs, 86 x 16
  // layers x 256 KiB = 360,710,144 B on top of the 20 GiB requested.
  EXPECT_EQ(now.cuda_graph_bytes, 360710144u);
  EXPECT_EQ(now.total_bytes, 20 * kGiB + 360710144u);
}

TEST(VllmEstimate, From021TheCudaGraphsEstimateIsSubtractedFromTheKvMemory) {
  // The Llama-3.2-1B run above (40 GiB, utilization 0.5: 21,474,836,480 B
  // requested). 0.11's KV memory 17,545,474,048 leaves 3,929,362,432 for
  // the weights, activation and non-torch. From 0.21 the worker subtracts
  // the graphs' estimate too, memfit's 86 graphs x 16 layers x 256 KiB =
  // 360,710,144 B: 17,545,474,048 - 360,710,144 = 17,184,763,904, blocks
  // of 524,288 B: 32,777 (17,184,587,776; 32,778 would be
  // 17,185,112,064). The graphs are then inside the utilization: the peak
  // is the 20 GiB requested.
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.gpu_memory_utilization = 0.5;
  s.max_model_len = 4096;
  s.release = VllmRelease{0, 21, 0, true};
  const Model model = corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull);
  VllmEstimate e = run(model, s);
  EXPECT_EQ(e.accounting, VllmAccounting::kCurrent);
  EXPECT_TRUE(e.cuda_graphs_subtracted);
  EXPECT_EQ(e.cuda_graph_bytes, 360710144u);
  // The counts the report prints, kept by the estimate: capture sizes up to
  // min(2 x 256, 512, 2,048) = 512, 51 PIECEWISE and 35 FULL (up to 256).
  EXPECT_EQ(e.cuda_graphs.piecewise, 51u);
  EXPECT_EQ(e.cuda_graphs.full, 35u);
  EXPECT_EQ(e.cuda_graphs.largest_tokens, 512u);
  EXPECT_EQ(e.kv_cache_bytes, 17184763904ull);
  EXPECT_EQ(e.num_blocks, 32777u);
  EXPECT_EQ(e.total_bytes, 20 * kGiB);
  // A run that turned the estimate off (VLLM_MEMORY_PROFILER_ESTIMATE_
  // CUDAGRAPHS=0, as check-log reads it from the log) keeps 0.11's sum.
  s.cuda_graph_estimate = false;
  VllmEstimate off = run(model, s);
  EXPECT_FALSE(off.cuda_graphs_subtracted);
  EXPECT_EQ(off.kv_cache_bytes, 17545474048ull);
  EXPECT_EQ(off.total_bytes, 20 * kGiB + 360710144u);
  // --enforce-eager: no graphs, nothing subtracted.
  s.cuda_graph_estimate.reset();
  s.enforce_eager = true;
  VllmEstimate eager = run(model, s);
  EXPECT_FALSE(eager.cuda_graphs_subtracted);
  EXPECT_EQ(eager.cuda_graph_bytes, 0u);
  EXPECT_EQ(eager.cuda_graphs.piecewise + eager.cuda_graphs.full + eager.cuda_graphs.largest_tokens, 0u);
  EXPECT_EQ(eager.kv_cache_bytes, 17545474048ull);
  EXPECT_EQ(eager.total_bytes, 20 * kGiB);
}

TEST(VllmEstimate, TheCurrentLinesUtilizationDefaultsTo092) {
  // No utilization given: 0.92 from 0.21 (vllm-project/vllm#38284), 0.9
  // before. floor(42,949,672,960 x 0.92) = 39,513,699,123 requested, less
  // the terms, the current line's (the V2 runner's sampler): weights
  // 2,489,470,976 (2,471,645,184 + rope 16,777,216 + the allocator's
  // 1,048,576) + activation 205,389,824 (2,048 hidden states x 2,048 x 2 +
  // 256 rows x 128,256 x (2 + 4), as in
  // TheV2RunnerSamplesAFloat32CopyOfItsLogitsFrom029) + non-torch
  // 150,994,944 = 2,845,855,744, and the graphs' 360,710,144 (86 graphs x
  // 16 layers x 256 KiB): 36,307,133,235 of KV memory. At 0.20 (the V1
  // runner: activation 1,288,896,512, terms 3,929,362,432), floor(x 0.9) =
  // 38,654,705,664 less the terms: 34,725,343,232.
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.max_model_len = 4096;
  const Model model = corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull);
  VllmEstimate now = run(model, s);
  EXPECT_EQ(now.settings.gpu_memory_utilization, 0.92);
  EXPECT_EQ(now.requested_bytes, 39513699123ull);
  EXPECT_TRUE(now.v2_model_runner);
  EXPECT_EQ(now.kv_cache_bytes, 36307133235ull);
  s.release = VllmRelease{0, 20, 0, false};
  VllmEstimate v020 = run(model, s);
  EXPECT_EQ(v020.settings.gpu_memory_utilization, 0.9);
  EXPECT_EQ(v020.kv_cache_bytes, 34725343232ull);
}

TEST(VllmEstimate, V07UnderTensorParallelHoldsTheShardDuringTheGather) {
  // Llama-3.2-1B at TP 2, v0.7, 8 batched tokens (rows 8): forward 8 x
  // 2,048 x 2 x 4 = 131,072 + the MLP 8 x 3 x 4,096 x 2 = 196,608 (over
  // attention 8 x (2 x 16 + 2 x 4) x 64 x 2 = 40,960) = 327,680. Logits: 8
  // x 128,256 x 2 = 2,052,096 gathered + the rank's shard 8 x 64,128 x 2 =
  // 1,026,048, with the hidden states 32,768: 3,110,912. Buffers 8 x
  // (4,096 + 12) = 32,864. Activation 3,143,776.
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.tensor_parallel = 2;
  s.max_model_len = 4096;
  s.max_num_batched_tokens = 8;
  s.release = VllmRelease{0, 7, 3, true};
  VllmEstimate e = run(corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull), s);
  EXPECT_EQ(e.settings.max_num_seqs, 8u);
  EXPECT_EQ(e.activation_bytes, 3143776u);
  EXPECT_EQ(e.non_torch_bytes, 150994944u + 440401920u);
}

TEST(VllmEstimate, AnEagerForwardUnderTensorParallelHoldsTheAllReducesOutputToo) {
  // Llama-3.2-1B at TP 2, 2,048 batched tokens, one sequence (so the
  // forward is the peak: the sampler's hidden states 2,048 x 2,048 x 2 =
  // 8,388,608 + 1 x 128,256 x 39 = 5,001,984 is 13,390,592). The rank's
  // MLP 2,048 x 3 x 4,096 x 2 = 50,331,648 (over attention 2,048 x (2 x 16
  // + 2 x 4) x 64 x 2 = 10,485,760); a hidden state 8,388,608. Compiled
  // (V1's default): 4 of them, 33,554,432 + 50,331,648 = 83,886,080. Eager
  // (V0's engine, or --enforce-eager): 5, the all-reduce's output beside
  // the down projection's, 41,943,040 + 50,331,648 = 92,274,688. At TP 1
  // there is no all-reduce: 4 x 8,388,608 + 2,048 x 3 x 8,192 x 2 =
  // 33,554,432 + 100,663,296 = 134,217,728 either way.
  const Model m = corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull);
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.tensor_parallel = 2;
  s.max_model_len = 4096;
  s.max_num_batched_tokens = 2048;
  s.max_num_seqs = 1;
  s.release = VllmRelease{0, 20, 0, false};
  EXPECT_EQ(run(m, s).activation_bytes, 83886080u);
  EXPECT_EQ(vllm_profile_forward_bytes(m.spec, s), 83886080u);
  VllmSettings v0 = s;
  v0.v0_engine = true;
  EXPECT_EQ(run(m, v0).activation_bytes, 92274688u);
  VllmSettings eager = s;
  eager.enforce_eager = true;
  EXPECT_EQ(run(m, eager).activation_bytes, 92274688u);
  v0.tensor_parallel = 1;
  s.tensor_parallel = 1;
  EXPECT_EQ(run(m, v0).activation_bytes, 134217728u);
  EXPECT_EQ(run(m, s).activation_bytes, 134217728u);
}

TEST(VllmEstimate, TheV2RunnerSamplesAFloat32CopyOfItsLogitsFrom029) {
  // Llama-3.2-1B on 40 GiB (2,048 batched tokens, 256 rows) as in
  // UtilizationSizesTheKvCacheFromWhatIsLeft. From 0.29 the V2 runner's
  // dummy sampler run: the hidden states 2,048 x 2,048 x 2 = 8,388,608, the
  // 16-bit logits 256 x 128,256 x 2 = 65,667,072 (128,256 is a multiple of
  // 64) and the sampler's float32 copy 256 x 128,256 x 4 = 131,334,144:
  // 205,389,824, over the forward's 134,217,728. 0.28 (the V1 runner, no
  // sort from 0.22: TheV1SamplerSortsNoLogitsFrom022, below): 8,388,608 +
  // 65,667,072 + 256 x 128,256 x 12 = 394,002,432: 468,058,112.
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.max_model_len = 4096;
  s.release = VllmRelease{0, 29, 0, true};
  const Model m = corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull);
  VllmEstimate v029 = run(m, s);
  EXPECT_TRUE(v029.v2_model_runner);
  EXPECT_EQ(v029.activation_bytes, 205389824u);
  s.release = VllmRelease{0, 28, 0, true};
  VllmEstimate v028 = run(m, s);
  EXPECT_FALSE(v028.v2_model_runner);
  EXPECT_EQ(v028.activation_bytes, 468058112u);
  // A log that shows the runner decides it, whatever the release.
  s.v2_model_runner = true;
  EXPECT_EQ(run(m, s).activation_bytes, 205389824u);
}

TEST(VllmEstimate, TheV1SamplerSortsNoLogitsFrom022) {
  // Llama-3.2-1B on 40 GiB (2,048 batched tokens, 256 rows), the V1 runner.
  // Before 0.22 its dummy sampler run sorts the logits (PyTorch's
  // top-k/top-p): the hidden states 2,048 x 2,048 x 2 = 8,388,608 + 256 x
  // 128,256 x 39 = 1,280,507,904: 1,288,896,512. From 0.22 (FlashInfer's
  // kernel by default, #40376; the native path's Triton masking, #33538)
  // it sorts nothing: 8,388,608 + the 16-bit logits 256 x 128,256 x 2 =
  // 65,667,072 + the float32 copy and two more float32 tensors 256 x
  // 128,256 x 12 = 394,002,432: 468,058,112, over the forward's 134,217,728.
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.max_model_len = 4096;
  const Model m = corpus_model("llama3/Llama-3.2-1B-Instruct", 2471645184ull);
  s.release = VllmRelease{0, 21, 0, true};
  EXPECT_TRUE(vllm_v1_sampler_sorts(s));
  EXPECT_EQ(run(m, s).activation_bytes, 1288896512u);
  s.release = VllmRelease{0, 22, 0, true};
  EXPECT_FALSE(vllm_v1_sampler_sorts(s));
  EXPECT_EQ(run(m, s).activation_bytes, 468058112u);
  // Off FlashInfer (VLLM_USE_FLASHINFER_SAMPLER=0, an unsupported GPU) 0.22
  // masks with the Triton kernel: no sort either.
  s.flashinfer_sampler = false;
  EXPECT_EQ(run(m, s).activation_bytes, 468058112u);
  // The current line on the V1 runner (a log without "Using V2 Model
  // Runner"): no sort.
  s.release.reset();
  s.v2_model_runner = false;
  EXPECT_EQ(run(m, s).activation_bytes, 468058112u);
  // A log whose worker selected FlashInfer's kernel before 0.22 (0.11's
  // opt-in VLLM_USE_FLASHINFER_SAMPLER=1): no sort, under 0.11 to 0.20's
  // accounting too.
  s.v2_model_runner.reset();
  s.release = VllmRelease{0, 20, 0, true};
  s.flashinfer_sampler = true;
  EXPECT_FALSE(vllm_v1_sampler_sorts(s));
  EXPECT_EQ(run(m, s).activation_bytes, 468058112u);
  s.flashinfer_sampler = false;
  EXPECT_EQ(run(m, s).activation_bytes, 1288896512u);
}

TEST(VllmEstimate, DeepSeekV32OnRocmFallsBackToTheV1Runner) {
  // vllm/config/vllm.py routes DeepseekV32 on ROCm to the V1 runner; its
  // sparse-MLA indexer (a layer's index_elems) is what memfit's spec shows.
  ModelSpec spec;
  spec.layers.push_back(LayerCache{});
  VllmSettings s;
  s.rocm = true;
  EXPECT_TRUE(vllm_uses_v2_runner(spec, s));  // no indexer: V2 on ROCm too
  spec.layers[0].index_elems = 128;
  EXPECT_FALSE(vllm_uses_v2_runner(spec, s));
  s.rocm = false;
  EXPECT_TRUE(vllm_uses_v2_runner(spec, s));
  s.release = VllmRelease{0, 28, 0, true};
  EXPECT_FALSE(vllm_uses_v2_runner(spec, s));
}

TEST(VllmEstimate, V07DefaultsFollowTheGpusName) {
  // v0.7: 8,192 batched tokens when the name says H100 or H200, else 2,048;
  // 256 rows. An H20 (96 GiB) takes the small count there (the current
  // line gives it 8,192 and 1,024); a GPU without a name, the size rule.
  const VllmRelease v07{0, 7, 0, false};
  VllmSettings h100;
  h100.gpu_memory_total = 80 * kGiB;
  h100.gpu_name = "NVIDIA H100 80GB HBM3";
  h100.release = v07;
  vllm_resolve_defaults(h100);
  EXPECT_EQ(h100.max_num_batched_tokens, 8192u);
  EXPECT_EQ(h100.max_num_seqs, 256u);
  VllmSettings h20;
  h20.gpu_memory_total = 96 * kGiB;
  h20.gpu_name = "NVIDIA H20";
  h20.release = v07;
  vllm_resolve_defaults(h20);
  EXPECT_EQ(h20.max_num_batched_tokens, 2048u);
  EXPECT_EQ(h20.max_num_seqs, 256u);
  VllmSettings unnamed;
  unnamed.gpu_memory_total = 80 * kGiB;
  unnamed.release = v07;
  vllm_resolve_defaults(unnamed);
  EXPECT_EQ(unnamed.max_num_batched_tokens, 8192u);
  EXPECT_EQ(unnamed.max_num_seqs, 256u);
}

TEST(VllmRelease, ParsesXYAndXYZAndRefusesTheRest) {
  Result<VllmRelease> r = parse_vllm_version("0.7");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->major, 0u);
  EXPECT_EQ(r->minor, 7u);
  EXPECT_FALSE(r->has_patch);
  EXPECT_EQ(to_string(*r), "0.7");
  r = parse_vllm_version("v0.7.3");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->patch, 3u);
  EXPECT_EQ(to_string(*r), "0.7.3");
  ASSERT_TRUE(parse_vllm_version("0.11.0").ok());
  EXPECT_EQ(to_string(*parse_vllm_version("0.11.0")), "0.11.0");
  for (const char* bad : {"", "v", "0", "7", "0.", ".7", "0.7.", "0..7", "0.7.3.1", "0.x", "0.7rc1",
                          "0.7 ", " 0.7", "12345.1", "0.-7"}) {
    Result<VllmRelease> b = parse_vllm_version(bad);
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.error().kind(), ErrorKind::kUsage) << bad;
  }
}

TEST(VllmRelease, AccountingIsV07OrTheCurrentLineElseRefused) {
  EXPECT_EQ(*vllm_accounting(std::nullopt), VllmAccounting::kCurrent);
  EXPECT_EQ(*vllm_accounting(VllmRelease{0, 7, 3, true}), VllmAccounting::kV07);
  EXPECT_EQ(*vllm_accounting(VllmRelease{0, 11, 0, true}), VllmAccounting::kV011);
  EXPECT_EQ(*vllm_accounting(VllmRelease{0, 20, 1, true}), VllmAccounting::kV011);
  EXPECT_EQ(*vllm_accounting(VllmRelease{0, 21, 0, false}), VllmAccounting::kCurrent);
  EXPECT_EQ(*vllm_accounting(VllmRelease{0, 32, 0, true}), VllmAccounting::kCurrent);
  for (VllmRelease r : {VllmRelease{0, 6, 6, true}, VllmRelease{0, 8, 5, true}, VllmRelease{0, 10, 0, false},
                        VllmRelease{0, 33, 0, false}, VllmRelease{1, 0, 0, false}}) {
    Result<VllmAccounting> a = vllm_accounting(r);
    ASSERT_FALSE(a.ok()) << to_string(r);
    EXPECT_EQ(a.error().field(), "vllm_version");
  }
  EXPECT_EQ(vllm_accounting(VllmRelease{0, 8, 5, true}).error().message(),
            "vllm_version: 0.8.5: not modelled; memfit prices vLLM 0.7 (the V1 engine), 0.11 to "
            "0.20, and 0.21 to 0.32 (the default)");
  // estimate_vllm refuses it the same way.
  VllmSettings s;
  s.gpu_memory_total = 40 * kGiB;
  s.release = VllmRelease{0, 9, 0, false};
  Result<VllmEstimate> e = estimate_vllm(corpus_model("llama3/Llama-3.2-1B-Instruct"), {}, s, kBudget);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().field(), "vllm_version");
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
  // 1 GiB at 0.92 does not hold 2.5 GB of weights: no blocks, no start.
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
