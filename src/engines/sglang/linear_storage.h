// How an SGLang rank holds a checkpoint's linear layers: the element width
// and, under FP8 block quantization, the fp32 scale grid beside each
// weight; and the widths of a MoE model's routed and shared experts. The
// allocator's rounding (allocator_rounding.h), the DP-attention weights
// (dp_attention_weights.h) and DeepEP's whole shared expert
// (held_weights.h) all shape parameters with these. Bytes are uint64_t,
// saturated through CheckedBytes.
#ifndef MEMFIT_ENGINES_SGLANG_LINEAR_STORAGE_H_
#define MEMFIT_ENGINES_SGLANG_LINEAR_STORAGE_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "memfit/checked_math.h"
#include "memfit/model_spec.h"

namespace memfit::sglang {

// A linear layer's storage: bf16 / fp16 elements, or SGLang's
// Fp8LinearMethod / Fp8MoEMethod (layers/quantization/fp8.py): float8_e4m3
// elements and, with weight_block_size [n, k], a fp32 weight_scale_inv of
// ceil(rows / n) x ceil(cols / k) a tensor (block_rows 0: no grid; a
// per-tensor scale is one float, not priced).
struct LinearStorage {
  uint64_t element_bytes = 2;
  uint64_t block_rows = 0, block_cols = 0;
};

// The storage of `q`'s linear layers; empty for a scheme other than FP8,
// or where an unquantized module `mixed` names leaves the layers priced of
// mixed widths (the caller says which modules it prices).
std::optional<LinearStorage> linear_storage(const QuantizationInfo& q, bool (*mixed)(std::string_view module));

// A rows x cols weight's bytes, and its scale grid's (0 without a block).
CheckedBytes weight_bytes(const LinearStorage& s, CheckedBytes rows, uint64_t cols);
CheckedBytes scale_grid_bytes(const LinearStorage& s, CheckedBytes rows, uint64_t cols);
// Both.
CheckedBytes linear_bytes(const LinearStorage& s, CheckedBytes rows, uint64_t cols);

// A routed expert's width: moe_intermediate_size, else intermediate_size.
uint64_t routed_expert_width(const ModelSpec& spec);
// The shared experts' width as SGLang builds them, one MLP:
// shared_expert_intermediate_size, else n_shared_experts x the routed width.
CheckedBytes shared_expert_width(const ModelSpec& spec);

}  // namespace memfit::sglang

#endif  // MEMFIT_ENGINES_SGLANG_LINEAR_STORAGE_H_
