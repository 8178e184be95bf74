// mlx-lm's request fields, declared once, with mlx_lm.generate's and
// mlx_lm.benchmark's defaults (mlxlm.h: MlxLmSettings).
#include "engines/mlxlm/fields.h"

#include "memfit/request.h"
#include "request/field_rows.h"
#include "request/field_text.h"

namespace memfit {
namespace {

using R = EstimateRequest;
using request::parse_decimal;
using request::parsed_field;

constexpr RequestField kMlxLmFields[] = {
    parsed_field<parse_decimal, &R::mlxlm, &MlxLmRequest::prompt_tokens>(
    {.name = "prompt_tokens",
     .flags = "--prompt-tokens",
     .engine = "mlx-lm",
     .help = "prompt length (default 512)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "512",
     .min = 1,
     .doc = "the prompt's tokens: `mlx_lm.benchmark -p`; `preflight generate` reads its own "
            "`--prompt-tokens`"}),
    parsed_field<parse_decimal, &R::mlxlm, &MlxLmRequest::prefill_step_size>(
    {.name = "prefill_step_size",
     .flags = "--prefill-step-size",
     .engine = "mlx-lm",
     .help = "prompt tokens per prefill chunk (default 2048)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "2048",
     .min = 1,
     .doc = "prompt tokens per prefill chunk: mlx-lm's `--prefill-step-size`"}),
    parsed_field<parse_decimal, &R::mlxlm, &MlxLmRequest::kv_bits>(
    {.name = "kv_bits",
     .flags = "--kv-bits",
     .engine = "mlx-lm",
     .help = "quantized KV cache bits (default none)",
     .unit = "bits",
     .type = FieldType::kCount,
     .min = 1,
     .example = "8",
     .doc = "quantized KV cache bits: mlx-lm's `--kv-bits` (2, 3, 4, 5, 6, 8); default none "
            "(16-bit)"}),
    parsed_field<parse_decimal, &R::mlxlm, &MlxLmRequest::kv_group_size>(
    {.name = "kv_group_size",
     .flags = "--kv-group-size",
     .engine = "mlx-lm",
     .help = "quantized KV cache group size (default 64)",
     .type = FieldType::kCount,
     .default_text = "64",
     .min = 1,
     .doc = "quantized KV cache group size: mlx-lm's `--kv-group-size` (32, 64, 128)"}),
    parsed_field<parse_decimal, &R::mlxlm, &MlxLmRequest::max_kv_size>(
    {.name = "max_kv_size",
     .flags = "--max-kv-size",
     .engine = "mlx-lm",
     .help = "rotating KV cache of this many tokens (default unbounded)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .min = 1,
     .example = "4096",
     .doc = "a rotating KV cache of this many tokens: mlx-lm's `--max-kv-size`; default "
            "unbounded"}),
};

}  // namespace

std::span<const RequestField> mlxlm_fields() { return kMlxLmFields; }

}  // namespace memfit
