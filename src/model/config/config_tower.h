// config.json parsed with its vision tower told apart: the loader prices a
// config-only multimodal model's tower as a part of its own
// (WeightsInfo::component_bytes[kVisionTower]), so that each engine decides
// whether it is in memory (engines/shared/config_tower.h).
#ifndef MEMFIT_MODEL_CONFIG_CONFIG_TOWER_H_
#define MEMFIT_MODEL_CONFIG_CONFIG_TOWER_H_

#include <cstdint>
#include <string_view>

#include "memfit/model_spec.h"
#include "memfit/result.h"

namespace memfit {

struct ConfigWithTower {
  ModelSpec spec;
  // Of spec.analytical_weights.bytes, the vision tower's and projector's
  // (analytical_tower_bytes); 0 when memfit counts none for the config.
  uint64_t tower_bytes = 0;
};

// parse_model_config, and the tower's bytes. Errors: parse_model_config's.
Result<ConfigWithTower> parse_model_config_with_tower(std::string_view config_json);

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_CONFIG_TOWER_H_
