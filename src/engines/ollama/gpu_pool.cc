// ggml-cuda's legacy pool and the RDNA3 products' requests (gpu_pool.h).
#include "engines/ollama/gpu_pool.h"


namespace memfit::ollama {
namespace {

// ggml-cuda's path thresholds at Ollama v0.12.4 to v0.13.2.
constexpr uint64_t kMmvqMaxBatch = 8;     // mmvq.cuh MMVQ_MAX_BATCH_SIZE
constexpr uint64_t kMmqDp4aMaxBatch = 64;  // mmq.cuh MMQ_DP4A_MAX_BATCH_SIZE
constexpr uint64_t kMatrixRowPadding = 512;  // common.cuh MATRIX_ROW_PADDING
// block_q8_1: 32 int8 values and two halves, 36 bytes (QK8_1 = 32).
constexpr uint64_t kQ8_1BlockBytes = 36;
constexpr uint64_t kQ8_1BlockValues = 32;
// A product's operands are below 2^40 elements each (a graph's shapes are
// bounded by the builders), so these byte counts fit.
constexpr uint64_t kMaxElements = uint64_t{1} << 40;

}  // namespace

uint64_t LegacyPoolReplay::alloc(uint64_t bytes) {
  // The best fit: the first slot of least excess; an exact fit at once.
  size_t best = kSlots;
  for (size_t i = 0; i < kSlots; ++i) {
    if (free_[i] == 0 || free_[i] < bytes) continue;
    if (best == kSlots || free_[i] - bytes < free_[best] - bytes) best = i;
    if (free_[i] == bytes) break;
  }
  if (best != kSlots) {
    const uint64_t size = free_[best];
    free_[best] = 0;
    return size;
  }
  // (size_t)(1.05 * size), as ggml computes it in double, then 256-byte
  // rounding: 8 MiB asks 8,808,192 B.
  uint64_t size = static_cast<uint64_t>(1.05 * static_cast<double>(bytes));
  size = (size + 255) / 256 * 256;
  pool_bytes_ += size;
  return size;
}

void LegacyPoolReplay::free(uint64_t size) {
  for (uint64_t& slot : free_) {
    if (slot == 0) {
      slot = size;
      return;
    }
  }
  pool_bytes_ -= size;  // every slot full: the buffer is released
}

std::optional<uint64_t> rdna3_product_pool_bytes(std::span<const WeightProduct> products) {
  LegacyPoolReplay pool;
  for (const WeightProduct& p : products) {
    if (!p.quantized || p.k >= kMaxElements || p.n >= kMaxElements || p.m >= kMaxElements ||
        p.k * p.m >= kMaxElements || p.n * p.k >= kMaxElements || p.n * p.m >= kMaxElements) {
      return std::nullopt;
    }
    if (p.m <= kMmvqMaxBatch) {
      // src1 as q8_1, each row padded to MATRIX_ROW_PADDING values.
      const uint64_t padded = (p.k + kMatrixRowPadding - 1) / kMatrixRowPadding * kMatrixRowPadding;
      pool.free(pool.alloc(p.m * padded / kQ8_1BlockValues * kQ8_1BlockBytes));
      continue;
    }
    if (p.m < kMmqDp4aMaxBatch) return std::nullopt;
    // src0_as_f16, src1_as_f16, dst_f16: made in that order, destroyed
    // (handed back) in the reverse.
    const uint64_t src0 = pool.alloc(p.n * p.k * 2);
    const uint64_t src1 = pool.alloc(p.m * p.k * 2);
    const uint64_t dst = pool.alloc(p.n * p.m * 2);
    pool.free(dst);
    pool.free(src1);
    pool.free(src0);
  }
  return pool.pool_bytes();
}

}  // namespace memfit::ollama
