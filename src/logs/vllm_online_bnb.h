// The checkpoint vLLM serves when `--quantization bitsandbytes` is given
// for a 16-bit one: NF4 with double quantization made at load
// (docs/engine-vllm.md, "Online bitsandbytes").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memfit/result.h"

namespace memfit::logs {

// `config_json` with the quantization_config of a bitsandbytes 4-bit NF4
// checkpoint with double quantization ({"quant_method": "bitsandbytes",
// "load_in_4bit": true, "bnb_4bit_quant_type": "nf4",
// "bnb_4bit_use_double_quant": true}), which is what vLLM holds after
// quantizing a 16-bit checkpoint at load; `notes` says so. The config as
// given when it declares a quantization already. kInput when it is not a
// JSON object.
Result<std::string> online_bnb_config(std::string_view config_json, std::vector<std::string>& notes);

}  // namespace memfit::logs
