// MlxRunAhead (mlx_runahead.h): MLX's commit and in-flight rules, replayed.
//
// Invariants: ring_ holds max_active entries (0 until filled) and
// in_flight_ is their sum; seen_ and the open_* counters describe the
// buffer being encoded and are reset when it commits. Sums saturate.
#include <algorithm>

#include "memfit/checked_math.h"
#include "engines/mlxlm/mlx_runahead.h"

namespace memfit {

namespace {
// The evaluator's bound is small (10); a hostile setting cannot size the ring.
constexpr uint64_t kMaxActiveCap = 64;
}  // namespace

MlxRunAhead::MlxRunAhead(const MlxBufferLimits& limits)
    : limits_(limits), ring_(std::min(limits.max_active, kMaxActiveCap), 0) {}

void MlxRunAhead::bind(const MlxInput& array) {
  if (array.elements == 0) return;
  if (limits_.distinct_inputs && array.id != 0) {
    if (std::find(seen_.begin(), seen_.end(), array.id) != seen_.end()) return;
    seen_.push_back(array.id);
  }
  open_elements_ = (CheckedBytes(open_elements_) + array.elements).saturated();
}

void MlxRunAhead::op(std::initializer_list<MlxInput> inputs, uint64_t held_bytes, MlxInput output) {
  // The op is encoded: its output is allocated while the open buffer and
  // the committed buffers in flight still hold theirs.
  ++open_ops_;
  open_held_ = (CheckedBytes(open_held_) + held_bytes).saturated();
  for (const MlxInput& in : inputs) bind(in);
  // Metal binds the output through set_input_array (device.cpp), so it
  // counts like an input; CUDA's set_output_array counts nothing.
  if (limits_.count_outputs) bind(output);
  peak_ = std::max(peak_, (CheckedBytes(open_held_) + in_flight_).saturated());
  // Commit when the op count or the inputs pass the limits (MLX checks
  // after each op: `ops > max_ops || (elements >> 20) > max_mb`).
  if (open_ops_ > limits_.max_ops || (open_elements_ >> 20) > limits_.max_mega_elements) {
    if (!ring_.empty()) {
      // The oldest of max_active + 1 buffers completes before the next op.
      in_flight_ = (CheckedBytes(in_flight_ - ring_[ring_next_]) + open_held_).saturated();
      ring_[ring_next_] = open_held_;
      ring_next_ = (ring_next_ + 1) % ring_.size();
    }
    seen_.clear();
    open_held_ = open_ops_ = open_elements_ = 0;
  }
}

}  // namespace memfit
