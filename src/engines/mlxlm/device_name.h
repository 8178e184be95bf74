// The GPU a run names (a check-log sidecar's device, check-log's
// --gpu-name) as what prices it under mlx-lm: MLX's backend and, on
// Apple silicon, the chip class whose Metal command-buffer limits apply.
#pragma once

#include <optional>
#include <string_view>

#include "memfit/mlxlm.h"

namespace memfit {

// What a device name says of an MLX run. kUnknown: the name names neither
// an NVIDIA GPU nor an Apple chip, and the request keeps its defaults.
struct MlxDevice {
  enum class Kind { kUnknown, kCuda, kApple };
  Kind kind = Kind::kUnknown;
  // kApple: the class, when the name says it; nullopt for an Apple GPU
  // whose class the name leaves open.
  std::optional<MlxChip> chip;
};

// Reads `name` (free text: "NVIDIA H100", "Apple M3 Pro (MacBook Pro 14",
// 18 GB)", "M4 Studio Ultra 64GB", "Apple GPU applegpu_g17g"):
//  - "NVIDIA" anywhere (nvidia-smi's names carry it): MLX's CUDA backend;
//  - an Apple GPU architecture name ("applegpu_g17g"): its last letter, as
//    MLX's Metal device reads it (mlx/backend/metal/device.cpp, v0.32.1:
//    'g' base and Pro, 's' Max, 'd' Ultra);
//  - an Apple chip's marketing name: "Ultra", "Max", "Pro" (Apple names
//    each class so: an M2 Max's GPU architecture ends in 's'), else an
//    M-series number alone ("M1", "Apple M4") the base class.
// Case is ignored. Never fails: an unread name is kUnknown.
MlxDevice mlx_device_of(std::string_view name);

}  // namespace memfit
