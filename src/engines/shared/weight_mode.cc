// The weight mode an MLX engine prices (engines/shared/weight_mode.h).
#include "engines/shared/weight_mode.h"

#include <cctype>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "memfit/quant_schemes.h"

namespace memfit {
namespace {

// MLX's default group size (mlx.nn.quantize).
constexpr uint64_t kMlxGroupSize = 64;

uint64_t checkpoint_bits(const Model& model) {
  return model.spec.quantization.bits > 0 ? model.spec.quantization.bits : 16;
}

}  // namespace

const std::string_view kMlxWeightModesText =
    "fp16, int8, int4, <b>bit[-g<g>] (b: 2, 3, 4, 5, 6, 8; g: 32, 64, 128) or a mixed recipe "
    "(mixed_2_6, mixed_3_4, mixed_3_6, mixed_4_6)[-g<g>]";

std::optional<MlxWeightMode> parse_mlx_weight_mode(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "fp16") return MlxWeightMode{.name = "fp16"};
  if (lower == "int8") return MlxWeightMode{.name = "int8", .bits = 8};
  if (lower == "int4") return MlxWeightMode{.name = "int4", .bits = 4};
  // "<mode>" or "<mode>-g<group>".
  std::string_view body = lower;
  uint64_t group = kMlxGroupSize;
  if (const size_t dash = body.rfind("-g"); dash != std::string_view::npos) {
    const std::string_view g = body.substr(dash + 2);
    if (g == "32") group = 32;
    else if (g == "64") group = 64;
    else if (g == "128") group = 128;
    else return std::nullopt;
    body = body.substr(0, dash);
  }
  MlxWeightMode mode;
  mode.group_size = group;
  for (const MlxRecipe& recipe : mlx_recipes()) {
    if (body == recipe.name) {
      mode.recipe = &recipe;
      mode.bits = recipe.high_bits;
      mode.name = fmt::format("{}-g{}", recipe.name, group);
      return mode;
    }
  }
  for (uint64_t bits : {2, 3, 4, 5, 6, 8}) {
    if (body == fmt::format("{}bit", bits)) {
      mode.bits = bits;
      mode.name = fmt::format("{}bit-g{}", bits, group);
      return mode;
    }
  }
  return std::nullopt;
}

Status apply_mlx_weight_mode(const EstimateRequest& r, PreparedRequest& p) {
  if (r.quant.empty()) return Status::Ok();
  const std::optional<MlxWeightMode> mode = parse_mlx_weight_mode(r.quant);
  if (!mode) {
    return Error::usage("quant", fmt::format("{} is a GGUF file type: llama.cpp's (--engine "
                                             "llamacpp); MLX weight modes are {}",
                                             r.quant, kMlxWeightModesText));
  }
  const uint64_t own_bits = checkpoint_bits(*p.model);
  if (mode->bits > own_bits) {
    return Error::usage("quant", fmt::format("{} would widen this {}-bit checkpoint; memfit prices "
                                             "quantizing down, not dequantizing",
                                             r.quant, own_bits));
  }
  if (mode->bits == own_bits && mode->recipe == nullptr) return Status::Ok();  // its own bytes
  uint64_t bytes = 0;
  if (mode->recipe != nullptr) {
    Result<MlxModeBytes> priced = mlx_recipe_weights(*mode->recipe, mode->group_size, *p.model);
    if (!priced) return Error::usage("quant", priced.error().message());
    bytes = priced->bytes;
  } else {
    const QuantScheme scheme{.name = mode->name, .as_is = false, .bits = mode->bits,
                             .group_size = mode->group_size};
    Result<uint64_t> priced = candidate_weights_bytes(scheme, *p.model, p.model->tensors);
    if (!priced) return Error::usage("quant", priced.error().message());
    bytes = *priced;
  }
  auto priced_model = std::make_shared<Model>(*p.model);
  priced_model->weights.bytes = bytes;
  p.model = std::move(priced_model);
  return Status::Ok();
}

}  // namespace memfit
