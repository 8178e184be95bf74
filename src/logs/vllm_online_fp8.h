// The checkpoint vLLM serves when `--quantization fp8` is given for a
// 16-bit one: FP8 made at load (docs/engine-vllm.md, "Online FP8").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"

namespace memfit::logs {

// `config_json` with the quantization_config of an FP8 checkpoint of one
// scale a tensor ({"quant_method": "fp8", "activation_scheme": "dynamic"}),
// which is what vLLM holds after quantizing a 16-bit checkpoint at load;
// `notes` says so. The config as given when it declares a quantization
// already. kInput when it is not a JSON object.
Result<std::string> online_fp8_config(std::string_view config_json, std::vector<std::string>& notes);

}  // namespace memfit::logs
