// mlxlm_forward_peak() (mlxlm/forward.h): a forward pass as a list of MLX
// ops, fed to MlxRunAhead.
//
// Widths are elements per token: h hidden, qd = heads x head_dim, kvd =
// kv_heads x head_dim, I the dense MLP, Im one routed expert. Activations
// are 2 bytes (kMlxLmActivationBytes). The residual stream is one buffer
// for the whole pass (each add writes into it), so it keeps one id.
#include "engines/mlxlm/forward.h"

#include <algorithm>

#include "memfit/checked_math.h"
#include "memfit/mlxlm.h"

namespace memfit {
namespace {

constexpr uint64_t kAct = kMlxLmActivationBytes;
// mlx-lm's SwitchGLU sorts the routed rows when there are at least 64.
constexpr uint64_t kSortRows = 64;

// Array ids: the residual is shared; everything else is per layer.
enum Role : uint64_t {
  kResidual = 1, kNorm1, kQ, kK, kV, kRopeQ, kRopeK, kCacheK, kCacheV, kAttn, kScores, kMask,
  kMerged, kOut, kNorm2, kGate, kUp, kRouter, kProbs, kPart, kTopIdx, kTopScore, kOrder, kSorted,
  kExpertOut, kUnsorted, kFinalNorm, kDown, kLogits,
  kWq = 64, kWk, kWv, kWo, kWg, kWu, kWd, kWr, kWeg, kWeu, kWed, kWsg, kWsu, kWsd, kWlm,
};

class Pass {
 public:
  Pass(const MlxLmPass& p, const MlxBufferLimits& limits) : p_(p), ra_(limits) {}

  uint64_t id(uint64_t layer, Role r) const { return r == kResidual ? kResidual : (layer + 1) << 8 | r; }
  // Activation elements of `width` per token.
  uint64_t act(uint64_t width) const { return (CheckedBytes(p_.tokens) * width).saturated(); }
  uint64_t bytes(uint64_t width) const { return (CheckedBytes(act(width)) * kAct).saturated(); }
  // Stored elements of a weight of `params` parameters.
  uint64_t weight(CheckedBytes params) const {
    return (params * p_.weight_elements_per_kparam).saturated() / 1024;
  }
  // An op, and the output array MLX binds for it (elements; none when it
  // writes in place into an input).
  void op(std::initializer_list<MlxInput> in, uint64_t held, MlxInput out = {}) {
    ra_.op(in, held, out);
  }
  // A Linear of the pass's tokens from `in` to `out` features: its output
  // and, when MLX splits its reduction, the partials' scratch (split_k.h).
  void linear(MlxInput x, Role w, uint64_t l, uint64_t in, uint64_t out, Role y) {
    ra_.op({x, {id(l, w), weight(CheckedBytes(in) * out)}}, bytes(out), {id(l, y), act(out)},
           mlx_split_k_bytes(p_.matmul, p_.tokens, in, out));
  }
  // An op whose encoder also keeps `scratch` bytes until its buffer completes.
  void op_with_scratch(std::initializer_list<MlxInput> in, uint64_t held, MlxInput out,
                       uint64_t scratch) {
    ra_.op(in, held, out, scratch);
  }
  uint64_t peak() const { return ra_.peak_bytes(); }

  // A dense gated MLP of `width` (in place SwiGLU).
  void dense_mlp(uint64_t l, uint64_t h, uint64_t width, Role wg, Role wu, Role wd) {
    linear({id(l, kNorm2), act(h)}, wg, l, h, width, kGate);
    linear({id(l, kNorm2), act(h)}, wu, l, h, width, kUp);
    op({{id(l, kGate), act(width)}, {id(l, kUp), act(width)}}, 0);
    linear({id(l, kGate), act(width)}, wd, l, width, h, kDown);
  }

  // mlx-lm's SwitchGLU over E experts, k per token, Im wide.
  void switch_glu(uint64_t l, uint64_t h, uint64_t E, uint64_t k, uint64_t Im) {
    const uint64_t rows = (CheckedBytes(p_.tokens) * k).saturated();
    linear({id(l, kNorm2), act(h)}, kWr, l, h, E, kRouter);
    op({{id(l, kRouter), act(E)}}, bytes(E), {id(l, kProbs), act(E)});  // softmax
    op({{id(l, kProbs), act(E)}}, (CheckedBytes(act(E)) * 4).saturated(),
       {id(l, kPart), act(E)});  // argpartition (uint32)
    op({{id(l, kPart), act(E)}, {id(l, kProbs), act(E)}}, (CheckedBytes(rows) * (kAct + 4)).saturated(),
       {id(l, kTopIdx), (CheckedBytes(rows) * 2).saturated()});  // top-k indices and scores
    const bool sort = rows >= kSortRows;
    uint64_t x_rows = act(h);
    if (sort) {
      op({{id(l, kTopIdx), rows}}, (CheckedBytes(rows) * 8).saturated(),
         {id(l, kOrder), (CheckedBytes(rows) * 2).saturated()});  // order, inverse
      op({{id(l, kNorm2), act(h)}, {id(l, kOrder), rows}}, (CheckedBytes(rows) * h * kAct).saturated(),
         {id(l, kSorted), (CheckedBytes(rows) * h).saturated()});
      x_rows = (CheckedBytes(rows) * h).saturated();
    }
    const uint64_t ew = (CheckedBytes(E) * Im * h).saturated();
    const uint64_t inner = (CheckedBytes(rows) * Im * kAct).saturated();
    const uint64_t out = (CheckedBytes(rows) * h * kAct).saturated();
    op({{id(l, kSorted), x_rows}, {id(l, kWeg), weight(ew)}, {id(l, kTopIdx), rows}}, inner,
       {id(l, kGate), inner / kAct});
    op({{id(l, kSorted), x_rows}, {id(l, kWeu), weight(ew)}, {id(l, kTopIdx), rows}}, inner,
       {id(l, kUp), inner / kAct});
    op({{id(l, kGate), inner / kAct}, {id(l, kUp), inner / kAct}}, 0);
    op({{id(l, kGate), inner / kAct}, {id(l, kWed), weight(ew)}, {id(l, kTopIdx), rows}}, out,
       {id(l, kExpertOut), out / kAct});
    if (sort) {
      op({{id(l, kExpertOut), out / kAct}, {id(l, kOrder), rows}}, out,
         {id(l, kUnsorted), out / kAct});  // unsort
    }
    op({{id(l, kUnsorted), out / kAct}, {id(l, kTopScore), rows}}, 0);  // x scores
    op({{id(l, kUnsorted), out / kAct}}, bytes(h), {id(l, kDown), act(h)});  // sum over k
  }

 private:
  const MlxLmPass& p_;
  MlxRunAhead ra_;
};

bool attends(LayerKind k) {
  return k == LayerKind::kFullAttention || k == LayerKind::kSlidingWindow ||
         k == LayerKind::kChunked || k == LayerKind::kMlaLatent || k == LayerKind::kSharedKv;
}

}  // namespace

uint64_t mlxlm_forward_peak(const ModelSpec& spec, const MlxLmPass& p,
                            const std::vector<MlxLmLayerPass>& layers,
                            const MlxBufferLimits& limits) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t h = g.hidden;
  const uint64_t qd = (CheckedBytes(g.heads) * g.head_dim).saturated();
  const uint64_t kvd = (CheckedBytes(g.kv_heads) * g.head_dim).saturated();
  Pass pass(p, limits);
  for (size_t i = 0; i < spec.layers.size(); ++i) {
    const uint64_t l = i;
    const LayerCache& lc = spec.layers[i];
    const MlxLmLayerPass c = i < layers.size() ? layers[i] : MlxLmLayerPass{};
    pass.op({{kResidual, pass.act(h)}}, pass.bytes(h), {pass.id(l, kNorm1), pass.act(h)});  // RMSNorm
    pass.linear({pass.id(l, kNorm1), pass.act(h)}, kWq, l, h, qd, kQ);
    pass.linear({pass.id(l, kNorm1), pass.act(h)}, kWk, l, h, kvd, kK);
    pass.linear({pass.id(l, kNorm1), pass.act(h)}, kWv, l, h, kvd, kV);
    if (attends(lc.kind)) {
      pass.op({{pass.id(l, kQ), pass.act(qd)}}, pass.bytes(qd), {pass.id(l, kRopeQ), pass.act(qd)});  // RoPE
      pass.op({{pass.id(l, kK), pass.act(kvd)}}, pass.bytes(kvd), {pass.id(l, kRopeK), pass.act(kvd)});
      // The cache writes: K and V in place (a regrow holds the old buffer).
      const uint64_t half = c.cache_bytes / kAct / 2;
      pass.op({{pass.id(l, kCacheK), half}, {pass.id(l, kRopeK), pass.act(kvd)}}, c.old_bytes / 2);
      pass.op({{pass.id(l, kCacheV), half}, {pass.id(l, kV), pass.act(kvd)}}, c.old_bytes - c.old_bytes / 2);
      if (p.scores_bytes != 0 && lc.kind != LayerKind::kMlaLatent) {
        pass.op({{pass.id(l, kRopeQ), pass.act(qd)}, {pass.id(l, kCacheK), half}}, p.scores_bytes,
                {pass.id(l, kScores), p.scores_elements});
        pass.op({{pass.id(l, kScores), p.scores_elements}, {pass.id(l, kMask), p.mask_elements}}, 0);
        pass.op({{pass.id(l, kScores), p.scores_elements}}, 0);  // softmax, in place
        pass.op({{pass.id(l, kScores), p.scores_elements}, {pass.id(l, kCacheV), half}},
                p.attention_bytes - std::min(p.attention_bytes, p.scores_bytes), {pass.id(l, kAttn), pass.act(qd)});
      } else {
        pass.op({{pass.id(l, kRopeQ), pass.act(qd)}, {pass.id(l, kCacheK), half}, {pass.id(l, kCacheV), half}},
                p.attention_bytes, {pass.id(l, kAttn), pass.act(qd)});
      }
    } else {
      // Linear attention / SSM: one mixer output of the q width.
      pass.op({{pass.id(l, kQ), pass.act(qd)}, {pass.id(l, kK), pass.act(kvd)}, {pass.id(l, kV), pass.act(kvd)}},
              pass.bytes(qd), {pass.id(l, kAttn), pass.act(qd)});
    }
    pass.op({{pass.id(l, kAttn), pass.act(qd)}}, pass.bytes(qd), {pass.id(l, kMerged), pass.act(qd)});  // merge heads
    pass.linear({pass.id(l, kMerged), pass.act(qd)}, kWo, l, qd, h, kOut);
    pass.op({{kResidual, pass.act(h)}, {pass.id(l, kOut), pass.act(h)}}, 0);  // residual add
    pass.op({{kResidual, pass.act(h)}}, pass.bytes(h), {pass.id(l, kNorm2), pass.act(h)});  // RMSNorm
    if (spec.moe.experts != 0) {
      const uint64_t Im = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
      pass.switch_glu(l, h, spec.moe.experts, std::max<uint64_t>(1, spec.moe.experts_per_token), Im);
      if (spec.moe.shared_experts != 0) {
        pass.dense_mlp(l, h, (CheckedBytes(Im) * spec.moe.shared_experts).saturated(), kWsg, kWsu, kWsd);
      }
    } else {
      pass.dense_mlp(l, h, g.intermediate, kWg, kWu, kWd);
    }
    pass.op({{kResidual, pass.act(h)}, {pass.id(l, kDown), pass.act(h)}}, 0);  // residual add
  }
  if (p.logits_bytes != 0) {
    pass.op({{kResidual, pass.act(h)}}, pass.bytes(h), {pass.id(0, kFinalNorm), pass.act(h)});  // final RMSNorm
    // The LM head's M is the logits' rows x batch, not the pass's tokens.
    const uint64_t rows = g.vocab != 0 ? p.logits_bytes / kAct / g.vocab : 0;
    pass.op_with_scratch(
        {{pass.id(0, kFinalNorm), pass.act(h)}, {pass.id(0, kWlm), pass.weight(CheckedBytes(g.vocab) * h)}},
        p.logits_bytes, {pass.id(0, kLogits), p.logits_bytes / kAct},
        mlx_split_k_bytes(p.matmul, rows, h, g.vocab));
  }
  return pass.peak();
}

}  // namespace memfit
