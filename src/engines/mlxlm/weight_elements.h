// How many elements MLX's command buffers count for a model's weights
// (docs/engine-mlxlm.md, "Run-ahead": a buffer commits once the arrays
// bound to it pass max_mb x 2^20 elements). Private to src/engines/mlxlm.
#pragma once

#include <cstdint>

namespace memfit {

// Weight elements per 1024 parameters, from the weights' bytes and
// parameter count: MLX counts a packed uint32 word (quantized weights,
// under 2 bytes a parameter) or a float32 as one element of 4 bytes, a
// 16-bit weight as one of 2. 0 when `params` is 0.
//
// An MLX affine checkpoint (`affine_group_size` > 0, its config's
// "quantization" group; 0 for any other) stores beside each packed weight
// a scale and a bias per group, each one element of the weight's 16-bit
// dtype (mlx/ops.cpp, affine_quantize: scales and biases
// astype(w.dtype())), each an input array the buffer counts by
// data_size(), in elements (mlx/backend/metal/device.cpp,
// set_input_array). Per parameter that is bits/32 + 2/group elements for
// bits/8 + 4/group bytes: bytes over 4 undercount it by 1/group, which is
// added (4 bits, group 64: 576 bytes a kparam, 144 elements by bytes, 160
// stored). A float32 weight's scales (4 bytes) would count 1/group too
// many; mlx-community's are 16-bit. Saturates.
uint64_t weight_elements_per_kparam(uint64_t weights_bytes, uint64_t params,
                                    uint64_t affine_group_size);

}  // namespace memfit
