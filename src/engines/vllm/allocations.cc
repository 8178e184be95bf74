// vllm_param_allocations() and vllm_cuda_allocated_slack()
// (vllm/allocations.h): vLLM's parameters of a rank and the rounding
// PyTorch's allocator gives them. c10's constants: docs/engine-vllm.md.
#include "engines/vllm/allocations.h"

#include "engines/shared/parallel_tensors.h"
#include "engines/shared/rope_cache.h"
#include "memfit/parallel_plan.h"
#include "memfit/vllm.h"

namespace memfit {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kMinBlock = 512;                               // round_size
constexpr uint64_t kSmallSize = 1 * kMiB;                         // should_split's large-pool floor
constexpr uint64_t kMinLargeAlloc = 10 * kMiB, kRoundLarge = 2 * kMiB;  // get_allocation_size
constexpr uint64_t kParamBytes = 2;                               // bf16 / fp16

bool is_attention(LayerKind kind) {
  return kind == LayerKind::kFullAttention || kind == LayerKind::kSlidingWindow ||
         kind == LayerKind::kChunked;
}

}  // namespace

std::vector<VllmAllocation> vllm_param_allocations(const ModelSpec& spec, uint64_t tp,
                                                   const VllmExpertPadding& padding) {
  tp = tp == 0 ? 1 : tp;
  const ModelGeometry& g = spec.geometry;
  const bool priced_layout =
      spec.layout == "standard" || spec.layout == "sliding_window" || spec.layout == "chunked";
  if (!spec.quantization.method.empty() || !priced_layout || g.hidden == 0) return {};

  std::vector<VllmAllocation> out;
  const uint64_t layers = spec.layers.size();
  uint64_t attention_layers = 0;
  for (const LayerCache& l : spec.layers) attention_layers += is_attention(l.kind) ? 1 : 0;
  const uint64_t heads = CheckedBytes::ceil_div(g.heads, tp).saturated();
  const uint64_t kv = g.kv_heads == 0 ? 0 : kv_heads_per_rank(g.kv_heads, tp);
  const CheckedBytes hidden_row = CheckedBytes(g.hidden) * kParamBytes;
  out.push_back({(CheckedBytes(heads) + kv * 2) * g.head_dim * hidden_row, attention_layers});  // qkv_proj
  out.push_back({CheckedBytes(heads) * g.head_dim * hidden_row, attention_layers});            // o_proj
  const uint64_t experts = spec.moe.experts;
  if (experts != 0) {
    const uint64_t width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
    const CheckedBytes width_rank = CheckedBytes::ceil_div(width, tp);
    out.push_back({CheckedBytes(experts) * 2 * width_rank * hidden_row + padding.w13, layers});  // w13
    out.push_back({CheckedBytes(experts) * g.hidden * width_rank * kParamBytes + padding.w2, layers});  // w2
    out.push_back({CheckedBytes(experts) * hidden_row, layers});  // the router, whole
  } else {
    const CheckedBytes mlp_rank = CheckedBytes::ceil_div(g.intermediate, tp);
    out.push_back({mlp_rank * 2 * hidden_row, layers});  // gate_up_proj
    out.push_back({mlp_rank * hidden_row, layers});      // down_proj
  }
  out.push_back({hidden_row, layers * 2 + 1});  // the two norms a layer, the final one
  const CheckedBytes rows = CheckedBytes::ceil_div(
      CheckedBytes::ceil_div(g.vocab, kVllmVocabPadding) * kVllmVocabPadding, tp);
  out.push_back({rows * hidden_row, spec.tied_embeddings ? 1u : 2u});  // the vocabulary tables
  const uint64_t mrope = vllm_mrope_cache_bytes(spec);
  out.push_back({mrope != 0 ? CheckedBytes(mrope)
                            : CheckedBytes(spec.max_position_tokens) * g.head_dim * kParamBytes,
                 1});  // the rope cache
  return out;
}

uint64_t vllm_cuda_allocated_slack(std::span<const VllmAllocation> allocations) {
  CheckedBytes slack = 0;
  for (const VllmAllocation& a : allocations) {
    const uint64_t requested = a.bytes.saturated();
    if (requested == 0 || a.count == 0) continue;
    CheckedBytes held = round_up(requested, kMinBlock);
    if (held.saturated() >= kMinLargeAlloc) {
      const CheckedBytes segment = round_up(held, kRoundLarge);
      if ((segment - held).saturated() <= kSmallSize) held = segment;
    }
    slack += (held - requested) * a.count;
  }
  return slack.saturated();
}

}  // namespace memfit
