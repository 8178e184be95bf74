// A list of a config's parameter blocks as a counter appends them
// (analytical_params.cc, deepseek_v4_params.cc).
#ifndef MEMFIT_MODEL_CONFIG_PARAM_BLOCK_LIST_H_
#define MEMFIT_MODEL_CONFIG_PARAM_BLOCK_LIST_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "memfit/checked_math.h"
#include "model/config/analytical_params.h"

namespace memfit {

// Appends blocks, dropping empty ones (a dimension the config left at 0).
// Dimensions are products of config values: when one overflows 64 bits the
// config cannot be counted, and take() returns no block at all.
// `element_bytes` is ParamBlock's: 0 for the checkpoint's own width.
class ParamBlockList {
 public:
  void add(ParamRole role, std::string_view module, std::optional<uint64_t> layer, CheckedBytes rows,
           CheckedBytes cols, uint64_t copies = 1, uint64_t element_bytes = 0) {
    if (rows.overflowed() || cols.overflowed()) {
      overflowed_ = true;
      return;
    }
    if (*rows.value() == 0 || *cols.value() == 0 || copies == 0) return;
    blocks_.push_back({role, module, layer, *rows.value(), *cols.value(), copies, element_bytes});
  }
  std::vector<ParamBlock> take() {
    if (overflowed_) return {};
    return std::move(blocks_);
  }

 private:
  std::vector<ParamBlock> blocks_;
  bool overflowed_ = false;
};

}  // namespace memfit

#endif  // MEMFIT_MODEL_CONFIG_PARAM_BLOCK_LIST_H_
