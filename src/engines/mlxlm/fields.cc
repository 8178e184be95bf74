// mlx-lm's request fields, declared once, with mlx_lm.generate's and
// mlx_lm.benchmark's defaults (mlxlm.h: MlxLmSettings).
#include "engines/mlxlm/fields.h"

#include "memfit/request.h"
#include "request/field_text.h"

namespace memfit {
namespace {

using R = EstimateRequest;
using Text = std::string_view;
using request::parse_decimal;
using request::store;

constexpr RequestField kMlxLmFields[] = {
    {.name = "prompt_tokens",
     .flags = "--prompt-tokens",
     .engine = "mlx-lm",
     .help = "prompt length (default 512)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "512",
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.mlxlm.prompt_tokens, parse_decimal(t)); },
     .given = [](const R& r) { return r.mlxlm.prompt_tokens.has_value(); },
     .doc = "the prompt's tokens: `mlx_lm.benchmark -p`; `preflight generate` reads its own "
            "`--prompt-tokens`"},
    {.name = "prefill_step_size",
     .flags = "--prefill-step-size",
     .engine = "mlx-lm",
     .help = "prompt tokens per prefill chunk (default 2048)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .default_text = "2048",
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.mlxlm.prefill_step_size, parse_decimal(t)); },
     .given = [](const R& r) { return r.mlxlm.prefill_step_size.has_value(); },
     .doc = "prompt tokens per prefill chunk: mlx-lm's `--prefill-step-size`"},
    {.name = "kv_bits",
     .flags = "--kv-bits",
     .engine = "mlx-lm",
     .help = "quantized KV cache bits (default none)",
     .unit = "bits",
     .type = FieldType::kCount,
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.mlxlm.kv_bits, parse_decimal(t)); },
     .given = [](const R& r) { return r.mlxlm.kv_bits.has_value(); },
     .example = "8",
     .doc = "quantized KV cache bits: mlx-lm's `--kv-bits` (2, 3, 4, 5, 6, 8); default none "
            "(16-bit)"},
    {.name = "kv_group_size",
     .flags = "--kv-group-size",
     .engine = "mlx-lm",
     .help = "quantized KV cache group size (default 64)",
     .type = FieldType::kCount,
     .default_text = "64",
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.mlxlm.kv_group_size, parse_decimal(t)); },
     .given = [](const R& r) { return r.mlxlm.kv_group_size.has_value(); },
     .doc = "quantized KV cache group size: mlx-lm's `--kv-group-size` (32, 64, 128)"},
    {.name = "max_kv_size",
     .flags = "--max-kv-size",
     .engine = "mlx-lm",
     .help = "rotating KV cache of this many tokens (default unbounded)",
     .unit = "tokens",
     .type = FieldType::kCount,
     .min = 1,
     .apply = [](R& r, Text t) { return store(r.mlxlm.max_kv_size, parse_decimal(t)); },
     .given = [](const R& r) { return r.mlxlm.max_kv_size.has_value(); },
     .example = "4096",
     .doc = "a rotating KV cache of this many tokens: mlx-lm's `--max-kv-size`; default "
            "unbounded"},
};

}  // namespace

std::span<const RequestField> mlxlm_fields() { return kMlxLmFields; }

}  // namespace memfit
