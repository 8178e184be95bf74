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

#include "engines/llamacpp/parts.h"
#include "memfit/checked_math.h"

namespace memfit::llamacpp {
namespace {

// What the phases read from the model and the context.
struct GraphShape {
  uint64_t n_out = 0;     // output rows: min(n_ctx, n_ubatch)
  CheckedBytes n_tok;     // tokens: n_out rounded up to a multiple of n_seq
  bool attention = false;  // some layer attends over a KV cache
  uint64_t latent = 0;    // MLA: the cached latent row's width; 0 without MLA
  uint64_t n_kv = 0;      // the largest cells per stream of any attention layer
  CheckedBytes heads_q;   // heads x the query width (MLA: the latent)
  CheckedBytes heads_d;   // heads x head_dim
  bool mla() const { return latent > 0; }
};

GraphShape graph_shape(const ModelSpec& spec, const LlamaCppContext& c) {
  const ModelGeometry& g = spec.geometry;
  GraphShape sh;
  sh.n_out = std::min(c.n_ctx, c.n_ubatch);
  sh.n_tok = round_up(sh.n_out, c.n_seq);
  for (const LayerCache& l : spec.layers) {
    if (l.kind == LayerKind::kMlaLatent) sh.latent = std::max(sh.latent, l.elems_per_token);
    if (is_windowed(l)) {
      sh.attention = true;
      sh.n_kv = std::max(sh.n_kv, c.swa_cells);
    } else if (l.kind == LayerKind::kFullAttention || l.kind == LayerKind::kSlidingWindow ||
               l.kind == LayerKind::kChunked || l.kind == LayerKind::kMlaLatent) {
      sh.attention = true;
      sh.n_kv = std::max(sh.n_kv, c.n_ctx_seq);
    }
  }
  const CheckedBytes q_width = sh.mla() ? sh.latent : g.head_dim;
  sh.heads_q = CheckedBytes(g.heads) * q_width;
  sh.heads_d = CheckedBytes(g.heads) * g.head_dim;
  return sh;
}

// Output: logits over the last layer's tail, both n_out rows.
CheckedBytes output_phase(const ModelGeometry& g, const GraphShape& sh) {
  // Saturated values: an overflow saturates the max and fails below.
  const uint64_t three_hidden = (CheckedBytes(3) * g.hidden).saturated();
  const uint64_t tail =
      sh.mla() ? (CheckedBytes(2) * g.hidden + sh.heads_q + sh.heads_d).saturated()
      : sh.attention
          ? std::max(three_hidden, (CheckedBytes(g.hidden) + sh.heads_q + sh.heads_d).saturated())
          : three_hidden;
  // The bottom of the tail, inp_embd, has n_tok rows; the rest of it and
  // the logits n_out rows. tail >= hidden by construction.
  return CheckedBytes(4) * sh.n_out * (CheckedBytes(g.vocab) + tail - g.hidden) +
         CheckedBytes(4) * sh.n_tok * g.hidden;
}

// Attention: activations, the mask, and without flash attention the scores
// (and MLA's transposed copy of the latent V).
Result<CheckedBytes> attention_phase(const ModelGeometry& g, const GraphShape& sh,
                                     const LlamaCppContext& c, const LlamaCppSettings& s) {
  CheckedBytes attn = 0;
  if (!sh.attention) return attn;
  const CheckedBytes per_token =
      sh.mla() ? CheckedBytes(2) * g.hidden + CheckedBytes(2) * sh.heads_q + CheckedBytes(2) * sh.heads_d
               : CheckedBytes(2) * g.hidden + sh.heads_q + CheckedBytes(2) * g.kv_heads * g.head_dim +
                     CheckedBytes(2) * sh.heads_d;
  attn = CheckedBytes(4) * sh.n_tok * per_token;
  if (c.flash_attn) {
    attn += CheckedBytes(2) * sh.n_kv * sh.n_tok;
  } else {
    attn += CheckedBytes(4) * sh.n_kv * sh.n_tok * g.heads + CheckedBytes(4) * sh.n_kv * sh.n_tok;
    if (sh.mla()) {
      const std::array<uint64_t, 1> row = {sh.latent};
      Result<uint64_t> v_row = ggml_tensor_bytes(s.cache_type_v, row);
      if (!v_row) return v_row.error();
      attn += CheckedBytes(*v_row) * sh.n_kv * c.streams;
    }
  }
  return attn;
}

// FFN: the gate, up and gated products of the FFN (MoE: of the routed
// experts, used x expert width), the input, residual and their
// successors, with the mask of the layers still to come.
CheckedBytes ffn_phase(const ModelSpec& spec, const GraphShape& sh, const LlamaCppContext& c) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t used = std::max<uint64_t>(spec.moe.experts_per_token, 1);
  const uint64_t expert_width =
      spec.moe.expert_intermediate > 0 ? spec.moe.expert_intermediate : g.intermediate;
  const CheckedBytes ffn_width = spec.moe.experts > 0
                                     ? CheckedBytes(used) * expert_width + spec.moe.experts
                                     : CheckedBytes(g.intermediate);
  CheckedBytes ffn = CheckedBytes(4) * sh.n_tok * (CheckedBytes(3) * ffn_width + CheckedBytes(4) * g.hidden);
  if (sh.attention) ffn += CheckedBytes(c.flash_attn ? 2 : 4) * sh.n_kv * sh.n_tok;
  return ffn;
}

// The input rows (get_rows of the embeddings) and their copy to the
// first layer's device, with the mask: a host that runs no layer.
CheckedBytes input_phase(const ModelGeometry& g, const GraphShape& sh, const LlamaCppContext& c) {
  CheckedBytes input = CheckedBytes(8) * sh.n_tok * g.hidden;
  if (sh.attention) input += CheckedBytes(c.flash_attn ? 2 : 4) * sh.n_kv * sh.n_tok;
  return input;
}

}  // namespace

Result<ComputePhases> compute_phases(const ModelSpec& spec, const LlamaCppContext& c,
                                     const LlamaCppSettings& s) {
  const ModelGeometry& g = spec.geometry;
  const GraphShape sh = graph_shape(spec, c);
  const CheckedBytes output = output_phase(g, sh);
  Result<CheckedBytes> attn = attention_phase(g, sh, c, s);
  if (!attn) return attn.error();
  const CheckedBytes ffn = ffn_phase(spec, sh, c);
  const CheckedBytes input = input_phase(g, sh, c);
  if (output.overflowed() || attn->overflowed() || ffn.overflowed() || input.overflowed()) {
    return Error::overflow("llama.cpp compute buffer overflows 64 bits: the request or the config is absurd");
  }
  return ComputePhases{*output.value(), *attn->value(), *ffn.value(), *input.value()};
}

Result<uint64_t> compute_bytes(const ModelSpec& spec, const LlamaCppContext& c,
                               const LlamaCppSettings& s) {
  Result<ComputePhases> p = compute_phases(spec, c, s);
  if (!p) return p.error();
  return std::max({p->output, p->attention, p->ffn});
}

}  // namespace memfit::llamacpp
