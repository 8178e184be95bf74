// --mlx-lm-version, --mlx-version and --mlx-chip: which mlx-lm and MLX
// releases, and which Apple GPU, price the estimate (mlxlm.h;
// docs/engine-mlxlm.md, "Releases").
#include <fmt/format.h>

#include "engines/mlxlm/release_defaults.h"
#include "engines/shared/release_number.h"
#include "memfit/mlxlm.h"
#include "memfit/untrusted_text.h"

namespace memfit {
namespace {

Error bad_release(std::string_view text) {
  return Error::usage(fmt::format("{}: expected a release X.Y or X.Y.Z, e.g. 0.27.0",
                                  quote_untrusted(text)));
}

// X.Y or X.Y.Z (engines/shared/release_number.h); the missing patch is 0.
Result<MlxRelease> parse_release(std::string_view text) {
  const std::optional<ReleaseNumber> n = parse_release_number(text);
  if (!n) return bad_release(text);
  return MlxRelease{n->major, n->minor, n->patch};
}

// `text` as a release no older than `first`; `what` names the runtime and
// `why` says what the first known release brought.
Result<MlxRelease> known_release(std::string_view text, MlxRelease first, std::string_view what,
                                 std::string_view why) {
  Result<MlxRelease> r = parse_release(text);
  if (!r) return r;
  if (*r < first) {
    return Error::usage(fmt::format("{} {} predates what memfit prices: {} {} or later ({})",
                                    what, to_string(*r), what, to_string(first), why));
  }
  return r;
}

}  // namespace

std::string to_string(const MlxRelease& r) {
  return fmt::format("{}.{}.{}", r.major, r.minor, r.patch);
}

Result<MlxRelease> parse_mlx_lm_version(std::string_view text) {
  return known_release(text, kMlxLmFirstKnown, "mlx-lm",
                       "the prompt in chunks of prefill_step_size");
}

Result<MlxRelease> parse_mlx_version(std::string_view text) {
  return known_release(text, kMlxFirstKnown, "MLX", "at most 10 command buffers in flight");
}

std::string_view to_string(MlxChip chip) {
  switch (chip) {
    case MlxChip::kBase: return "base";
    case MlxChip::kPro: return "pro";
    case MlxChip::kMax: return "max";
    case MlxChip::kUltra: return "ultra";
  }
  return "max";
}

Result<MlxChip> parse_mlx_chip(std::string_view text) {
  for (MlxChip c : {MlxChip::kBase, MlxChip::kPro, MlxChip::kMax, MlxChip::kUltra}) {
    if (text == to_string(c)) return c;
  }
  return Error::usage(fmt::format("{}: expected base, pro, max or ultra", quote_untrusted(text)));
}

MlxBufferLimits mlx_metal_limits(MlxChip chip) {
  const bool large = chip == MlxChip::kMax || chip == MlxChip::kUltra;
  MlxBufferLimits limits;
  limits.max_ops = large ? 50 : 40;
  limits.max_mega_elements = large ? 50 : 40;
  limits.distinct_inputs = true;
  limits.count_outputs = true;
  return limits;
}

MlxBufferLimits mlx_cuda_limits(const std::optional<MlxRelease>& mlx) {
  // mlx #3077 ("Tune CUDA graph sizes on B200 and H100", first in v0.30.5)
  // raised the H100's graphs from 30 ops / 400 to 100 / 1000.
  const bool before_3077 = mlx && *mlx < kMlxCudaGraphs100;
  MlxBufferLimits limits;
  limits.max_ops = before_3077 ? 30 : 100;
  limits.max_mega_elements = before_3077 ? 400 : 1000;
  limits.distinct_inputs = false;
  limits.count_outputs = false;
  return limits;
}

uint64_t mlxlm_last_chunk_logits_rows(const std::optional<MlxRelease>& release,
                                      uint64_t last_chunk_tokens) {
  if (release.value_or(kMlxLmNewestRead) >= kMlxLmLastTokenLogits) return 1;
  return last_chunk_tokens;
}

uint64_t mlxlm_last_chunk_pass_tokens(const std::optional<MlxRelease>& release,
                                      uint64_t last_chunk_tokens) {
  if (release.value_or(kMlxLmNewestRead) >= kMlxLmLastTokenLogits && last_chunk_tokens > 1) {
    return last_chunk_tokens - 1;
  }
  return last_chunk_tokens;
}

MlxRelease mlx_required_by(const MlxRelease& mlx_lm) {
  if (mlx_lm >= kMlxLmRequiresMlx0312) return MlxRelease{0, 31, 2};
  if (mlx_lm >= kMlxLmRequiresMlx0304) return MlxRelease{0, 30, 4};
  if (mlx_lm >= kMlxLmRequiresMlx0303) return MlxRelease{0, 30, 3};
  return MlxRelease{0, 29, 2};
}

uint64_t mlxlm_default_prefill_step_size(const std::optional<MlxRelease>& release) {
  return release.value_or(kMlxLmNewestRead) >= kMlxLmPrefill2048 ? 2048 : 512;
}

uint64_t mlxlm_printed_gb_bytes(const std::optional<MlxRelease>& release) {
  return release.value_or(kMlxLmNewestRead) >= kMlxLmDecimalGb ? 1'000'000'000ull : 1ull << 30;
}

}  // namespace memfit
