// MlxRunAhead (mlx_runahead.h): MLX's commit and in-flight rules, replayed.
//
// Invariants: ring_ holds max_active entries (0 until filled) and
// in_flight_ is their sum; seen_ and the open_* counters describe the
// buffer being encoded and are reset when it commits. Sums saturate.
#include <algorithm>
#include <vector>

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

void MlxRunAhead::extend(const MlxInput& in) {
  // An input another op produced stays allocated until the buffer holding
  // this op completes (the completion handler holds its data): its bytes
  // move from the producer's buffer to the open one.
  if (in.id == 0) return;
  for (Output& o : outputs_) {
    if (o.id != in.id || o.slot == kOpen) continue;
    ring_[o.slot] -= std::min(ring_[o.slot], o.bytes);
    in_flight_ -= std::min(in_flight_, o.bytes);
    open_held_ = (CheckedBytes(open_held_) + o.bytes).saturated();
    o.slot = kOpen;
  }
}

void MlxRunAhead::op(std::initializer_list<MlxInput> inputs, uint64_t held_bytes, MlxInput output,
                     uint64_t scratch_bytes) {
  // The op is encoded: its output (and any scratch) is allocated while the
  // open buffer and the committed buffers in flight still hold theirs.
  ++open_ops_;
  open_held_ = (CheckedBytes(open_held_) + held_bytes + scratch_bytes).saturated();
  for (const MlxInput& in : inputs) {
    bind(in);
    extend(in);
  }
  if (output.id != 0 && held_bytes != 0) outputs_.push_back({output.id, held_bytes, kOpen});
  // Metal binds the output through set_input_array (device.cpp), so it
  // counts like an input; CUDA's set_output_array counts nothing.
  if (limits_.count_outputs) bind(output);
  peak_ = std::max(peak_, (CheckedBytes(open_held_) + in_flight_).saturated());
  // Commit when the op count or the inputs pass the limits (MLX checks
  // after each op: `ops > max_ops || (elements >> 20) > max_mb`).
  if (open_ops_ > limits_.max_ops || (open_elements_ >> 20) > limits_.max_mega_elements) commit();
}

void MlxRunAhead::commit() {
  const uint64_t slot = ring_next_;
  // The oldest of max_active + 1 buffers completes before the next op: what
  // it held is released, outputs whose last consumer it held included.
  std::erase_if(outputs_, [&](const Output& o) {
    return ring_.empty() ? o.slot == kOpen : o.slot == slot;
  });
  if (!ring_.empty()) {
    in_flight_ = (CheckedBytes(in_flight_ - ring_[slot]) + open_held_).saturated();
    ring_[slot] = open_held_;
    ring_next_ = (ring_next_ + 1) % ring_.size();
    for (Output& o : outputs_) {
      if (o.slot == kOpen) o.slot = slot;
    }
  }
  seen_.clear();
  open_held_ = open_ops_ = open_elements_ = 0;
}

}  // namespace memfit
