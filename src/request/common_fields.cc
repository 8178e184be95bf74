// The request fields every engine reads (request_field.h): the model, the
// engine, the KV widths, the budget and the parallel plan, declared once.
#include <fmt/format.h>

#include "bands/error_bands.h"
#include "memfit/host_memory.h"
#include "memfit/memory_size.h"
#include "memfit/parallel_plan.h"
#include "memfit/request.h"
#include "request/field_rows.h"
#include "request/field_table.h"
#include "request/field_text.h"

namespace memfit::request {
namespace {

using R = EstimateRequest;
using Text = std::string_view;

Result<DeviceSelector> parse_device(Text text) { return parse_device_selector(std::string(text)); }

// --confidence: one of the levels the band table carries a margin for
// (bands/error_bands.h), refused otherwise with them in words.
Result<uint64_t> parse_confidence(Text text) {
  for (uint64_t level : kConfidenceLevels) {
    if (text == std::to_string(level)) return level;
  }
  return Error::usage(fmt::format("'{}': expected 90, 95 or 99 (per cent of the corpus's runs the "
                                  "margin covers)", text));
}

// A size with its unit ("48GiB", "48GB"); a bare number is refused.
Result<std::optional<uint64_t>> parse_size_with_unit(std::string_view text) {
  return parse_memory_size(text);
}

constexpr RequestField kCommonFields[] = {
    parsed_field<text_as_is, &R::model>(
    {.name = "model",
     .flags = "-m,--model",
     .help = "model folder, .safetensors or .gguf file, or a Hugging Face name "
             "org/name[@revision][:QUANT]: the local HF cache (HF_HUB_CACHE), else the Hub",
     .type = FieldType::kText,
     .required = true,
     .example = "Qwen3-14B-MLX-4bit",
     .doc = "a model folder, `.safetensors` or `.gguf` file, or a Hugging Face name "
            "`org/name[@revision][:QUANT]` (docs/hub.md); the service takes a name under its "
            "model roots (docs/service.md, \"Security\")"}),
    parsed_field<parse_engine, &R::engine>(
    {.name = "engine",
     .flags = "--engine",
     // The CLI's help and GET /v1/engines list the registry's engines.
     .help = "allocation rules: auto (the model's default) or an engine's name (docs/engines.md)",
     .type = FieldType::kChoice,
     .choices = "auto|mlxcel|llamacpp|mlx-lm|vllm|sglang",
     .default_text = "auto",
     .doc = "whose allocation rules price the request: `auto` is llamacpp for a GGUF model, "
            "mlxcel otherwise (docs/engines.md); `mlxlm` is `mlx-lm` too"}),
    parsed_field<parse_kv_element, &R::kv_cache_mode>(
    {.name = "kv_cache_mode",
     .flags = "--kv-cache-mode",
     .help = "KV cache element type: fp16 or int8",
     .type = FieldType::kChoice,
     .choices = "fp16|int8",
     .default_text = "fp16",
     .doc = "mlxcel's KV element type; the aliases `f16`, `bf16`, `float16`, `i8`, `q8`, `q8_0` "
            "too"}),
    {.name = "cache_type_k",
     .flags = "-ctk,--cache-type-k",
     .help = "K cache type: fp16 or int8; with --engine llamacpp f32, f16, bf16, q8_0, q4_0, "
             "q4_1, q5_0, q5_1 or iq4_nl, -ctk",
     .type = FieldType::kChoice,
     .choices = "fp16|int8|f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl",
     .default_text = "f16",
     .apply = [](R& r, Text t) { return set_cache_type(r, "cache_type_k", t); },
     .given = [](const R& r) { return r.cache_type_k || r.llamacpp.cache_type_k; },
     .doc = "mlxcel: `fp16` or `int8`, with `cache_type_v` (when they differ the cache is sized "
            "at fp16, with a warning); llamacpp: llama.cpp's types, each alone "
            "(docs/engine-llamacpp.md); with the engine left to the model, every reading the "
            "name has"},
    {.name = "cache_type_v",
     .flags = "-ctv,--cache-type-v",
     .help = "V cache type, as --cache-type-k, -ctv",
     .type = FieldType::kChoice,
     .choices = "fp16|int8|f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|iq4_nl",
     .default_text = "f16",
     .apply = [](R& r, Text t) { return set_cache_type(r, "cache_type_v", t); },
     .given = [](const R& r) { return r.cache_type_v || r.llamacpp.cache_type_v; },
     .doc = "as `cache_type_k`; under llamacpp a quantized V needs flash attention"},
    parsed_field<parse_quant_label, &R::quant>(
    {.name = "quant",
     .flags = "--quant",
     .help = "weight mode to price: an MLX mode under mlxcel and mlx-lm (fp16, int8, int4, "
             "3bit, 6bit-g32, mixed_3_6, ...), a GGUF file type under llamacpp (Q4_K_M, Q8_0, ...)",
     .type = FieldType::kText,
     .example = "int4",
     .doc = "mlxcel and mlx-lm price the weights quantized to that MLX mode from the headers' "
            "shapes, else the config's parameter count: `fp16`; `int8` and `int4` (8 and 4 "
            "bits, group size 64); `<b>bit` or `<b>bit-g<g>` with b of 2, 3, 4, 5, 6, 8 and g "
            "of 32, 64, 128 (default 64); a mixed recipe of mlx_lm.convert (`mixed_2_6`, "
            "`mixed_3_4`, `mixed_3_6`, `mixed_4_6`, optionally `-g<g>`; docs/engine-mlxlm.md). "
            "A mode wider than the checkpoint is refused. llamacpp takes a GGUF file type "
            "(F32, F16, BF16, Q8_0, Q6_K, Q5_1, Q5_K_M, Q5_0, Q5_K_S, Q4_1, Q4_K_M, Q4_0, "
            "Q4_K_S, IQ4_NL, IQ4_XS, MXFP4_MOE, Q3_K_L, Q3_K_M, IQ3_M, IQ3_S, Q3_K_S, Q2_K; "
            "case-insensitive; Q3_K, Q4_K, Q5_K are the _M types) on a safetensors or "
            "config-only model and prices the GGUF llama-quantize would write for it "
            "(docs/engine-llamacpp.md); a GGUF model's weights are its own file type. vllm "
            "refuses it: its weights are the checkpoint's own"}),
    parsed_field<parse_backend, &R::backend>(
    {.name = "backend",
     .flags = "--backend",
     .help = "auto, rocm, metal, cuda or cpu",
     .type = FieldType::kChoice,
     .choices = "auto|rocm|metal|cuda|cpu",
     .default_text = "auto",
     .doc = "whose kernels' rules price mlxcel's headroom; `auto`: this build's platform (or "
            "the machine's, `gpu` or `mac`). mlx-lm takes `metal` (the default) or `cuda`, MLX's "
            "CUDA backend, whose graphs count every input (docs/engine-mlxlm.md, \"Run-ahead\"). "
            "The other engines refuse it: llamacpp prices each device given or found, vllm's "
            "platform follows the GPU's name"}),
    parsed_field<parse_size_with_unit, &R::memory_limit_bytes>(
    {.name = "memory_limit",
     .flags = "--memory-limit",
     .help = "memory budget, e.g. 48GiB (2^30 bytes) or 80GB (10^9 bytes); overrides "
             "MEMFIT_MEMORY_LIMIT",
     .unit = "bytes",
     .type = FieldType::kSize,
     .json_expects = "a size such as \"48GiB\" or bytes",
     .example = "48GiB",
     .doc = "the budget, with its unit (`\"48GiB\"` = 48 x 2^30 bytes, `\"48GB\"` = 48 x 10^9; a "
            "JSON integer is bytes); `0` or `\"none\"`: unset. Default: `MEMFIT_MEMORY_LIMIT`, "
            "else the machine's (`--gpu`, `--mac`, or this host: the service's `--memory-limit`). "
            "A limit prices that budget, not this host: no warning about this host's free memory"}),
    parsed_field<parse_device, &R::device>(
    {.name = "device",
     .flags = "--device",
     .help = "budget device: auto, cpu, cuda:N or rocm:N",
     .type = FieldType::kText,
     .default_text = "auto",
     .given = [](const R& r) { return r.device.kind != DeviceSelector::Kind::kAuto; },
     .example = "cuda:1",
     .doc = "whose memory is the budget when no limit is given: `auto`, `cpu`, `cuda[:N]`, "
            "`rocm[:N]`"}),
    parsed_field<parse_decimal, &R::max_tokens>(
    {.name = "max_tokens",
     .flags = "--max-tokens",
     .help = "context length in tokens (default 8192; with llamacpp, --ctx-size)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "8192",
     .min = 1,
     .doc = "the context length; llamacpp reads it as `ctx_size` and vllm as `max_model_len` when "
            "those are not given; under mlx-lm the tokens generated"}),
    parsed_field<parse_decimal, &R::batch>(
    {.name = "batch",
     .flags = "--batch",
     .help = "sequences decoded together (default 1)",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .given = [](const R& r) { return r.batch != 1; },
     .doc = "sequences decoded together; vllm reads one other than 1 as `max_num_seqs`"}),
    parsed_field<parse_decimal, &R::parallel, &ParallelConfig::tensor_parallel>(
    {.name = "tensor_parallel",
     .flags = "--tensor-parallel,--tensor-parallel-size",
     .help = "tensor-parallel ranks (default 1); ranks > 1 add a per-device plan",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .given = [](const R& r) { return r.parallel.tensor_parallel != 1; },
     .doc = "tensor-parallel ranks; more than one rank adds the per-rank plan (docs/parallel.md); "
            "vllm's `--tensor-parallel-size`, the report per rank"}),
    parsed_field<parse_decimal, &R::parallel, &ParallelConfig::pipeline_parallel>(
    {.name = "pipeline_parallel",
     .flags = "--pipeline-parallel",
     .help = "pipeline-parallel stages (default 1)",
     .type = FieldType::kCount,
     .default_text = "1",
     .min = 1,
     .given = [](const R& r) { return r.parallel.pipeline_parallel != 1; },
     .doc = "pipeline-parallel stages of the per-rank plan (docs/parallel.md)"}),
    parsed_field<parse_sharding_rules, &R::parallel, &ParallelConfig::sharding>(
    {.name = "parallel_engine",
     .flags = "--parallel-engine",
     .help = "whose sharding rules the plan follows: vllm (default) or mlx-lm",
     .type = FieldType::kChoice,
     .choices = "vllm|mlx-lm",
     .default_text = "vllm",
     .given = [](const R& r) { return r.parallel.sharding != ShardingRules::kVllm; },
     .doc = "whose sharding rules mlxcel's per-rank plan follows, by the engine's name as "
            "`engine` takes it (docs/parallel.md); `mlx`, the old spelling, is `mlx-lm`. Refused "
            "without `tensor_parallel` or `pipeline_parallel` above 1, and by the other engines "
            "(vllm shards by its own rules)"}),
    parsed_field<parse_confidence, &R::confidence>(
    {.name = "confidence",
     .flags = "--confidence",
     .help = "add the margin that covers 90, 95 or 99 % of the log corpus's runs to each "
             "modelled figure with a band, in the verdict and in what fit solves",
     .type = FieldType::kChoice,
     .choices = "90|95|99",
     .example = "95",
     .doc = "per cent of the corpus's runs the margin covers: each modelled figure with a band "
            "(5 logs or more of its engine, backend and figure) adds memfit's figure times the "
            "band's margin at that level to the total compared against the budget, and fit "
            "solves against that total (docs/validation-logs.md, \"Error bands\"); llamacpp, "
            "mlx-lm and vllm. Default: none"}),
};

}  // namespace

std::span<const RequestField> common_fields() { return kCommonFields; }

}  // namespace memfit::request
