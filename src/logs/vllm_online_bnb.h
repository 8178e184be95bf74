// The checkpoint vLLM serves when `--quantization bitsandbytes` is given
// for a 16-bit one: NF4 made at load, its absmax double-quantized before
// v0.9.2 and float32 from v0.9.2 (docs/engine-vllm.md, "Online
// bitsandbytes").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "memfit/result.h"
#include "memfit/vllm.h"

namespace memfit::logs {

// `config_json` with the quantization_config of a bitsandbytes 4-bit NF4
// checkpoint ({"quant_method": "bitsandbytes", "load_in_4bit": true,
// "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant":
// `nested_absmax`}), which is what vLLM holds after quantizing a 16-bit
// checkpoint at load: `nested_absmax` true for a release before v0.9.2,
// whose weights keep quantize_4bit's 8-bit absmax, false from v0.9.2, whose
// loader dequantizes it to float32 once loaded (online_bnb_nested_absmax);
// `notes` says so. The config as given when it declares a quantization
// already. kInput when it is not a JSON object.
Result<std::string> online_bnb_config(std::string_view config_json, bool nested_absmax,
                                      std::vector<std::string>& notes);

// Whether the absmax of the NF4 weights vLLM `release` quantizes at load
// stays 8-bit (double quantization) once loaded: before v0.9.2. vLLM PR
// #19742 (merged 2025-06-18, first in v0.9.2) added dequantize_dq to
// BitsAndBytesModelLoader.load_weights
// (vllm/model_executor/model_loader/bitsandbytes_loader.py): every nested
// quant state's absmax is dequantized to float32 and its nested state
// dropped before "Model loading took" is measured. A log that prints no
// release is priced as the current line (false).
bool online_bnb_nested_absmax(const std::optional<VllmRelease>& release);

}  // namespace memfit::logs
