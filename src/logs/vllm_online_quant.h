// What vLLM serves when `--quantization X` quantizes a 16-bit checkpoint at
// load: the checkpoint a quantization_config of that method describes
// (vllm_online_fp8.h, vllm_online_bnb.h give each method's).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "memfit/result.h"

namespace memfit::logs {

// `config_json` with `quantization_config` added at its top, and `note` in
// `notes`; the config as given when it declares a quantization already (at
// its top or in a nested text config, where checkpoint_traits.cc reads it
// first). ConfigDocument reads it, so the nesting is bounded and Python's
// NaN and Infinity are read as every other reader of the config reads
// them. kInput when it is not a JSON object.
Result<std::string> with_online_quantization(std::string_view config_json,
                                             const nlohmann::json& quantization_config,
                                             std::string_view note, std::vector<std::string>& notes);

}  // namespace memfit::logs
