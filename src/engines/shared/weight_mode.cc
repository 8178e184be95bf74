// The weight mode an MLX engine prices (engines/shared/weight_mode.h).
#include "engines/shared/weight_mode.h"

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

Status apply_mlx_weight_mode(const EstimateRequest& r, PreparedRequest& p) {
  if (r.quant.empty()) return Status::Ok();
  if (r.quant != "fp16" && r.quant != "int8" && r.quant != "int4") {
    return Error::usage("quant", fmt::format("{} is a GGUF file type: llama.cpp's (--engine "
                                             "llamacpp); MLX weight modes are fp16, int8 and int4",
                                             r.quant));
  }
  const uint64_t bits = r.quant == "int8" ? 8 : r.quant == "int4" ? 4 : 16;
  const uint64_t own_bits = checkpoint_bits(*p.model);
  if (bits > own_bits) {
    return Error::usage("quant", fmt::format("{} would widen this {}-bit checkpoint; memfit prices "
                                             "quantizing down, not dequantizing",
                                             r.quant, own_bits));
  }
  if (bits == own_bits) return Status::Ok();  // the checkpoint's own bytes
  const QuantScheme scheme{.name = r.quant, .as_is = false, .bits = bits,
                           .group_size = kMlxGroupSize};
  Result<uint64_t> bytes = candidate_weights_bytes(scheme, *p.model, p.model->tensors);
  if (!bytes) return Error::usage("quant", bytes.error().message());
  auto priced = std::make_shared<Model>(*p.model);
  priced->weights.bytes = *bytes;
  p.model = std::move(priced);
  return Status::Ok();
}

}  // namespace memfit
