// Weight elements as MLX's command buffers count them (weight_elements.h),
// worked by hand per 1024 parameters.
#include "engines/mlxlm/weight_elements.h"

#include <gtest/gtest.h>

namespace memfit {
namespace {

// 1024 x 1024 parameters, so bytes per kparam is bytes / 1024.
constexpr uint64_t kParams = 1024 * 1024;

TEST(MlxWeightElements, SixteenBitAndFloat32ByTheirWidth) {
  // bf16: 2048 B a kparam, 1024 elements; float32: 4096 B, 1024 elements.
  EXPECT_EQ(weight_elements_per_kparam(2 * kParams, kParams, 0), 1024u);
  EXPECT_EQ(weight_elements_per_kparam(4 * kParams, kParams, 0), 1024u);
  EXPECT_EQ(weight_elements_per_kparam(0, 0, 64), 0u);
}

TEST(MlxWeightElements, AffineScalesAndBiasesAreOneElementEach) {
  // 4 bits, group 64, bf16 scales and biases: 0.5 + 4/64 = 0.5625 B a
  // parameter, 576 B a kparam. Stored: 1024 x 4/32 = 128 uint32 words plus
  // 1024/64 x 2 = 32 scales and biases: 160 elements (576 / 4 = 144 + 16).
  EXPECT_EQ(weight_elements_per_kparam(576 * 1024, kParams, 64), 160u);
  // 8 bits, group 64: 1.0625 B, 1088 B a kparam; 256 words + 32 = 288.
  EXPECT_EQ(weight_elements_per_kparam(1088 * 1024, kParams, 64), 288u);
  // 4 bits, group 32: 0.5 + 4/32 = 0.625 B, 640 B; 128 words + 64 = 192.
  EXPECT_EQ(weight_elements_per_kparam(640 * 1024, kParams, 32), 192u);
  // A packed checkpoint that is not MLX affine (no group given): by bytes.
  EXPECT_EQ(weight_elements_per_kparam(576 * 1024, kParams, 0), 144u);
  // A 16-bit checkpoint with a group stated adds nothing.
  EXPECT_EQ(weight_elements_per_kparam(2 * kParams, kParams, 64), 1024u);
}

}  // namespace
}  // namespace memfit
