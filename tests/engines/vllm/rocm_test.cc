// vllm_rocm_load() and estimate_vllm() on vLLM's ROCm platform
// (docs/engine-vllm.md, "ROCm"): PyTorch's segments past the parameters,
// the unquantized experts' row padding and the runtime's share, worked by
// hand on real configs.
#include <gtest/gtest.h>

#include "engines/vllm/rocm.h"
#include "memfit/model_spec.h"
#include "memfit/vllm.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kMiB;

ModelSpec calibration_spec(const std::string& folder) {
  Result<ModelSpec> spec =
      parse_model_config(testing::read_test_data("calibration/configs/" + folder + "/config.json"));
  EXPECT_TRUE(spec.ok()) << folder;
  return spec.ok() ? *spec : ModelSpec{};
}

TEST(VllmRocm, DenseModelPaysTheSegmentsItsParametersRoundUpTo) {
  // Qwen3-4B, TP 1: hidden 2,560, 36 layers, 32 heads / 8 KV heads of 128,
  // intermediate 9,728, vocabulary 151,936 (tied), 40,960 positions.
  // qkv_proj (32 + 16) x 128 x 2,560 x 2 B = 30 MiB and o_proj 4,096 x
  // 2,560 x 2 B = 20 MiB are whole 2 MiB; gate_up_proj 19,456 x 2,560 x 2 B
  // = 95 MiB takes 96 (1 MiB over) and down_proj 47.5 MiB takes 48 (0.5):
  // 36 x 1.5 MiB = 56,623,104. The embedding 151,936 x 2,560 x 2 B =
  // 741.875 MiB takes 742: 131,072. The rope cache 40,960 x 128 x 2 B =
  // 10 MiB is whole. The norms, 73 x 5,120 B = 373,760, share one 2 MiB
  // small segment: 1,723,392 over. 56,623,104 + 131,072 + 1,723,392.
  const VllmRocmLoad load = vllm_rocm_load(calibration_spec("Qwen3-4B"), 1);
  EXPECT_EQ(load.allocator_bytes, 58477568u);
  EXPECT_EQ(load.padding_bytes, 0u);
  EXPECT_EQ(load.runtime_bytes, 64 * kMiB);
}

TEST(VllmRocm, TensorParallelChangesWhichParametersRoundUp) {
  // DeepSeek-R1-Distill-Qwen-14B (Qwen2.5-14B geometry), TP 2: hidden
  // 5,120, 48 layers, 40 / 8 heads of 128, intermediate 13,824, vocabulary
  // 152,064 untied, 131,072 positions. A rank: qkv (20 + 8) x 128 x 5,120 x
  // 2 B = 35 MiB takes 36 (1 over); o_proj 25 MiB takes 26 (1); gate_up
  // 2 x 6,912 x 5,120 x 2 B = 135 MiB takes 136 (1); down 67.5 MiB takes
  // 68 (0.5): 48 x 3.5 MiB = 176,160,768. Embedding and LM head, 76,032
  // rows x 5,120 x 2 B = 742.5 MiB each, take 744: 3,145,728. The rope
  // cache 131,072 x 128 x 2 B = 32 MiB is whole. Norms 97 x 10,240 B =
  // 993,280 and the qkv biases 48 x 28 x 128 x 2 B = 344,064 in one small
  // segment: 759,808 over.
  const VllmRocmLoad load = vllm_rocm_load(calibration_spec("DeepSeek-R1-Distill-Qwen-14B"), 2);
  EXPECT_EQ(load.allocator_bytes, 176160768u + 3145728u + 759808u);  // 180,066,304
}

TEST(VllmRocm, UnquantizedExpertsArePaddedAndMidSizedOnesShareSegments) {
  // Qwen3-30B-A3B, TP 4: 128 experts of width 768 (192 a rank), hidden
  // 2,048, 48 layers. w13 [128, 384, 2,048]: rows of 4,096 B (a multiple of
  // 512) padded by 256 B: 49,152 x 256 = 12,582,912 a layer; w2 [128, 2,048,
  // 192]: rows of 384 B, not padded. 48 x 12,582,912 = 603,979,776.
  // Segments: w13 201,326,592 + 12,582,912 = 204 MiB and w2 96 MiB are
  // whole. qkv (8 + 2) x 128 x 4,096 B = 5 MiB and o_proj 4 MiB are under
  // 10 MiB: 48 x 9 MiB = 432 MiB carved from 20 MiB segments, 440 MiB: 8 MiB
  // over. Embedding and LM head, 37,984 x 4,096 B = 148.375 MiB each, take
  // 150: 3,407,872. The routers (128 x 4,096 B = 512 KiB, 48 of them) and the
  // norms (97 x 4,096 B) are small: 25,563,136 B in 13 segments of 2 MiB,
  // 1,699,840 over. The rope cache 10 MiB is whole.
  const VllmRocmLoad load = vllm_rocm_load(testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B"), 4);
  EXPECT_EQ(load.padding_bytes, 603979776u);
  EXPECT_EQ(load.allocator_bytes, 8388608u + 3407872u + 1699840u);  // 13,496,320
}

TEST(VllmRocm, HybridAndQuantizedModelsPayOnlyWhatIsPriced) {
  // Qwen3.5-35B-A3B (hybrid: gated-delta-net and attention layers), TP 1.
  // The experts' padding: 256 experts of width 512, hidden 2,048, 40
  // layers: w13 rows 256 x 1,024 x 256 B = 64 MiB, w2 rows 256 x 2,048
  // (1,024 B each, a multiple of 512) x 256 B = 128 MiB: 40 x 192 MiB =
  // 8,053,063,680. The allocator's part: every large parameter is a 2 MiB
  // multiple; the small ones (1 MiB or less) share 2 MiB segments: per gated
  // delta net (30) in_proj_ba 64 x 4,096 B = 262,144, conv1d 8,192 x 4 x 2
  // B = 65,536, dt_bias, A_log and norm 64, 128 and 256 B in 512 B blocks
  // (1,536); the 40 routers 256 x 4,096 B = 1 MiB; 81 norms of 4,096 B.
  // 30 x 329,216 + 40 x 1,048,576 + 81 x 4,096 = 52,151,296 B take 25
  // segments, 52,428,800: 277,504 over, and the three small vectors' 1,088
  // B a layer over their requests (30 x 1,088 = 32,640): 310,144.
  const VllmRocmLoad hybrid = vllm_rocm_load(testing::corpus_spec("qwen3_5/Qwen3.5-35B-A3B"), 1);
  EXPECT_EQ(hybrid.allocator_bytes, 310144u);
  EXPECT_EQ(hybrid.padding_bytes, 8053063680ull);
  EXPECT_EQ(hybrid.runtime_bytes, 64 * kMiB);
  // An int8 checkpoint: its kernels lay the weights out their own way.
  const VllmRocmLoad w8a8 = vllm_rocm_load(calibration_spec("Meta-Llama-3.1-70B-Instruct-quantized.w8a8"), 1);
  EXPECT_EQ(w8a8.allocator_bytes, 0u);
  EXPECT_EQ(w8a8.padding_bytes, 0u);
  EXPECT_EQ(w8a8.runtime_bytes, 64 * kMiB);
}

TEST(VllmRocm, AnAmdGpuAddsTheLoadFigureToTheWeightsAndTakesItFromTheKv) {
  // Qwen3-4B at TP 1 on a 32 GiB GPU at 0.9: the ROCm rank's weights are
  // the tensors plus 58,477,568 + 64 MiB = 125,586,432, and vLLM subtracts
  // its own load figure, so the KV cache is that much smaller. CUDA's hold
  // the allocator's blocks (allocations.h): gate_up_proj 95 MiB in 96 and
  // down_proj 47.5 in 48 on 36 layers, 56,623,104, and the table
  // 741.875 MiB in 742, 131,072: 56,754,176 of the 125,586,432, so ROCm's
  // are 68,832,256 more.
  Model m;
  m.has_config = true;
  m.spec = calibration_spec("Qwen3-4B");
  m.weights.bytes = 8044936192ull;
  m.weights.source = WeightsSource::kSafetensorsIndex;
  VllmSettings s;
  s.gpu_memory_total = 32ull << 30;
  s.max_model_len = 8192;
  // 0.20: the CUDA graphs past the utilization on both platforms (from
  // 0.21 CUDA subtracts their estimate, ROCm does not).
  s.release = VllmRelease{0, 20, 0, false};
  const MemoryBudget budget{1ull << 40, 1ull << 40, BudgetSource::kExplicit};
  s.gpu_name = "NVIDIA GeForce RTX 5090";
  Result<VllmEstimate> cuda = estimate_vllm(m, {}, s, budget);
  s.gpu_name = "AMD Radeon AI PRO R9700";
  Result<VllmEstimate> rocm = estimate_vllm(m, {}, s, budget);
  ASSERT_TRUE(cuda.ok() && rocm.ok());
  EXPECT_FALSE(cuda->settings.rocm);
  EXPECT_TRUE(rocm->settings.rocm);
  EXPECT_EQ(rocm->weights.bytes - cuda->weights.bytes, 125586432u - 56754176u);
  EXPECT_EQ(cuda->kv_cache_bytes - rocm->kv_cache_bytes, 125586432u - 56754176u);
  // v0.7 measured PyTorch's allocated bytes on ROCm too.
  s.release = VllmRelease{0, 7, 0};
  Result<VllmEstimate> v07 = estimate_vllm(m, {}, s, budget);
  ASSERT_TRUE(v07.ok());
  EXPECT_EQ(v07->weights.rocm_runtime_bytes, 0u);
}

}  // namespace
}  // namespace memfit
