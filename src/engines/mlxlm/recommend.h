// mlx-lm's recommend-quant (docs/engine-mlxlm.md, "recommend-quant"): the
// MLX weight modes mlx_lm.convert makes, each priced by estimate_mlxlm()
// at the request's settings, ranked best quality first. Private to the
// library.
//   options: bits        uniform widths among 2, 3, 4, 5, 6, 8 (default all);
//                        given, the mixed recipes are left out
//            group_size  32, 64 or 128 (default all three; the recipes at 64)
#ifndef MEMFIT_ENGINES_MLXLM_RECOMMEND_H_
#define MEMFIT_ENGINES_MLXLM_RECOMMEND_H_

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engines/shared/speed_rank.h"
#include "engines/shared/weight_mode.h"
#include "memfit/mlxlm.h"
#include "memfit/request.h"
#include "memfit/result.h"
#include "memfit/warning.h"

namespace memfit::engines {

// One weight mode: the checkpoint as it is, uniform bits at a group size,
// or a mixed recipe at a group size.
struct MlxLmMode {
  bool as_is = false;
  uint64_t bits = 0;        // uniform modes; 0 otherwise
  uint64_t group_size = 0;  // 0 for as-is
  const MlxRecipe* recipe = nullptr;
};

// "as-is", "4-bit g64", "mixed_3_6"
std::string mode_name(const MlxLmMode& mode);

struct MlxLmQuantRow {
  MlxLmMode mode;
  uint64_t weights_bytes = 0;
  double mean_bits = 0;  // of the quantized weights (as-is: the checkpoint's bits)
  MlxLmEstimate estimate;
  bool shrinks = true;   // false: not below the checkpoint's own bits
  DecodeRank rank;       // its decode speed (docs/speed.md, "Plans chosen for speed")
};

// The modes `options` ask for, priced on `prepared`, best quality first:
// as-is, then more (mean) bits, then the smaller group, then (equal
// quality) the faster decode. kUsage naming the
// option for a width or group MLX does not have. A recipe that cannot be
// priced (mlx-lm refuses it, or a config-only mixture of experts) is left
// out with a warning in `warnings`.
Result<std::vector<MlxLmQuantRow>> rank_mlxlm_modes(const nlohmann::json& options,
                                                    const PreparedRequest& prepared,
                                                    std::vector<Warning>& warnings);

// The first row that fits and shrinks the checkpoint; null when none.
const MlxLmQuantRow* recommended_mode(const std::vector<MlxLmQuantRow>& rows);
// The row that fits, shrinks the checkpoint and decodes fastest
// (speed_rank.h), the better quality on a tie; null when none does or no
// row's speed is known.
const MlxLmQuantRow* fastest_mode(const std::vector<MlxLmQuantRow>& rows);
// The rows that fit and shrink the checkpoint, fastest first (speed_rank.h),
// the better quality (the earlier row) on a tie.
std::vector<const MlxLmQuantRow*> modes_by_speed(const std::vector<MlxLmQuantRow>& rows);

// The commands that make and run a row's checkpoint from `model_path`:
//   mlx_lm.convert --hf-path M --mlx-path OUT -q --q-bits B --q-group-size G
//   (a recipe: --quant-predicate R --q-group-size G); "" for as-is
//   mlx_lm.generate --model OUT --max-tokens N --prompt - [--kv-bits ...]
// OUT is the model folder's name with the mode after it.
std::string convert_command(const std::string& model_path, const MlxLmMode& mode);
std::string generate_command(const std::string& model_path, const MlxLmMode& mode,
                             const MlxLmSettings& settings);

}  // namespace memfit::engines

#endif  // MEMFIT_ENGINES_MLXLM_RECOMMEND_H_
