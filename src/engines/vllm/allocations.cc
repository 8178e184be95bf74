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
// BitsAndBytesLinearMethod's calculate_quant_ratio for a 16-bit params
// dtype: 16 bits over uint8's 8, two 4-bit weights a byte.
constexpr uint64_t kBnb4QuantRatio = 2;

bool is_attention(LayerKind kind) {
  return kind == LayerKind::kFullAttention || kind == LayerKind::kSlidingWindow ||
         kind == LayerKind::kChunked;
}

// A hybrid of attention and gated-delta-net layers alone (Qwen3-Next,
// Qwen3.5): its linear-attention layers' parameters are known
// (gated_delta_allocations); a Mamba hybrid's are not listed.
bool is_gated_delta_hybrid(const ModelSpec& spec) {
  if (spec.layout != "hybrid" || spec.gated_delta.key_heads == 0 || spec.mamba2.layers != 0) return false;
  for (const LayerCache& l : spec.layers) {
    if (!is_attention(l.kind) && l.kind != LayerKind::kLinearAttention) return false;
  }
  return true;
}

// One rank's parameters of a gated delta net (GatedDeltaNetAttention,
// layers/mamba/gdn_linear_attn.py; qwen3_next.py before it), `layers` of
// them, with kd = key heads x key dim, vd = value heads x value dim:
// in_proj_qkvz [(2 kd + 2 vd) / TP, hidden] and in_proj_ba [2 x value
// heads / TP, hidden] (MergedColumnParallelLinear), conv1d [(2 kd + vd) /
// TP, 1, kernel] (ColumnParallelLinear), dt_bias [value heads / TP] at 2 B
// and A_log at 4 B (float32), the gated norm [value dim] whole, out_proj
// [hidden, vd / TP] (RowParallelLinear).
void gated_delta_allocations(const ModelSpec& spec, uint64_t tp, uint64_t layers,
                             std::vector<VllmAllocation>& out) {
  const GatedDeltaGeometry& d = spec.gated_delta;
  const CheckedBytes hidden_row = CheckedBytes(spec.geometry.hidden) * kParamBytes;
  const CheckedBytes kd = CheckedBytes(d.key_heads) * d.key_dim;
  const CheckedBytes vd = CheckedBytes(d.value_heads) * d.value_dim;
  const CheckedBytes heads_rank = CheckedBytes::ceil_div(d.value_heads, tp);
  out.push_back({CheckedBytes::ceil_div(kd * 2 + vd * 2, tp) * hidden_row, layers});  // in_proj_qkvz
  out.push_back({CheckedBytes::ceil_div(CheckedBytes(d.value_heads) * 2, tp) * hidden_row, layers});  // in_proj_ba
  out.push_back({CheckedBytes::ceil_div(kd * 2 + vd, tp) * d.kernel * kParamBytes, layers});  // conv1d
  out.push_back({heads_rank * kParamBytes, layers});                // dt_bias
  out.push_back({heads_rank * 4, layers});                          // A_log, float32
  out.push_back({CheckedBytes(d.value_dim) * kParamBytes, layers});  // the gated norm
  out.push_back({CheckedBytes::ceil_div(vd, tp) * hidden_row, layers});  // out_proj
}

// A dense checkpoint vLLM runs under bitsandbytes 4-bit (a
// quantization_config of load_in_4bit, or --quantization bitsandbytes's
// in-flight NF4, logs/vllm_online_bnb.cc): every decoder linear layer is
// BitsAndBytesLinearMethod's, whose create_weights (create_qweight_for_4bit,
// model_executor/layers/quantization/bitsandbytes.py, the same in the v0.8
// line and the newest source read) makes one uint8 parameter of
// input_size_per_partition x sum(output_partition_sizes) / quant_ratio
// bytes, shape [that, 1], per fused layer; the embedding, the LM head and
// the norms stay 16-bit. Unpriced: a mixture of experts (its experts are
// another method's) and a checkpoint that leaves modules other than
// lm_head unquantized (llm_int8_skip_modules: those layers are 16-bit).
bool is_dense_bnb_4bit(const ModelSpec& spec) {
  const QuantizationInfo& q = spec.quantization;
  if (q.method != "bitsandbytes" || q.bits != 4 || spec.moe.experts != 0) return false;
  for (const std::string& m : q.unquantized_modules) {
    if (m != "lm_head") return false;
  }
  return true;
}

}  // namespace

std::vector<VllmAllocation> vllm_param_allocations(const ModelSpec& spec, uint64_t tp,
                                                   const VllmExpertPadding& padding) {
  tp = tp == 0 ? 1 : tp;
  const ModelGeometry& g = spec.geometry;
  const bool standard = spec.layout == "standard" || spec.layout == "sliding_window" ||
                        spec.layout == "chunked";
  const bool bnb4 = is_dense_bnb_4bit(spec);
  const bool priced = spec.quantization.method.empty()
                          ? standard || is_gated_delta_hybrid(spec)
                          : bnb4 && standard;
  if (!priced || g.hidden == 0) return {};

  std::vector<VllmAllocation> out;
  const uint64_t layers = spec.layers.size();
  uint64_t attention_layers = 0;
  for (const LayerCache& l : spec.layers) attention_layers += is_attention(l.kind) ? 1 : 0;
  const uint64_t heads = CheckedBytes::ceil_div(g.heads, tp).saturated();
  const uint64_t kv = g.kv_heads == 0 ? 0 : kv_heads_per_rank(g.kv_heads, tp);
  const CheckedBytes hidden_row = CheckedBytes(g.hidden) * kParamBytes;
  // A linear layer's weight of `elements` (output rows per rank x input
  // columns per rank): 2 B an element, or under bitsandbytes 4-bit the
  // single uint8 [elements / 2, 1] parameter create_qweight_for_4bit makes.
  const auto linear = [&](const CheckedBytes& elements) {
    return bnb4 ? CheckedBytes::ceil_div(elements, kBnb4QuantRatio) : elements * kParamBytes;
  };
  // A gated attention's q_proj writes the output gate too: twice the
  // query rows (Qwen3NextAttention's qkv_proj).
  const uint64_t q_rows = spec.attention_output_gate ? 2 : 1;
  out.push_back({linear((CheckedBytes(heads) * q_rows + kv * 2) * g.head_dim * g.hidden), attention_layers});  // qkv_proj
  out.push_back({linear(CheckedBytes(heads) * g.head_dim * g.hidden), attention_layers});  // o_proj
  if (spec.qkv_bias) {
    // QKVParallelLinear's one bias: the rank's q, k and v rows, 2 B each
    // whatever the weight's quantization.
    out.push_back({(CheckedBytes(heads) + kv * 2) * g.head_dim * kParamBytes, attention_layers});  // qkv bias
  }
  if (spec.layout == "hybrid") gated_delta_allocations(spec, tp, layers - attention_layers, out);
  const uint64_t experts = spec.moe.experts;
  if (experts != 0) {
    const uint64_t width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
    const CheckedBytes width_rank = CheckedBytes::ceil_div(width, tp);
    out.push_back({CheckedBytes(experts) * 2 * width_rank * hidden_row + padding.w13, layers});  // w13
    out.push_back({CheckedBytes(experts) * g.hidden * width_rank * kParamBytes + padding.w2, layers});  // w2
    out.push_back({CheckedBytes(experts) * hidden_row, layers});  // the router, whole
  } else {
    const CheckedBytes mlp_rank = CheckedBytes::ceil_div(g.intermediate, tp);
    out.push_back({linear(mlp_rank * 2 * g.hidden), layers});  // gate_up_proj
    out.push_back({linear(mlp_rank * g.hidden), layers});      // down_proj
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
