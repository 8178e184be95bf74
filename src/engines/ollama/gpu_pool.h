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
#include <string_view>

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

// --- NVIDIA (ggml-cuda with VMM) ---
//
// Ollama builds ggml-cuda with its VMM pool (GGML_CUDA_NO_VMM off; only
// ggml-hip gets GGML_HIP_NO_VMM, CMakeLists.txt), which every recent
// NVIDIA GPU supports: ggml_cuda_pool_vmm (ggml-cuda.cu) is a stack, each
// request rounded up to 128 bytes, the pool grown in steps of the device's
// granularity (CU_MEM_ALLOC_GRANULARITY_RECOMMENDED, 2 MiB) when the stack
// outgrows it; its alloc_size() is the pool's size, so the record holds
// the high-water mark of the dry run's requests rounded up to 2 MiB.

// The flash attention node of a reserved graph, as ggml-cuda's kernels see
// it: Q's tokens (ne[1]) and heads (ne[2]), K's heads and cells (ne[2],
// ne[1]), V's head size (DV). K and V F16 (the cache's type).
struct FlashAttentionNode {
  uint64_t tokens = 0;
  uint64_t heads = 0;
  uint64_t kv_heads = 0;
  uint64_t cells = 0;
  uint64_t head_dim_v = 0;
};

// An NVIDIA compute capability as Ollama's discovery prints it ("8.6",
// the `inference compute` line's compute=) as major x 10 + minor (86);
// nullopt for anything else (a ROCm ISA, "gfx1102").
std::optional<unsigned> cuda_compute_capability(std::string_view arch);

// The bytes of flash attention's temporaries when ggml-cuda's MMA kernel
// runs `fa` on a Turing or Ampere GPU (compute capability `cc` 75 to 88)
// in the ggml of Ollama v0.12.4 to v0.24.0 (fattn.cu,
// ggml_cuda_flash_attn_ext_mma_f16_switch_ncols2 / _ncols1;
// fattn-common.cuh launch_fattn):
//  - ncols2: the largest of 8, 4, 2 dividing the GQA ratio (a mask, no
//    ALiBi, cells a multiple of FATTN_KQ_STRIDE, 256), else 1; ncols1:
//    8, 16, 32 / ncols2 for tokens up to that, else 64 / ncols2 (32 on
//    Turing: ggml_cuda_highest_compiled_arch);
//  - tiles = ceil(tokens / ncols1) x heads / ncols2; stream-k only when a
//    wave of occupancy x SMs blocks is used below 75 % (Ada and later
//    always): memfit takes the whole tiles, as a prompt batch over many
//    waves does (the GPU's SMs and occupancy are not in the log);
//  - dst_tmp_meta.alloc(tiles x ncols x (2*2 + DV) x sizeof(float)): a
//    count of float2, 8 B each, so 32 B for each of the (4 + DV) values.
// nullopt outside those GPUs or for a shape the kernel does not take.
std::optional<uint64_t> mma_flash_attention_pool_bytes(const FlashAttentionNode& fa, unsigned cc);

// The pool an NVIDIA Turing or Ampere GPU's record adds (ggml_cuda_pool_vmm):
// the largest request of the dry run, rounded up to 2 MiB. Each op hands
// its buffers back before the next runs, so the high-water mark is the
// largest op's: flash attention's (above, `attention_bytes`) or a quantized
// product's q8_1 copy of its activations (m x k padded to 512 x 36 / 32 B;
// MMQ over more than 8 tokens adds mmq_x_max (128) x 144 B of block_q8_1_mmq:
// mmq.cu ggml_cuda_mul_mat_q). MMQ's stream-k fixup (SMs x tile x 4 B) is
// not known to memfit. nullopt when a product is out of bounds.
std::optional<uint64_t> cuda_vmm_pool_bytes(uint64_t attention_bytes, std::span<const WeightProduct> products);

}  // namespace memfit::ollama

#endif  // MEMFIT_ENGINES_OLLAMA_GPU_POOL_H_
