// The JSON request's fields (request_json.h), read into an
// EstimateRequest; shared with the service's other bodies (/v1/fit takes
// the request without its context and KV fields, /v1/admit the KV fields).
// Private to the library and the service.
#ifndef MEMFIT_REQUEST_REQUEST_FIELDS_H_
#define MEMFIT_REQUEST_REQUEST_FIELDS_H_

#include <vector>

#include "memfit/request.h"
#include "request/json_fields.h"

namespace memfit::request {

// Reads kv_cache_mode, cache_type_k and cache_type_v (the latter two for
// the request's engine: read the engine first).
Status read_kv_fields(Fields& fields, EstimateRequest& request);

// Reads llama.cpp's fields: ctx_size (>= 0), parallel, batch_size,
// ubatch_size (>= 1), flash_attn ("on" | "off" | "auto"), swa_full and
// kv_unified (true | false), repack (parse_repack_cpu's spellings).
Status read_llamacpp_fields(Fields& fields, EstimateRequest& request);
// Reads mlx-lm's fields: prompt_tokens, prefill_step_size, kv_bits,
// kv_group_size, max_kv_size (each >= 1).
Status read_mlxlm_fields(Fields& fields, EstimateRequest& request);
// Reads vLLM's fields: gpu_memory_utilization (a number in (0, 1]),
// gpu_memory_total and kv_cache_memory (bytes or a size such as "80GiB"),
// gpu_name (a string, parse_gpu_name),
// block_size, max_model_len, max_num_seqs, max_num_batched_tokens (>= 1),
// num_speculative_tokens (>= 0), kv_cache_dtype ("auto" | "fp8" ...),
// enforce_eager (true | false), vllm_version ("X.Y" or "X.Y.Z").
Status read_vllm_fields(Fields& fields, EstimateRequest& request);

// Reads every field of an estimate request but max_tokens and the KV
// fields: model (required), batch, quant, backend, device, memory_limit,
// tensor_parallel, pipeline_parallel, parallel_engine, engine.
Status read_sizing_fields(Fields& fields, EstimateRequest& request);

// The KV width a request asks for (request.h: EstimateRequest's rule); a
// kRequest warning when K and V differ. kUsage errors.
Result<KvElement> resolve_kv_element(const EstimateRequest& request,
                                     std::vector<Warning>& warnings);

}  // namespace memfit::request

#endif  // MEMFIT_REQUEST_REQUEST_FIELDS_H_
