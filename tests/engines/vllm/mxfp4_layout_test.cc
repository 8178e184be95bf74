// gpt-oss's MXFP4 experts as the MoE kernel vLLM runs them on holds them
// (docs/engine-vllm.md, "MXFP4 experts"), worked by hand on gpt-oss-20b's
// config: 24 layers x 32 experts = 768, each gate_up [2 x 2,880, 2,880]
// and down [2,880, 2,880] of 4-bit values with a byte of scale per 32, and
// bf16 biases [5,760] and [2,880]. Stored, an expert is 12,441,600 values
// + 777,600 scales + 17,280 of biases = 13,236,480 B; 768 of them
// 10,165,616,640.
#include <gtest/gtest.h>

#include "engines/vllm/parts.h"
#include "memfit/vllm.h"
#include "support/corpus.h"

namespace memfit {
namespace {

// The analytical checkpoint (model/config/analytical_weights_test.cc).
constexpr uint64_t kCheckpoint = 13'761'264'768ull;
// The float32 rotary cache: 131,072 positions x 64 x 4 B.
constexpr uint64_t kRope = 33'554'432ull;

VllmWeights weights(uint64_t tp, Mxfp4Kernel kernel) {
  const Model m = testing::corpus_model("gpt_oss/gpt-oss-20b", kCheckpoint);
  Result<VllmWeights> w = vllm_rank_weights(m, {}, tp, kernel);
  EXPECT_TRUE(w.ok());
  return w.ok() ? *w : VllmWeights{};
}

TEST(VllmMxfp4, TritonKeepsTheScalesTwiceAndTheBiasesInFloat32) {
  // Width 2,880 is a multiple of 64, the hidden size stays 2,880: values
  // 12,441,600, scales 777,600, their swizzled copy with rows padded to 256
  // (5,760 -> 5,888 and 2,880 -> 3,072) x 90 = 806,400, fp32 biases 8,640 x
  // 4 = 34,560: 14,060,160 an expert, x 768 = 10,798,202,880, past the
  // stored experts 632,586,240.
  const VllmWeights w = weights(1, Mxfp4Kernel::kTriton);
  EXPECT_EQ(w.padding_bytes, 632'586'240u);
  EXPECT_EQ(w.rope_cache_bytes, kRope);
  EXPECT_EQ(w.bytes, kCheckpoint + 632'586'240u + kRope);  // 14,427,405,440 = 13.4366 GiB
}

TEST(VllmMxfp4, MarlinPadsTheWidthTo128AndTheHiddenSizeTo256) {
  // 2,944 x 3,072: values 3 x 2,944 x 3,072 / 2 = 13,565,952, scales 2 x
  // 2,944 x 96 + 3,072 x 92 = 847,872, bf16 biases (5,888 + 3,072) x 2 =
  // 17,920: 14,431,744 an expert, x 768 = 11,083,579,392; past the stored
  // 917,962,752.
  EXPECT_EQ(weights(1, Mxfp4Kernel::kMarlin).padding_bytes, 917'962'752u);
}

TEST(VllmMxfp4, FlashInferPadsBothTo256) {
  // 3,072 x 3,072: values 14,155,776, scales 884,736, fp32 biases 9,216 x 4
  // = 36,864, gemm1's alpha, beta and clamp 12: 15,077,388 an expert, x 768
  // = 11,579,433,984; past the stored 1,413,817,344.
  EXPECT_EQ(weights(1, Mxfp4Kernel::kFlashInfer).padding_bytes, 1'413'817'344u);
}

TEST(VllmMxfp4, UnderTensorParallelTheRanksWidthIsPadded) {
  // TP 2, Triton: width 1,440 -> 1,472. Values 3 x 1,472 x 2,880 / 2 =
  // 6,359,040; scales 2 x 1,472 x 90 + 2,880 x 46 = 397,440; the swizzled
  // copy 3,072 x 90 + 3,072 x 46 = 417,792; biases (2,944 + 2,880) x 4 =
  // 23,296: 7,197,568 an expert, x 768 = 5,527,732,224, less half the
  // stored 5,082,808,320 = 444,923,904.
  EXPECT_EQ(weights(2, Mxfp4Kernel::kTriton).padding_bytes, 444'923'904u);
}

TEST(VllmMxfp4, TheGpusNameChoosesTheKernel) {
  VllmSettings s;
  EXPECT_EQ(vllm_mxfp4_kernel(s), Mxfp4Kernel::kTriton);  // no name: taken for Hopper
  s.gpu_name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(vllm_mxfp4_kernel(s), Mxfp4Kernel::kTriton);
  s.gpu_name = "NVIDIA B200";
  EXPECT_EQ(vllm_mxfp4_kernel(s), Mxfp4Kernel::kFlashInfer);
  s.gpu_name = "NVIDIA A100-SXM4-80GB";
  EXPECT_EQ(vllm_mxfp4_kernel(s), Mxfp4Kernel::kMarlin);
  s.gpu_name = "NVIDIA GeForce RTX 4090";
  EXPECT_EQ(vllm_mxfp4_kernel(s), Mxfp4Kernel::kMarlin);
  s.rocm = true;
  EXPECT_EQ(vllm_mxfp4_kernel(s), Mxfp4Kernel::kTriton);
}

TEST(VllmMxfp4, ADenseCheckpointHasNoExpertsToLayOut) {
  const Model m = testing::corpus_model("llama3/Llama-3.2-1B-Instruct", 1000);
  Result<VllmWeights> w = vllm_rank_weights(m, {}, 1, Mxfp4Kernel::kMarlin);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->padding_bytes, 0u);
}

}  // namespace
}  // namespace memfit
