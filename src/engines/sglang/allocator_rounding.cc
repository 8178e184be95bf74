// allocator_rounding_bytes() (allocator_rounding.h).
#include "engines/sglang/allocator_rounding.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "engines/shared/parallel_tensors.h"
#include "memfit/checked_math.h"
#include "memfit/vllm.h"

namespace memfit::sglang {
namespace {

constexpr uint64_t kMinLargeAlloc = 10ull << 20;  // c10: allocations this large or more ...
constexpr uint64_t kRoundLarge = 2ull << 20;      // ... get a segment rounded up to this
constexpr uint64_t kWideBytes = 2;                // bf16 / fp16 parameters
constexpr uint64_t kFp8Bytes = 1;                 // float8_e4m3 parameters
constexpr uint64_t kScaleBytes = 4;               // an FP8 block's fp32 weight_scale_inv

// What the allocator's segment holds past one parameter of `bytes`.
uint64_t rounding_of(CheckedBytes bytes) {
  const uint64_t b = bytes.saturated();
  if (b < kMinLargeAlloc) return 0;  // packed with others into shared segments
  return (round_up(b, kRoundLarge) - b).saturated();
}

// How a checkpoint's linear layers are held: element bytes and, for FP8
// block quantization, the block's rows and columns (0: no scale grid worth
// a segment; a per-tensor scale is one float).
struct LinearStorage {
  uint64_t element_bytes = kWideBytes;
  uint64_t block_rows = 0, block_cols = 0;
};

// Whether a module the config leaves unquantized is one of the linear
// layers priced here (then their storage is mixed: not described).
bool names_linear_layer(std::string_view module) {
  return module.find("proj") != std::string_view::npos || module.find("experts") != std::string_view::npos;
}

// SGLang's Fp8LinearMethod / Fp8MoEMethod (layers/quantization/fp8.py):
// float8_e4m3 weights, and with weight_block_size [n, k] a fp32
// weight_scale_inv of ceil(rows / n) x ceil(cols / k) a tensor. Empty for
// a scheme not described.
std::optional<LinearStorage> linear_storage(const QuantizationInfo& q) {
  if (q.method.empty()) return LinearStorage{};
  if (q.method != "fp8") return std::nullopt;
  for (const std::string& module : q.unquantized_modules) {
    if (names_linear_layer(module)) return std::nullopt;
  }
  LinearStorage s{.element_bytes = kFp8Bytes};
  if (q.block_size.size() == 2 && q.block_size[0] != 0 && q.block_size[1] != 0) {
    s.block_rows = q.block_size[0], s.block_cols = q.block_size[1];
  }
  return s;
}

// The rounding of one linear parameter of `copies` x rows x cols (an MoE
// layer's experts are one tensor) and of its block scale.
uint64_t linear_rounding(const LinearStorage& s, uint64_t copies, CheckedBytes rows, uint64_t cols) {
  uint64_t bytes = rounding_of(CheckedBytes(copies) * rows * cols * s.element_bytes);
  if (s.block_rows != 0) {
    const CheckedBytes grid =
        CheckedBytes::ceil_div(rows, s.block_rows) * CheckedBytes::ceil_div(cols, s.block_cols).saturated();
    bytes += rounding_of(CheckedBytes(copies) * grid * kScaleBytes);
  }
  return bytes;
}

}  // namespace

uint64_t allocator_rounding_bytes(const ModelSpec& spec, uint64_t tp) {
  const ModelGeometry& g = spec.geometry;
  const bool described = spec.layout == "standard" || spec.layout == "sliding_window";
  const std::optional<LinearStorage> storage = linear_storage(spec.quantization);
  if (!described || !storage || g.head_dim == 0 || g.hidden == 0) return 0;
  tp = std::max<uint64_t>(1, tp);
  const uint64_t q_heads = CheckedBytes::ceil_div(g.heads, tp).saturated();
  const uint64_t kv_heads = g.kv_heads == 0 ? q_heads : kv_heads_per_rank(g.kv_heads, tp);
  const CheckedBytes qkv_rows = (CheckedBytes(q_heads) + kv_heads * 2) * g.head_dim;
  const CheckedBytes o_cols = CheckedBytes(q_heads) * g.head_dim;
  uint64_t layer = linear_rounding(*storage, 1, qkv_rows, g.hidden) +
                   linear_rounding(*storage, 1, CheckedBytes(g.hidden), o_cols.saturated());
  // SGLang's fused w13 / gate_up_proj: the gate and up halves each of the
  // rank's width (an FP8 block scale: 2 x ceil(width / n) rows).
  const uint64_t experts = spec.moe.experts != 0 ? spec.moe.experts : 1;
  const uint64_t width = spec.moe.experts != 0 && spec.moe.expert_intermediate != 0 ? spec.moe.expert_intermediate
                                                                                     : g.intermediate;
  const CheckedBytes rank_width = CheckedBytes::ceil_div(width, tp);
  layer += rounding_of(CheckedBytes(experts) * rank_width * 2 * g.hidden * storage->element_bytes) +
           linear_rounding(*storage, experts, CheckedBytes(g.hidden), rank_width.saturated());
  if (storage->block_rows != 0) {
    const CheckedBytes up_grid = CheckedBytes::ceil_div(rank_width, storage->block_rows) * 2 *
                                 CheckedBytes::ceil_div(CheckedBytes(g.hidden), storage->block_cols).saturated();
    layer += rounding_of(CheckedBytes(experts) * up_grid * kScaleBytes);
  }
  // The embedding and the LM head are never FP8 in SGLang (Fp8Config
  // quantizes LinearBase layers only): 2-byte vocabulary shards.
  const CheckedBytes rows = CheckedBytes::ceil_div(g.vocab, kVllmVocabPadding) * kVllmVocabPadding;
  const uint64_t shard = rounding_of(CheckedBytes::ceil_div(rows, tp) * g.hidden * kWideBytes);
  const uint64_t tables = spec.tied_embeddings ? 1 : 2;
  return (CheckedBytes(layer) * g.layers + CheckedBytes(shard) * tables).saturated();
}

}  // namespace memfit::sglang
