// vLLM's tensor-parallel split of Mamba mixers (shared/parallel_tensors.cc;
// vLLM model_executor/layers/mamba/mamba_mixer2.py and mamba_mixer.py),
// worked by hand on real corpus configs: Nemotron-H and Mamba-Codestral
// (Mamba-2, eight B/C groups: every part split by TP), the Granite-4.0-H
// style fixture (Mamba-2, one group: B/C replicated on every rank) and
// Mamba-2.8B (Mamba-1).
#include <gtest/gtest.h>

#include "engines/shared/parallel_tensors.h"
#include "memfit/parallel_plan.h"
#include "memfit/vllm.h"
#include "engines/vllm/parts.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using testing::corpus_spec;
using testing::fixture_spec;

SafetensorsTensor tensor(const std::string& name, std::string dtype, std::vector<uint64_t> shape) {
  uint64_t bytes = dtype == "F32" ? 4 : 2;
  for (uint64_t d : shape) bytes *= d;
  return SafetensorsTensor{name, std::move(dtype), std::move(shape), bytes};
}

// Each tensor's bytes on one rank of `n`, in order.
std::vector<uint64_t> shares(const std::vector<SafetensorsTensor>& tensors, const ModelSpec& spec,
                             uint64_t n, ShardingRules rules = ShardingRules::kVllm) {
  const TensorSplit split{rules, n, spec.geometry.kv_heads, spec.mamba2};
  std::vector<uint64_t> out;
  for (const SafetensorsTensor& t : tensors) {
    Result<uint64_t> b = tp_rank_tensor_bytes(t, place_tensor(t.name).role, split);
    EXPECT_TRUE(b.ok()) << t.name;
    out.push_back(b.ok() ? *b : 0);
  }
  return out;
}

uint64_t sum(const std::vector<uint64_t>& v) {
  uint64_t s = 0;
  for (uint64_t x : v) s += x;
  return s;
}

Model model_of_parallel_tensors_mamba(ModelSpec spec, uint64_t weights) {
  Model m;
  m.has_config = true;
  m.spec = std::move(spec);
  m.weights.bytes = weights;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

// A Mamba-2 mixer's tensors as Nemotron-H, Mamba-2 and Granite name them.
std::vector<SafetensorsTensor> mamba2_mixer(const std::string& prefix, uint64_t hidden,
                                            uint64_t in_rows, uint64_t conv, uint64_t heads,
                                            uint64_t inner) {
  return {
      tensor(prefix + "in_proj.weight", "BF16", {in_rows, hidden}),
      tensor(prefix + "conv1d.weight", "BF16", {conv, 1, 4}),
      tensor(prefix + "conv1d.bias", "BF16", {conv}),
      tensor(prefix + "A_log", "F32", {heads}),
      tensor(prefix + "D", "BF16", {heads}),
      tensor(prefix + "dt_bias", "BF16", {heads}),
      tensor(prefix + "norm.weight", "BF16", {inner}),
      tensor(prefix + "out_proj.weight", "BF16", {hidden, inner}),
  };
}

TEST(VllmMambaSplit, NemotronHEightGroupsSplitEveryPartEvenly) {
  // NVIDIA-Nemotron-3-Nano-30B-A3B: hidden 2,688, 64 Mamba heads of 64
  // (inner 4,096), 8 groups of state 128, kernel 4, 23 "M" layers.
  //   in_proj  [2 x 4,096 + 2 x 8 x 128 + 64 = 10,304, 2,688]  55,394,304 B
  //   conv1d   [4,096 + 2,048 = 6,144, 1, 4] 49,152; bias [6,144] 12,288
  //   A_log [64] f32 256; D, dt_bias [64] 128 each; norm [4,096] 8,192
  //   out_proj [2,688, 4,096]                                 22,020,096 B
  // Whole: 77,484,544. 8 groups % 2 and % 4 == 0: in_proj and conv1d are
  // MergedColumnParallelLinear, each part split; A/D/dt_bias/norm split by
  // heads; out_proj row-parallel. TP 2: 27,697,152 + 24,576 + 6,144 + 128
  // + 64 + 64 + 4,096 + 11,010,048 = 38,742,272 (a half). TP 4:
  // 13,848,576 + 12,288 + 3,072 + 64 + 32 + 32 + 2,048 + 5,505,024 =
  // 19,371,136 (a quarter). Before this split every mixer tensor but
  // out_proj stayed whole: 66,474,496 at TP 2.
  ModelSpec spec = corpus_spec("nemotron_h/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16");
  EXPECT_EQ(spec.mamba2, (Mamba2Geometry{64, 4096, 8, 128, 4, 23}));
  const auto t = mamba2_mixer("backbone.layers.0.mixer.", 2688, 10304, 6144, 64, 4096);
  EXPECT_EQ(sum(shares(t, spec, 1)), 77'484'544u);
  EXPECT_EQ(shares(t, spec, 2), (std::vector<uint64_t>{27'697'152, 24'576, 6'144, 128, 64, 64,
                                                        4'096, 11'010'048}));
  EXPECT_EQ(sum(shares(t, spec, 2)), 38'742'272u);
  EXPECT_EQ(sum(shares(t, spec, 4)), 19'371'136u);
  // vLLM's per-rank weights: the same, plus the rope cache.
  Model m = model_of_parallel_tensors_mamba(spec, 77'484'544);
  Result<VllmWeights> w = vllm_rank_weights(m, t, 4);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->bytes - w->rope_cache_bytes, 19'371'136u);
  // mlx-lm keeps the mixer whole; out_proj is still sharded-to-all.
  EXPECT_EQ(sum(shares(t, spec, 2, ShardingRules::kMlxLm)), 77'484'544u - 11'010'048u);
}

TEST(VllmMambaSplit, MambaCodestralSplitsByQuartersAndRefusesSixteenRanks) {
  // Mamba-Codestral-7B: hidden 4,096, 128 heads of 64 (inner 8,192), 8
  // groups of 128, 64 layers. in_proj [16,384 + 2,048 + 128 = 18,560,
  // 4,096] 152,043,520 B: TP 4 38,010,880. conv1d [10,240, 1, 4] 81,920:
  // 20,480.
  ModelSpec spec = corpus_spec("mamba2/Mamba-Codestral-7B-hfconv");
  EXPECT_EQ(spec.mamba2, (Mamba2Geometry{128, 8192, 8, 128, 4, 64}));
  const auto t = mamba2_mixer("backbone.layers.5.mixer.", 4096, 18560, 10240, 128, 8192);
  const std::vector<uint64_t> four = shares(t, spec, 4);
  EXPECT_EQ(four[0], 38'010'880u);
  EXPECT_EQ(four[1], 20'480u);
  // 8 groups over 16 ranks: MambaMixer2 asserts n_groups % tp == 0 or
  // n_groups == 1, so vLLM refuses; memfit's plan says so.
  Model m = model_of_parallel_tensors_mamba(spec, 14'000'000'000);
  Result<ParallelPlan> p = plan_parallel(m, {}, MlxcelInputs{}, MlxcelSettings{}, Platform{},
                                         MemoryBudget{1ull << 40, 1ull << 40, BudgetSource::kExplicit},
                                         ParallelConfig{16, 1, ShardingRules::kVllm});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().message(),
            "tensor parallel size 16 does not divide the model's 8 Mamba groups (vLLM requires "
            "n_groups % tensor_parallel_size == 0 or n_groups == 1)");
}

TEST(VllmMambaSplit, OneGroupIsReplicatedOnEveryRank) {
  // The Granite-4.0-H style fixture: hidden 1,536, 48 heads, head dim
  // "auto" (inner = expand 2 x 1,536 = 3,072), one group of state 128,
  // kernel 4, 36 Mamba layers of 40.
  //   in_proj [2 x 3,072 + 2 x 128 + 48 = 6,448, 1,536]  19,808,256 B
  //   conv1d [3,072 + 256 = 3,328, 1, 4] 26,624; bias 6,656
  //   A_log [48] f32 192; D, dt_bias [48] 96 each; norm [3,072] 6,144
  //   out_proj [1,536, 3,072] 9,437,184
  // vLLM pads the one group to N (extra_groups_for_head_shards) and every
  // rank loads group 0 whole. TP 2: in_proj rows (6,144 + 48) / 2 + 256 =
  // 3,352: 3,352 x 1,536 x 2 = 10,297,344 (a half is 9,904,128); conv1d
  // 1,536 + 256 = 1,792 channels: 14,336 and 3,584. TP 4: 1,548 + 256 =
  // 1,804 rows: 5,541,888; conv 768 + 256 = 1,024 channels: 8,192, 2,048.
  ModelSpec spec = fixture_spec("granite-hybrid");
  EXPECT_EQ(spec.mamba2, (Mamba2Geometry{48, 3072, 1, 128, 4, 36}));
  const auto t = mamba2_mixer("model.layers.0.mamba.", 1536, 6448, 3328, 48, 3072);
  EXPECT_EQ(shares(t, spec, 2), (std::vector<uint64_t>{10'297'344, 14'336, 3'584, 96, 48, 48,
                                                        3'072, 4'718'592}));
  EXPECT_EQ(shares(t, spec, 4), (std::vector<uint64_t>{5'541'888, 8'192, 2'048, 48, 24, 24,
                                                        1'536, 2'359'296}));
  // Without a tensor list: each rank holds 2 x 128 - 256 / N group rows
  // more than 1/N of them, in_proj (1,536 wide) and conv1d (4 + bias)
  // alike: at TP 2, 36 layers x 128 x 1,541 = 7,100,928 parameters, at 2
  // bytes each when the checkpoint is 2 bytes a counted parameter.
  Model m = model_of_parallel_tensors_mamba(spec, 0);
  m.weights.source = WeightsSource::kSafetensorsIndex;
  m.weights.bytes = 2 * m.spec.analytical_params;
  Model even = m;
  even.spec.mamba2.groups = 8;
  Result<VllmWeights> one = vllm_rank_weights(m, {}, 2);
  Result<VllmWeights> eight = vllm_rank_weights(even, {}, 2);
  ASSERT_TRUE(one.ok() && eight.ok());
  EXPECT_EQ(one->bytes - eight->bytes, 14'201'856u);
}

TEST(VllmMambaSplit, MambaOneSplitsEveryMixerTensor) {
  // mamba-2.8b: hidden 2,560, inner 5,120, state 16, dt rank 160. No
  // Mamba-2 widths: in_proj and conv1d split evenly.
  //   in_proj [10,240, 2,560] 52,428,800 -> 26,214,400 (TP 2)
  //   conv1d [5,120, 1, 4] 40,960 -> 20,480; bias 10,240 -> 5,120
  //   x_proj [192, 5,120] 1,966,080 -> 983,040 (row-parallel)
  //   dt_proj [5,120, 160] 1,638,400 -> 819,200; bias 10,240 -> 5,120
  //   A_log [5,120, 16] f32 327,680 -> 163,840; D [5,120] f32 -> 10,240
  //   out_proj [2,560, 5,120] 26,214,400 -> 13,107,200
  ModelSpec spec = corpus_spec("mamba/mamba-2.8b-hf-finetune");
  EXPECT_EQ(spec.mamba2, Mamba2Geometry{});
  const std::string p = "backbone.layers.63.mixer.";
  const std::vector<SafetensorsTensor> t = {
      tensor(p + "in_proj.weight", "BF16", {10240, 2560}),
      tensor(p + "conv1d.weight", "BF16", {5120, 1, 4}),
      tensor(p + "conv1d.bias", "BF16", {5120}),
      tensor(p + "x_proj.weight", "BF16", {192, 5120}),
      tensor(p + "dt_proj.weight", "BF16", {5120, 160}),
      tensor(p + "dt_proj.bias", "BF16", {5120}),
      tensor(p + "A_log", "F32", {5120, 16}),
      tensor(p + "D", "F32", {5120}),
      tensor(p + "out_proj.weight", "BF16", {2560, 5120}),
  };
  EXPECT_EQ(shares(t, spec, 2), (std::vector<uint64_t>{26'214'400, 20'480, 5'120, 983'040, 819'200,
                                                        5'120, 163'840, 10'240, 13'107'200}));
  EXPECT_EQ(sum(shares(t, spec, 4)), sum(shares(t, spec, 1)) / 4);
  // The block's own norm (not under the mixer) stays whole.
  EXPECT_EQ(place_tensor("backbone.layers.63.norm.weight").role, TensorRole::kReplicated);
}

TEST(VllmMambaSplit, MixerTensorsArePlacedByTheirModule) {
  EXPECT_EQ(place_tensor("model.layers.3.mamba.in_proj.weight").role, TensorRole::kSsmInProjection);
  EXPECT_EQ(place_tensor("backbone.layers.0.mixer.conv1d.bias").role, TensorRole::kSsmConv);
  EXPECT_EQ(place_tensor("model.layers.1.mamba.dt_proj.bias").role, TensorRole::kSsmHeads);
  EXPECT_EQ(place_tensor("backbone.layers.0.mixer.norm.weight").role, TensorRole::kSsmHeads);
  EXPECT_EQ(place_tensor("backbone.layers.0.mixer.out_proj.weight").role, TensorRole::kRowParallel);
  // Jamba's dt/B/C layernorms stay whole; Nemotron-H's MoE and attention
  // blocks under "mixer" keep their own roles.
  EXPECT_EQ(place_tensor("model.layers.1.mamba.dt_layernorm.weight").role, TensorRole::kReplicated);
  EXPECT_EQ(place_tensor("backbone.layers.1.mixer.gate.weight").role, TensorRole::kReplicated);
  EXPECT_EQ(place_tensor("backbone.layers.5.mixer.q_proj.weight").role, TensorRole::kColumnParallel);
  // A gated-delta-net's norm (over the head dim) is not a Mamba norm.
  EXPECT_EQ(place_tensor("model.layers.0.linear_attn.norm.weight").role, TensorRole::kReplicated);
}

}  // namespace
}  // namespace memfit
