// gemma3's image encoder graph as Ollama's own engine reserves it before
// its text graph (src/engines/ollama/vision_graph.cc), replayed: each
// figure worked out from the placements ggml-alloc's rules make, the
// layout at the peak written beside it.
#include "engines/ollama/vision_graph.h"

#include <gtest/gtest.h>

namespace memfit {
namespace {

using ollama::VisionEncoderShape;

uint64_t bytes(const VisionEncoderShape& s) {
  Result<std::optional<uint64_t>> r = ollama::gemma3_vision_graph_bytes(s, 128);
  EXPECT_TRUE(r.ok());
  return r.ok() && r->has_value() ? **r : 0;
}

TEST(OllamaVisionGraph, TheScoresGoOnTopOfTheCopiesAndFiveRowBlocks) {
  // One layer, width 32, one head, MLP 32; a 32 x 32 one-channel image in
  // patches of 4: 8 x 8 = 64 patches, pooled to 16 tokens; text width 32.
  // A row block [32, 64] F32 is 8,192 B, the scores [64, 64, 1] F32
  // 16,384 B. In the walk's order the pixels' copy (32 x 32 x 4 = 4,096 B)
  // and the positions' (64 x 4 = 256 B) are placed first, then the
  // projector weight's F16 copy (32 x 32 x 2 = 2,048 B, the last product's
  // first source), so the encoder's blocks start at 6,400. When the scores
  // are made, the live blocks are the residual (6,400), K (22,784), V's
  // contiguous copy (30,976) and Q (39,168); the LayerNorm's output at
  // 14,592 is freed after Q's product. Free: [0, 4,352) (the copies, read
  // by im2col and get_rows) and [14,592, 22,784): neither holds 16,384 B,
  // so the scores go on top: 6,400 + 5 x 8,192 = 47,360, + 16,384 = 63,744.
  // Nothing later passes it (scale and softmax run in place; the MLP's
  // blocks are 8,192 B).
  const VisionEncoderShape s{.layers = 1, .hidden = 32, .heads = 1, .ffn = 32, .image = 32, .patch = 4,
                             .channels = 1, .text_hidden = 32, .tokens_per_image = 16};
  EXPECT_EQ(bytes(s), 63'744u);
}

TEST(OllamaVisionGraph, Gemma3sSigLipEncoderHoldsItsScores) {
  // gemma3 27B's vision_config: 27 layers, width 1,152, 16 heads, MLP
  // 4,304, a 896 x 896 image in patches of 14: 64 x 64 = 4,096 patches;
  // text width 5,376, 256 tokens. The same layout as above: the pixels'
  // copy 896 x 896 x 3 x 4 = 9,633,792 B, the positions' 16,384, the
  // projector weight's F16 copy 1,152 x 5,376 x 2 = 12,386,304 (22,036,480
  // in all), five row blocks of 1,152 x 4,096 x 4 = 18,874,368 B
  // (94,371,840), then the scores 16 x 4,096 x 4,096 x 4 = 1,073,741,824 B
  // on top: 1,190,150,144 B, "1.1 GiB" in the 0.9.6 780M log.
  const VisionEncoderShape s{.layers = 27, .hidden = 1152, .heads = 16, .ffn = 4304, .image = 896, .patch = 14,
                             .channels = 3, .text_hidden = 5376, .tokens_per_image = 256};
  EXPECT_EQ(bytes(s), 1'190'150'144u);
}

TEST(OllamaVisionGraph, AShapeTheReplayDoesNotBoundIsNotPriced) {
  // An image that is not a whole number of patches (900 / 14), and a pool
  // that does not divide the patches a side (64 over 7 tokens a side).
  VisionEncoderShape s{.layers = 27, .hidden = 1152, .heads = 16, .ffn = 4304, .image = 900, .patch = 14,
                       .channels = 3, .text_hidden = 5376, .tokens_per_image = 256};
  Result<std::optional<uint64_t>> r = ollama::gemma3_vision_graph_bytes(s, 128);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  s.image = 896;
  s.tokens_per_image = 49;
  r = ollama::gemma3_vision_graph_bytes(s, 128);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

}  // namespace
}  // namespace memfit
