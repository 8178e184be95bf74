// The memory pool ggml-cuda's kernels take their temporaries from, as a
// HIP (ROCm) build of the GPU backend Ollama vendors keeps it, replayed
// over the matrix products of a reserved graph. Ollama's own engine counts
// this pool in its "compute graph" record from v0.12.4 ("ggml: Preallocate
// CUDA pool memory", 3d0b1734c; llama/patches/0022-ggml-No-alloc-mode.patch:
// ggml_backend_sched_get_attempted_buffer_size adds the backend's
// buffer_size, ggml-cuda's pool_get_alloc_size after a dry run of the
// graph, ggml_backend_cuda_graph_reserve). Private to the ollama profile.
//
// The pool (ml/backend/ggml/ggml/src/ggml-cuda/ggml-cuda.cu at v0.12.6,
// ggml_cuda_pool_leg; Ollama builds ggml-hip with GGML_HIP_NO_VMM, its
// CMakeLists.txt, so a ROCm GPU gets this pool, not the VMM one):
//  - 256 slots of freed buffers; a request takes the free buffer whose size
//    exceeds it least (the first such slot; an exact fit at once), else a
//    new buffer of (size_t)(1.05 x request) rounded up to 256 bytes;
//  - a freed buffer goes back into the first empty slot (dropped, and the
//    pool shrinks, when all 256 hold one);
//  - alloc_size() is the sum of the buffers it holds or lent: in the dry
//    run nothing is handed back to the device, so it is every buffer made.
#ifndef MEMFIT_ENGINES_OLLAMA_GPU_POOL_H_
#define MEMFIT_ENGINES_OLLAMA_GPU_POOL_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace memfit::ollama {

// ggml_cuda_pool_leg, with buffers known by their sizes alone.
class LegacyPoolReplay {
 public:
  // The size of the buffer a request of `bytes` gets (a free one, else a
  // new one, which grows pool_bytes()). `bytes` < 2^52.
  uint64_t alloc(uint64_t bytes);
  // A lent buffer of `size` (what alloc returned) handed back.
  void free(uint64_t size);
  // The bytes the pool holds: what ggml-cuda's alloc_size() reports.
  uint64_t pool_bytes() const { return pool_bytes_; }

 private:
  static constexpr size_t kSlots = 256;  // MAX_BUFFERS
  std::array<uint64_t, kSlots> free_ = {};  // 0: an empty slot
  uint64_t pool_bytes_ = 0;
};

// One product of a reserved graph: a weight matrix of k x n elements (its
// rows k wide) times k x m activations (F32, m tokens), in the order the
// backend runs them. `quantized`: the weight's type is a quantized one.
struct WeightProduct {
  uint64_t k = 0;
  uint64_t n = 0;
  uint64_t m = 0;
  bool quantized = true;
};

// The pool's bytes after an RDNA3 GPU (gfx11xx) ran `products` under the
// ggml of Ollama v0.12.4 to v0.13.2 (ggml_cuda_mul_mat): a product over
// at most 8 tokens is MMVQ, which takes src1 quantized to q8_1 (m x
// k padded to 512 x 36 / 32 B; mmvq.cu); over 64 or more it is not MMQ
// (ggml_cuda_should_use_mmq: RDNA3 only below MMQ_DP4A_MAX_BATCH_SIZE, 64)
// but hipBLAS in F16 (ggml_cuda_op_mul_mat_cublas: the weight converted,
// n x k x 2 B, the activations, m x k x 2 B, the product, n x m x 2 B,
// made in that order and handed back in the reverse). nullopt when a
// product lies between (MMQ's buffers, not replayed) or a weight is not
// quantized (other paths).
std::optional<uint64_t> rdna3_product_pool_bytes(std::span<const WeightProduct> products);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_GPU_POOL_H_
