// Weight elements as MLX's command buffers count them (weight_elements.h).
#include "engines/mlxlm/weight_elements.h"

#include "memfit/checked_math.h"

namespace memfit {

uint64_t weight_elements_per_kparam(uint64_t weights_bytes, uint64_t params,
                                    uint64_t affine_group_size) {
  if (params == 0) return 0;
  const uint64_t per_kparam = (CheckedBytes(weights_bytes) * 1024).saturated() / params;
  const bool sixteen_bit = per_kparam >= 2 * 1024 && per_kparam < 4 * 1024;
  if (sixteen_bit) return per_kparam / 2;
  const bool packed = per_kparam < 2 * 1024;
  const uint64_t scale_and_bias = packed && affine_group_size != 0 ? 1024 / affine_group_size : 0;
  return per_kparam / 4 + scale_and_bias;
}

}  // namespace memfit
