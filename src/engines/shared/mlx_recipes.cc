// mlx_lm.convert's mixed recipes priced (engines/shared/weight_mode.h;
// the rule and its source: docs/engine-mlxlm.md, "Mixed recipes").
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engines/shared/weight_mode.h"
#include "memfit/checked_math.h"
#include "model/config/quant_pricing.h"

namespace memfit {
namespace {

constexpr std::array<MlxRecipe, 4> kRecipes = {{{"mixed_2_6", 2, 6},
                                                {"mixed_3_4", 3, 4},
                                                {"mixed_3_6", 3, 6},
                                                {"mixed_4_6", 4, 6}}};

std::vector<std::string_view> split_dots(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.', start)) {
    parts.push_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  parts.push_back(path.substr(start));
  return parts;
}

// A layer index as a path segment spells it; nullopt for any other segment.
std::optional<uint64_t> layer_index(std::string_view segment) {
  if (segment.empty() || segment.size() > 9) return std::nullopt;
  uint64_t value = 0;
  for (char c : segment) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  return value;
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// Where the layer index sits in a tensor path: the first numeric segment of
// the first down_proj tensor; nullopt when no tensor is a down_proj.
std::optional<size_t> layer_position(const std::vector<SafetensorsTensor>& tensors) {
  for (const SafetensorsTensor& t : tensors) {
    if (!contains(t.name, "down_proj")) continue;
    const std::vector<std::string_view> parts = split_dots(t.name);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (layer_index(parts[i])) return i;
    }
    return parts.size();
  }
  return std::nullopt;
}

// The recipe's bits for one tensor: the predicate reads the module path,
// which is the tensor's name without ".weight"; a path too short to hold
// an index reads as layer 0.
uint64_t tensor_bits(const MlxRecipe& r, size_t position, uint64_t layers, std::string_view name) {
  const std::vector<std::string_view> parts = split_dots(name);
  const uint64_t index = parts.size() > position ? layer_index(parts[position]).value_or(0) : 0;
  const bool more = mlx_recipe_more_bits(index, layers);
  if (more && (contains(name, "v_proj") || contains(name, "v_a_proj") || contains(name, "v_b_proj"))) {
    return r.high_bits;
  }
  if (more && contains(name, "down_proj")) return r.high_bits;
  if (contains(name, "lm_head")) return r.high_bits;
  return r.low_bits;
}

// Uniform `bits` at `group_size`, as candidate_weights_bytes prices it.
Result<uint64_t> uniform_bytes(uint64_t bits, uint64_t group_size, const Model& model) {
  const QuantScheme scheme{.name = fmt::format("{}-bit", bits), .bits = bits, .group_size = group_size};
  return candidate_weights_bytes(scheme, model, model.tensors);
}

// The config-only recipe: the parameters a dense config puts at high bits.
Result<uint64_t> config_high_params(const Model& model) {
  const ModelSpec& spec = model.spec;
  const ModelGeometry& g = spec.geometry;
  if (spec.moe.experts > 0) {
    return Error("a mixed recipe of a mixture-of-experts model needs its weight headers");
  }
  if (g.intermediate == 0) return Error("mlx-lm refuses a mixed recipe for a model with no down_proj");
  const CheckedBytes v_proj = CheckedBytes(g.kv_heads) * g.head_dim * g.hidden;
  const CheckedBytes down_proj = CheckedBytes(g.hidden) * g.intermediate;
  CheckedBytes high = 0;
  for (uint64_t i = 0; i < g.layers; ++i) {
    if (mlx_recipe_more_bits(i, g.layers)) high += v_proj + down_proj;
  }
  if (!spec.tied_embeddings) high += CheckedBytes(g.vocab) * g.hidden;
  if (!high.value()) return Error::overflow("recipe parameters overflow 64 bits");
  return *high.value();
}

Result<uint64_t> recipe_bytes(const MlxRecipe& r, uint64_t group_size, const Model& model) {
  if (model.tensors.empty()) {
    Result<uint64_t> low = uniform_bytes(r.low_bits, group_size, model);
    if (!low) return low.error();
    Result<uint64_t> high = config_high_params(model);
    if (!high) return high.error();
    CheckedBytes bytes = CheckedBytes(*low) +
                         CheckedBytes::ceil_div(CheckedBytes(*high) * (r.high_bits - r.low_bits), 8);
    if (!bytes.value()) return Error::overflow(fmt::format("{} weights overflow 64 bits", r.name));
    return *bytes.value();
  }
  const std::optional<size_t> position = layer_position(model.tensors);
  if (!position) return Error("mlx-lm refuses a mixed recipe for a model with no down_proj");
  const uint64_t layers = model.spec.geometry.layers;
  QuantScheme scheme{.name = std::string(r.name), .bits = r.low_bits, .group_size = group_size};
  scheme.bits_of = [r, p = *position, layers](std::string_view name) {
    return tensor_bits(r, p, layers, name);
  };
  return candidate_weights_bytes(scheme, model, model.tensors);
}

}  // namespace

std::span<const MlxRecipe> mlx_recipes() { return kRecipes; }

bool mlx_recipe_more_bits(uint64_t index, uint64_t layers) {
  const uint64_t eighth = layers / 8;
  return index < eighth || index >= 7 * layers / 8 || (index - eighth) % 3 == 2;
}

Result<MlxModeBytes> mlx_recipe_weights(const MlxRecipe& recipe, uint64_t group_size,
                                        const Model& model) {
  Result<uint64_t> bytes = recipe_bytes(recipe, group_size, model);
  if (!bytes) return bytes.error().within(recipe.name);
  // The same tensors at uniform low and high bits: the recipe's bytes lie
  // between them in proportion to the elements at high bits.
  Result<uint64_t> low = uniform_bytes(recipe.low_bits, group_size, model);
  if (!low) return low.error();
  Result<uint64_t> high = uniform_bytes(recipe.high_bits, group_size, model);
  if (!high) return high.error();
  const double span = static_cast<double>(*high) - static_cast<double>(*low);
  const double share = span > 0 ? (static_cast<double>(*bytes) - static_cast<double>(*low)) / span : 0;
  const double bits_span = static_cast<double>(recipe.high_bits - recipe.low_bits);
  return MlxModeBytes{.bytes = *bytes,
                      .mean_bits = static_cast<double>(recipe.low_bits) +
                                   bits_span * std::clamp(share, 0.0, 1.0)};
}

}  // namespace memfit
