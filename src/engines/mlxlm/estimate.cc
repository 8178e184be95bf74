// estimate_mlxlm(): mlx-lm's peak (mlxlm.h; docs/engine-mlxlm.md).
//
// Every byte count saturates through CheckedBytes; a saturated total is
// reported as kOverflow rather than compared.
#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "bands/error_bands.h"
#include "memfit/checked_math.h"
#include "memfit/mlxlm.h"
#include "memfit/prefill_guard.h"
#include "engines/mlxlm/forward.h"
#include "engines/mlxlm/kv_cache.h"
#include "engines/mlxlm/release_defaults.h"
#include "engines/mlxlm/weight_elements.h"

namespace memfit {
namespace {

constexpr uint64_t kStep = kMlxLmCacheStep;
constexpr uint64_t kAct = kMlxLmActivationBytes;

constexpr uint64_t kMaxChunks = 65536;
// MLA's K and V expanded from the latent, per head: DeepSeek V2/V3's and
// Kimi K2's qk_nope_head_dim and v_head_dim (memfit's geometry keeps the
// latent's size, not these).
constexpr uint64_t kMlaExpandedHeadDim = 128;
uint64_t prompt_chunks(const MlxLmSettings& s) { return s.prompt_tokens / s.prefill_step_size; }

uint64_t round_up_steps(uint64_t n) { return (n + kStep - 1) / kStep * kStep; }

// One KVCache.update_and_fetch of n tokens at `offset` into `capacity`.
void kv_update(uint64_t& offset, uint64_t& capacity, uint64_t n) {
  if (offset + n > capacity) {
    if (offset % kStep != 0) capacity = offset;
    capacity += round_up_steps(n);
  }
  offset += n;
}

// A RotatingKVCache of max_size `window` (keep does not change sizes):
// a multi-token update keeps the last window - 1 tokens and appends the
// chunk; a one-token update grows by min(256, window - size) up to the
// window, and trims a buffer past the window to it.
void rotating_update(uint64_t& offset, uint64_t& size, uint64_t n, uint64_t window) {
  if (n > 1) {
    size = (offset == 0 ? 0 : std::min(size, window - 1)) + n;
  } else if (size > window) {
    size = window;
  } else if (offset >= size && size < window) {
    size += std::min(kStep, window - size);
  }
  offset += n;
}

struct LayerPlan {
  LayerKind kind = LayerKind::kFullAttention;
  uint64_t bytes_per_token = 0;  // K + V (or latent + rope) per token, as stored
  uint64_t window = 0;           // rotating: max_size; 0: KVCache
  size_t spec_index = 0;         // the layer's place in spec.layers
};

struct Phase {
  uint64_t offset = 0;    // tokens in the cache after this step
  uint64_t kv_bytes = 0;  // every layer at its size
  uint64_t regrow = 0;    // the largest layer's old buffer when it grew
  std::vector<MlxLmLayerPass> layers;  // per spec layer: its cache and old buffer
};

// Whether the attention runs as MLX's fused kernel (where the guard's SDPA
// rules take the head dim and query length). A quantized cache never does:
// mlx-lm's scaled_dot_product_attention (mlx_lm/models/base.py, since
// mlx-examples #1075, "Quantized KV Cache") sends a cache with `bits` to
// quantized_scaled_dot_product_attention, which forms the scores with
// mx.quantized_matmul (heads x n x keys, the activation dtype), masks them
// with mx.where (a boolean n x keys mask, built from arange for a prompt),
// softmaxes them in place and multiplies by the quantized V: the score
// matrix is materialized, as in the unfused attention (issue mlx-lm #1587:
// a quantized cache peaks above a 16-bit one, more so at long contexts).
bool fused_attention_kernel(const MlxLmSettings& s) { return s.fused_sdpa && s.kv_bits == 0; }

// The group size of an MLX affine checkpoint's quantization; 0 for any
// other (no quantization, GPTQ, AWQ, ...).
uint64_t affine_group_size(const ModelSpec& spec) {
  return spec.quantization.method == "mlx_affine" ? spec.quantization.group_size : 0;
}

bool quantizable(LayerKind kind) {
  return kind == LayerKind::kFullAttention || kind == LayerKind::kSlidingWindow ||
         kind == LayerKind::kChunked || kind == LayerKind::kMlaLatent;
}

}  // namespace

std::string_view to_string(MlxLmPhase phase) {
  switch (phase) {
    case MlxLmPhase::kPrefillChunk:
      return "prefill_chunk";
    case MlxLmPhase::kLastChunk:
      return "last_chunk";
    case MlxLmPhase::kDecode:
      return "decode";
  }
  return "last_chunk";
}

bool mlxlm_rotates_sliding_layers(std::string_view t) {
  static constexpr std::array<std::string_view, 19> kTypes = {
      "gemma3",      "gemma3_text", "gemma3n",  "gemma4",        "gemma4_text",
      "gpt_oss",     "cohere2",     "olmo3",    "exaone4",       "exaone_moe",
      "ministral3",  "llama",       "llama4",   "mimo_v2_flash", "step3p5",
      "afmoe",       "baichuan_m1", "laguna",   "mellum"};
  return std::find(kTypes.begin(), kTypes.end(), t) != kTypes.end();
}

uint64_t mlxlm_kv_capacity(uint64_t tokens, uint64_t chunk, uint64_t decode) {
  uint64_t offset = 0, capacity = 0;
  if (chunk == 0) chunk = tokens;
  while (tokens - offset > chunk) kv_update(offset, capacity, chunk);
  if (tokens > offset) kv_update(offset, capacity, tokens - offset);
  // Decode: one token per step; the first overflow trims to the offset,
  // then each further one adds 256, so the end is closed-form.
  const uint64_t end = offset + decode;
  if (end > capacity) capacity = capacity + round_up_steps(end - capacity);
  return capacity;
}

namespace {

// True when the model's make_cache builds its own cache list (rotating
// sliding layers, or the ArraysCache of a hybrid): such a model ignores
// --max-kv-size, as make_prompt_cache does.
bool builds_own_cache(const ModelSpec& spec) {
  const bool rotates = mlxlm_rotates_sliding_layers(spec.model_type);
  bool own_cache = false;
  for (const LayerCache& l : spec.layers) {
    own_cache = own_cache || (rotates && l.kind == LayerKind::kSlidingWindow) ||
                l.kind == LayerKind::kLinearAttention || l.kind == LayerKind::kSsm ||
                l.kind == LayerKind::kConv;
  }
  return own_cache;
}

// The settings' own ranges, before the model is read.
Status check_settings(const MlxLmSettings& s) {
  for (auto [field, v] : {std::pair{"prompt_tokens", s.prompt_tokens},
                          std::pair{"max_tokens", s.max_tokens}, std::pair{"batch", s.batch},
                          std::pair{"prefill_step_size", s.prefill_step_size}}) {
    if (v == 0 || v > kMlxLmMaxTokens) {
      return Error::usage(field, fmt::format("must be between 1 and {}", kMlxLmMaxTokens));
    }
  }
  if ((prompt_chunks(s)) > kMaxChunks) {
    return Error::usage("prefill_step_size",
                        fmt::format("the prompt would take more than {} chunks", kMaxChunks));
  }
  if (s.kv_bits != 0 && (s.kv_bits < 2 || s.kv_bits > 8 || s.kv_bits == 7)) {
    return Error::usage("kv_bits", "must be 2, 3, 4, 5, 6 or 8 (mx.quantize's widths)");
  }
  if (s.kv_group_size != 32 && s.kv_group_size != 64 && s.kv_group_size != 128) {
    return Error::usage("kv_group_size", "must be 32, 64 or 128");
  }
  const MlxBufferLimits& lim = s.buffers;
  if (lim.max_ops == 0 || lim.max_ops > kMlxMaxOpsPerBuffer || lim.max_mega_elements == 0 ||
      lim.max_mega_elements > kMlxMaxMegaElementsPerBuffer || lim.max_active == 0 ||
      lim.max_active > 64) {
    return Error::usage("buffers", "MLX's command-buffer limits must be 1..100000 ops, "
                                   "1..1000000 mega-elements and 1..64 buffers in flight");
  }
  return Status::Ok();
}

// --kv-bits against the model's caches. Caches mlx-lm cannot quantize: the
// run fails, so there is no peak to price. RotatingKVCache.to_quantized
// raises NotImplementedError; an MLA layer's attention (deepseek_v3.py)
// reads the values the cache returns as one array, not QuantizedKVCache's
// packed tuple.
Status check_kv_quantization(const ModelSpec& spec, const MlxLmSettings& s) {
  if (s.kv_bits == 0) return Status::Ok();
  const bool rotates = mlxlm_rotates_sliding_layers(spec.model_type);
  bool sliding = false, mla = false, kv = false;
  for (const LayerCache& l : spec.layers) {
    const bool cached = quantizable(l.kind) && l.elems_per_token != 0;
    kv = kv || cached;
    mla = mla || (cached && l.kind == LayerKind::kMlaLatent);
    sliding = sliding ||
              (cached && rotates && l.kind == LayerKind::kSlidingWindow && l.window_tokens != 0);
  }
  if (mla) {
    return Error::usage("kv_bits", "mlx-lm cannot quantize an MLA model's latent cache "
                                   "(its attention reads the cache as arrays, not packed words)");
  }
  if (sliding) {
    return Error::usage("kv_bits", "mlx-lm cannot quantize a rotating cache "
                                   "(RotatingKVCache), which the model's sliding-window "
                                   "layers use");
  }
  if (s.max_kv_size != 0 && !builds_own_cache(spec) && kv) {
    return Error::usage("kv_bits", "mlx-lm cannot quantize a rotating cache "
                                   "(RotatingKVCache), which --max-kv-size puts every layer on");
  }
  if (spec.geometry.head_dim % s.kv_group_size != 0) {
    return Error::usage("kv_group_size", fmt::format("{} does not divide the head dim {}",
                                                     s.kv_group_size, spec.geometry.head_dim));
  }
  return Status::Ok();
}

// A K/V layer's stored bytes per token: 2-byte elements, or mx.quantize's
// packed words plus a scale and a bias (activation dtype) per group.
uint64_t stored_bytes_per_token(const LayerCache& l, const MlxLmSettings& s) {
  CheckedBytes per_token = CheckedBytes(l.elems_per_token) * kAct;
  if (s.kv_bits != 0) {
    per_token = CheckedBytes::ceil_div(CheckedBytes(l.elems_per_token) * s.kv_bits, 8) +
                CheckedBytes::ceil_div(l.elems_per_token, s.kv_group_size) * 2 * kAct;
  }
  return per_token.saturated();
}

// The caches, per layer: one plan per layer holding K/V (or a latent),
// rotating where mlx-lm rotates it; the recurrent state is summed apart.
// The counts and the recurrent bytes land in `e`.
std::vector<LayerPlan> plan_caches(const ModelSpec& spec, const MlxLmSettings& s,
                                   MlxLmEstimate& e) {
  const bool rotates = mlxlm_rotates_sliding_layers(spec.model_type);
  const bool own_cache = builds_own_cache(spec);
  e.max_kv_size_ignored = s.max_kv_size != 0 && own_cache;
  std::vector<LayerPlan> layers;
  CheckedBytes recurrent = 0;
  for (size_t li = 0; li < spec.layers.size(); ++li) {
    const LayerCache& l = spec.layers[li];
    if (l.state_bytes != 0) {
      recurrent = recurrent + CheckedBytes(l.state_bytes) * s.batch;
      ++e.recurrent_layers;
    }
    if (!quantizable(l.kind) || l.elems_per_token == 0) continue;
    LayerPlan p{l.kind, 0, 0, li};
    p.bytes_per_token = stored_bytes_per_token(l, s);
    if (l.kind == LayerKind::kSlidingWindow && rotates && l.window_tokens != 0) {
      p.window = l.window_tokens;
    } else if (s.max_kv_size != 0 && !own_cache) {
      p.window = s.max_kv_size;
    }
    if (p.window != 0) ++e.rotating_layers;
    if (p.window == 0) {
      e.kv_bytes_per_token = (CheckedBytes(e.kv_bytes_per_token) + p.bytes_per_token).saturated();
    }
    ++e.kv_layers;
    layers.push_back(p);
  }
  e.recurrent_bytes = recurrent.saturated();
  return layers;
}

// A cache's size after `tokens` single-token decode steps, in closed form,
// and the old buffer its last regrow replaced (0 when it did not change).
// A KVCache that overflows grows by 256 at a time from its size (the
// offset equals the size then, so nothing is trimmed): its last old buffer
// is 256 short of its end. A rotating cache past its window after a chunk
// is trimmed to the window on the first step; below it, it grows by 256 up
// to the window.
std::pair<uint64_t, uint64_t> decoded_size(const LayerPlan& p, uint64_t size, uint64_t offset,
                                           uint64_t tokens) {
  const uint64_t end = offset + tokens;
  uint64_t final_size = size, old = 0;
  if (p.window != 0 && size > p.window) {
    final_size = p.window;
    old = size;
  } else if (end > size && (p.window == 0 || size < p.window)) {
    final_size = size + round_up_steps(end - size);
    if (p.window != 0) final_size = std::min(final_size, p.window);
    old = std::max(size, final_size > kStep ? final_size - kStep : 0);
    if (old == final_size) old = size;
  }
  return {final_size, old};
}

// The caches walked through the phases: each phase holds every cache at
// its size after the phase's update, and the old buffers of those that grew.
class CacheWalk {
 public:
  CacheWalk(const std::vector<LayerPlan>& layers, size_t spec_layers, uint64_t batch)
      : layers_(layers), spec_layers_(spec_layers), batch_(batch),
        offsets_(layers.size(), 0), sizes_(layers.size(), 0) {}

  // One update of n tokens on every cache.
  Phase step(uint64_t n) {
    Phase ph = empty_phase();
    CheckedBytes kv = 0;
    for (size_t i = 0; i < layers_.size(); ++i) {
      const LayerPlan& p = layers_[i];
      const uint64_t before = sizes_[i];
      if (p.window != 0) rotating_update(offsets_[i], sizes_[i], n, p.window);
      else kv_update(offsets_[i], sizes_[i], n);
      // A KVCache's growth concatenates: the old buffer is held until the
      // op's buffer completes. (A rotating cache's first chunk also
      // concatenates onto its kept tokens.)
      hold(ph, kv, p, sizes_[i], sizes_[i] != before, before);
    }
    ph.kv_bytes = kv.saturated();
    return ph;
  }

  // The caches after `tokens` single-token steps from here.
  Phase decode(uint64_t tokens) const {
    Phase ph = empty_phase();
    CheckedBytes kv = 0;
    for (size_t i = 0; i < layers_.size(); ++i) {
      const auto [final_size, old] = decoded_size(layers_[i], sizes_[i], offsets_[i], tokens);
      hold(ph, kv, layers_[i], final_size, final_size != sizes_[i], old);
    }
    ph.kv_bytes = kv.saturated();
    return ph;
  }

 private:
  Phase empty_phase() const {
    Phase ph;
    ph.layers.resize(spec_layers_);
    return ph;
  }

  // One layer at `size` in the phase; `old` is held too when it grew.
  void hold(Phase& ph, CheckedBytes& kv, const LayerPlan& p, uint64_t size, bool grew,
            uint64_t old) const {
    kv = kv + CheckedBytes(size) * p.bytes_per_token * batch_;
    MlxLmLayerPass& lp = ph.layers[p.spec_index];
    lp.cache_bytes = (CheckedBytes(size) * p.bytes_per_token * batch_).saturated();
    if (grew) {
      lp.old_bytes = (CheckedBytes(old) * p.bytes_per_token * batch_).saturated();
      ph.regrow = std::max(ph.regrow, lp.old_bytes);
    }
  }

  const std::vector<LayerPlan>& layers_;
  size_t spec_layers_;
  uint64_t batch_;
  std::vector<uint64_t> offsets_, sizes_;
};

// The MLX behind the projections' split-K scratch (split_k.h): Metal when
// the limits count distinct inputs (CUDA's graphs count every one); the
// chip class the limits were set for (40 ops: base or Pro, else priced as
// Max: MLX sets both from the architecture's last letter); and the lowest
// MLX the mlx-lm release installs with (release_defaults.h).
MlxMatmulRules matmul_rules(const MlxLmSettings& s, uint64_t group_size) {
  const bool small_chip = s.buffers.max_ops == mlx_metal_limits(MlxChip::kBase).max_ops;
  return MlxMatmulRules{.metal = s.buffers.distinct_inputs,
                        .mlx = mlx_required_by(s.mlx_lm_release.value_or(kMlxLmNewestRead)),
                        .chip = small_chip ? std::optional<MlxChip>(MlxChip::kBase) : std::nullopt,
                        .group_size = group_size};
}

// What one forward pass of n tokens over `keys` keys holds besides the
// caches: the attention, MLP and logits transients (x batch) and what the
// command buffers in flight hold at once.
class PassCosts {
 public:
  PassCosts(const ModelSpec& spec, const MlxLmSettings& s, const std::vector<LayerPlan>& layers,
            const MlxLmEstimate& e)
      : spec_(spec), s_(s), e_(e), g_(attention_geometry(spec, KvElement::kFp16)),
        mla_(std::any_of(spec.layers.begin(), spec.layers.end(),
                         [](const LayerCache& l) { return l.kind == LayerKind::kMlaLatent; })),
        full_layers_(layers.empty() ||
                     std::any_of(layers.begin(), layers.end(),
                                 [](const LayerPlan& p) { return p.window == 0; })),
        wepk_(weight_elements_per_kparam(e.weights_bytes, spec.analytical_params,
                                          affine_group_size(spec))) {
    g_.score_bytes = kAct;
    for (const LayerPlan& p : layers) {
      if (p.window != 0) min_window_ = std::min(min_window_, p.window);
    }
  }

  bool mla() const { return mla_; }
  const AttentionGeometry& geometry() const { return g_; }

  // Keys one chunk of n tokens attends over when `before` are cached.
  uint64_t kv_len(uint64_t before, uint64_t n) const {
    if (full_layers_) return before + n;
    return std::min(before, min_window_ - 1) + n;
  }

  uint64_t attention(uint64_t n, uint64_t keys) const {
    if (!g_.known()) return 0;
    CheckedBytes a;
    if (mla_) {
      // MLA in mlx-lm (deepseek_v3.py): the rope scores (heads x n x keys)
      // are formed explicitly and, for a prompt (n > 1), masked by
      // mx.where into a second array of the same size while the first is
      // its input, beside the boolean mask (n x keys, 1 B); K and V are
      // expanded per head from the latent over every key
      // (docs/engine-mlxlm.md, "MLA prefill").
      const uint64_t score_copies = n > 1 ? 2 : 1;
      a = CheckedBytes(g_.q_heads) * n * keys * kAct * score_copies +
          CheckedBytes(n > 1 ? n : 0) * keys +
          CheckedBytes(g_.q_heads) * keys * kMlaExpandedHeadDim * kAct * 2;
    } else if (fused_attention_kernel(s_)) {
      a = sdpa_transient_bytes(g_, SdpaKernels{}, n, keys);
    } else {
      a = CheckedBytes(g_.q_heads) * n * g_.head_dim * 4 + CheckedBytes(g_.q_heads) * n * keys * kAct;
    }
    return (a * s_.batch).saturated();
  }

  // Gate, up and their product, n tokens wide; routed experts see each
  // token k times and the sorted copy of the input.
  uint64_t mlp(uint64_t n) const {
    const ModelGeometry& geo = spec_.geometry;
    CheckedBytes dense = CheckedBytes(n) * geo.intermediate * kAct * 3;
    CheckedBytes moe = 0;
    if (spec_.moe.experts != 0) {
      const uint64_t width =
          spec_.moe.expert_intermediate != 0 ? spec_.moe.expert_intermediate : geo.intermediate;
      const uint64_t k = std::max<uint64_t>(1, spec_.moe.experts_per_token);
      moe = CheckedBytes(n) * k * width * kAct * 3 + CheckedBytes(n) * k * geo.hidden * kAct;
    }
    return (std::max(dense, moe, [](CheckedBytes a, CheckedBytes b) {
              return a.saturated() < b.saturated();
            }) * s_.batch).saturated();
  }

  uint64_t logits(uint64_t n) const {
    return (CheckedBytes(n) * spec_.geometry.vocab * kAct * s_.batch).saturated();
  }

  // The phase's figures for a pass of n tokens over `keys` whose LM head
  // computes `logits_rows` rows (0: none).
  void price(MlxLmPhaseBytes& out, const Phase& ph, uint64_t n, uint64_t keys,
             uint64_t logits_rows) const {
    out.kv_bytes = ph.kv_bytes;
    out.attention_bytes = attention(n, keys);
    out.mlp_bytes = mlp(n);
    out.logits_bytes = logits_rows != 0 ? logits(logits_rows) : 0;
    out.regrow_bytes = ph.regrow;
    out.transient_bytes = in_flight(ph, n, keys, out.attention_bytes, out.logits_bytes);
    out.total_bytes = (CheckedBytes(e_.weights_bytes) + ph.kv_bytes + e_.recurrent_bytes +
                       out.transient_bytes).saturated();
  }

 private:
  // The phase's forward pass of n tokens over `keys`, replayed against
  // MLX's command-buffer rules: what the buffers in flight hold at once.
  uint64_t in_flight(const Phase& ph, uint64_t n, uint64_t keys, uint64_t a, uint64_t l) const {
    const uint64_t B = s_.batch;
    MlxLmPass pass;
    pass.tokens = (CheckedBytes(n) * B).saturated();
    pass.attention_bytes = a;
    if (g_.known() && !mla_ && !(fused_attention_kernel(s_) && uses_fused_sdpa(g_, n, keys))) {
      pass.scores_elements = (CheckedBytes(g_.q_heads) * n * keys * B).saturated();
      pass.scores_bytes = (CheckedBytes(pass.scores_elements) * kAct).saturated();
      pass.mask_elements = (CheckedBytes(n) * keys * B).saturated();
    }
    pass.logits_bytes = l;
    pass.weight_elements_per_kparam = wepk_;
    pass.matmul = matmul_rules(s_, affine_group_size(spec_));
    return mlxlm_forward_peak(spec_, pass, ph.layers, s_.buffers);
  }

  const ModelSpec& spec_;
  const MlxLmSettings& s_;
  const MlxLmEstimate& e_;
  AttentionGeometry g_;
  bool mla_;
  bool full_layers_;  // some cache is unbounded (or there is no cache)
  uint64_t min_window_ = UINT64_MAX;
  uint64_t wepk_;
};

// The three phases' figures: the last full prefill chunk, the last chunk
// (with its logits) and the end of decoding.
void price_phases(const ModelSpec& spec, const MlxLmSettings& s,
                  const std::vector<LayerPlan>& layers, MlxLmEstimate& e) {
  const uint64_t S = s.prefill_step_size;
  CacheWalk walk(layers, spec.layers.size(), s.batch);
  const PassCosts costs(spec, s, layers, e);
  uint64_t cached = 0;
  for (uint64_t c = 0; c < e.full_chunks; ++c) {
    Phase ph = walk.step(S);
    if (c + 1 == e.full_chunks) {
      costs.price(e.prefill_chunk, ph, S, costs.kv_len(cached, S), 0);
    }
    cached += S;
  }
  const uint64_t L = e.last_chunk_tokens;
  // Since mlx-lm 0.27.0 the last chunk's first L - 1 tokens and its final
  // token are two passes, the LM head on the final one only: priced as the
  // pass of L - 1 tokens over the keys it sees, with the final pass's one
  // row of logits and the cache at its end (the final pass's own
  // activations, one token's, are below the wider pass's); before, one pass
  // of L tokens and L rows (docs/engine-mlxlm.md, "Releases"). With a
  // split-K rule the widest pass's rows matter: a 15-token prompt's
  // projections split 14 rows, not 15.
  const uint64_t n = mlxlm_last_chunk_pass_tokens(s.mlx_lm_release, L);
  const uint64_t last_keys = costs.kv_len(cached, n);
  e.fused_attention =
      uses_fused_sdpa(costs.geometry(), n, last_keys) && fused_attention_kernel(s) && !costs.mla();
  costs.price(e.last_chunk, walk.step(L), n, last_keys,
              mlxlm_last_chunk_logits_rows(s.mlx_lm_release, L));
  cached += L;
  costs.price(e.decode, walk.decode(s.max_tokens), 1, costs.kv_len(cached + s.max_tokens - 1, 1),
              1);
}

// The peak is the largest phase; it sets the report's KV, transient and
// total, compared with the budget.
Result<MlxLmEstimate> settle_at_peak(MlxLmEstimate e, const MemoryBudget& budget) {
  const MlxLmPhaseBytes* peak = &e.last_chunk;
  e.peak_phase = MlxLmPhase::kLastChunk;
  if (e.prefill_chunk.total_bytes > peak->total_bytes) {
    peak = &e.prefill_chunk;
    e.peak_phase = MlxLmPhase::kPrefillChunk;
  }
  if (e.decode.total_bytes > peak->total_bytes) {
    peak = &e.decode;
    e.peak_phase = MlxLmPhase::kDecode;
  }
  e.kv_bytes = peak->kv_bytes;
  e.transient_bytes = peak->transient_bytes;
  e.peak_bytes = peak->total_bytes;
  if (e.peak_bytes == UINT64_MAX) {
    return Error::overflow("mlx-lm peak: the sizes overflow 64 bits");
  }
  // The peak is modelled (the transient): its band, and under --confidence
  // its margin in the total (docs/validation-logs.md, "Error bands").
  Result<ReportBands> bands =
      report_bands("mlx-lm", e.settings.buffers.distinct_inputs ? "Metal" : "MLX-CUDA",
                   {{"peak", e.peak_bytes}}, e.settings.confidence);
  if (!bands) return bands.error();
  e.bands = std::move(*bands);
  const CheckedBytes total = CheckedBytes(e.peak_bytes) + e.bands.margin_bytes;
  if (!total.value()) return Error::overflow("mlx-lm peak: the sizes overflow 64 bits");
  e.total_bytes = *total.value();
  e.budget_bytes = budget.budget_bytes;
  e.fits = e.total_bytes <= e.budget_bytes;
  e.wired_limit_mb = CheckedBytes::ceil_div(e.total_bytes, 1ull << 20).saturated();
  return e;
}

}  // namespace

Result<MlxLmEstimate> estimate_mlxlm(const Model& model, const MlxLmSettings& s,
                                     const MemoryBudget& budget) {
  if (Status bad = check_settings(s); !bad) return bad.error();
  if (Status bad = check_kv_quantization(model.spec, s); !bad) return bad.error();

  MlxLmEstimate e;
  e.settings = s;
  e.weights_bytes = model.weights.bytes;
  // Exact when headers were read (an index alone is exact once verified).
  e.weights_exact = model.weights.source == WeightsSource::kSafetensorsHeader ||
                    model.weights.source == WeightsSource::kGgufHeader ||
                    (model.weights.source == WeightsSource::kSafetensorsIndex && model.weights.verified);
  e.full_chunks = (s.prompt_tokens - 1) / s.prefill_step_size;
  e.last_chunk_tokens = s.prompt_tokens - e.full_chunks * s.prefill_step_size;

  const std::vector<LayerPlan> layers = plan_caches(model.spec, s, e);
  price_phases(model.spec, s, layers, e);
  const bool unbounded = std::any_of(layers.begin(), layers.end(),
                                     [](const LayerPlan& p) { return p.window == 0; });
  if (unbounded) {
    e.kv_capacity_tokens = mlxlm_kv_capacity(s.prompt_tokens, s.prefill_step_size, s.max_tokens);
  }
  return settle_at_peak(std::move(e), budget);
}

}  // namespace memfit
