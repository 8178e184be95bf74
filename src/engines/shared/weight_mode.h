// The request's weight mode (`quant`: an MLX mode, parse_mlx_weight_mode)
// applied to the model an MLX engine prices (docs/request-fields.md,
// `quant`).
//
// fp16 keeps a 16-bit checkpoint as it is; the others are MLX affine
// quantization (memfit/quant_schemes.h has the bytes: ceil(elements x bits
// / 8) + ceil(elements / group) x 2 x the scale's bytes per quantizable
// matrix), from the headers' tensors when read, else from the config's
// parameter count; a mixed recipe as mlx_recipe_weights prices it. On success `prepared.model` is a copy whose
// weights.bytes are that mode's (the WeightsInfo's other fields unchanged);
// no quant leaves it untouched. Fails (a usage error on `quant`) when the
// mode would widen the checkpoint (fp16 of a quantized one: memfit does
// not dequantize) or nothing sizes it.
#ifndef MEMFIT_ENGINES_SHARED_WEIGHT_MODE_H_
#define MEMFIT_ENGINES_SHARED_WEIGHT_MODE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <span>
#include <string_view>

#include "memfit/quant_schemes.h"
#include "memfit/request.h"
#include "memfit/result.h"

namespace memfit {

[[nodiscard]] Status apply_mlx_weight_mode(const EstimateRequest& request,
                                           PreparedRequest& prepared);

// One of mlx_lm.convert's mixed recipes (`--quant-predicate NAME`): every
// quantizable matrix at low_bits but v_proj and down_proj in the "more
// bits" layers and lm_head, at high_bits (docs/engine-mlxlm.md, "Mixed
// recipes", has the rule and its source).
struct MlxRecipe {
  std::string_view name;  // "mixed_3_6"
  uint64_t low_bits = 0;
  uint64_t high_bits = 0;
};

// mixed_2_6, mixed_3_4, mixed_3_6, mixed_4_6, in mlx-lm's order.
std::span<const MlxRecipe> mlx_recipes();

// Whether layer `index` of `layers` gets the recipe's high bits:
// index < layers / 8, index >= 7 x layers / 8, or (index - layers / 8) mod 3
// == 2 (integer divisions).
bool mlx_recipe_more_bits(uint64_t index, uint64_t layers);

// An MLX weight mode as `quant` names it (docs/request-fields.md, `quant`).
struct MlxWeightMode {
  std::string name;             // canonical: "fp16", "int8", "3bit-g32", "mixed_3_6-g64"
  uint64_t bits = 16;           // per weight; a recipe's widest (its high bits)
  uint64_t group_size = 64;     // elements per scale and bias
  const MlxRecipe* recipe = nullptr;  // a mixed recipe, else uniform
};

// `text` as an MLX weight mode: fp16 (the checkpoint's 16-bit weights);
// int8 and int4 (8 and 4 bits at group 64); "<b>bit" or "<b>bit-g<g>" with
// b one of 2, 3, 4, 5, 6, 8 and g one of 32, 64, 128 (default 64); a mixed
// recipe "mixed_3_6" or "mixed_3_6-g<g>". Case-insensitive. nullopt: not
// an MLX mode (kMlxWeightModesText says which are).
std::optional<MlxWeightMode> parse_mlx_weight_mode(std::string_view text);

// "fp16, int8, int4, <b>bit[-g<g>] (b: 2, 3, 4, 5, 6, 8; g: 32, 64, 128) or
// a mixed recipe (mixed_2_6, ...)[-g<g>]", for messages.
extern const std::string_view kMlxWeightModesText;

// An MLX weight mode priced: its weights' bytes and the mean bits of its
// quantized weights (a uniform mode's own bits; a recipe's, weighted by
// elements).
struct MlxModeBytes {
  uint64_t bytes = 0;
  double mean_bits = 0;
};

// `recipe` at `group_size` on `model`: from the headers' tensors when read
// (each tensor's bits by its name, as the recipe chooses), else from the
// config's geometry (a dense model only: all parameters at low bits, then
// the high-bit layers' v_proj and down_proj and an untied lm_head
// re-priced at high bits). Fails, as mlx-lm does, when no tensor is a
// down_proj; and for a config-only mixture of experts.
Result<MlxModeBytes> mlx_recipe_weights(const MlxRecipe& recipe, uint64_t group_size,
                                        const Model& model);

}  // namespace memfit

#endif  // MEMFIT_ENGINES_SHARED_WEIGHT_MODE_H_
