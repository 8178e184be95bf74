// DeepSeek V4's config-only parameters (model/config/deepseek_v4_params.h),
// worked by hand on DeepSeek-V4-Flash's config (the log corpus's copy):
// hidden 4,096, q_lora_rank 1,024, 64 heads of 512, 8 output groups of
// 1,024, indexer 64 heads of 128, hc_mult 4 (mixes of (2 + 4) x 4 = 24
// rows), 256 experts of 2,048 plus one shared, top-6, 3 hash layers, vocab
// 129,280; compress_ratios 0, 0, then 4 and 128 alternating to layer 42
// (21 layers at 4, 20 at 128).
#include "model/config/deepseek_v4_params.h"

#include <gtest/gtest.h>

#include <string>

#include "memfit/model.h"
#include "support/corpus.h"

namespace memfit {
namespace {

constexpr const char* kFlashConfig = "logs/vllm/vllm-44376-deepseek-v4-flash-tp2-ep-gh200.config.json";

ModelSpec flash() {
  Result<ModelSpec> spec = parse_model_config(testing::read_test_data(kFlashConfig));
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

TEST(DeepseekV4Params, FlashCountsTheCheckpointsParameters) {
  // Per layer, every layer: wq_a 1,024 x 4,096 + wkv 512 x 4,096 + wq_b
  // 32,768 x 1,024 + wo_a 8,192 x 4,096 + wo_b 4,096 x 8,192 = 106,954,752;
  // q_norm, kv_norm, sink, two norms 1,024 + 512 + 64 + 8,192 = 9,792;
  // mixes 2 x (24 x 16,384 + 24 + 3) = 786,486; gate 256 x 4,096 =
  // 1,048,576; experts 257 x 3 x 2,048 x 4,096 = 6,467,616,768. Sum
  // 6,576,416,374 a layer, x 43 = 282,785,904,082.
  // Ratio 4 (21 layers): compressor 2 x 1,024 x 4,096 + 4 x 1,024 + 512 =
  // 8,393,216; indexer 8,192 x 1,024 + 64 x 4,096 + 2 x 256 x 4,096 + 4 x
  // 256 + 128 = 10,749,056; 19,142,272 x 21 = 401,987,712.
  // Ratio 128 (20 layers): 2 x 512 x 4,096 + 128 x 512 + 512 = 4,260,352;
  // x 20 = 85,207,040.
  // Routing: 3 hash tables 129,280 x 6 = 2,326,944, 40 biases of 256 =
  // 10,240. Outside: embed and head 2 x 129,280 x 4,096 = 1,059,061,760,
  // norm 4,096, hc_head 4 x 16,384 + 4 + 1 = 65,541.
  // Total 284,334,567,511 (DeepSeek's card: 284B, the MTP layer not counted).
  EXPECT_EQ(flash().analytical_params, 284334567511u);
}

TEST(DeepseekV4Params, FlashBytesAtItsOwnWidths) {
  // FP8 matrices are values + float32 scales per 128 x 128 block
  // (quant_pricing.h): wq_a 4,194,304 + 256 x 4 B, wkv 2,097,152 + 128 x 4,
  // wq_b 33,554,432 + 2,048 x 4, wo_a and wo_b the same, the shared expert
  // 3 x (8,388,608 + 512 x 4); experts MXFP4 3 x 4,456,448 each (a 32-value
  // block 17 B). 16-bit: norms, gate, compressors, the indexer's
  // weights_proj; float32: sinks, ape, mixes, hash tables, gate biases.
  // Summed by hand per part (docs/engine-vllm.md, "DeepSeek V4's
  // weights"): 156,007,462,492 B (145.29 GiB); the checkpoint with its MTP
  // layer is 148.66 GiB.
  const ModelSpec spec = flash();
  EXPECT_EQ(spec.analytical_weights.bytes, 156007462492u);
  // Whole on every rank: wq_a and wkv 270,598,656; norms 836,608; sinks
  // 11,008; compressors 525,722,624; indexers 275,385,600; mixes
  // 135,275,592; gates 90,177,536; routing 9,349,120; outside the layers
  // norm and hc_head 270,356: 1,307,627,100 B.
  EXPECT_EQ(spec.replicated_bytes, 1307627100u);
}

TEST(DeepseekV4Params, NoCompressRatiosNoBlocks) {
  // A deepseek_v4 config without compress_ratios is not one this counts:
  // the generic geometry prices it (analytical_params.h).
  std::string text = testing::read_test_data(kFlashConfig);
  const size_t at = text.find("\"compress_ratios\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 17, "\"compress_ratio_x\"");
  Result<ModelSpec> spec = parse_model_config(text);
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_TRUE(spec->compressed_attention.compress_ratios.empty());
  EXPECT_NE(spec->analytical_params, 284334567511u);
}

}  // namespace
}  // namespace memfit
