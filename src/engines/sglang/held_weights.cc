// rope_cache_bytes() and absorbed_kv_b_bytes() (held_weights.h).
#include "engines/sglang/held_weights.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "engines/sglang/linear_storage.h"
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

// Every unquantized module leaves the shared expert's storage as the
// config's scheme gives it.
bool never_mixed(std::string_view) { return false; }

// A shared MLP on a rank of a group of `tp`: gate_up's 2 x width / tp rows
// and down's width / tp columns.
CheckedBytes shared_mlp_bytes(const LinearStorage& s, CheckedBytes width, uint64_t hidden, uint64_t tp) {
  const CheckedBytes rank_width = CheckedBytes::ceil_div(width, tp);
  return linear_bytes(s, rank_width * 2, hidden) + linear_bytes(s, CheckedBytes(hidden), rank_width.saturated());
}

}  // namespace

uint64_t deepep_shared_expert_bytes(const ModelSpec& spec, uint64_t tensor_parallel, bool deepep) {
  if (!deepep || !is_mla(spec) || spec.moe.experts == 0 || spec.moe.shared_experts == 0) return 0;
  const std::optional<LinearStorage> storage = linear_storage(spec.quantization, never_mixed);
  if (!storage) return 0;
  const ModelGeometry& g = spec.geometry;
  const CheckedBytes width = shared_expert_width(spec);
  const uint64_t moe_layers = g.layers - std::min(spec.mla.leading_dense, g.layers);
  const CheckedBytes per_layer = shared_mlp_bytes(*storage, width, g.hidden, 1) -
                                 shared_mlp_bytes(*storage, width, g.hidden, std::max<uint64_t>(1, tensor_parallel));
  return (per_layer * moe_layers).saturated();
}

}  // namespace memfit::sglang
