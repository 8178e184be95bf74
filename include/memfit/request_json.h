// The JSON form of a request and of a failure: the body of POST
// /v1/estimate, the argument of memfit_estimate_request_json (C API) and of
// the Python module's estimate(), so that a new request field reaches every
// caller without a new ABI.
//
// A request is one JSON object; every field is optional except "model";
// null means absent; an unknown field is refused by name.
//   model              string, required: a model folder, .safetensors or
//                      .gguf file, or a Hugging Face name
//                      "org/name[@revision][:QUANT]" in the local cache
//                      (model_by_name.h)
//                      (the service: a name under its model roots)
//   max_tokens         integer >= 1, default 8192
//   batch              integer >= 1, default 1
//   kv_cache_mode      "fp16" | "int8" (and f16, bf16, float16, i8, q8, q8_0)
//   cache_type_k, cache_type_v   the same names, together; with engine
//                      "llamacpp": f32, f16, bf16, q8_0, q4_0, q4_1, q5_0,
//                      q5_1, iq4_nl (each alone, default f16)
//   quant              "fp16" | "int8" | "int4": a label only
//   backend            "auto" | "rocm" | "metal" | "cuda" | "cpu"
//   device             "auto" | "cpu" | "cuda[:N]" | "rocm[:N]"
//   memory_limit       "48GB" (binary units) or bytes; 0 or "none": unset
//   tensor_parallel, pipeline_parallel   integers >= 1, default 1
//   parallel_engine    "vllm" | "mlx"
//   engine             "auto" | "mlxcel" | "llamacpp"
// llama.cpp's fields (engine "llamacpp" only; with mlxcel a usage error):
//   ctx_size           integer >= 0, default 0 (the model's training context)
//   parallel           integer 1 .. 256, default 1
//   batch_size, ubatch_size   integers >= 1, default 2048 and 512
//   flash_attn         "on" | "off" | "auto" (default)
//   swa_full, kv_unified      true | false, default false
//   repack             "auto" (default) | "none" | "x86-avx2" | "x86-avx512" | "arm"
//   mmproj             a projector GGUF's path; no_mmproj_offload true | false
//   lora               a LoRA adapter GGUF's path, or an array of them
//   cache_ram          integer -1 .. 2^31 - 1 (MiB; -1 no limit, 0 off)
//   ctx_checkpoints    integer >= 0 (per slot)
//   model_draft        a draft GGUF model's path; n_gpu_layers_draft as
//                      n_gpu_layers; cache_type_k_draft / _v_draft as the cache types
// Every failure is a kUsage Error about one field, one line:
//   max_tokens: expected a positive integer, got "abc"
#ifndef MEMFIT_REQUEST_JSON_H_
#define MEMFIT_REQUEST_JSON_H_

#include <string_view>

#include <nlohmann/json.hpp>

#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

namespace memfit {

// Parses one request body. Never throws; bodies nested deeper than 32
// levels are refused before they are parsed.
Result<EstimateRequest> parse_estimate_request_json(std::string_view body);

// A failure as every JSON front end shows it:
//   {"kind": "usage", "message": "...", "field": "max_tokens"}
// ("field" only for a usage error about one field).
nlohmann::ordered_json error_to_json(const Error& error);

}  // namespace memfit

MEMFIT_PUBLIC_END

#endif  // MEMFIT_REQUEST_JSON_H_
