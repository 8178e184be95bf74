// The request's weight mode (`quant`: fp16, int8, int4) applied to the
// model an MLX engine prices (docs/request-fields.md, `quant`).
//
// fp16 keeps a 16-bit checkpoint as it is; int8 and int4 are MLX affine
// quantization at group size 64 (memfit/quant_schemes.h has the bytes:
// ceil(elements x bits / 8) + ceil(elements / 64) x 4 per quantizable
// matrix), from the headers' tensors when read, else from the config's
// parameter count. On success `prepared.model` is a copy whose
// weights.bytes are that mode's (the WeightsInfo's other fields unchanged);
// no quant leaves it untouched. Fails (a usage error on `quant`) when the
// mode would widen the checkpoint (fp16 of a quantized one: memfit does
// not dequantize) or nothing sizes it.
#ifndef MEMFIT_ENGINES_SHARED_WEIGHT_MODE_H_
#define MEMFIT_ENGINES_SHARED_WEIGHT_MODE_H_

#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit {

[[nodiscard]] Status apply_mlx_weight_mode(const EstimateRequest& request,
                                           PreparedRequest& prepared);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_WEIGHT_MODE_H_
