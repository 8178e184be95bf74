// MLX's run-ahead: the memory the command buffers in flight hold while a
// forward pass is evaluated (docs/engine-mlxlm.md, "Run-ahead").
//
// MLX encodes one op at a time. An op's output is allocated when it is
// encoded; its inputs are released only when the command buffer holding
// the op completes on the GPU (mlx/backend/metal/eval.cpp: the completion
// handler holds the inputs' data), so an output lives until the buffer of
// its last consumer completes. A buffer is committed once its op count
// passes max_ops or its inputs pass max_mega_elements x 2^20 elements
// (Metal counts each distinct input once per buffer; the CUDA backend's
// graphs count every input), and before each op the evaluator waits while
// more than max_active buffers are in flight. So when the GPU is the slower
// side, the bytes held at one op are those of the open buffer plus the last
// max_active committed ones: this class replays a list of ops against that
// rule and keeps the largest such sum.
//
// Units: input sizes in elements (MLX counts elements, not bytes: an array's
// data_size()); held sizes in bytes, saturating. The limits are
// MlxBufferLimits (memfit/mlxlm.h). Private to the library.
#ifndef MEMFIT_ENGINES_MLXLM_MLX_RUNAHEAD_H_
#define MEMFIT_ENGINES_MLXLM_MLX_RUNAHEAD_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "memfit/mlxlm.h"

namespace memfit {

// One input of an op: `id` names the array (0: none) so that Metal's
// distinct count sees a second use in the same buffer as free.
struct MlxInput {
  uint64_t id = 0;
  uint64_t elements = 0;
};

class MlxRunAhead {
 public:
  explicit MlxRunAhead(const MlxBufferLimits& limits);

  // One op: its inputs, the bytes it holds (its output, or an old buffer it
  // replaces; 0 when it writes in place), and its output array as MLX binds
  // it (elements 0: written in place into an input, so nothing new is
  // bound), counted when limits.count_outputs. The held bytes are released
  // when the op's buffer completes, or, for an output with an id that a
  // later op takes as an input, when that op's buffer does. Scratch bytes
  // (a temporary the encoder keeps, such as a split-K matmul's partials,
  // split_k.h) are released when the op's own buffer completes.
  void op(std::initializer_list<MlxInput> inputs, uint64_t held_bytes, MlxInput output = {},
          uint64_t scratch_bytes = 0);

  uint64_t peak_bytes() const { return peak_; }

 private:
  // An output with an id, and the buffer that holds it now: the one its
  // last consumer so far was encoded into (kOpen, or a ring_ index).
  struct Output {
    uint64_t id = 0;
    uint64_t bytes = 0;
    uint64_t slot = 0;
  };
  static constexpr uint64_t kOpen = UINT64_MAX;

  // Counts one bound array toward the open buffer's elements (Metal: once
  // per distinct id).
  void bind(const MlxInput& array);
  // Keeps an input's bytes until the open buffer completes.
  void extend(const MlxInput& input);
  // Commits the open buffer; the oldest in flight completes.
  void commit();

  MlxBufferLimits limits_;
  std::vector<uint64_t> ring_;  // held bytes of the last max_active committed buffers
  uint64_t ring_next_ = 0;
  uint64_t in_flight_ = 0;      // sum over ring_
  std::vector<uint64_t> seen_;  // ids counted in the open buffer
  uint64_t open_held_ = 0, open_ops_ = 0, open_elements_ = 0;
  uint64_t peak_ = 0;
  std::vector<Output> outputs_;  // outputs not yet released (ids only)
};

}  // namespace memfit

#endif  // MEMFIT_ENGINES_MLXLM_MLX_RUNAHEAD_H_
