// ggml-cuda's legacy pool and the RDNA3 products' requests (gpu_pool.h).
#include "engines/ollama/gpu_pool.h"

#include <algorithm>


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

// ggml-cuda's NVIDIA constants (Ollama v0.12.4 to v0.24.0).
constexpr unsigned kTuring = 75;           // GGML_CUDA_CC_TURING: MMA kernels from here
constexpr unsigned kAmpere = 80;           // GGML_CUDA_CC_AMPERE
constexpr unsigned kAdaLovelace = 89;      // GGML_CUDA_CC_ADA_LOVELACE: stream-k always
constexpr uint64_t kFattnKqStride = 256;   // fattn-common.cuh FATTN_KQ_STRIDE
constexpr uint64_t kVmmAlignment = 128;    // ggml_cuda_pool_vmm::alloc's rounding
constexpr uint64_t kVmmGranularity = uint64_t{2} << 20;  // CU_MEM_ALLOC_GRANULARITY_RECOMMENDED
constexpr uint64_t kMmqXMax = 128;         // get_mmq_x_max_host with Turing's MMA
constexpr uint64_t kQ8_1MmqBlockBytes = 144;  // sizeof(block_q8_1_mmq)

uint64_t round_up(uint64_t value, uint64_t step) { return (value + step - 1) / step * step; }

// The q8_1 copy of a product's activations (mmvq.cu, mmq.cu).
uint64_t q8_1_activation_bytes(const WeightProduct& p) {
  const uint64_t bytes = p.m * round_up(p.k, kMatrixRowPadding) / kQ8_1BlockValues * kQ8_1BlockBytes;
  return p.m <= kMmvqMaxBatch ? bytes : bytes + kMmqXMax * kQ8_1MmqBlockBytes;
}

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

std::optional<unsigned> cuda_compute_capability(std::string_view arch) {
  // One or two digits, a dot, one digit ("8.6", "12.0").
  const size_t dot = arch.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 2 || arch.size() != dot + 2) return std::nullopt;
  unsigned major = 0;
  for (char c : arch.substr(0, dot)) {
    if (c < '0' || c > '9') return std::nullopt;
    major = major * 10 + static_cast<unsigned>(c - '0');
  }
  const char minor = arch[dot + 1];
  if (minor < '0' || minor > '9') return std::nullopt;
  return major * 10 + static_cast<unsigned>(minor - '0');
}

std::optional<uint64_t> mma_flash_attention_pool_bytes(const FlashAttentionNode& fa, unsigned cc) {
  if (cc < kTuring || cc >= kAdaLovelace) return std::nullopt;
  if (fa.tokens == 0 || fa.heads == 0 || fa.kv_heads == 0 || fa.heads % fa.kv_heads != 0 || fa.head_dim_v == 0 ||
      fa.tokens >= kMaxElements || fa.heads >= (uint64_t{1} << 16) || fa.head_dim_v > 512) {
    return std::nullopt;
  }
  const uint64_t gqa = fa.heads / fa.kv_heads;
  uint64_t ncols2 = 1;
  if (fa.cells % kFattnKqStride == 0) {
    for (uint64_t c : {8u, 4u, 2u}) {
      if (gqa % c == 0) {
        ncols2 = c;
        break;
      }
    }
  }
  uint64_t ncols = 64;  // ncols1 x ncols2
  if (fa.tokens <= 8 / ncols2) {
    ncols = 8;
  } else if (fa.tokens <= 16 / ncols2) {
    ncols = 16;
  } else if (cc < kAmpere || fa.tokens <= 32 / ncols2) {
    ncols = 32;
  }
  const uint64_t ncols1 = std::max<uint64_t>(ncols / ncols2, 1);
  const uint64_t tiles = (fa.tokens + ncols1 - 1) / ncols1 * (fa.heads / ncols2);
  // tiles x ncols x (2*2 + DV) x sizeof(float) float2s.
  return tiles * ncols * (4 + fa.head_dim_v) * 4 * 8;
}

std::optional<uint64_t> cuda_vmm_pool_bytes(uint64_t attention_bytes, std::span<const WeightProduct> products) {
  if (attention_bytes >= kMaxElements * 64) return std::nullopt;
  uint64_t peak = round_up(attention_bytes, kVmmAlignment);
  for (const WeightProduct& p : products) {
    if (p.k >= kMaxElements || p.m >= kMaxElements || p.k * p.m >= kMaxElements) return std::nullopt;
    if (!p.quantized) continue;  // cuBLAS on F16 copies: not this rule's
    peak = std::max(peak, round_up(q8_1_activation_bytes(p), kVmmAlignment));
  }
  return round_up(peak, kVmmGranularity);
}

}  // namespace memfit::ollama
