// Pipeline parallelism (docs/engine-llamacpp.md, "Pipeline parallelism"):
// the scheduler's n_copies = 4 copies of every graph input on the host and
// of every input a GPU's split reads, worked by hand on Llama 3.1 70B
// (hidden 8,192, 64 heads, 8 KV heads of 128, FFN 28,672, vocabulary
// 128,256) at 4,096 cells, U 512, flash attention off: the setting of the
// corpus's Ollama 0.11.10 log on two H100 MIG slices.
#include <gtest/gtest.h>

#include "engines/llamacpp/parts.h"
#include "memfit/llamacpp.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;
const MemoryBudget kHostPipeline{256 * kGiB, 256 * kGiB, BudgetSource::kExplicit};

// The attention phase, the largest on each GPU: 4 x 512 x (2 x 8,192 +
// 8,192 + 2 x 8 x 128 + 2 x 8,192) = 88,080,384, the scores 4 x 4,096 x
// 512 x 64 = 536,870,912 and the mask 4 x 4,096 x 512 = 8,388,608.
constexpr uint64_t kAttention = 633'339'904;
// The KV store's indices (#14959): k_idxs 8 x 512 = 4,096 and, flash
// attention off (V transposed), v_idxs 8 x 512 x 1,024 = 4,194,304.
constexpr uint64_t kIndices = 4'198'400;
// The vector-input leaf (#18898): 4 x 512 x 8,192 = 16,777,216.
constexpr uint64_t kLeaf = 16'777'216;
// The host's input phase: the input rows 4 x 512 x 8,192 = 16,777,216,
// token ids, positions and output ids 3 x 2,048, the F32 mask 8,388,608,
// the indices and the leaf: 46,147,584.
constexpr uint64_t kHostInputs = 46'147'584;
// One copy of a GPU's split inputs: the hidden rows 16,777,216 + the mask
// 8,388,608 + the positions 2,048 + the indices 4,198,400 = 29,366,272;
// the output layer's GPU also the output ids, 2,048. The host's graph
// inputs: 3 x 2,048 + 8,388,608 + the indices + the leaf = 29,370,368.
constexpr uint64_t kSplitInputs = 25'167'872 + kIndices;  // 29,366,272
constexpr uint64_t kOutputIds = 2'048;
constexpr uint64_t kGraphInputs = 8'394'752 + kIndices + kLeaf;  // 29,370,368
// One copy each (no pipeline parallelism): each GPU's split replayed
// (device_split). Its copies at the bottom (kSplitInputs; GPU 1 the
// output ids too), block 0's norm, Q product and roped Q, 3 x 16,777,216
// (K's and V's rows fit the first two's holes), the scores 536,870,912 on
// top, the softmax in place: 29,366,272 + 50,331,648 + 536,870,912 =
// 616,568,832, below the attention phase's 633,339,904.
constexpr uint64_t kReplayed = kSplitInputs + 50'331'648 + 536'870'912;  // 616,568,832

LlamaCppEstimate run_pipeline(const LlamaCppSettings& s) {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("llama3/Meta-Llama-3.1-70B");
  m.weights.bytes = 40 * kGiB;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kHostPipeline);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : LlamaCppEstimate{};
}

LlamaCppSettings two_gpus(std::string_view backend) {
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.flash_attn = FlashAttn::kOff;
  s.placement.gpus = {LlamaCppGpu{std::string(backend) + ":0", "", 40 * kGiB},
                      LlamaCppGpu{std::string(backend) + ":1", "", 40 * kGiB}};
  return s;
}

std::vector<uint64_t> compute_of(const LlamaCppEstimate& e) {
  std::vector<uint64_t> bytes;
  for (const LlamaCppDeviceUsage& d : e.placement.devices) bytes.push_back(d.compute_bytes);
  return bytes;
}

TEST(LlamaCppPipeline, EveryLayerOnTwoCudaGpusKeepsFourCopiesOfEachInput) {
  const LlamaCppEstimate e = run_pipeline(two_gpus("cuda"));
  ASSERT_EQ(e.placement.devices.size(), 3u);
  EXPECT_EQ(e.placement.n_copies, 4u);
  // Three copies more than the phases hold: GPU 0 633,339,904 + 3 x
  // 29,366,272 = 721,438,720 (Ollama 0.11.10's log, the same graph without
  // the leaf on the host, printed 688.02 MiB = 721,441,260); GPU 1, with
  // the output ids, 633,339,904 + 3 x 29,368,320 = 721,444,864; the host
  // 46,147,584 + 3 x 29,370,368 = 134,258,688.
  EXPECT_EQ(compute_of(e), (std::vector<uint64_t>{721'438'720, 721'444'864, 134'258'688}));
  EXPECT_EQ(e.placement.devices[0].compute_bytes, kAttention + 3 * kSplitInputs);
  EXPECT_EQ(e.placement.devices[1].compute_bytes, kAttention + 3 * (kSplitInputs + kOutputIds));
  EXPECT_EQ(e.placement.devices[2].compute_bytes, kHostInputs + 3 * kGraphInputs);
  // ROCm is ggml-cuda too.
  EXPECT_EQ(compute_of(run_pipeline(two_gpus("rocm"))), compute_of(e));
}

TEST(LlamaCppPipeline, OneCopyUnlessLlamaContextEnablesIt) {
  const std::vector<uint64_t> one_copy{kReplayed, kReplayed + kOutputIds, kHostInputs};
  // A build before #6017 (b2413).
  LlamaCppSettings s = two_gpus("cuda");
  s.build = 2412;
  EXPECT_EQ(run_pipeline(s).placement.n_copies, 1u);
  s.build = 2413;
  EXPECT_EQ(run_pipeline(s).placement.n_copies, 4u);
  // -ngl 80 of 81 slots, not past n_layer: block 0 stays on the host.
  s = two_gpus("cuda");
  s.placement.n_gpu_layers = 80;
  EXPECT_EQ(run_pipeline(s).placement.n_copies, 1u);
  // The row split, KV on the host (an override needs a GGUF tensor list,
  // which this config-only model has not).
  s = two_gpus("cuda");
  s.placement.split_mode = SplitMode::kRow;
  EXPECT_EQ(run_pipeline(s).placement.n_copies, 1u);
  s = two_gpus("cuda");
  s.placement.kv_offload = false;
  EXPECT_EQ(run_pipeline(s).placement.n_copies, 1u);
  // One GPU.
  s = two_gpus("cuda");
  s.placement.gpus.pop_back();
  EXPECT_EQ(run_pipeline(s).placement.n_copies, 1u);
  // A backend without events: a GPU given by --gpu-memory, and Vulkan
  // before the build known to have them (b7591); from it, four copies.
  EXPECT_EQ(compute_of(run_pipeline(two_gpus("gpu"))), one_copy);
  s = two_gpus("vulkan");
  s.build = 7590;  // before #18898: no vector-input leaf on the host
  EXPECT_EQ(compute_of(run_pipeline(s)), (std::vector<uint64_t>{kReplayed, kReplayed + kOutputIds, kHostInputs - kLeaf}));
  s.build = 7591;
  EXPECT_EQ(run_pipeline(s).placement.n_copies, 4u);
  // What the log printed decides over the rule.
  s = two_gpus("cuda");
  s.placement.pipeline_parallel = false;
  EXPECT_EQ(compute_of(run_pipeline(s)), one_copy);
}

TEST(LlamaCppPipeline, GivenOnOneGpuItsSplitReadsEveryInput) {
  // Ollama 0.6.0's runner listed its one V100 twice and piped: given on,
  // the one GPU's split reads the rows, the mask, the positions, the
  // indices and the output ids: 633,339,904 + 3 x 29,368,320.
  LlamaCppSettings s = two_gpus("cuda");
  s.placement.gpus.pop_back();
  s.placement.pipeline_parallel = true;
  EXPECT_EQ(compute_of(run_pipeline(s)), (std::vector<uint64_t>{721'444'864, 134'258'688}));
}

TEST(LlamaCppPipeline, TheMaskIsCopiedAtItsInputsType) {
  // Flash attention on: the pinned build's mask input is F16, 2 x 4,096 x
  // 512 = 4,194,304 a copy (host: 32-B aligned, the same); the FFN phase
  // leads on GPU 0: 4 x 512 x (3 x 28,672 + 4 x 8,192) + the F16 mask
  // 4,194,304 = 247,463,936; the host's input phase keeps its F32 mask.
  // V is not transposed: v_idxs 8 x 512 = 4,096, indices 8,192. The host's
  // input phase: 16,777,216 + 6,144 + 8,388,608 + 16,777,216 + 8,192 =
  // 41,957,376.
  LlamaCppSettings s = two_gpus("cuda");
  s.flash_attn = FlashAttn::kOn;
  const LlamaCppEstimate e = run_pipeline(s);
  EXPECT_EQ(e.placement.devices[0].compute_bytes,
            247'463'936u + 3 * (16'777'216u + 4'194'304 + 2'048 + 8'192));
  EXPECT_EQ(e.placement.devices[2].compute_bytes,
            41'957'376u + 3 * (3 * 2'048u + 4'194'304 + 8'192 + kLeaf));
}

}  // namespace
}  // namespace memfit
