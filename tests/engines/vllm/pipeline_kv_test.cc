// vLLM's KV blocks under pipeline parallelism (docs/engine-vllm.md,
// "Pipeline parallelism: the KV blocks"): each stage's workers make blocks
// of their own KV memory over their own layers (get_pp_indices), and the
// engine keeps the fewest (unify_kv_cache_configs). Worked by hand on
// DeepSeek-V2-Lite (27 MLA layers, 512 + 64 latent at 2 bytes = 1,152 B a
// token a layer) with the KV memory vllm-project/vllm#20665 printed.
#include <gtest/gtest.h>

#include <vector>

#include "engines/vllm/parts.h"
#include "support/corpus.h"

namespace memfit {
namespace {

VllmSettings l4_settings() {
  VllmSettings s;
  s.block_size = 16;  // an L4 runs Triton MLA: --block-size, 16
  s.max_model_len = 1024;
  s.tensor_parallel = 2;
  return s;
}

TEST(VllmPipelineKv, TheTightestStageSetsEveryStagesBlocks) {
  const ModelSpec spec = testing::corpus_spec("deepseek_v2/DeepSeek-V2-Lite");
  ASSERT_EQ(spec.layers.size(), 27u);
  // 27 layers over 2 stages: 13 each, the remainder's one to the stage
  // before the last: [14, 13]. A block of a layer: 16 x 1,152 = 18,432 B.
  // Stage 0: 12.13 GiB printed = 1213 x 2^30 / 100 = 13,024,488,325 B
  // // (14 x 18,432 = 258,048) = 50,473 blocks; stage 1: 11.33 GiB =
  // 12,165,494,866 B // (13 x 18,432 = 239,616) = 50,770. The fewest,
  // 50,473, x 16 = 807,568 tokens (printed 807,792: 14 blocks, 3.6 MB,
  // within the 0.005 GiB of the print); a request of 1,024 tokens takes
  // 64 blocks: 50,473 / 64 = 788.640625 (printed 788.86x).
  const std::vector<uint64_t> stages{13'024'488'325u, 12'165'494'866u};
  Result<VllmCapacity> c = vllm_pipeline_capacity(spec, l4_settings(), stages);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->num_blocks, 50'473u);
  EXPECT_EQ(c->kv_tokens, 807'568u);
  EXPECT_DOUBLE_EQ(c->max_concurrency, 788.640625);
  // The second stage the tighter: 50,000 of its blocks' worth less a byte
  // makes 49,999 its blocks and everyone's (x 16 = 799,984 tokens).
  const std::vector<uint64_t> tight{13'024'488'325u, 50'000ull * 239'616 - 1};
  Result<VllmCapacity> t = vllm_pipeline_capacity(spec, l4_settings(), tight);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->num_blocks, 49'999u);
  EXPECT_EQ(t->kv_tokens, 799'984u);
}

TEST(VllmPipelineKv, MoreStagesThanLayersIsRefused) {
  const ModelSpec spec = testing::corpus_spec("deepseek_v2/DeepSeek-V2-Lite");
  const std::vector<uint64_t> stages(28, 1ull << 30);
  Result<VllmCapacity> c = vllm_pipeline_capacity(spec, l4_settings(), stages);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message(), "pipeline parallel size 28 exceeds the model's 27 layers");
}

}  // namespace
}  // namespace memfit
