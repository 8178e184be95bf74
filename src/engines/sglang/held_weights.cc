// rope_cache_bytes() and absorbed_kv_b_bytes() (held_weights.h).
#include "engines/sglang/held_weights.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "engines/shared/rope_cache.h"
#include "memfit/checked_math.h"

namespace memfit::sglang {
namespace {

constexpr uint64_t kWideBytes = 2;     // bf16 / fp16
constexpr uint64_t kFloat32Bytes = 4;  // SGLang's CUDA rotary cache
constexpr uint64_t kFp8Bytes = 1;      // a per-tensor FP8 requantization
constexpr uint64_t kDequantBlock = 128;  // the CUDA dequantization's block (128 x 128)

bool is_mla(const ModelSpec& spec) {
  return spec.mla.kv_lora_rank != 0 && spec.compressed_attention.compress_ratios.empty();
}

// Whether the config leaves kv_b_proj out of its FP8 quantization.
bool kv_b_unquantized(const QuantizationInfo& q) {
  return std::any_of(q.unquantized_modules.begin(), q.unquantized_modules.end(),
                     [](const std::string& m) { return m.find("kv_b_proj") != std::string::npos; });
}

// The bytes of one absorbed element (held_weights.h).
uint64_t absorbed_element_bytes(const QuantizationInfo& q, bool rocm) {
  if (q.method != "fp8" || kv_b_unquantized(q)) return kWideBytes;
  const bool block_128 = q.block_size.size() == 2 && q.block_size[0] == kDequantBlock &&
                         q.block_size[1] == kDequantBlock;
  return block_128 && !rocm ? kWideBytes : kFp8Bytes;
}

}  // namespace

uint64_t rope_cache_bytes(const ModelSpec& spec, bool float32) {
  const uint64_t shared = memfit::rope_cache_bytes(spec);
  // DeepSeek V4 (models/deepseek_v4.py builds its own tables) and gpt-oss
  // (already float32) as the shared rule prices them.
  if (!spec.compressed_attention.compress_ratios.empty() || spec.model_type == "deepseek_v4" ||
      spec.model_type == "gpt_oss") {
    return shared;
  }
  const uint64_t element = float32 ? kFloat32Bytes : kWideBytes;
  if (is_mla(spec) && spec.mla.qk_rope != 0) {
    return (CheckedBytes(rope_cache_rows(spec.rope_scaling, spec.max_position_tokens)) * spec.mla.qk_rope *
            element)
        .saturated();
  }
  // rope_cache_bytes prices 2-byte rows.
  return (CheckedBytes(shared / kWideBytes) * element).saturated();
}

uint64_t absorbed_kv_b_bytes(const ModelSpec& spec, uint64_t attention_tp, bool rocm) {
  if (!is_mla(spec)) return 0;
  const MlaGeometry& m = spec.mla;
  uint64_t layers = 0;
  for (const LayerCache& l : spec.layers) {
    if (l.kind == LayerKind::kMlaLatent) ++layers;
  }
  if (spec.layers.empty()) layers = spec.geometry.layers;
  const uint64_t heads = CheckedBytes::ceil_div(spec.geometry.heads, std::max<uint64_t>(1, attention_tp)).saturated();
  return (CheckedBytes(layers) * heads * (CheckedBytes(m.qk_nope) + m.v_head) * m.kv_lora_rank *
          absorbed_element_bytes(spec.quantization, rocm))
      .saturated();
}

namespace {

constexpr uint64_t kScaleBytes = 4;  // an FP8 block's fp32 weight_scale_inv

// The bytes of a rows x cols linear layer at `element` bytes, with its
// fp32 scale grid where `block` is an FP8 block size.
CheckedBytes linear_bytes(CheckedBytes rows, uint64_t cols, uint64_t element, const std::vector<uint64_t>& block) {
  CheckedBytes bytes = rows * cols * element;
  if (block.size() == 2 && block[0] != 0 && block[1] != 0) {
    bytes = bytes + CheckedBytes::ceil_div(rows, block[0]) * CheckedBytes::ceil_div(CheckedBytes(cols), block[1]).saturated() *
                        kScaleBytes;
  }
  return bytes;
}

// A shared MLP on a rank of a group of `tp`: gate_up's 2 x width / tp rows
// and down's width / tp columns.
CheckedBytes shared_mlp_bytes(uint64_t width, uint64_t hidden, uint64_t tp, uint64_t element,
                              const std::vector<uint64_t>& block) {
  const CheckedBytes rank_width = CheckedBytes::ceil_div(width, tp);
  return linear_bytes(rank_width * 2, hidden, element, block) +
         linear_bytes(CheckedBytes(hidden), rank_width.saturated(), element, block);
}

}  // namespace

uint64_t deepep_shared_expert_bytes(const ModelSpec& spec, uint64_t tensor_parallel, bool deepep) {
  if (!deepep || !is_mla(spec) || spec.moe.experts == 0 || spec.moe.shared_experts == 0) return 0;
  const QuantizationInfo& q = spec.quantization;
  if (!q.method.empty() && q.method != "fp8") return 0;
  const uint64_t element = q.method.empty() ? kWideBytes : kFp8Bytes;
  const std::vector<uint64_t> block = q.method.empty() ? std::vector<uint64_t>{} : q.block_size;
  const ModelGeometry& g = spec.geometry;
  const uint64_t expert_width = spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate : g.intermediate;
  const uint64_t width = spec.moe.shared_expert_intermediate != 0
                             ? spec.moe.shared_expert_intermediate
                             : (CheckedBytes(expert_width) * spec.moe.shared_experts).saturated();
  const uint64_t moe_layers = g.layers - std::min(spec.mla.leading_dense, g.layers);
  const CheckedBytes per_layer = shared_mlp_bytes(width, g.hidden, 1, element, block) -
                                 shared_mlp_bytes(width, g.hidden, std::max<uint64_t>(1, tensor_parallel), element, block);
  return (per_layer * moe_layers).saturated();
}

}  // namespace memfit::sglang
