// Device names as MLX's backend and Apple chip class (device_name.h): the
// sidecars' and nvidia-smi's spellings, each read by hand.
#include "engines/mlxlm/device_name.h"

#include <gtest/gtest.h>

namespace memfit {
namespace {

using Kind = MlxDevice::Kind;

TEST(MlxDeviceName, NvidiaGpusRunMlxsCudaBackend) {
  EXPECT_EQ(mlx_device_of("NVIDIA H100").kind, Kind::kCuda);
  EXPECT_EQ(mlx_device_of("NVIDIA B200").kind, Kind::kCuda);
  EXPECT_EQ(mlx_device_of("nvidia geforce rtx 5090").kind, Kind::kCuda);
  EXPECT_FALSE(mlx_device_of("NVIDIA H100").chip.has_value());
}

TEST(MlxDeviceName, ChipClassFollowsTheWordAfterTheMSeriesNumber) {
  // "MacBook Pro" after the parenthesis is the machine, not the chip.
  EXPECT_EQ(mlx_device_of("Apple M3 Pro (MacBook Pro 14\", 18 GB)").chip, MlxChip::kPro);
  EXPECT_EQ(mlx_device_of("Apple M1 Max (2021 MacBook Pro, 32 GB)").chip, MlxChip::kMax);
  EXPECT_EQ(mlx_device_of("Apple M2 Ultra").chip, MlxChip::kUltra);
  EXPECT_EQ(mlx_device_of("M4 Studio Ultra 64GB (as the user wrote)").chip, MlxChip::kUltra);
  EXPECT_EQ(mlx_device_of("Apple M4 (MacBook Pro)").chip, MlxChip::kBase);
  EXPECT_EQ(mlx_device_of("Apple M4 Pro (Mac mini, 64GB)").chip, MlxChip::kPro);
  EXPECT_EQ(mlx_device_of("Apple M4 Pro (Mac mini, 64GB)").kind, Kind::kApple);
}

TEST(MlxDeviceName, ArchitectureNamesEndInTheClassLetter) {
  // mlx/backend/metal/device.cpp switches on the name's last letter.
  EXPECT_EQ(mlx_device_of("Apple GPU applegpu_g17g (the 'g' class: base or Pro chip)").chip,
            MlxChip::kBase);
  EXPECT_EQ(mlx_device_of("applegpu_g15s").chip, MlxChip::kMax);
  EXPECT_EQ(mlx_device_of("applegpu_g14d").chip, MlxChip::kUltra);
  // 'p' (a phone) is no class memfit prices: the chip stays unsaid.
  EXPECT_FALSE(mlx_device_of("applegpu_g16p").chip.has_value());
}

TEST(MlxDeviceName, OtherNamesAreUnknown) {
  EXPECT_EQ(mlx_device_of("").kind, Kind::kUnknown);
  EXPECT_EQ(mlx_device_of("AMD Radeon 8060S").kind, Kind::kUnknown);
  // "m10" and "im2" are not M-series numbers standing alone.
  EXPECT_EQ(mlx_device_of("cm10 board").kind, Kind::kUnknown);
  EXPECT_EQ(mlx_device_of("Apple GPU").kind, Kind::kApple);
  EXPECT_FALSE(mlx_device_of("Apple GPU").chip.has_value());
}

}  // namespace
}  // namespace memfit
