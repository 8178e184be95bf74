/* memfit C API: open a model, estimate its memory, check a prefill, and
 * ask the host whether a store may grow. For runtimes in any language
 * (C, C++, Python ctypes, Rust, Go ...).
 *
 * Conventions
 * - Every function that can fail returns memfit_status; MEMFIT_OK is 0.
 * - Handles are opaque. A handle returned through an out-parameter belongs
 *   to the caller, who releases it with the matching *_free function
 *   (NULL is accepted and ignored).
 * - Error messages: when `error_message` is non-NULL and a call fails,
 *   *error_message receives a NUL-terminated string the caller releases
 *   with memfit_string_free; on success it is set to NULL.
 * - Nothing throws across this API; an internal failure is MEMFIT_ERROR.
 * - A memfit_model is immutable after memfit_model_open: it may be shared
 *   by threads. A memfit_gate is thread-safe.
 * - Byte counts are uint64_t bytes.
 */
#ifndef MEMFIT_MEMFIT_H_
#define MEMFIT_MEMFIT_H_

#include <stdint.h>

#include "memfit/visibility.h"

MEMFIT_PUBLIC_BEGIN

#ifdef __cplusplus
extern "C" {
#endif

/* The status of a call, from the failure's kind (the JSON calls name the
 * kind itself: "usage", "input", "overflow", "host" or "internal"). */
typedef enum memfit_status {
  MEMFIT_OK = 0,
  MEMFIT_ERROR = 1,            /* the model could not be opened or sized, the
                                  selected device does not exist, ... */
  MEMFIT_INVALID_ARGUMENT = 2  /* a usage error: a NULL handle, zero tokens
                                  or batch, an unknown name in a request */
} memfit_status;

typedef struct memfit_model memfit_model;
typedef struct memfit_gate memfit_gate;

/* The library version, e.g. "0.1.0". Static storage; do not free. */
const char* memfit_version(void);

void memfit_string_free(char* s);

/* Opens a model folder, .safetensors or .gguf file, or a Hugging Face name
 * "org/name[@revision][:QUANT]" held in the local Hugging Face cache
 * (HF_HUB_CACHE, HF_HOME; docs/hub.md), reading its config and weight
 * headers only. On success *out is a new handle. */
memfit_status memfit_model_open(const char* path, memfit_model** out, char** error_message);
void memfit_model_free(memfit_model* model);

typedef struct memfit_estimate_request {
  uint64_t max_tokens;          /* context in tokens, >= 1 */
  uint64_t batch;               /* sequences, >= 1 */
  int kv_int8;                  /* nonzero: int8 KV cache; zero: fp16 */
  uint64_t memory_limit_bytes;  /* budget; 0: what the host can give now */
} memfit_estimate_request;

typedef struct memfit_estimate_result {
  uint64_t weights_bytes;
  uint64_t kv_bytes;
  uint64_t kv_bytes_per_token;   /* fp16 or int8 as requested, unbounded layers */
  uint64_t allocator_overhead_bytes;
  uint64_t activation_bytes;
  uint64_t backend_inflight_bytes;
  uint64_t headroom_bytes;       /* overhead + activation + in-flight */
  uint64_t total_bytes;          /* weights + kv + headroom */
  uint64_t budget_bytes;
  int fits;                      /* 1 when total <= budget */
} memfit_estimate_result;

/* The same estimate `memfit inspect --engine mlxcel` prints, with MEMFIT_*
 * environment settings applied. The struct request and result are the
 * mlxcel profile's for every model, GGUF included; llama.cpp's profile
 * (the default for GGUF models elsewhere) answers through
 * memfit_estimate_request_json. */
memfit_status memfit_estimate(const memfit_model* model, const memfit_estimate_request* request,
                              memfit_estimate_result* out, char** error_message);

/* The inspect report as a JSON object; *json_out is released with
 * memfit_string_free. */
memfit_status memfit_estimate_json(const memfit_model* model,
                                   const memfit_estimate_request* request, char** json_out,
                                   char** error_message);

/* Runs one request given as a JSON object: the body POST /v1/estimate
 * takes (schema/estimate-request.schema.json; the request field table,
 * listed by memfit_engines_json and tabulated in docs/service.md and
 * docs/engine-*.md). New request fields reach C callers without a new ABI.
 * *response_json receives, in both cases, a JSON object the caller
 * releases with memfit_string_free:
 *   success  MEMFIT_OK and the report `memfit inspect --json` prints
 *   failure  the status of the failure's kind and
 *            {"error": {"kind": "usage", "message": "...", "field": "..."}}
 * (*response_json is NULL only when response_json is NULL or memory ran
 * out). A body with "models", an array of 2 to 16 request objects beside
 * the fields every model shares, prices the models together on one
 * machine: the answer is schema/multi-model-report.schema.json's
 * (docs/multi-model.md). */
memfit_status memfit_estimate_request_json(const char* request_json, char** response_json);

/* The options of memfit_run_request_json, or'd together. */
typedef enum memfit_request_option {
  /* Every value is a text as the CLI's flag for that field takes it
   * ("32k" tokens, "48GiB", "true", "q8_0"), read by the CLI's parsers; a
   * repeatable field's value is an array of texts. Without it, values are
   * typed JSON as for memfit_estimate_request_json (8192, never "8192"). */
  MEMFIT_REQUEST_FLAG_TEXTS = 1,
  /* On success the report gains "text": the table `memfit inspect`
   * prints without --json. */
  MEMFIT_REQUEST_WITH_TEXT = 2
} memfit_request_option;

/* memfit_estimate_request_json with `options` (memfit_request_option
 * bits; 0 is memfit_estimate_request_json itself). An unknown bit is a
 * usage error naming "options". What front ends that take flags (python3
 * -m memfit inspect) call with their flags' texts. */
memfit_status memfit_run_request_json(const char* request_json, unsigned int options,
                                      char** response_json);

/* The engines and every request field, as GET /v1/engines answers
 * (docs/service.md): {"engines": [{"name", "summary", "release",
 * "default_for", "fields": [...]}], "common_fields": [...]}, each field
 * {"name", "flags", "help", "unit", "type", "choices", "default", "min",
 * "max", "example", "required"} (schema/engines.schema.json): what a
 * front end builds its options from. *json_out is released with
 * memfit_string_free; MEMFIT_ERROR when memory ran out,
 * MEMFIT_INVALID_ARGUMENT when json_out is NULL. */
memfit_status memfit_engines_json(char** json_out);

/* Reads a runtime's log and prices it, as `memfit check-log --json` does
 * (docs/check-log.md): the body POST /v1/check-log takes,
 *   {"log": "<the log's text>", "model": "...", "config": {...},
 *    "gpu_memory_total": "80GiB", "gpu_name": "..."}
 * ("log" required). *response_json as memfit_estimate_request_json's: the
 * check's JSON (schema/check-log.schema.json) with MEMFIT_OK, or
 * {"error": {...}} with the failure's status. */
memfit_status memfit_check_log_json(const char* request_json, char** response_json);

typedef struct memfit_prefill_request {
  const char* request_id;       /* NULL or "": one is generated */
  uint64_t prompt_tokens;
  uint64_t cached_tokens;       /* already resident in a prefix cache */
  uint64_t current_usage_bytes;
  uint64_t hard_limit_bytes;    /* 0: no limit, always admitted */
  uint64_t prefill_chunk;       /* 0: no chunking */
  int kv_int8;
} memfit_prefill_request;

typedef struct memfit_admission {
  int admitted;
  uint64_t peak_bytes;
  uint64_t estimated_bytes;     /* current usage + peak, when refused */
  uint64_t limit_bytes;
  char request_id[64];          /* NUL-terminated, truncated if longer */
  char* message;                /* refusal text, or NULL; freed by memfit_admission_clear */
} memfit_admission;

/* Decides whether one request's prefill fits under the hard limit. A
 * refusal is MEMFIT_OK with admitted == 0; the HTTP code for it is
 * "prefill_memory_exceeded". */
memfit_status memfit_check_prefill(const memfit_model* model,
                                   const memfit_prefill_request* request, memfit_admission* out);
void memfit_admission_clear(memfit_admission* admission);

/* An availability gate over the real host; one host query is reused for
 * 250 ms. */
memfit_status memfit_gate_new(memfit_gate** out);
/* 1 when `bytes` more may be allocated without cutting into the OS
 * reserve (and the bytes are counted as granted), else 0. */
int memfit_gate_may_grow(memfit_gate* gate, uint64_t bytes);
void memfit_gate_free(memfit_gate* gate);

#ifdef __cplusplus
}  /* extern "C" */
#endif

MEMFIT_PUBLIC_END

#endif  /* MEMFIT_MEMFIT_H_ */
