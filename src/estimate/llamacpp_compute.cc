// The compute buffer, modelled (docs/llamacpp-rules.md, "Compute buffers
// (modelled)"): llama.cpp sizes it by allocating the worst-case prompt graph
// of n_tok = min(n_ctx, n_ubatch) tokens (rounded up to a multiple of
// n_seq) with n_out = min(n_ctx, n_ubatch) output rows (not rounded: the
// last layer keeps n_out rows, get_rows of inp_out_ids); the allocator frees
// tensors after their last use, so the buffer is the largest phase's live
// tensors. memfit takes the largest of (bytes, all f32 activations, 4 x
// rows x floats per row):
//
//   output     logits 4 x vocab x n_out, on top of the tail below it:
//              4 x n_out x max(3 x hidden, hidden + 2 x heads x head_dim).
//              The 3 hidden rows are, from the bottom: inp_embd (an input
//              the token path never reads, so never freed; n_tok rows; the
//              freed token ids below it, 4 x n_tok B, are not counted), the last
//              layer's residual (ffn_inp, alive until the last add) and the
//              final norm; the allocator puts the norm below the residual
//              on some layouts (2 rows measured), never lower.
//              MLA: 4 x n_out x (2 x hidden + heads x
//              latent + heads x head_dim), the absorbed query (head_dim as
//              the GGUF reader gives it: hidden / heads when the file has no
//              key_length; measured within 0.1 MiB, 5 MiB over at 512 cells)
//   attention  without flash attention: the scores 4 x n_kv x n_tok x heads
//              + the f32 mask 4 x n_kv x n_tok + the attention activations
//              4 x n_tok x A, A = 2 hidden + heads x q_width + 2 kv_heads x
//              head_dim + 2 heads x head_dim (MLA: 2 hidden + 2 heads x latent
//              + 2 heads x head_dim, plus the transposed copy of the latent
//              V, row(type_v, latent) x n_kv x streams)
//              with flash attention: the f16 mask 2 x n_kv x n_tok + 4 x n_tok x A
//   FFN        4 x n_tok x (3 x width + 4 x hidden) + the mask (2 x n_kv x
//              n_tok with flash attention, 4 x without), width = the dense
//              intermediate, or for MoE experts_per_token x the expert width
//              (moe_intermediate_size) + the router's experts
//
// n_kv is the largest cells per stream of any attention layer (the base
// cache's, or the SWA cache's with --swa-full). The masks are inputs,
// placed first and alive until the last layer's attention: they add to the
// FFN phase of the layers before it, but measured, not to the output phase
// (the logits go above the last layer's tail, the freed mask below).
//
// Calibration on the pinned CPU library (docs/validation-llamacpp.md): the
// output phase matches llama, Qwen3-MoE, Gemma 3 and Mamba-2 shapes to
// 0-1 tail unit over (1 MiB at n_tok 512, hidden 512), the attention phase
// without flash attention to 0.3%; MLA to 0.2% (7.6% over at 512 cells);
// the MoE FFN phase of 8 routed experts of 512 to 0-4% over.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "estimate/llamacpp_parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {

Result<ComputePhases> compute_phases(const ModelSpec& spec, const LlamaCppContext& c,
                                     const LlamaCppSettings& s) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t n_out = std::min(c.n_ctx, c.n_ubatch);
  const CheckedBytes n_tok = round_up(n_out, c.n_seq);

  bool attention = false;
  uint64_t latent = 0;  // MLA: the cached latent row's width
  uint64_t n_kv = 0;
  for (const LayerCache& l : spec.layers) {
    if (l.kind == LayerKind::kMlaLatent) latent = std::max(latent, l.elems_per_token);
    if (is_windowed(l)) {
      attention = true;
      n_kv = std::max(n_kv, c.swa_cells);
    } else if (l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kSlidingWindow ||
               l.kind == LayerKind::kChunked || l.kind == LayerKind::kMlaLatent) {
      attention = true;
      n_kv = std::max(n_kv, c.n_ctx_seq);
    }
  }
  const bool mla = latent > 0;
  const CheckedBytes q_width = mla ? latent : g.head_dim;
  const CheckedBytes heads_q = CheckedBytes(g.heads) * q_width;
  const CheckedBytes heads_d = CheckedBytes(g.heads) * g.head_dim;

  // Output: logits over the last layer's tail, both n_out rows.
  // Saturated values: an overflow saturates the max and fails below.
  const uint64_t three_hidden = (CheckedBytes(3) * g.hidden).saturated();
  const uint64_t tail =
      mla ? (CheckedBytes(2) * g.hidden + heads_q + heads_d).saturated()
          : attention ? std::max(three_hidden, (CheckedBytes(g.hidden) + heads_q + heads_d).saturated())
                      : three_hidden;
  // The bottom of the tail, inp_embd, has n_tok rows; the rest of it and
  // the logits n_out rows. tail >= hidden by construction.
  CheckedBytes output = CheckedBytes(4) * n_out * (CheckedBytes(g.vocab) + tail - g.hidden) +
                        CheckedBytes(4) * n_tok * g.hidden;

  // Attention: activations, the mask, and without flash attention the scores.
  CheckedBytes attn = 0;
  if (attention) {
    const CheckedBytes per_token =
        mla ? CheckedBytes(2) * g.hidden + CheckedBytes(2) * heads_q + CheckedBytes(2) * heads_d
            : CheckedBytes(2) * g.hidden + heads_q + CheckedBytes(2) * g.kv_heads * g.head_dim +
                  CheckedBytes(2) * heads_d;
    attn = CheckedBytes(4) * n_tok * per_token;
    if (c.flash_attn) {
      attn += CheckedBytes(2) * n_kv * n_tok;
    } else {
      attn += CheckedBytes(4) * n_kv * n_tok * g.heads + CheckedBytes(4) * n_kv * n_tok;
      if (mla) {
        const std::array<uint64_t, 1> row = {latent};
        Result<uint64_t> v_row = ggml_tensor_bytes(s.cache_type_v, row);
        if (!v_row) return v_row.error();
        attn += CheckedBytes(*v_row) * n_kv * c.streams;
      }
    }
  }
  // FFN: the gate, up and gated products of the FFN (MoE: of the routed
  // experts, used x expert width), the input, residual and their
  // successors, with the mask of the layers still to come.
  const uint64_t used = std::max<uint64_t>(spec.moe.experts_per_token, 1);
  const uint64_t expert_width =
      spec.moe.expert_intermediate > 0 ? spec.moe.expert_intermediate : g.intermediate;
  const CheckedBytes ffn_width = spec.moe.experts > 0
                                     ? CheckedBytes(used) * expert_width + spec.moe.experts
                                     : CheckedBytes(g.intermediate);
  CheckedBytes ffn = CheckedBytes(4) * n_tok * (CheckedBytes(3) * ffn_width + CheckedBytes(4) * g.hidden);
  if (attention) ffn += CheckedBytes(c.flash_attn ? 2 : 4) * n_kv * n_tok;

  // The input rows (get_rows of the embeddings) and their copy to the
  // first layer's device, with the mask: a host that runs no layer.
  CheckedBytes input = CheckedBytes(8) * n_tok * g.hidden;
  if (attention) input += CheckedBytes(c.flash_attn ? 2 : 4) * n_kv * n_tok;

  if (output.overflowed() || attn.overflowed() || ffn.overflowed() || input.overflowed()) {
    return Error::overflow("llama.cpp compute buffer overflows 64 bits: the request or the config is absurd");
  }
  return ComputePhases{*output.value(), *attn.value(), *ffn.value(), *input.value()};
}

}  // namespace memfit::llamacpp
