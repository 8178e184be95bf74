// mlx-lm's request fields, declared once, with mlx_lm.generate's and
// mlx_lm.benchmark's defaults (mlxlm.h: MlxLmSettings).
#include "engines/mlxlm/fields.h"

#include "memfit/mlxlm.h"
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
    parsed_field<parse_mlx_lm_version, &R::mlxlm, &MlxLmRequest::mlx_lm_version>(
    {.name = "mlx_lm_version",
     .flags = "--mlx-lm-version",
     .engine = "mlx-lm",
     .help = "the mlx-lm release that runs, X.Y[.Z], 0.17.0 or later (default 0.31.3, the "
             "newest release read)",
     .type = FieldType::kText,
     .default_text = "0.31.3",
     .example = "0.26.4",
     .doc = "the mlx-lm release that runs, `X.Y` or `X.Y.Z`, 0.17.0 or later (an older one is "
            "refused); since 0.27.0 the prompt's last token alone gets logits (mlx-lm #406), "
            "before it the last chunk's logits cover all its tokens; default 0.31.3, the "
            "newest release read; 0.32.0 and later are priced by its rules, not read "
            "(docs/engine-mlxlm.md, \"Releases\")"}),
    parsed_field<parse_mlx_version, &R::mlxlm, &MlxLmRequest::mlx_version>(
    {.name = "mlx_version",
     .flags = "--mlx-version",
     .engine = "mlx-lm",
     .help = "the MLX release under mlx-lm, X.Y[.Z], 0.24.0 or later (default 0.32.1)",
     .type = FieldType::kText,
     .default_text = "0.32.1",
     .example = "0.24.0",
     .doc = "the MLX release under mlx-lm, `X.Y` or `X.Y.Z`; from v0.24.0 (at most 10 command "
            "buffers in flight) every release is priced alike on Metal; on CUDA (backend "
            "cuda) a release before v0.30.5 runs the H100's graphs at 30 ops and 400 x 2^20 "
            "elements, since at 100 and 1000 (mlx #3077); an older one is refused "
            "(docs/engine-mlxlm.md, \"Releases\")"}),
    parsed_field<parse_mlx_chip, &R::mlxlm, &MlxLmRequest::mlx_chip>(
    {.name = "mlx_chip",
     .flags = "--mlx-chip",
     .engine = "mlx-lm",
     .help = "the Apple GPU's class: base, pro, max or ultra (default: the --mac's, else max)",
     .type = FieldType::kChoice,
     .choices = "base|pro|max|ultra",
     .default_text = "max",
     .doc = "the Apple chip's class, which sets MLX's Metal command-buffer limits: 40 ops and "
            "40 x 2^20 input elements on base and Pro chips, 50 and 50 on Max and Ultra "
            "(`mlx/backend/metal/device.cpp`); default: the tier of the Mac `--mac` names, "
            "else `max`"}),
    parsed_field<parse_decimal, &R::mlxlm, &MlxLmRequest::mlx_max_ops_per_buffer>(
    {.name = "mlx_max_ops_per_buffer",
     .flags = "--mlx-max-ops-per-buffer",
     .engine = "mlx-lm",
     .help = "MLX_MAX_OPS_PER_BUFFER: ops a command buffer or CUDA graph holds (default: the "
             "chip's, or the CUDA GPU's)",
     .type = FieldType::kCount,
     .min = 1,
     .max = kMlxMaxOpsPerBuffer,
     .example = "30",
     .doc = "MLX's `MLX_MAX_OPS_PER_BUFFER`: the ops a command buffer (Metal) or graph (CUDA) "
            "holds before it is committed; default: the chip's on Metal (`mlx_chip`), the "
            "H100's 100 on CUDA (`backend` `cuda`; docs/engine-mlxlm.md, \"Run-ahead\")"}),
    parsed_field<parse_decimal, &R::mlxlm, &MlxLmRequest::mlx_max_mb_per_buffer>(
    {.name = "mlx_max_mb_per_buffer",
     .flags = "--mlx-max-mb-per-buffer",
     .engine = "mlx-lm",
     .help = "MLX_MAX_MB_PER_BUFFER: a buffer's inputs, in 2^20 elements (default: the chip's, "
             "or the CUDA GPU's)",
     .unit = "2^20 elements",
     .type = FieldType::kCount,
     .min = 1,
     .max = kMlxMaxMegaElementsPerBuffer,
     .example = "400",
     .doc = "MLX's `MLX_MAX_MB_PER_BUFFER`: a buffer is committed once its inputs pass this many "
            "2^20 elements (elements, not bytes, despite the name); default: the chip's on "
            "Metal, the H100's 1000 on CUDA (docs/engine-mlxlm.md, \"Run-ahead\")"}),
};

}  // namespace

std::span<const RequestField> mlxlm_fields() { return kMlxLmFields; }

}  // namespace memfit
