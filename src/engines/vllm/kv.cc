// vLLM's KV cache layout and capacity (vllm.h): each layer's spec and page,
// the groups vLLM forms of them, the blocks and tokens a KV budget holds and
// the blocks a request needs. The rules, with the vLLM sources behind each:
// docs/engine-vllm.md, "KV cache layout and capacity (exact rules)".
#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "memfit/checked_math.h"
#include "engines/shared/parallel_tensors.h"
#include "memfit/parallel_plan.h"
#include "memfit/vllm.h"
#include "engines/vllm/compressed_kv.h"
#include "engines/vllm/parts.h"
#include "engines/vllm/sparse_mla.h"

namespace memfit {
namespace {

// memfit's spec prices every recurrent state element at f32 (the SSM part
// at 2 when the config names a 16-bit cache dtype): recurrent_state.h.
constexpr uint64_t kSpecStateF32Bytes = 4;

struct LayerSpec {
  VllmSpecKind kind = VllmSpecKind::kFullAttention;
  uint64_t window = 0;
  uint64_t per_token = 0;  // attention: bytes per token per layer; Mamba: 0
  uint64_t state = 0;      // Mamba: state bytes per rank
};

// Latent + rope elements per token of an MLA layer as vLLM caches it.
// memfit's DeepSeek-V2 layers carry the decompressed per-head rate (the
// MLX runtime's, docs/cache-layouts.md); every DeepSeek-V2 config has
// kv_lora_rank 512 and qk_rope_head_dim 64.
uint64_t mla_elems(const ModelSpec& spec, const LayerCache& l) {
  return spec.model_type == "deepseek_v2" ? 512 + 64 : l.elems_per_token;
}

uint64_t request_blocks(const VllmGroup& g, const VllmSettings& s, uint64_t len) {
  switch (g.kind) {
    case VllmSpecKind::kMamba:
      return 1 + s.num_speculative_tokens;
    case VllmSpecKind::kSlidingWindow: {
      const uint64_t tokens = std::min(g.window - 1 + s.max_num_batched_tokens, len);
      return (tokens + g.block_size - 1) / g.block_size + 1;
    }
    case VllmSpecKind::kChunkedLocal: {
      const uint64_t tokens = std::min(g.window + s.max_num_batched_tokens, len);
      return (tokens + g.block_size - 1) / g.block_size;
    }
    case VllmSpecKind::kFullAttention:
    case VllmSpecKind::kMla:
      return (len + g.block_size - 1) / g.block_size;
  }
  return 0;
}

// The flags as a gated delta net reads them: before vllm#34489
// (kVllmGatedDeltaSsmFlagMinor) gated_delta_net_state_dtype took
// mamba_cache_dtype alone, --mamba-ssm-cache-dtype ignored.
VllmMambaDtypes gated_delta_dtypes(const VllmSettings& s) {
  VllmMambaDtypes dtypes = vllm_mamba_dtypes(s);
  if (s.release && s.release->major == 0 && s.release->minor < kVllmGatedDeltaSsmFlagMinor) {
    dtypes.ssm = "auto";
  }
  return dtypes;
}

// One recurrent layer's state on one of `tp` ranks, as vLLM's MambaSpec
// holds it (docs/engine-vllm.md, "Recurrent state dtypes"): a gated delta
// net's and a Mamba-2 mixer's from their geometry; MiniMax's lightning
// attention in the model's dtype (linear_attention_state_dtype: memfit's
// spec prices it at f32); Mamba-1 (Mamba, Jamba) and short convolutions
// with the convolution in the model's dtype and the SSM state as memfit's
// spec has it (the config's width, f32 unless it names a 16-bit one).
uint64_t recurrent_state_bytes(const ModelSpec& spec, const LayerCache& l, const VllmSettings& s) {
  const uint64_t tp = std::max<uint64_t>(1, s.tensor_parallel);
  const VllmMambaDtypes dtypes = vllm_mamba_dtypes(s);
  const uint64_t conv_element = vllm_mamba_conv_element_bytes(dtypes);
  if (l.kind == LayerKind::kLinearAttention) {
    if (spec.gated_delta.key_heads != 0) return vllm_gated_delta_state_bytes(spec, tp, gated_delta_dtypes(s));
    // linear_attention_state_dtype: mamba_cache_dtype alone.
    return CheckedBytes::ceil_div(CheckedBytes(l.state_bytes / kSpecStateF32Bytes) * conv_element, tp)
        .saturated();
  }
  if (l.kind == LayerKind::kSsm && spec.mamba2.heads != 0) {
    return vllm_mamba2_state_bytes(spec, tp, s.release, dtypes);
  }
  // The convolution (memfit's spec: f32) in mamba_cache_dtype's width; the
  // rest as the spec holds it.
  const uint64_t conv_f32 = std::min(l.state_bytes, spec.conv_state_bytes);
  const CheckedBytes state = CheckedBytes(l.state_bytes - conv_f32) +
                             CheckedBytes(conv_f32 / kSpecStateF32Bytes) * conv_element;
  return CheckedBytes::ceil_div(state, tp).saturated();
}

// An attention layer's spec: full, sliding or chunked, with one rank's K
// and V bytes per token.
LayerSpec attention_spec(const ModelSpec& spec, const LayerCache& l, uint64_t tp, uint64_t dtype) {
  const uint64_t head_dim = spec.geometry.head_dim;
  LayerSpec ls;
  ls.kind = l.kind == LayerKind::kFullAttention ? VllmSpecKind::kFullAttention
            : l.kind == LayerKind::kSlidingWindow ? VllmSpecKind::kSlidingWindow
                                                  : VllmSpecKind::kChunkedLocal;
  if (l.window_tokens == 0) ls.kind = VllmSpecKind::kFullAttention;
  ls.window = ls.kind == VllmSpecKind::kFullAttention ? 0 : l.window_tokens;
  // KV heads of this layer: elems = 2 x heads x head_dim.
  uint64_t heads = spec.geometry.kv_heads;
  if (head_dim != 0 && l.elems_per_token % (2 * head_dim) == 0) {
    heads = l.elems_per_token / (2 * head_dim);
  }
  if (heads == 0 || head_dim == 0) {
    ls.per_token = (CheckedBytes::ceil_div(l.elems_per_token, tp) * dtype).saturated();
  } else {
    ls.per_token = (CheckedBytes(2) * kv_heads_per_rank(heads, tp) * head_dim * dtype).saturated();
  }
  return ls;
}

// The layers' specs as vLLM builds them, in layer order; layers that hold
// nothing are left out, and a sparse-MLA layer adds its indexer's cache.
std::vector<LayerSpec> layer_specs(const ModelSpec& spec, const VllmSettings& s,
                                   const std::optional<VllmSparseMla>& sparse) {
  const uint64_t tp = std::max<uint64_t>(1, s.tensor_parallel);
  const uint64_t dtype = s.kv_cache_fp8 ? 1 : 2;
  std::vector<LayerSpec> layers;
  for (const LayerCache& l : spec.layers) {
    LayerSpec ls;
    switch (l.kind) {
      case LayerKind::kFullAttention:
      case LayerKind::kSlidingWindow:
      case LayerKind::kChunked:
        if (l.elems_per_token == 0) continue;
        ls = attention_spec(spec, l, tp, dtype);
        break;
      case LayerKind::kMlaLatent:
        if (l.elems_per_token == 0) continue;
        ls.kind = VllmSpecKind::kMla;
        ls.per_token = sparse ? sparse->mla_token_bytes
                              : (CheckedBytes(mla_elems(spec, l)) * dtype).saturated();
        if (sparse) {
          // The indexer's cache: a second MLA-type layer of its own page.
          LayerSpec indexer;
          indexer.kind = VllmSpecKind::kMla;
          indexer.per_token = sparse->indexer_token_bytes;
          layers.push_back(ls);
          ls = indexer;
        }
        break;
      case LayerKind::kLinearAttention:
      case LayerKind::kSsm:
      case LayerKind::kConv:
        if (l.state_bytes == 0) continue;
        ls.kind = VllmSpecKind::kMamba;
        ls.state = recurrent_state_bytes(spec, l, s);
        break;
      case LayerKind::kSharedKv:
      case LayerKind::kNone:
        continue;
    }
    layers.push_back(ls);
  }
  return layers;
}

// Hybrid attention + Mamba models: the attention block size becomes the
// smallest multiple of kVllmKernelBlockAlignment whose page holds a Mamba
// state. Sets the layout's Mamba figures; returns the largest attention
// bytes per token (0: no attention layer).
uint64_t align_block_to_mamba(const std::vector<LayerSpec>& layers, VllmKvLayout& out) {
  uint64_t attn_per_token = 0, mamba_state = 0;
  for (const LayerSpec& l : layers) {
    if (l.kind == VllmSpecKind::kMamba) mamba_state = std::max(mamba_state, l.state);
    else attn_per_token = std::max(attn_per_token, l.per_token);
  }
  out.mamba_state_bytes = mamba_state;
  out.hybrid_mamba = mamba_state != 0;
  if (mamba_state != 0 && attn_per_token != 0) {
    const uint64_t unit = kVllmKernelBlockAlignment * attn_per_token;
    const uint64_t aligned = (mamba_state + unit - 1) / unit * kVllmKernelBlockAlignment;
    out.attention_block_size = std::max(out.attention_block_size, aligned);
  }
  return attn_per_token;
}

// A spec: (kind, window, page bytes), with its layer count.
using SpecKey = std::tuple<VllmSpecKind, uint64_t, uint64_t>;
using SpecCounts = std::vector<std::pair<SpecKey, uint64_t>>;

// The layers' specs with their layer counts, in first-seen order. Pages
// are per layer at the attention block size; Mamba pages are padded to
// the attention page.
SpecCounts count_specs(const std::vector<LayerSpec>& layers, uint64_t block,
                       uint64_t attn_per_token) {
  const uint64_t attn_page = (CheckedBytes(block) * attn_per_token).saturated();
  auto page_of = [&](const LayerSpec& l) -> uint64_t {
    if (l.kind == VllmSpecKind::kMamba) return attn_per_token != 0 ? attn_page : l.state;
    return (CheckedBytes(block) * l.per_token).saturated();
  };
  SpecCounts specs;
  for (const LayerSpec& l : layers) {
    const SpecKey k{l.kind, l.window, page_of(l)};
    auto it = std::find_if(specs.begin(), specs.end(), [&](const auto& p) { return p.first == k; });
    if (it == specs.end()) specs.push_back({k, 1});
    else ++it->second;
  }
  return specs;
}

VllmGroup make_group(VllmSpecKind kind, uint64_t window, uint64_t block_size, uint64_t n) {
  VllmGroup g;
  g.kind = kind;
  g.window = window;
  g.block_size = block_size;
  g.layers = n;
  return g;
}

// True when every spec has the first one's kind and window (pages may differ).
bool one_type(const SpecCounts& specs) {
  bool same = true;
  for (const auto& [k, n] : specs) {
    same = same && std::get<0>(k) == std::get<0>(specs[0].first) &&
           std::get<1>(k) == std::get<1>(specs[0].first);
  }
  return same;
}

// One spec of one page: one group of every layer.
void group_one_spec(const SpecCounts& specs, uint64_t block, VllmKvLayout& out) {
  const auto& [k, n] = specs[0];
  out.page_size_bytes = std::get<2>(k);
  out.group_size = n;
  out.groups.push_back(make_group(std::get<0>(k), std::get<1>(k), block, n));
  out.bytes_per_block = (CheckedBytes(out.page_size_bytes) * n).saturated();
}

// One type, pages of different sizes: every layer its own page per block.
void group_one_type(const SpecCounts& specs, uint64_t block, VllmKvLayout& out) {
  out.uniform_type = true;
  CheckedBytes sum = 0;
  uint64_t count = 0;
  for (const auto& [k, n] : specs) {
    sum += CheckedBytes(std::get<2>(k)) * n;
    count += n;
    out.page_size_bytes = std::max(out.page_size_bytes, std::get<2>(k));
  }
  out.group_size = count;
  out.groups.push_back(make_group(std::get<0>(specs[0].first), std::get<1>(specs[0].first), block, count));
  out.bytes_per_block = sum.saturated();
}

// Unify pages: smaller pages scale their block size up to the largest,
// and each spec's layers are split into groups of group_size layers.
Status group_unified_pages(const SpecCounts& specs, uint64_t block, VllmKvLayout& out) {
  uint64_t max_page = 0;
  for (const auto& [k, n] : specs) max_page = std::max(max_page, std::get<2>(k));
  if (max_page == 0) return Error::usage("tensor_parallel", "vLLM: a KV cache page of 0 bytes");
  uint64_t min_n = UINT64_MAX, max_n = 0;
  // Merge specs that differ only by page into (kind, window) with their block size.
  std::vector<std::tuple<VllmSpecKind, uint64_t, uint64_t, uint64_t>> types;  // kind, window, block, n
  for (const auto& [k, n] : specs) {
    const uint64_t page = std::get<2>(k);
    if (page == 0 || max_page % page != 0) {
      return Error::usage("engine", fmt::format("vLLM cannot unify this model's KV page sizes "
                                                "({} and {} bytes): it refuses to start",
                                                page, max_page));
    }
    const uint64_t bs = std::get<0>(k) == VllmSpecKind::kMamba ? block : block * (max_page / page);
    types.emplace_back(std::get<0>(k), std::get<1>(k), bs, n);
    min_n = std::min(min_n, n);
    max_n = std::max(max_n, n);
  }
  uint64_t group_size = min_n;
  if (max_n * 2 < min_n * 3) group_size = max_n;  // max < 1.5 x min
  out.page_size_bytes = max_page;
  out.group_size = group_size;
  for (const auto& [kind, window, bs, n] : types) {
    const uint64_t groups = (n + group_size - 1) / group_size;
    for (uint64_t i = 0; i < groups; ++i) {
      // layers[i::groups]: the first n % groups groups get one more.
      const uint64_t count = n / groups + (i < n % groups ? 1 : 0);
      out.groups.push_back(make_group(kind, window, bs, count));
    }
  }
  out.bytes_per_block = (CheckedBytes(max_page) * group_size).saturated();
  return Status::Ok();
}

}  // namespace

Result<std::string> parse_vllm_mamba_dtype(std::string_view text) {
  if (text == "auto" || text == "float32" || text == "float16" || text == "bfloat16") {
    return std::string(text);
  }
  return Error::usage("", fmt::format("'{}': expected auto, float32, float16 or bfloat16", text));
}

Status check_vllm_mamba_dtypes(const VllmSettings& s) {
  for (const auto& [field, dtype] : {std::pair{kVllmMambaCacheDtypeField, &s.mamba_cache_dtype},
                                     std::pair{kVllmMambaSsmCacheDtypeField, &s.mamba_ssm_cache_dtype}}) {
    if (Result<std::string> parsed = parse_vllm_mamba_dtype(*dtype); !parsed) {
      return Error::usage(field, parsed.error().message());
    }
    if (*dtype == "auto" || !s.release || s.release->major != 0) continue;
    const uint64_t minor = s.release->minor;
    // The flags came with vllm#22928 (0.10.2): v0.7 has none.
    if (minor < 10) return Error::usage(field, "vLLM 0.7 has no such flag (from 0.10.2, vllm#22928)");
    if (*dtype == "float16" && minor < kVllmMambaFloat16Minor) {
      return Error::usage(field, "float16 is a choice from vLLM 0.13 (vllm#29978)");
    }
    if (*dtype == "bfloat16" && minor < kVllmMambaBfloat16Minor) {
      return Error::usage(field, "bfloat16 is a choice from vLLM 0.21 (vllm#41680)");
    }
  }
  return Status::Ok();
}

uint64_t vllm_mamba_named_dtype_bytes(std::string_view dtype) {
  return dtype == "float32" ? 4 : kVllmModelDtypeBytes;
}

uint64_t vllm_mamba_conv_element_bytes(const VllmMambaDtypes& dtypes) {
  // get_kv_cache_torch_dtype: "auto" is the model's dtype (16-bit here).
  return dtypes.cache == "auto" ? kVllmModelDtypeBytes : vllm_mamba_named_dtype_bytes(dtypes.cache);
}

uint64_t vllm_gated_delta_temporal_element_bytes(const ModelSpec& spec, const VllmMambaDtypes& dtypes) {
  // An explicit --mamba-ssm-cache-dtype: the hook below acts only on "auto".
  if (dtypes.ssm != "auto") return vllm_mamba_named_dtype_bytes(dtypes.ssm);
  // Qwen3_5ForConditionalGenerationConfig (models/config.py, vllm#34489)
  // maps Qwen3_5ForConditionalGeneration and Qwen3_5MoeForConditionalGeneration,
  // whose configs are model_type qwen3_5 / qwen3_5_moe; every Qwen3.5 and
  // Qwen3.6 checkpoint's text_config says float32.
  if (spec.model_type == "qwen3_5" || spec.model_type == "qwen3_5_moe") return 4;
  return vllm_mamba_conv_element_bytes(dtypes);  // "auto": the conv state's dtype
}

uint64_t vllm_gated_delta_state_bytes(const ModelSpec& spec, uint64_t tensor_parallel,
                                      const VllmMambaDtypes& dtypes) {
  const GatedDeltaGeometry& d = spec.gated_delta;
  const uint64_t tp = std::max<uint64_t>(1, tensor_parallel);
  // gated_delta_net_state_shape: conv (K - 1 + num_spec) x conv_dim / TP,
  // temporal value_heads / TP x value_dim x key_dim (no speculative columns
  // priced here: docs/engine-vllm.md).
  const CheckedBytes conv_channels =
      CheckedBytes(2) * d.key_heads * d.key_dim + CheckedBytes(d.value_heads) * d.value_dim;
  const uint64_t columns = d.kernel > 0 ? d.kernel - 1 : 0;
  const CheckedBytes conv =
      CheckedBytes::ceil_div(conv_channels, tp) * columns * vllm_mamba_conv_element_bytes(dtypes);
  const CheckedBytes temporal = CheckedBytes::ceil_div(d.value_heads, tp) * d.key_dim * d.value_dim *
                                vllm_gated_delta_temporal_element_bytes(spec, dtypes);
  return (conv + temporal).saturated();
}

uint64_t vllm_mamba_ssm_element_bytes(const ModelSpec& spec, const std::optional<VllmRelease>& release,
                                      const VllmMambaDtypes& dtypes) {
  // An explicit --mamba-ssm-cache-dtype: the hook below acts only on "auto".
  if (dtypes.ssm != "auto") return vllm_mamba_named_dtype_bytes(dtypes.ssm);
  // NemotronHForCausalLMConfig (models/config.py, vllm#29978, in 0.13.0;
  // vllm#39032) sets "auto" from the config's mamba_ssm_cache_dtype: the
  // width memfit's spec priced the SSM state at, recovered from the first
  // Mamba layer. Before 0.13 Nemotron-H had no hook: "auto", the
  // convolution state's dtype (_mamba_state_dtype).
  const uint64_t conv_element = vllm_mamba_conv_element_bytes(dtypes);
  if (spec.model_type != "nemotron_h") return conv_element;
  if (release && release->major == 0 && release->minor < kVllmNemotronHHookMinor) {
    return conv_element;
  }
  const Mamba2Geometry& m = spec.mamba2;
  const uint64_t head_dim = m.heads == 0 ? 0 : m.inner / m.heads;
  const uint64_t elements = (CheckedBytes(m.heads) * head_dim * m.state).saturated();
  for (const LayerCache& l : spec.layers) {
    if (l.kind != LayerKind::kSsm || elements == 0) continue;
    const uint64_t ssm = l.state_bytes - std::min(l.state_bytes, spec.conv_state_bytes);
    return ssm / elements == 2 ? 2 : kSpecStateF32Bytes;
  }
  return kSpecStateF32Bytes;
}

uint64_t vllm_mamba2_state_bytes(const ModelSpec& spec, uint64_t tensor_parallel,
                                 const std::optional<VllmRelease>& release,
                                 const VllmMambaDtypes& dtypes) {
  const Mamba2Geometry& m = spec.mamba2;
  const uint64_t tp = std::max<uint64_t>(1, tensor_parallel);
  // mamba2_state_shape: groups not divisible by TP grow to TP
  // (extra_groups_for_head_shards); conv (inner + 2 x groups x state) / TP
  // channels x (kernel - 1) columns; temporal heads / TP x head_dim x state.
  const uint64_t groups = m.groups % tp == 0 ? m.groups : tp;
  const CheckedBytes conv_channels = CheckedBytes(m.inner) + CheckedBytes(2) * groups * m.state;
  const uint64_t columns = m.kernel > 0 ? m.kernel - 1 : 0;
  const uint64_t head_dim = m.heads == 0 ? 0 : m.inner / m.heads;
  const CheckedBytes conv =
      CheckedBytes::ceil_div(conv_channels, tp) * columns * vllm_mamba_conv_element_bytes(dtypes);
  const CheckedBytes temporal = CheckedBytes::ceil_div(m.heads, tp) * head_dim * m.state *
                                vllm_mamba_ssm_element_bytes(spec, release, dtypes);
  return (conv + temporal).saturated();
}

std::string_view to_string(VllmSpecKind kind) {
  switch (kind) {
    case VllmSpecKind::kFullAttention: return "full_attention";
    case VllmSpecKind::kSlidingWindow: return "sliding_window";
    case VllmSpecKind::kChunkedLocal: return "chunked_local";
    case VllmSpecKind::kMla: return "mla";
    case VllmSpecKind::kMamba: return "mamba";
  }
  return "full_attention";
}

Result<VllmKvLayout> vllm_kv_layout(const ModelSpec& spec, const VllmSettings& s) {
  if (std::optional<VllmKvLayout> compressed = vllm_compressed_layout(spec, s)) {
    return std::move(*compressed);
  }
  const std::optional<VllmSparseMla> sparse = vllm_sparse_mla(spec, s);
  const std::vector<LayerSpec> layers = layer_specs(spec, s, sparse);

  VllmKvLayout out;
  const bool mla = std::any_of(spec.layers.begin(), spec.layers.end(), [](const LayerCache& l) {
    return l.kind == LayerKind::kMlaLatent && l.elems_per_token != 0;
  });
  out.attention_block_size = sparse ? sparse->block_size : mla ? vllm_mla_block_size(s) : s.block_size;
  if (layers.empty()) return out;  // attention-free: no KV cache
  const uint64_t attn_per_token = align_block_to_mamba(layers, out);
  const uint64_t block = out.attention_block_size;
  if ((CheckedBytes(block) * attn_per_token).saturated() == UINT64_MAX) {
    return Error::overflow("vLLM KV page size overflows 64 bits");
  }

  const SpecCounts specs = count_specs(layers, block, attn_per_token);
  if (specs.size() == 1) {
    group_one_spec(specs, block, out);
  } else if (one_type(specs)) {
    group_one_type(specs, block, out);
  } else if (Status refused = group_unified_pages(specs, block, out); !refused) {
    return refused.error();
  }
  if (out.bytes_per_block == UINT64_MAX) return Error::overflow("vLLM KV block size overflows 64 bits");
  return out;
}

// The release decides the form: vLLM 0.20.0 still prints the
// per-group form (a Qwen3.6-35B-A3B run: 75,456 tokens = 36 blocks a group
// x 2,096, next to 3.87x of 65,536), and 0.21.0 computes the concurrency
// first and prints both lines one source line apart (kv_cache_utils.py:1710
// and 1711), as every later release in the corpus does (0.22.0 to 0.26).
// A log's own records can say more (a 0.20.2 run already prints the later
// form): check-log reads them first (logs/vllm_tokens_form.cc).
VllmTokensForm vllm_tokens_form(const std::optional<VllmRelease>& release) {
  // No release: the current line's (0.21 on).
  if (!release || release->major > 0 || release->minor >= 21) return VllmTokensForm::kConcurrencyTimesLen;
  return VllmTokensForm::kBlocksPerGroup;
}

uint64_t vllm_kv_tokens(const VllmKvLayout& layout, uint64_t num_blocks, uint64_t max_model_len,
                        VllmTokensForm form) {
  if (layout.groups.empty()) return 0;
  // A layout of weighted groups (request_unit_bytes: DeepSeek V4's, which
  // vLLM runs from the 0.22 line on) is only ever printed in the later form.
  if (form == VllmTokensForm::kBlocksPerGroup && layout.request_unit_bytes == 0) {
    uint64_t min_block = UINT64_MAX;
    for (const VllmGroup& g : layout.groups) min_block = std::min(min_block, g.block_size);
    return (CheckedBytes(num_blocks / layout.groups.size()) * min_block).saturated();
  }
  // int(max_model_len x num_blocks / blocks per request), exact in integers.
  const uint64_t per_request = layout.blocks_per_request;
  if (per_request == 0) return 0;
  const CheckedBytes product = CheckedBytes(num_blocks) * max_model_len;
  if (product.value()) return *product.value() / per_request;
  return static_cast<uint64_t>(static_cast<long double>(num_blocks) * max_model_len / per_request);
}

VllmCapacity vllm_capacity(const VllmKvLayout& layout, uint64_t kv_bytes, uint64_t max_model_len,
                           VllmTokensForm form) {
  VllmCapacity c;
  if (layout.groups.empty() || layout.bytes_per_block == 0) return c;
  c.num_blocks = kv_bytes / layout.bytes_per_block;
  const uint64_t per_request = layout.blocks_per_request;
  if (per_request != 0) c.max_concurrency = double(c.num_blocks) / double(per_request);
  c.kv_tokens = vllm_kv_tokens(layout, c.num_blocks, max_model_len, form);
  return c;
}

// Fills each group's blocks per request and their sum for max_model_len.
void vllm_request_blocks(VllmKvLayout& layout, const VllmSettings& s, uint64_t len) {
  layout.blocks_per_request = 0;
  CheckedBytes weighted = 0;
  for (VllmGroup& g : layout.groups) {
    g.blocks_per_request = request_blocks(g, s, len);
    layout.blocks_per_request += g.blocks_per_request;
    weighted += CheckedBytes(g.page_bytes) * g.blocks_per_request;
  }
  if (layout.request_unit_bytes != 0) {
    layout.request_bytes = (CheckedBytes(layout.request_tuple_bytes) * layout.blocks_per_request).saturated();
    layout.blocks_per_request = CheckedBytes::ceil_div(weighted, layout.request_unit_bytes).saturated();
  }
}

bool vllm_request_fits(const VllmKvLayout& layout, uint64_t num_blocks, uint64_t kv_bytes) {
  if (layout.request_unit_bytes != 0) return layout.request_bytes <= kv_bytes;
  return layout.blocks_per_request <= num_blocks;
}

}  // namespace memfit
