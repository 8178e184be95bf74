// mlx-lm's weight modes priced and ranked (engines/mlxlm/recommend.h).
#include <algorithm>
#include <iterator>
#include <optional>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engines/mlxlm/recommend.h"
#include "engines/mlxlm/speed_plan.h"
#include "memfit/quant_schemes.h"
#include "request/json_fields.h"

namespace memfit::engines {
namespace {

constexpr uint64_t kMlxBits[] = {8, 6, 5, 4, 3, 2};  // mlx.core.quantize's affine widths
constexpr uint64_t kMlxGroups[] = {32, 64, 128};     // its group sizes
constexpr uint64_t kRecipeGroup = 64;                // mlx-lm's default group
constexpr size_t kMaxListed = 16;

// `key`'s values, each one of `allowed`; all of `allowed` when not given.
Result<std::vector<uint64_t>> read_allowed(request::Fields& options, std::string_view key,
                                           std::span<const uint64_t> allowed) {
  Result<std::optional<std::vector<uint64_t>>> given = options.counts(key, 1, 1024, kMaxListed);
  if (!given) return given.error();
  if (!*given) return std::vector<uint64_t>(allowed.begin(), allowed.end());
  for (uint64_t v : **given) {
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      return Error::usage(key, fmt::format("{} is not one of mlx-lm's: {}", v,
                                           fmt::join(allowed, ", ")));
    }
  }
  return **given;
}

Result<std::vector<MlxLmMode>> read_modes(const nlohmann::json& json) {
  request::Fields options(json);
  const bool bits_given = options.find("bits") != nullptr;
  Result<std::vector<uint64_t>> bits = read_allowed(options, "bits", kMlxBits);
  if (!bits) return bits.error();
  Result<std::optional<uint64_t>> group = options.count("group_size", 1);
  if (!group) return group.error();
  std::vector<uint64_t> groups(std::begin(kMlxGroups), std::end(kMlxGroups));
  if (*group) {
    if (std::find(groups.begin(), groups.end(), **group) == groups.end()) {
      return Error::usage("group_size",
                          fmt::format("{} is not one of mlx-lm's: 32, 64, 128", **group));
    }
    groups = {**group};
  }
  std::vector<MlxLmMode> modes = {MlxLmMode{.as_is = true}};
  for (uint64_t b : *bits) {
    for (uint64_t g : groups) modes.push_back(MlxLmMode{.bits = b, .group_size = g});
  }
  if (!bits_given) {
    const uint64_t g = group->value_or(kRecipeGroup);
    for (const MlxRecipe& r : mlx_recipes()) {
      modes.push_back(MlxLmMode{.group_size = g, .recipe = &r});
    }
  }
  return modes;
}

uint64_t checkpoint_bits(const Model& model) {
  return model.spec.quantization.bits > 0 ? model.spec.quantization.bits : 16;
}

Result<MlxModeBytes> mode_weights(const MlxLmMode& m, const Model& model) {
  if (m.as_is) return MlxModeBytes{model.weights.bytes, static_cast<double>(checkpoint_bits(model))};
  if (m.recipe) return mlx_recipe_weights(*m.recipe, m.group_size, model);
  const QuantScheme scheme{.name = mode_name(m), .bits = m.bits, .group_size = m.group_size};
  Result<uint64_t> bytes = candidate_weights_bytes(scheme, model, model.tensors);
  if (!bytes) return bytes.error().within(scheme.name);
  return MlxModeBytes{*bytes, static_cast<double>(m.bits)};
}

Result<MlxLmQuantRow> price(const MlxLmMode& m, const PreparedRequest& p) {
  Result<MlxModeBytes> w = mode_weights(m, *p.model);
  if (!w) return w.error();
  Model variant = *p.model;
  variant.weights.bytes = w->bytes;
  Result<MlxLmEstimate> e = estimate_mlxlm(variant, p.mlxlm_settings, p.budget);
  if (!e) return e.error();
  DecodeRank rank = rank_decode(mlxlm_speed_plan(p, *e));
  return MlxLmQuantRow{.mode = m,
                       .weights_bytes = w->bytes,
                       .mean_bits = w->mean_bits,
                       .estimate = std::move(*e),
                       .shrinks = m.as_is || w->mean_bits < checkpoint_bits(*p.model),
                       .rank = std::move(rank)};
}

}  // namespace

std::string mode_name(const MlxLmMode& m) {
  if (m.as_is) return "as-is";
  if (m.recipe) return std::string(m.recipe->name);
  return fmt::format("{}-bit g{}", m.bits, m.group_size);
}

Result<std::vector<MlxLmQuantRow>> rank_mlxlm_modes(const nlohmann::json& options,
                                                    const PreparedRequest& p,
                                                    std::vector<Warning>& warnings) {
  Result<std::vector<MlxLmMode>> modes = read_modes(options);
  if (!modes) return modes.error();
  std::vector<MlxLmQuantRow> rows;
  for (const MlxLmMode& m : *modes) {
    Result<MlxLmQuantRow> row = price(m, p);
    if (!row && m.recipe && row.error().kind() != ErrorKind::kOverflow) {
      warnings.push_back(Warning{WarningKind::kModel, row.error().message() + ": left out"});
      continue;
    }
    if (!row) return row.error();
    rows.push_back(std::move(*row));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const MlxLmQuantRow& a, const MlxLmQuantRow& b) {
    if (a.mode.as_is != b.mode.as_is) return a.mode.as_is;
    if (a.mean_bits != b.mean_bits) return a.mean_bits > b.mean_bits;
    if (a.mode.group_size != b.mode.group_size) return a.mode.group_size < b.mode.group_size;
    return decodes_faster(a.rank, b.rank);
  });
  return rows;
}

const MlxLmQuantRow* recommended_mode(const std::vector<MlxLmQuantRow>& rows) {
  for (const MlxLmQuantRow& r : rows) {
    if (r.estimate.fits && r.shrinks) return &r;
  }
  return nullptr;
}

const MlxLmQuantRow* fastest_mode(const std::vector<MlxLmQuantRow>& rows) {
  const MlxLmQuantRow* fastest = nullptr;
  for (const MlxLmQuantRow& r : rows) {
    if (!r.estimate.fits || !r.shrinks || !r.rank.decode_tokens_per_second()) continue;
    if (fastest == nullptr || decodes_faster(r.rank, fastest->rank)) fastest = &r;
  }
  return fastest;
}

std::vector<const MlxLmQuantRow*> modes_by_speed(const std::vector<MlxLmQuantRow>& rows) {
  std::vector<const MlxLmQuantRow*> fitting;
  for (const MlxLmQuantRow& r : rows) {
    if (r.estimate.fits && r.shrinks) fitting.push_back(&r);
  }
  std::stable_sort(fitting.begin(), fitting.end(), [](const MlxLmQuantRow* a, const MlxLmQuantRow* b) {
    return decodes_faster(a->rank, b->rank);
  });
  return fitting;
}

}  // namespace memfit::engines
