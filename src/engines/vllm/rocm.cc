// vllm_rocm_load() (vllm/rocm.h): what vLLM's ROCm load figure counts past
// the tensors: PyTorch's caching allocator's segments over vLLM's
// parameters (allocations.h; priced as if packed without holes), the
// experts' row padding and the HIP runtime. The rules
// and c10's constants: docs/engine-vllm.md, "ROCm".
#include "engines/vllm/rocm.h"

#include "engines/vllm/allocations.h"

#include "memfit/checked_math.h"
#include "engines/shared/parallel_tensors.h"
#include "memfit/parallel_plan.h"
#include "memfit/vllm.h"

namespace memfit {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kMinBlock = 512;
constexpr uint64_t kSmallSize = 1 * kMiB, kSmallSegment = 2 * kMiB;
constexpr uint64_t kMinLargeAlloc = 10 * kMiB, kLargeSegment = 20 * kMiB, kRoundLarge = 2 * kMiB;
// VLLM_ROCM_MOE_PADDING (on by default): an unquantized expert tensor whose
// rows are a multiple of 512 B is copied with 256 B more a row.
constexpr uint64_t kRowPadding = 256, kPaddedRowMultiple = 512;
constexpr uint64_t kParamBytes = 2;  // bf16 / fp16

class Segments {
 public:
  // `count` allocations of `bytes` each.
  void add(CheckedBytes bytes, uint64_t count) {
    const uint64_t b = bytes.saturated();
    if (b == 0 || count == 0) return;
    const CheckedBytes block = round_up(b, kMinBlock);
    requested_ += CheckedBytes(b) * count;
    if (block.saturated() <= kSmallSize) {
      small_ += block * count;
    } else if (block.saturated() < kMinLargeAlloc) {
      large_shared_ += block * count;
    } else {
      own_ += round_up(block, kRoundLarge) * count;
    }
  }
  // Reserved less requested.
  uint64_t slack() const {
    const CheckedBytes reserved =
        round_up(small_, kSmallSegment) + round_up(large_shared_, kLargeSegment) + own_;
    return (reserved - requested_).value().value_or(0);
  }

 private:
  CheckedBytes requested_ = 0, small_ = 0, large_shared_ = 0, own_ = 0;
};

// 256 B a row for `rows` rows of `row_bytes` when the row qualifies.
CheckedBytes row_padding(CheckedBytes rows, uint64_t row_bytes) {
  if (row_bytes == 0 || row_bytes % kPaddedRowMultiple != 0) return 0;
  return rows * kRowPadding;
}

}  // namespace

VllmRocmLoad vllm_rocm_load(const ModelSpec& spec, uint64_t tp) {
  tp = tp == 0 ? 1 : tp;
  const ModelGeometry& g = spec.geometry;
  const bool unquantized = spec.quantization.method.empty();
  VllmRocmLoad load;
  load.runtime_bytes = kVllmRocmRuntimeBytes;

  // The experts per layer as vLLM stacks them: w13 [E, 2 x width / TP,
  // hidden] and w2 [E, hidden, width / TP], each row padded on ROCm.
  const uint64_t layers = spec.layers.size();
  const uint64_t experts = spec.moe.experts;
  const uint64_t width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
  const CheckedBytes width_rank = CheckedBytes::ceil_div(width, tp);
  CheckedBytes w13_rows = 0, w2_rows = 0, w13_pad = 0, w2_pad = 0;
  if (experts != 0) {
    w13_rows = CheckedBytes(experts) * 2 * width_rank;
    w2_rows = CheckedBytes(experts) * g.hidden;
    if (unquantized) {
      w13_pad = row_padding(w13_rows, (CheckedBytes(g.hidden) * kParamBytes).saturated());
      w2_pad = row_padding(w2_rows, (width_rank * kParamBytes).saturated());
      load.padding_bytes = ((w13_pad + w2_pad) * layers).saturated();
    }
  }

  Segments segments;
  for (const VllmAllocation& a :
       vllm_param_allocations(spec, tp, VllmExpertPadding{w13_pad, w2_pad})) {
    segments.add(a.bytes, a.count);
  }
  load.allocator_bytes = segments.slack();
  return load;
}

}  // namespace memfit
