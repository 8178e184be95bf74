// plan_sglang(): one rank's memory plan under SGLang's rules
// (docs/engine-sglang.md, "Rules"): the GPU-size defaults and the computed
// --mem-fraction-static of server_args.py's _handle_gpu_memory_settings,
// then model_runner.py's profile_max_num_token and init_memory_pool.
#include "engines/sglang/plan.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "engines/sglang/allocator_rounding.h"
#include "engines/sglang/dp_attention_weights.h"
#include "engines/sglang/held_weights.h"
#include "engines/shared/gpu_class.h"
#include "engines/shared/parallel_tensors.h"
#include "engines/shared/release_number.h"
#include "engines/shared/tp_rank_weights.h"
#include "memfit/checked_math.h"

namespace memfit::sglang {
namespace {

// SGLang reads the GPU's memory as nvidia-smi's total in MiB.
constexpr uint64_t mib(uint64_t gib) { return gib * 1024; }

// The request-to-token table's row: context_len + 4 int32 slots
// (ReqToTokenPool, max_context_len = context_len + 4).
constexpr uint64_t kReqToTokenExtra = 4, kReqToTokenSlotBytes = 4;

// max_num_reqs when --max-running-requests is not given: the pool's tokens
// over the context, x 512, within [2048, 4096] (init_memory_pool).
uint64_t default_requests(uint64_t tokens, uint64_t context) {
  const long double per_context = static_cast<long double>(tokens) / static_cast<long double>(context);
  const uint64_t scaled = static_cast<uint64_t>(per_context * 512);
  return std::min<uint64_t>(std::max<uint64_t>(scaled, 2048), 4096);
}

// The attention-TP size KV heads are split by: TP, or TP / DP under DP
// attention (get_attention_tp_size).
uint64_t attention_tp(const Settings& s) {
  if (!s.dp_attention || s.dp_size <= 1) return s.tensor_parallel;
  return std::max<uint64_t>(1, s.tensor_parallel / s.dp_size);
}

// Splits a hybrid SWA pool (set_num_token_hybrid): the tokens of every
// layer, shared so that the window layers hold `ratio` of the full
// layers' tokens. Every layer takes the same bytes a token here.
void split_swa(Plan& p) {
  const KvCell& c = p.cell;
  const long double total = static_cast<long double>(p.max_total_num_tokens) * (c.full_layers + c.swa_layers);
  const long double denominator = kSwaFullTokensRatio * c.swa_layers + c.full_layers;
  p.max_total_num_tokens = static_cast<uint64_t>(total / denominator);
  p.swa_tokens = static_cast<uint64_t>(p.max_total_num_tokens * kSwaFullTokensRatio);
}

// A hybrid SWA pool whose layers differ a token (other KV heads or K and V
// head dims in the window layers: MiMo-V2-Flash): SGLang's
// HybridSWAPoolConfigurator since sgl-project/sglang#18039 prices the
// full pool's token at cell = full_bytes + ratio x swa_bytes, takes
// full = rest // cell to whole pages and swa = full x ratio to whole
// pages. Before #18039 the cell was the model's full-layer geometry over
// every layer, plus the window layers again: a smaller pool than this.
void split_swa_by_pool(uint64_t rest, uint64_t page, Plan& p) {
  const KvCell& c = p.cell;
  const long double cell = static_cast<long double>(c.full_bytes) + kSwaFullTokensRatio * c.swa_bytes;
  const uint64_t full = static_cast<uint64_t>(static_cast<long double>(rest) / cell);
  p.max_total_num_tokens = full / page * page;
  p.swa_tokens = static_cast<uint64_t>(p.max_total_num_tokens * kSwaFullTokensRatio) / page * page;
}

// A prefill chunk's forward pass on one rank (modelled): T tokens' hidden
// states (residual, hidden, normed, one temporary) and the larger MLP's
// gate, up and down intermediates (an MoE: each token's experts), 16-bit.
uint64_t activation_bytes(const ModelSpec& spec, const Settings& s) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t tokens = std::max<uint64_t>(*s.chunked_prefill_size, 2048);
  uint64_t width = CheckedBytes::ceil_div(g.intermediate, s.tensor_parallel).saturated();
  if (spec.moe.experts != 0) {
    const uint64_t expert = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
    width = (CheckedBytes::ceil_div(expert, s.tensor_parallel) * std::max<uint64_t>(1, spec.moe.experts_per_token))
                .saturated();
  }
  return (CheckedBytes(tokens) * (CheckedBytes(g.hidden) * 4 + CheckedBytes(width) * 3) * 2).saturated();
}

}  // namespace

Mxfp4Kernel sglang_mxfp4_kernel(std::string_view gpu_name) {
  return classify_gpu(gpu_name) == GpuClass::kBlackwellDatacenter ? Mxfp4Kernel::kFlashInfer
                                                                  : Mxfp4Kernel::kTriton;
}

GpuDefaults gpu_defaults(uint64_t gpu_mem_mib, uint64_t tp, bool mid_tier_37898) {
  if (gpu_mem_mib < mib(20)) return {2048, 8};  // T4, 4080
  if (gpu_mem_mib < mib(35)) {                  // A10, 4090, 5090
    if (mid_tier_37898) return {4096, tp < 4 ? 48u : 160u};
    return {2048, tp < 4 ? 24u : 80u};
  }
  if (gpu_mem_mib < mib(60)) return {4096, tp < 4 ? 32u : 160u};    // A100 40GB, L40
  if (gpu_mem_mib < mib(160)) return {8192, tp < 4 ? 256u : 512u};  // H100, H200, H20
  return {16384, 512};                                              // B200, MI300
}

namespace {

// The token sizes _generate_piecewise_cuda_graph_tokens captures up to
// `max_tokens`: how many there are (plan.h, piecewise_reserve).
uint64_t piecewise_sizes(uint64_t max_tokens, uint64_t first_by_64) {
  struct Range {
    uint64_t first, last, step;
  };
  const Range ranges[] = {{4, 32, 4},    {48, 256, 16},          {288, 512, 32},
                          {first_by_64, 1024, 64}, {1280, 4096, 256}, {4608, max_tokens, 512}};
  uint64_t n = 0;
  for (const Range& r : ranges) {
    for (uint64_t t = r.first; t <= std::min(r.last, max_tokens); t += r.step) ++n;
  }
  return n;
}

bool is_date(std::string_view date) {
  if (date.size() != 10) return false;
  for (size_t i = 0; i < date.size(); ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? date[i] != '-' : (date[i] < '0' || date[i] > '9')) return false;
  }
  return true;
}

}  // namespace

std::optional<PiecewiseReserve> piecewise_reserve(std::string_view date, uint64_t chunked_prefill_size, bool mla) {
  if (!is_date(date) || date < "2025-11-10") return std::nullopt;                   // before #12996
  if (date < "2025-12-24") return PiecewiseReserve{4096 / 4, false};                // #12996
  if (date < "2026-01-10") return PiecewiseReserve{static_cast<double>(chunked_prefill_size / 8), false};  // #15700
  if (mla && date >= "2026-03-02") return PiecewiseReserve{1.5 * 1024, true};        // #16331
  const uint64_t max_tokens = mla ? 2048 : chunked_prefill_size;                    // #15927
  const uint64_t sizes = piecewise_sizes(max_tokens, date < "2026-01-29" ? 640 : 576);  // #17956
  return PiecewiseReserve{static_cast<double>(sizes * 8), true};
}

namespace {

// server_args.py's piecewise_cuda_graph_disabled_model_archs by the
// config's model_type; `nsa_captures`: #23351 lets NSA models capture them
// (plan.h, piecewise_rule_date).
bool piecewise_disabled_model(const ModelSpec& spec, bool nsa_captures) {
  for (std::string_view type : {"qwen3_next", "deepseek_v4", "llada"}) {
    if (spec.model_type == type) return true;
  }
  const bool nsa = spec.model_type == "deepseek_v32" || spec.model_type == "glm_moe_dsa";
  return nsa && !nsa_captures;
}

// `release` is `first` or later.
bool release_from(std::string_view release, std::string_view first) {
  const std::optional<ReleaseNumber> r = parse_release_number(release);
  const std::optional<ReleaseNumber> f = parse_release_number(first);
  if (!r || !f) return false;
  return std::tie(r->major, r->minor, r->patch) >= std::tie(f->major, f->minor, f->patch);
}

// A rule of `release` on, merged on `date`: a release-less log stands for
// the tree of its date (plan.h, Settings::log_date), else the release.
bool rule_applies(const Settings& s, std::string_view release, std::string_view date) {
  if (is_date(s.log_date)) return s.log_date >= date;
  return release_from(s.release, release);
}

}  // namespace

bool has_mid_tier_37898(const Settings& s) { return rule_applies(s, kMidTierRelease, kMidTierDate); }

bool has_decode_graph_guard_29615(const Settings& s) {
  return rule_applies(s, kDecodeGraphGuardRelease, kDecodeGraphGuardDate);
}

std::string piecewise_rule_date(const ModelSpec& spec, const Settings& s) {
  if (!s.piecewise_log_date.empty()) return s.piecewise_log_date;  // the log shows them on
  if (s.disable_piecewise_cuda_graph) return "";
  // A release-less log stands for the tree of its date; an estimate for
  // the release's, whose rule is #16331's through the tree read.
  if (!rule_applies(s, kPiecewiseDefaultRelease, kPiecewiseDefaultDate)) return "";
  const std::string date = is_date(s.log_date) ? s.log_date : std::string(kPiecewiseDefaultDate);
  // aiter runs on HIP only: a run on it is an AMD GPU's (check-log knows
  // the platform by the backend where its request names no GPU).
  const bool hip = s.rocm || s.attention_backend == "aiter";
  // #23351 (2026-05-23): after 0.5.12's cut, in 0.5.13 (out by 2026-06-17).
  const bool nsa_captures = rule_applies(s, kNsaPiecewiseRelease, kNsaPiecewiseDate);
  if (s.dp_attention || hip || spec.multimodal || piecewise_disabled_model(spec, nsa_captures)) return "";
  // #16331's conditions 7, 12 and 14: a MoE all-to-all backend, the
  // hierarchical cache, PD disaggregation.
  if (s.moe_a2a_backend != "none" || s.hierarchical_cache || s.disaggregation_mode != "null") return "";
  return date;
}

void settle_disaggregation(Settings& s) {
  if (s.disaggregation_mode == "decode") s.state.disable_radix_cache = true;
  if (s.disaggregation_mode == "prefill" && s.piecewise_log_date.empty()) s.disable_cuda_graph = true;
}

std::optional<PiecewiseReserve> piecewise_reserve_of(std::string_view date, const Settings& s,
                                                    uint64_t chunked_prefill_size, bool mla) {
  // From #16331 the piecewise graphs' token sizes stop at --max-total-tokens
  // (piecewise_cuda_graph_max_tokens = min(chunked prefill, it)).
  uint64_t piecewise_max = chunked_prefill_size;
  if (s.max_total_tokens && date >= kPiecewiseDefaultDate) {
    piecewise_max = std::min(piecewise_max, *s.max_total_tokens);
  }
  return piecewise_reserve(date, piecewise_max, mla);
}

double default_mem_fraction(uint64_t gpu_mem_mib, const GpuDefaults& d, const Settings& s, bool mla) {
  const uint64_t chunked = s.chunked_prefill_size.value_or(d.chunked_prefill_size);
  const uint64_t graphs = s.cuda_graph_max_bs.value_or(d.cuda_graph_max_bs);
  // From #29615 the reserve follows the server's role (plan.h).
  const bool by_role = has_decode_graph_guard_29615(s);
  const bool prefill = by_role && s.disaggregation_mode == "prefill";
  const bool decode = by_role && s.disaggregation_mode == "decode";
  // A decode server's activations scale with its running requests (x the
  // draft tokens, 1 without speculative decoding), not a prefill chunk.
  const uint64_t activation_tokens = decode ? s.max_running_requests.value_or(graphs) : chunked;
  double reserved = 512;
  reserved += static_cast<double>(std::max<uint64_t>(activation_tokens, 2048)) * 1.5;
  // From #29615 the decode graphs' term only where they are captured: not
  // under --disable-cuda-graph, not on a prefill server.
  if (!by_role || (!s.disable_cuda_graph && !prefill)) reserved += static_cast<double>(graphs) * 2;
  reserved += static_cast<double>(s.tensor_parallel) / 8 * 1024;
  if (s.dp_attention && !prefill) {
    reserved += static_cast<double>(graphs * s.dp_size) * 3;
    if (graphs > 300) reserved += static_cast<double>(graphs * s.dp_size) * 1.5;
  }
  const std::optional<PiecewiseReserve> piecewise = piecewise_reserve_of(s.piecewise_log_date, s, chunked, mla);
  if (piecewise && piecewise->before_floor) reserved += piecewise->mib;
  if (gpu_mem_mib > mib(60)) reserved = std::max<double>(reserved, mib(10));
  if (piecewise && !piecewise->before_floor) reserved += piecewise->mib;
  const double fraction = (static_cast<double>(gpu_mem_mib) - reserved) / static_cast<double>(gpu_mem_mib);
  // Python's round(x, 3): to nearest, ties to even (the default mode).
  return std::nearbyint(fraction * 1000) / 1000;
}

// A KV head's K + V elements when they are not 2 x head_dim: a full
// attention layer's elements over the model's kv_heads (MiMo-V2-Flash: 4 x
// (192 + 128) = 1,280 over 4 = 320); 0 when every layer is 2 x head_dim
// wide a head. The sliding-window layers are taken to share it (MiMo's
// swa_head_dim and swa_v_head_dim are its head_dim and v_head_dim), their
// heads being their elements over it (2,560 / 320 = 8).
uint64_t kv_head_width(const ModelSpec& spec) {
  const uint64_t heads = spec.geometry.kv_heads, head_dim = spec.geometry.head_dim;
  if (heads == 0 || head_dim == 0) return 0;
  for (const LayerCache& l : spec.layers) {
    if (l.kind != LayerKind::kFullAttention || l.elems_per_token % (2 * head_dim) == 0) continue;
    if (l.elems_per_token % heads == 0) return l.elems_per_token / heads;
  }
  return 0;
}

namespace {

// DeepSeek-V3.2's NSA layer (SGLang's NSATokenToKVPool, mem_cache/
// memory_pool.py): the MLA latent beside the lightning indexer's key,
// which is stored as fp8 with one fp32 scale a 128 elements in a uint8
// buffer (quant_block_size 128, index_k_with_scale_buffer_dtype uint8):
// index_head_dim + index_head_dim / 128 x 4 bytes a token. Since
// sgl-project/sglang#11309 (2025-10-07) profile_max_num_token divides by
// (kv_lora_rank + qk_rope_head_dim) x the KV dtype + that indexer; the
// pool then stores an fp8 latent in its own layout (nsa_kv_cache_store_fp8,
// override_kv_cache_dim): kv_lora_rank fp8 bytes + kv_lora_rank / 128 fp32
// scales + qk_rope_head_dim x 2 (the rope stays bf16), so a token's entry
// outgrows the profiled cell: 512 + 16 + 128 + 132 = 788 B a layer against
// 576 + 132 = 708 profiled. Bytes per token per layer.
constexpr uint64_t kNsaQuantBlock = 128;  // NSATokenToKVPool.quant_block_size
constexpr uint64_t kNsaScaleBytes = 4;    // one float32 scale a block

struct NsaLayerBytes {
  uint64_t profiled = 0;  // what profile_max_num_token counts
  uint64_t stored = 0;    // what the pool allocates
};

NsaLayerBytes nsa_layer_bytes(const LayerCache& l, uint64_t dtype) {
  const uint64_t latent_rope = l.elems_per_token - std::min(l.elems_per_token, l.index_elems);
  const uint64_t rope = latent_rope - std::min(latent_rope, l.latent_elems);
  const uint64_t indexer = l.index_elems + l.index_elems / kNsaQuantBlock * kNsaScaleBytes;
  NsaLayerBytes b;
  b.profiled = latent_rope * dtype + indexer;
  b.stored = dtype == 1 ? l.latent_elems + l.latent_elems / kNsaQuantBlock * kNsaScaleBytes + rope * 2 + indexer
                        : b.profiled;
  return b;
}

bool has_nsa_indexer(const ModelSpec& spec) {
  return std::any_of(spec.layers.begin(), spec.layers.end(),
                     [](const LayerCache& l) { return l.kind == LayerKind::kMlaLatent && l.index_elems != 0; });
}

}  // namespace

KvCell kv_cell(const ModelSpec& spec, const Settings& s) {
  KvCell c;
  const uint64_t width = kv_head_width(spec);
  const uint64_t dtype = s.kv_bytes_per_element != 0 ? s.kv_bytes_per_element : 2;
  const uint64_t head_dim = spec.geometry.head_dim;
  const uint64_t tp = attention_tp(s);
  uint64_t stored_extra = 0;  // NSA: what the pool stores past the profiled cell
  for (const LayerCache& l : spec.layers) {
    uint64_t bytes = 0;
    switch (l.kind) {
      case LayerKind::kMlaLatent: {
        // kv_lora_rank + qk_rope_head_dim, not split by TP. memfit's
        // DeepSeek-V2 layers carry the decompressed rate; every V2 config
        // has 512 + 64.
        const uint64_t elems = spec.model_type == "deepseek_v2" ? 512 + 64 : l.elems_per_token;
        bytes = elems * dtype;
        if (l.index_elems != 0) {
          const NsaLayerBytes nsa = nsa_layer_bytes(l, dtype);
          bytes = nsa.profiled;
          stored_extra = (CheckedBytes(stored_extra) + (nsa.stored - nsa.profiled)).saturated();
        }
        c.mla = true;
        break;
      }
      case LayerKind::kFullAttention:
      case LayerKind::kSlidingWindow:
      case LayerKind::kChunked: {
        // A layer's heads: its elements over 2 x head_dim, or over a
        // head's K + V when they differ; each head cached whole on the
        // ranks it falls to (at least one a rank).
        if (head_dim != 0 && l.elems_per_token % (2 * head_dim) != 0 && width != 0 &&
            l.elems_per_token % width == 0) {
          // K and V of other widths: the layer's heads are its elements
          // over a head's K + V (kv_head_width).
          bytes = (CheckedBytes(kv_heads_per_rank(l.elems_per_token / width, tp)) * width * dtype).saturated();
          break;
        }
        uint64_t heads = spec.geometry.kv_heads;
        if (head_dim != 0 && l.elems_per_token % (2 * head_dim) == 0) heads = l.elems_per_token / (2 * head_dim);
        bytes = heads == 0 || head_dim == 0
                    ? (CheckedBytes::ceil_div(l.elems_per_token, tp) * dtype).saturated()
                    : (CheckedBytes(2) * kv_heads_per_rank(heads, tp) * head_dim * dtype).saturated();
        break;
      }
      case LayerKind::kLinearAttention:
      case LayerKind::kSsm:
      case LayerKind::kConv:
        continue;  // the state pool's (state_pool.h)
      case LayerKind::kSharedKv:
      case LayerKind::kNone:
        continue;
    }
    const bool windowed = l.kind != LayerKind::kFullAttention && l.kind != LayerKind::kMlaLatent && l.window_tokens != 0;
    (windowed ? c.swa_layers : c.full_layers) += 1;
    uint64_t& pool = windowed ? c.swa_bytes : c.full_bytes;
    pool = (CheckedBytes(pool) + bytes).saturated();
    if (c.layer_bytes != 0 && bytes != c.layer_bytes) c.same_layers = false;
    c.layer_bytes = std::max(c.layer_bytes, bytes);
    c.bytes = (CheckedBytes(c.bytes) + bytes).saturated();
  }
  c.stored_bytes = (CheckedBytes(c.bytes) + stored_extra).saturated();
  return c;
}

Result<Plan> plan_sglang(const Model& model, std::span<const SafetensorsTensor> tensors, const Settings& settings) {
  if (settings.gpu_total_bytes == 0) {
    return Error::usage("gpu", "SGLang sizes its KV pool from the GPU's memory: give --gpu NAME "
                               "(the hardware table) or --memory-limit for the GPU's total");
  }
  Plan p;
  p.settings = settings;
  Settings& s = p.settings;
  settle_disaggregation(s);
  const ModelSpec& spec = model.spec;
  if (s.context_length == 0) s.context_length = spec.max_position_tokens;
  if (s.context_length == 0) {
    return Error::usage("context_length", "the config gives no context (max_position_embeddings): "
                                          "give --context-length");
  }
  p.gpu_mem_mib = s.gpu_mem_mib != 0 ? s.gpu_mem_mib : s.gpu_total_bytes / kMiB;
  const GpuDefaults d = gpu_defaults(p.gpu_mem_mib, s.tensor_parallel, has_mid_tier_37898(s));
  p.mem_fraction_computed = !s.mem_fraction_static.has_value();
  p.piecewise_rule_date = piecewise_rule_date(spec, s);
  if (!s.mem_fraction_static) {
    Settings with_piecewise = s;
    with_piecewise.piecewise_log_date = p.piecewise_rule_date;
    p.mem_fraction_static = default_mem_fraction(p.gpu_mem_mib, d, with_piecewise, kv_cell(spec, s).mla);
  } else {
    p.mem_fraction_static = *s.mem_fraction_static;
  }
  if (s.attention_backend.empty() && s.rocm) s.attention_backend = "aiter";
  if (s.attention_backend == "aiter" && s.context_length > kAiterLongContextTokens) {
    p.mem_fraction_static *= kAiterFractionScale;
    p.aiter_fraction_cut = true;
  }
  s.chunked_prefill_size = s.chunked_prefill_size.value_or(d.chunked_prefill_size);
  s.cuda_graph_max_bs = s.cuda_graph_max_bs.value_or(d.cuda_graph_max_bs);

  // An MXFP4 checkpoint's experts as the MoE kernel lays them out
  // (sglang_mxfp4_kernel).
  Result<TpRankWeights> weights = tp_rank_weights(model, tensors, s.tensor_parallel, s.mxfp4_kernel);
  if (!weights) return weights.error();
  // The allocator's rounding of each parameter's segment, each shaped by
  // its own group: SGLang's "mem usage" counts it (allocator_rounding.h).
  const RankSplit split{.tensor_parallel = s.tensor_parallel,
                        .attention_tp = attention_tp(s),
                        .expert_parallel = s.ep_size,
                        .dp_attention = s.dp_attention && s.dp_size > 1,
                        .dp_lm_head = s.dp_lm_head,
                        .mla_embedding_by_attention_tp =
                            rule_applies(s, kMlaEmbeddingAttnTpRelease, kMlaEmbeddingAttnTpDate),
                        .deepep = s.moe_a2a_backend == "deepep"};
  p.allocator_rounding_bytes = allocator_rounding_bytes(spec, split);
  // Under DP attention a rank holds its attention at the attention TP's
  // split and the embedding whole (an MLA model's from 0.5.8 by the
  // attention TP group: dp_attention_weights.h).
  p.dp_attention_weights_bytes = dp_attention_weights_bytes(spec, s.tensor_parallel, attention_tp(s), s.dp_lm_head,
                                                            split.mla_embedding_by_attention_tp);
  // The rotary cache as SGLang keeps it (float32 on CUDA since #3134; an
  // MLA model's qk_rope_head_dim wide) in place of the shared rule's, and
  // an MLA model's absorbed w_kc / w_vc (held_weights.h).
  // A MUSA build's is cast to the model's dtype like ROCm's (plan.h,
  // Settings::musa).
  p.rope_cache_bytes =
      rope_cache_bytes(spec, !s.rocm && !s.musa && rule_applies(s, kFp32RopeRelease, kFp32RopeDate));
  p.absorbed_kv_b_bytes = absorbed_kv_b_bytes(spec, attention_tp(s), s.rocm);
  // Under DeepEP an MLA model's shared experts are whole on every rank
  // (held_weights.h).
  p.deepep_shared_expert_bytes = deepep_shared_expert_bytes(spec, s.tensor_parallel, split.deepep);
  const CheckedBytes held = CheckedBytes(weights->bytes) - weights->rope_cache_bytes;
  p.weights_bytes = (held + p.rope_cache_bytes + p.absorbed_kv_b_bytes + p.allocator_rounding_bytes +
                     p.dp_attention_weights_bytes + p.deepep_shared_expert_bytes)
                        .saturated();
  p.weights_exact = weights->exact && p.dp_attention_weights_bytes == 0 && p.deepep_shared_expert_bytes == 0;
  p.speed_weights_bytes =
      (CheckedBytes(weights->bytes) + p.dp_attention_weights_bytes + p.deepep_shared_expert_bytes).saturated();

  // profile_max_num_token: rest = free after the load - free before it x
  // (1 - fraction); tokens = rest // cell; then down to whole pages.
  p.startup_bytes = std::min(kStartupBytes, s.gpu_total_bytes);
  p.free_before_load_bytes = s.gpu_total_bytes - p.startup_bytes;
  p.free_after_load_bytes = p.free_before_load_bytes - std::min(p.free_before_load_bytes, p.weights_bytes);
  p.reserved_bytes = static_cast<uint64_t>(static_cast<long double>(p.free_before_load_bytes) *
                                           (1.0L - static_cast<long double>(p.mem_fraction_static)));
  // DeepSeek-V3.2 (NSA): --kv-cache-dtype auto is fp8_e4m3 on SM 10 and
  // later, bfloat16 before (server_args.py, the DeepseekV32ForCausalLM
  // adjustments: "fp8_e4m3" if major >= 10 else "bfloat16").
  if (s.kv_bytes_per_element == 0 && s.sm10_or_later && has_nsa_indexer(spec)) {
    s.kv_bytes_per_element = 1;
    s.kv_cache_dtype = "fp8_e4m3";
  }
  p.cell = kv_cell(spec, s);
  if (p.cell.bytes == 0) {
    // A refusal of the engine for this model (kUsage, as a field another
    // engine answers): `inspect --compare` prints it on sglang's own row.
    return Error::usage("engine", "sglang: the model has no attention layer whose KV pool SGLang "
                                  "sizes (an encoder, or state layers only): price it with another "
                                  "engine (vllm, llamacpp)");
  }
  uint64_t rest = p.free_after_load_bytes - std::min(p.free_after_load_bytes, p.reserved_bytes);
  // handle_max_mamba_cache: the state pool comes out of the rest first.
  Result<StateCell> state = state_cell(spec, attention_tp(s), s.state.ssm_bytes);
  if (!state) return state.error();
  p.state = *state;
  const uint64_t dp_attention = s.dp_attention ? s.dp_size : 1;
  p.state_pool = size_state_pool(rest, p.state, s.state, s.max_running_requests, dp_attention);
  const bool state_fits = p.state_pool.bytes <= rest;
  rest = state_fits ? rest - p.state_pool.bytes : 0;
  const uint64_t page = std::max<uint64_t>(1, s.page_size);
  // The pool the memory allows; the default request count is taken from it,
  // before --max-total-tokens caps it (model_runner.py, init_memory_pool:
  // max_num_reqs from the profiled max_total_num_tokens, then
  // min(max_total_num_tokens, max_total_tokens), then down to whole pages).
  const uint64_t profiled_tokens = rest / p.cell.bytes / page * page;
  p.max_total_num_tokens =
      s.max_total_tokens ? std::min(profiled_tokens, *s.max_total_tokens) / page * page : profiled_tokens;
  const bool hybrid = p.cell.swa_layers != 0 && p.cell.full_layers != 0;
  if (hybrid && p.cell.same_layers) split_swa(p);
  if (hybrid && !p.cell.same_layers) split_swa_by_pool(rest, page, p);
  // Each pool at its own tokens and bytes a token (SWAKVPool's two
  // MHATokenToKVPool: K and V buffers of tokens x heads x their dims).
  p.kv_pool_bytes = hybrid ? (CheckedBytes(p.max_total_num_tokens) * p.cell.full_bytes +
                              CheckedBytes(p.swa_tokens) * p.cell.swa_bytes)
                                 .saturated()
                           : (CheckedBytes(p.max_total_num_tokens) * p.cell.stored_bytes).saturated();
  p.starts = state_fits && p.max_total_num_tokens > 0 && p.weights_bytes < p.free_before_load_bytes;

  p.max_running_requests = s.max_running_requests.value_or(default_requests(profiled_tokens, s.context_length));
  if (p.state.bytes != 0) {
    // init_memory_pool: at most one request per slots_per_request slots.
    p.max_running_requests = std::min(p.max_running_requests, p.state_pool.slots / p.state_pool.slots_per_request);
  }
  p.holds_context = p.max_total_num_tokens >= s.context_length;
  p.serves_request = p.max_running_requests > 0;
  p.req_to_token_bytes =
      (CheckedBytes(p.max_running_requests) * (CheckedBytes(s.context_length) + kReqToTokenExtra) * kReqToTokenSlotBytes)
          .saturated();
  p.cuda_graph_bytes =
      s.disable_cuda_graph ? 0 : (CheckedBytes(*s.cuda_graph_max_bs) * kCudaGraphBytesPerBatch).saturated();
  // The piecewise (prefill) graphs, where on: SGLang's own reserve for them
  // (piecewise_reserve, of the date their rule takes), whether or not the
  // fraction was computed.
  if (!p.piecewise_rule_date.empty()) {
    if (std::optional<PiecewiseReserve> r =
            piecewise_reserve_of(p.piecewise_rule_date, s, *s.chunked_prefill_size, p.cell.mla)) {
      p.piecewise_cuda_graph_bytes = static_cast<uint64_t>(r->mib * static_cast<double>(kMiB));
    }
  }
  p.activation_bytes = activation_bytes(spec, s);
  p.peak_bytes = (CheckedBytes(p.startup_bytes) + p.weights_bytes + p.state_pool.bytes + p.kv_pool_bytes +
                  p.req_to_token_bytes + p.cuda_graph_bytes + p.piecewise_cuda_graph_bytes + p.activation_bytes)
                     .saturated();
  return p;
}

}  // namespace memfit::sglang
