// A config-only model's vision tower, per engine
// (engines/shared/config_tower.h).
#include "engines/shared/config_tower.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "memfit/model.h"
#include "memfit/memory_size.h"

namespace memfit {

void drop_config_tower(PreparedRequest& p, std::string_view why) {
  if (!p.model || p.model->weights.source != WeightsSource::kAnalyticalConfig) return;
  constexpr int kTower = static_cast<int>(WeightComponent::kVisionTower);
  const uint64_t tower = p.model->weights.component_bytes[kTower];
  if (tower == 0 || tower > p.model->weights.bytes) return;
  Model out = *p.model;
  out.weights.bytes -= tower;
  // The text model's parameters, which mlx-lm's element count and the MLX
  // weight modes price: the tower is kept at 16 bits (2 bytes a parameter;
  // a float32 config whose quantization was applied keeps it at 4, and
  // then this takes out twice its parameters, at most all of them).
  const uint64_t params = tower / 2;
  out.spec.analytical_params -= std::min(params, out.spec.analytical_params);
  // The text model alone: no split left to show.
  out.weights.component_bytes[kTower] = 0;
  out.weights.component_bytes[static_cast<int>(WeightComponent::kLanguageModel)] = 0;
  p.warnings.push_back(Warning{
      WarningKind::kModel,
      fmt::format("the config's vision tower ({}) is left out of the weights: {}",
                  format_bytes(tower), why)});
  p.model = std::make_shared<const Model>(std::move(out));
}

}  // namespace memfit
