// The compute buffer, modelled (docs/llamacpp-rules.md, "Compute buffers
// (modelled)"): llama.cpp sizes it by allocating the worst-case prompt graph
// of n_tok = min(n_ctx, n_ubatch) tokens (rounded up to a multiple of
// n_seq); the allocator frees tensors after their last use, so the buffer is
// about the largest phase's live tensors plus the inputs placed first.
// memfit takes, all f32 (4 bytes):
//
//   output     logits 4 x vocab x n_tok + final norm 4 x hidden x n_tok
//   attention  4 x n_tok x (hidden + heads x head_dim + 2 x kv_heads x head_dim)
//              + without flash attention the scores 4 x n_kv x n_tok x heads
//   FFN        4 x n_tok x (hidden + 3 x intermediate) (+ experts router logits)
//   + masks    n_kv x n_tok x (2 with flash attention, 4 without), one for the
//              base cache and one for the SWA cache when the model has one
//
// n_kv is the cells per stream of the cache. Calibration on the pinned CPU
// library (synthetic 4-layer model, hidden 256, 8 heads, 2 KV heads of 32,
// vocab 32000): FA on, 512 cells, U 512: 63.50 MiB measured, 63.50 modelled;
// 4096 cells: 67.00 measured, 67.00 modelled; FA off, 3 streams of 4096
// cells, n_tok 513: 74.91 measured, 73.39 modelled (2% under).
#include <fmt/format.h>

#include <algorithm>

#include "estimate/llamacpp_parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {

Result<uint64_t> compute_bytes(const ModelSpec& spec, const LlamaCppContext& c) {
  const ModelGeometry& g = spec.geometry;
  const CheckedBytes n_tok = round_up(std::min(c.n_ctx, c.n_ubatch), c.n_seq);

  bool full = false;
  bool windowed = false;
  for (const LayerCache& l : spec.layers) {
    if (is_windowed(l)) {
      windowed = true;
    } else if (l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kSlidingWindow ||
               l.kind == LayerKind::kChunked || l.kind == LayerKind::kMlaLatent) {
      full = true;
    }
  }
  const uint64_t n_kv = std::max(full ? c.n_ctx_seq : 0, windowed ? c.swa_cells : 0);

  CheckedBytes output = CheckedBytes(4) * n_tok * (CheckedBytes(g.vocab) + g.hidden);
  CheckedBytes attention = 0;
  if (full || windowed) {
    attention = CheckedBytes(4) * n_tok *
                (CheckedBytes(g.hidden) + CheckedBytes(g.heads) * g.head_dim +
                 CheckedBytes(2) * g.kv_heads * g.head_dim);
    if (!c.flash_attn) attention += CheckedBytes(4) * n_kv * n_tok * g.heads;
  }
  CheckedBytes ffn = CheckedBytes(4) * n_tok *
                     (CheckedBytes(g.hidden) + spec.moe.experts + CheckedBytes(3) * g.intermediate);
  const uint64_t mask_element_bytes = c.flash_attn ? 2 : 4;
  CheckedBytes masks = 0;
  if (full) masks += CheckedBytes(c.n_ctx_seq) * n_tok * mask_element_bytes;
  if (windowed) masks += CheckedBytes(c.swa_cells) * n_tok * mask_element_bytes;

  if (output.overflowed() || attention.overflowed() || ffn.overflowed() || masks.overflowed()) {
    return Error::overflow("llama.cpp compute buffer overflows 64 bits: the request or the config is absurd");
  }
  const uint64_t phase =
      std::max({*output.value(), *attention.value(), *ffn.value()});
  CheckedBytes total = CheckedBytes(phase) + masks;
  if (!total.value()) return Error::overflow("llama.cpp compute buffer overflows 64 bits");
  return *total.value();
}

}  // namespace memfit::llamacpp
