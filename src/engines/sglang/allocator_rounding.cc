// allocator_rounding_bytes() (allocator_rounding.h).
#include "engines/sglang/allocator_rounding.h"

#include <algorithm>

#include "engines/shared/parallel_tensors.h"
#include "memfit/checked_math.h"
#include "memfit/vllm.h"

namespace memfit::sglang {
namespace {

constexpr uint64_t kMinLargeAlloc = 10ull << 20;  // c10: allocations this large or more ...
constexpr uint64_t kRoundLarge = 2ull << 20;      // ... get a segment rounded up to this
constexpr uint64_t kElementBytes = 2;             // bf16 / fp16 parameters

// What the allocator's segment holds past one parameter of `bytes`.
uint64_t rounding_of(CheckedBytes bytes) {
  const uint64_t b = bytes.saturated();
  if (b < kMinLargeAlloc) return 0;  // packed with others into shared segments
  return (round_up(b, kRoundLarge) - b).saturated();
}

}  // namespace

uint64_t allocator_rounding_bytes(const ModelSpec& spec, uint64_t tp) {
  const ModelGeometry& g = spec.geometry;
  const bool described = spec.layout == "standard" || spec.layout == "sliding_window";
  if (!described || !spec.quantization.method.empty() || g.head_dim == 0 || g.hidden == 0) return 0;
  tp = std::max<uint64_t>(1, tp);
  const uint64_t q_heads = CheckedBytes::ceil_div(g.heads, tp).saturated();
  const uint64_t kv_heads = g.kv_heads == 0 ? q_heads : kv_heads_per_rank(g.kv_heads, tp);
  const CheckedBytes qkv = (CheckedBytes(q_heads) + kv_heads * 2) * g.head_dim * g.hidden * kElementBytes;
  const CheckedBytes o = CheckedBytes(q_heads) * g.head_dim * g.hidden * kElementBytes;
  CheckedBytes up = 0, down = 0;
  if (spec.moe.experts != 0) {
    const uint64_t width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
    const CheckedBytes rank_width = CheckedBytes::ceil_div(width, tp);
    up = CheckedBytes(spec.moe.experts) * rank_width * 2 * g.hidden * kElementBytes;
    down = CheckedBytes(spec.moe.experts) * rank_width * g.hidden * kElementBytes;
  } else {
    const CheckedBytes rank_width = CheckedBytes::ceil_div(g.intermediate, tp);
    up = rank_width * 2 * g.hidden * kElementBytes;
    down = rank_width * g.hidden * kElementBytes;
  }
  const uint64_t layer = rounding_of(qkv) + rounding_of(o) + rounding_of(up) + rounding_of(down);
  const CheckedBytes rows = CheckedBytes::ceil_div(g.vocab, kVllmVocabPadding) * kVllmVocabPadding;
  const uint64_t shard = rounding_of(CheckedBytes::ceil_div(rows, tp) * g.hidden * kElementBytes);
  const uint64_t tables = spec.tied_embeddings ? 1 : 2;
  return (CheckedBytes(layer) * g.layers + CheckedBytes(shard) * tables).saturated();
}

}  // namespace memfit::sglang
