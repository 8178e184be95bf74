// estimate_mlxlm(): mlx-lm's peak (mlxlm.h; docs/engine-mlxlm.md).
//
// Every byte count saturates through CheckedBytes; a saturated total is
// reported as kOverflow rather than compared.
#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "memfit/mlxlm.h"
#include "memfit/prefill_guard.h"
#include "engines/mlxlm/forward.h"

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

// Weight elements per 1024 parameters: MLX counts a packed uint32 word
// (quantized weights, under 2 bytes a parameter) or a float32 as one
// element of 4 bytes, a 16-bit weight as one of 2. From the average bytes
// per parameter; 0 when the parameter count is unknown.
uint64_t weight_elements_per_kparam(uint64_t weights_bytes, uint64_t params) {
  if (params == 0) return 0;
  const uint64_t per_kparam = (CheckedBytes(weights_bytes) * 1024).saturated() / params;
  const bool sixteen_bit = per_kparam >= 2 * 1024 && per_kparam < 4 * 1024;
  return per_kparam / (sixteen_bit ? 2 : 4);
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

Result<MlxLmEstimate> estimate_mlxlm(const Model& model, const MlxLmSettings& s,
                                     const MemoryBudget& budget) {
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
  if (lim.max_ops == 0 || lim.max_ops > 100000 || lim.max_mega_elements == 0 ||
      lim.max_mega_elements > 1000000 || lim.max_active == 0 || lim.max_active > 64) {
    return Error::usage("buffers", "MLX's command-buffer limits must be 1..100000 ops, "
                                   "1..1000000 mega-elements and 1..64 buffers in flight");
  }
  const ModelSpec& spec = model.spec;
  const ModelGeometry& geo = spec.geometry;
  if (s.kv_bits != 0) {
    // Caches mlx-lm cannot quantize: the run fails, so there is no peak to
    // price. RotatingKVCache.to_quantized raises NotImplementedError; an
    // MLA layer's attention (deepseek_v3.py) reads the values the cache
    // returns as one array, not QuantizedKVCache's packed tuple.
    const bool rotates = mlxlm_rotates_sliding_layers(spec.model_type);
    bool sliding = false, mla = false, own_cache = false, kv = false;
    for (const LayerCache& l : spec.layers) {
      const bool cached = quantizable(l.kind) && l.elems_per_token != 0;
      kv = kv || cached;
      mla = mla || (cached && l.kind == LayerKind::kMlaLatent);
      sliding = sliding ||
                (cached && rotates && l.kind == LayerKind::kSlidingWindow && l.window_tokens != 0);
      own_cache = own_cache || (rotates && l.kind == LayerKind::kSlidingWindow) ||
                  l.kind == LayerKind::kLinearAttention || l.kind == LayerKind::kSsm ||
                  l.kind == LayerKind::kConv;
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
    if (s.max_kv_size != 0 && !own_cache && kv) {
      return Error::usage("kv_bits", "mlx-lm cannot quantize a rotating cache "
                                     "(RotatingKVCache), which --max-kv-size puts every layer on");
    }
  }
  if (s.kv_bits != 0 && geo.head_dim % s.kv_group_size != 0) {
    return Error::usage("kv_group_size", fmt::format("{} does not divide the head dim {}",
                                                     s.kv_group_size, geo.head_dim));
  }

  MlxLmEstimate e;
  e.settings = s;
  e.weights_bytes = model.weights.bytes;
  // Exact when headers were read (an index alone is exact once verified).
  e.weights_exact = model.weights.source == WeightsSource::kSafetensorsHeader ||
                    model.weights.source == WeightsSource::kGgufHeader ||
                    (model.weights.source == WeightsSource::kSafetensorsIndex && model.weights.verified);
  const uint64_t P = s.prompt_tokens, S = s.prefill_step_size, B = s.batch;
  e.full_chunks = (P - 1) / S;
  e.last_chunk_tokens = P - e.full_chunks * S;

  // The caches, per layer. A model whose make_cache builds its own list
  // (rotating sliding layers, or the ArraysCache of a hybrid) ignores
  // --max-kv-size, as make_prompt_cache does.
  const bool rotates = mlxlm_rotates_sliding_layers(spec.model_type);
  bool own_cache = false;
  for (const LayerCache& l : spec.layers) {
    own_cache = own_cache || (rotates && l.kind == LayerKind::kSlidingWindow) ||
                l.kind == LayerKind::kLinearAttention || l.kind == LayerKind::kSsm ||
                l.kind == LayerKind::kConv;
  }
  e.max_kv_size_ignored = s.max_kv_size != 0 && own_cache;
  std::vector<LayerPlan> layers;
  CheckedBytes recurrent = 0;
  for (size_t li = 0; li < spec.layers.size(); ++li) {
    const LayerCache& l = spec.layers[li];
    if (l.state_bytes != 0) {
      recurrent = recurrent + CheckedBytes(l.state_bytes) * B;
      ++e.recurrent_layers;
    }
    if (!quantizable(l.kind) || l.elems_per_token == 0) continue;
    LayerPlan p{l.kind, 0, 0, li};
    // Stored bytes per token: 2-byte elements, or mx.quantize's packed
    // words plus a scale and a bias (activation dtype) per group.
    CheckedBytes per_token = CheckedBytes(l.elems_per_token) * kAct;
    if (s.kv_bits != 0) {
      per_token = CheckedBytes::ceil_div(CheckedBytes(l.elems_per_token) * s.kv_bits, 8) +
                  CheckedBytes::ceil_div(l.elems_per_token, s.kv_group_size) * 2 * kAct;
    }
    p.bytes_per_token = per_token.saturated();
    if (l.kind == LayerKind::kSlidingWindow && rotates && l.window_tokens != 0) {
      p.window = l.window_tokens;
    } else if (s.max_kv_size != 0 && !own_cache) {
      p.window = s.max_kv_size;
    }
    if (p.window != 0) ++e.rotating_layers;
    ++e.kv_layers;
    layers.push_back(p);
  }
  e.recurrent_bytes = recurrent.saturated();

  // Walk the cache through the phases: each phase's sizes after its update.
  std::vector<uint64_t> offsets(layers.size(), 0), sizes(layers.size(), 0);
  auto step = [&](uint64_t n) {
    Phase ph;
    ph.layers.resize(spec.layers.size());
    CheckedBytes kv = 0;
    for (size_t i = 0; i < layers.size(); ++i) {
      const LayerPlan& p = layers[i];
      const uint64_t before = sizes[i];
      if (p.window != 0) rotating_update(offsets[i], sizes[i], n, p.window);
      else kv_update(offsets[i], sizes[i], n);
      kv = kv + CheckedBytes(sizes[i]) * p.bytes_per_token * B;
      MlxLmLayerPass& lp = ph.layers[p.spec_index];
      lp.cache_bytes = (CheckedBytes(sizes[i]) * p.bytes_per_token * B).saturated();
      if (sizes[i] != before) {
        // A KVCache's growth concatenates: the old buffer is held until the
        // op's buffer completes. (A rotating cache's first chunk also
        // concatenates onto its kept tokens.)
        lp.old_bytes = (CheckedBytes(before) * p.bytes_per_token * B).saturated();
        ph.regrow = std::max(ph.regrow, lp.old_bytes);
      }
    }
    ph.kv_bytes = kv.saturated();
    return ph;
  };

  AttentionGeometry g = attention_geometry(spec, KvElement::kFp16);
  g.score_bytes = kAct;
  const bool mla = std::any_of(spec.layers.begin(), spec.layers.end(),
                               [](const LayerCache& l) { return l.kind == LayerKind::kMlaLatent; });
  const bool full_layers = std::any_of(layers.begin(), layers.end(),
                                       [](const LayerPlan& p) { return p.window == 0; });
  uint64_t min_window = UINT64_MAX;
  for (const LayerPlan& p : layers) if (p.window != 0) min_window = std::min(min_window, p.window);
  // Keys one chunk of n tokens attends over when `before` are cached.
  auto kv_len = [&](uint64_t before, uint64_t n) {
    if (full_layers || layers.empty()) return before + n;
    return std::min(before, min_window - 1) + n;
  };
  auto attention = [&](uint64_t n, uint64_t keys) -> uint64_t {
    if (!g.known()) return 0;
    CheckedBytes a;
    if (mla) {
      // MLA in mlx-lm: the rope scores (heads x n x keys) are formed
      // explicitly, and K and V are expanded per head from the latent.
      a = CheckedBytes(g.q_heads) * n * keys * kAct +
          CheckedBytes(g.q_heads) * keys * kMlaExpandedHeadDim * kAct * 2;
    } else if (s.fused_sdpa) {
      a = sdpa_transient_bytes(g, SdpaKernels{}, n, keys);
    } else {
      a = CheckedBytes(g.q_heads) * n * g.head_dim * 4 + CheckedBytes(g.q_heads) * n * keys * kAct;
    }
    return (a * B).saturated();
  };
  // Gate, up and their product, n tokens wide; routed experts see each
  // token k times and the sorted copy of the input.
  auto mlp = [&](uint64_t n) -> uint64_t {
    CheckedBytes dense = CheckedBytes(n) * geo.intermediate * kAct * 3;
    CheckedBytes moe = 0;
    if (spec.moe.experts != 0) {
      const uint64_t width =
          spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : geo.intermediate;
      const uint64_t k = std::max<uint64_t>(1, spec.moe.experts_per_token);
      moe = CheckedBytes(n) * k * width * kAct * 3 + CheckedBytes(n) * k * geo.hidden * kAct;
    }
    return (std::max(dense, moe, [](CheckedBytes a, CheckedBytes b) {
              return a.saturated() < b.saturated();
            }) * B).saturated();
  };
  auto logits = [&](uint64_t n) { return (CheckedBytes(n) * geo.vocab * kAct * B).saturated(); };
  const uint64_t wepk = weight_elements_per_kparam(e.weights_bytes, spec.analytical_params);
  // The phase's forward pass of n tokens over `keys`, replayed against
  // MLX's command-buffer rules: what the buffers in flight hold at once.
  auto in_flight = [&](const Phase& ph, uint64_t n, uint64_t keys, uint64_t a, uint64_t l) {
    MlxLmPass pass;
    pass.tokens = (CheckedBytes(n) * B).saturated();
    pass.attention_bytes = a;
    if (g.known() && !mla && !(s.fused_sdpa && uses_fused_sdpa(g, n, keys))) {
      pass.scores_elements = (CheckedBytes(g.q_heads) * n * keys * B).saturated();
      pass.scores_bytes = (CheckedBytes(pass.scores_elements) * kAct).saturated();
      pass.mask_elements = (CheckedBytes(n) * keys * B).saturated();
    }
    pass.logits_bytes = l;
    pass.weight_elements_per_kparam = wepk;
    return mlxlm_forward_peak(spec, pass, ph.layers, s.buffers);
  };
  auto finish = [&](MlxLmPhaseBytes& out, const Phase& ph, uint64_t n, uint64_t keys, uint64_t a,
                    uint64_t m, uint64_t l) {
    out.kv_bytes = ph.kv_bytes;
    out.attention_bytes = a;
    out.mlp_bytes = m;
    out.logits_bytes = l;
    out.regrow_bytes = ph.regrow;
    out.transient_bytes = in_flight(ph, n, keys, a, l);
    out.total_bytes = (CheckedBytes(e.weights_bytes) + ph.kv_bytes + e.recurrent_bytes +
                       out.transient_bytes).saturated();
  };

  uint64_t cached = 0;
  for (uint64_t c = 0; c < e.full_chunks; ++c) {
    Phase ph = step(S);
    if (c + 1 == e.full_chunks) {
      const uint64_t keys = kv_len(cached, S);
      finish(e.prefill_chunk, ph, S, keys, attention(S, keys), mlp(S), 0);
    }
    cached += S;
  }
  const uint64_t L = e.last_chunk_tokens;
  const uint64_t last_keys = kv_len(cached, L);
  e.fused_attention = uses_fused_sdpa(g, L, last_keys) && s.fused_sdpa && !mla;
  finish(e.last_chunk, step(L), L, last_keys, attention(L, last_keys), mlp(L), logits(L));
  cached += L;
  // Decode: G single-token steps, in closed form per layer. A KVCache
  // that overflows grows by 256 at a time from its size (the offset equals
  // the size then, so nothing is trimmed): its last old buffer is 256
  // short of its end. A rotating cache past its window after a chunk is
  // trimmed to the window on the first step; below it, it grows by 256 up
  // to the window.
  Phase last{};
  last.layers.resize(spec.layers.size());
  {
    CheckedBytes kv = 0;
    for (size_t i = 0; i < layers.size(); ++i) {
      const LayerPlan& p = layers[i];
      const uint64_t size = sizes[i], end = offsets[i] + s.max_tokens;
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
      kv = kv + CheckedBytes(final_size) * p.bytes_per_token * B;
      MlxLmLayerPass& lp = last.layers[p.spec_index];
      lp.cache_bytes = (CheckedBytes(final_size) * p.bytes_per_token * B).saturated();
      if (final_size != size) {
        lp.old_bytes = (CheckedBytes(old) * p.bytes_per_token * B).saturated();
        last.regrow = std::max(last.regrow, lp.old_bytes);
      }
    }
    last.kv_bytes = kv.saturated();
  }
  const uint64_t decode_keys = kv_len(cached + s.max_tokens - 1, 1);
  finish(e.decode, last, 1, decode_keys, attention(1, decode_keys), mlp(1), logits(1));

  for (const LayerPlan& p : layers) {
    if (p.window == 0) {
      e.kv_capacity_tokens = mlxlm_kv_capacity(P, S, s.max_tokens);
      break;
    }
  }
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
  e.total_bytes = peak->total_bytes;
  if (e.total_bytes == UINT64_MAX) {
    return Error::overflow("mlx-lm peak: the sizes overflow 64 bits");
  }
  e.budget_bytes = budget.budget_bytes;
  e.fits = e.total_bytes <= e.budget_bytes;
  e.wired_limit_mb = CheckedBytes::ceil_div(e.total_bytes, 1ull << 20).saturated();
  return e;
}

}  // namespace memfit
