// A rank's weights under SGLang's --enable-dp-attention
// (docs/engine-sglang.md, "Rules", weights): the attention split by the
// attention TP group, the embedding whole. Worked by hand on Qwen3-30B-A3B
// (48 layers, hidden 2,048, 32 heads and 4 KV heads of 128, vocabulary
// 151,936) at TP 4 with DP 4 (attention TP 1), as sglang#17392 ran it.
#include <gtest/gtest.h>

#include "engines/sglang/dp_attention_weights.h"
#include "support/corpus.h"

namespace memfit::sglang {
namespace {

TEST(SglangDpAttentionWeights, AttentionAtTheAttentionTpAndTheEmbeddingWhole) {
  const ModelSpec spec = testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B");
  // A layer's q and o: 32 x 128 x 2,048 x 2 = 16,777,216 parameters. At
  // attention TP 1 a rank holds them whole and all 4 KV heads' k and v
  // (4 x 128 x 2,048 x 2 = 2,097,152): 18,874,368; at TP 4, 4,194,304 and
  // one KV head's 524,288: 4,718,592. 14,155,776 more a layer x 48 =
  // 679,477,248. The embedding, 151,936 rows (a multiple of 64) x 2,048 =
  // 311,164,928, whole rather than a quarter: 233,373,696 more. In all
  // 912,850,944 parameters x 2 B = 1,825,701,888 B.
  EXPECT_EQ(dp_attention_weights_bytes(spec, 4, 1), 1'825'701'888u);
  // DP 2 of TP 4 (attention TP 2): q and o 8,388,608 and 2 KV heads'
  // 1,048,576 = 9,437,184 a layer, 4,718,592 more than TP 4's, x 48 =
  // 226,492,416; + the embedding's 233,373,696 = 459,866,112 x 2 B.
  EXPECT_EQ(dp_attention_weights_bytes(spec, 4, 2), 919'732'224u);
}

TEST(SglangDpAttentionWeights, TheDpLmHeadSplitsTheHeadByTheAttentionTpToo) {
  // --enable-dp-lm-head (ParallelLMHead's use_attn_tp_group): Qwen3-30B-A3B's
  // untied head, 151,936 x 2,048 = 311,164,928 parameters, whole at
  // attention TP 1 rather than a quarter: 233,373,696 more, x 2 B =
  // 466,747,392 B beyond the 1,825,701,888 above: 2,292,449,280 B.
  const ModelSpec spec = testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B");
  EXPECT_EQ(dp_attention_weights_bytes(spec, 4, 1, true), 2'292'449'280u);
  // At attention TP 2 the head is halved rather than quartered: 77,791,232
  // more parameters, 155,582,464 B beyond the 919,732,224.
  EXPECT_EQ(dp_attention_weights_bytes(spec, 4, 2, true), 1'075'314'688u);
  // A tied head is the embedding, already whole: nothing more (Qwen3-0.6B
  // ties its embeddings).
  const ModelSpec tied = testing::corpus_spec("qwen3/Qwen3-0.6B");
  EXPECT_EQ(dp_attention_weights_bytes(tied, 4, 1, true), dp_attention_weights_bytes(tied, 4, 1));
}

TEST(SglangDpAttentionWeights, AnMlaModelsSplitProjectionsFollowTheAttentionTp) {
  // DeepSeek-V3 FP8 (128 x 128 blocks, fp32 scales) at TP 16 with DP 2:
  // attention TP 8, 16 heads a rank rather than 8. A layer's
  //   q_b_proj 16 x 192 = 3,072 rows x 1,536: 4,718,592 B + 24 x 12 x 4 B
  //     = 4,719,744, against 1,536 rows' 2,359,296 + 576 = 2,359,872;
  //   kv_b_proj 16 x 256 = 4,096 x 512: 2,097,152 + 32 x 4 x 4 = 2,097,664,
  //     against 1,048,576 + 256 = 1,048,832;
  //   o_proj 7,168 x 2,048: 14,680,064 + 56 x 16 x 4 = 14,683,648, against
  //     7,168 x 1,024's 7,340,032 + 1,792 = 7,341,824;
  // 10,750,528 B more a layer x 61 = 655,782,208. From #17403 the embedding
  // (129,280 x 7,168 x 2 B = 1,853,358,080) by the attention TP group: 1/8
  // rather than 1/16, 115,834,880 more. 771,617,088 B.
  const ModelSpec v3 = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  EXPECT_EQ(dp_attention_weights_bytes(v3, 16, 8, false, /*mla_embedding_by_attention_tp=*/true), 771'617'088u);
  // Before #17403 the embedding whole: 1,853,358,080 - 115,834,880 =
  // 1,737,523,200 more. 2,393,305,408 B (sgl-project/sglang#7623's R1 at
  // TP 16: "each tp group's Embedding occupied 1767.5 MiB").
  EXPECT_EQ(dp_attention_weights_bytes(v3, 16, 8, false, false), 2'393'305'408u);
}

TEST(SglangDpAttentionWeights, NothingWithoutDpAttentionOrForAQuantizedCheckpoint) {
  const ModelSpec spec = testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B");
  EXPECT_EQ(dp_attention_weights_bytes(spec, 4, 4), 0u);  // attention TP = TP: no DP attention
  // An FP8 checkpoint's projections are 1 byte with block scales: not priced.
  EXPECT_EQ(dp_attention_weights_bytes(testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B-FP8"), 4, 1), 0u);
}

}  // namespace
}  // namespace memfit::sglang
