// recommend-quant's weight modes for the mlxcel profile: MLX affine
// quantization priced from the headers' tensor shapes
// (memfit/quant_schemes.h has the rule).
#include "memfit/quant_schemes.h"

#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "model/config/quant_pricing.h"

namespace memfit {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string_view base_name(std::string_view name) {
  size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(0, dot);
}

bool is_norm(std::string_view name) {
  return name.find("norm") != std::string_view::npos || name.find("ln_") != std::string_view::npos;
}

}  // namespace

std::vector<QuantScheme> mlx_quant_schemes(uint64_t group_size) {
  return {{"as-is", true, 0, group_size},
          {"int8", false, 8, group_size},
          {"int4", false, 4, group_size}};
}

Result<uint64_t> quantized_weights_bytes(const std::vector<SafetensorsTensor>& tensors,
                                         const QuantScheme& scheme,
                                         const QuantizationInfo& source) {
  CheckedBytes total = 0;
  if (scheme.as_is) {
    for (const SafetensorsTensor& t : tensors) total += t.data_bytes;
    if (!total.value()) return Error::overflow("weights overflow 64 bits");
    return *total.value();
  }
  if (scheme.bits == 0 || scheme.group_size == 0) {
    return Error(fmt::format("scheme {}: bits and group size must be positive", scheme.name));
  }
  // MLX-packed sources: U32 weights whose .scales sibling exists.
  std::unordered_set<std::string_view> packed;
  const bool mlx_source = source.method == "mlx_affine" && source.bits > 0;
  if (mlx_source) {
    std::unordered_set<std::string_view> scaled;
    for (const SafetensorsTensor& t : tensors) {
      if (ends_with(t.name, ".scales")) scaled.insert(base_name(t.name));
    }
    for (const SafetensorsTensor& t : tensors) {
      if (t.dtype == "U32" && ends_with(t.name, ".weight") && scaled.count(base_name(t.name))) {
        packed.insert(base_name(t.name));
      }
    }
  }
  for (const SafetensorsTensor& t : tensors) {
    std::string_view name = t.name;
    if ((ends_with(name, ".scales") || ends_with(name, ".biases")) && packed.count(base_name(name))) {
      continue;  // replaced by the new scheme's own scales and biases
    }
    bool is_packed = packed.count(base_name(name)) > 0 && ends_with(name, ".weight");
    std::vector<uint64_t> shape = t.shape;
    if (is_packed && shape.size() == 2) {
      shape[1] = shape[1] * 32 / source.bits;  // logical columns
    }
    bool quantizable = shape.size() == 2 && ends_with(name, ".weight") && !is_norm(name) &&
                       shape[1] % scheme.group_size == 0;
    if (!quantizable) {
      total += t.data_bytes;
      continue;
    }
    const uint64_t bits = scheme.bits_of ? scheme.bits_of(name) : scheme.bits;
    const uint64_t scale_bytes = t.dtype == "F32" ? 4 : 2;  // the matrix's own float width
    total += mlx_affine_bytes(CheckedBytes(shape[0]) * shape[1], bits, scheme.group_size,
                              scale_bytes);
  }
  if (!total.value()) return Error::overflow("weights overflow 64 bits");
  return *total.value();
}

Result<uint64_t> candidate_weights_bytes(const QuantScheme& scheme, const Model& model,
                                         const std::vector<SafetensorsTensor>& tensors) {
  if (scheme.as_is) return model.weights.bytes;
  if (!tensors.empty()) return quantized_weights_bytes(tensors, scheme, model.spec.quantization);
  // No headers on disk (an index-only download): the config's parameter count.
  uint64_t params = model.spec.analytical_params;
  if (params == 0) return Error("no weight headers and no config geometry to size " + scheme.name);
  if (scheme.group_size == 0) {
    return Error(fmt::format("scheme {}: group size must be positive", scheme.name));
  }
  CheckedBytes bytes = mlx_affine_bytes(params, scheme.bits, scheme.group_size);
  if (!bytes.value()) return Error::overflow(fmt::format("{} weights overflow 64 bits", scheme.name));
  return *bytes.value();
}

bool shrinks_checkpoint(const QuantScheme& scheme, const ModelSpec& spec) {
  uint64_t source_bits = spec.quantization.bits > 0 ? spec.quantization.bits : 16;
  return scheme.as_is || scheme.bits < source_bits;
}

}  // namespace memfit
