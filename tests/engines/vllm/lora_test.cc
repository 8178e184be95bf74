// vLLM's LoRA slots (--enable-lora; engines/vllm/lora.h, docs/engine-vllm.md
// "LoRA slots"), worked by hand on Qwen3-8B's config: 36 layers, hidden
// 4,096, 32 heads and 8 KV heads of 128, intermediate 12,288.
#include <gtest/gtest.h>

#include "engines/vllm/lora.h"
#include "memfit/vllm.h"
#include "support/corpus.h"

namespace memfit {
namespace {

const MemoryBudget kBudgetLora{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

VllmSettings lora_settings(uint64_t tp) {
  VllmSettings s;
  s.tensor_parallel = tp;
  s.lora.enabled = true;
  return s;
}

uint64_t lora_bytes(const ModelSpec& spec, const VllmSettings& s) {
  Result<uint64_t> bytes = vllm_lora_bytes(spec, s);
  EXPECT_TRUE(bytes.ok()) << (bytes.ok() ? "" : bytes.error().message());
  return bytes.ok() ? *bytes : 0;
}

TEST(VllmLora, Qwen3At8BTensorParallel2HoldsOneSlotOfRank16InEveryLinearLayer) {
  // vLLM's defaults: one slot (max_loras 1), rank 16, 2 B. A rank's layer:
  // q, k, v, gate, up column-parallel, A [1, 1, 16, 4,096] each: 5 x 16 x
  // 4,096 = 327,680; B [1, 1, out / TP, 16]: (2,048 + 512 + 512 + 6,144 +
  // 6,144) x 16 = 245,760; o and down row-parallel, A [1, 1, 16, in / TP]:
  // 16 x (2,048 + 6,144) = 131,072; B [1, 1, 4,096, 16] each: 2 x 65,536 =
  // 131,072. 835,584 elements x 2 B x 36 layers = 60,162,048 B.
  const ModelSpec spec = testing::corpus_spec("qwen3/Qwen3-8B");
  EXPECT_EQ(lora_bytes(spec, lora_settings(2)), 60'162'048u);
  // TP 1: A 327,680 and 16 x 16,384 = 262,144; B (4,096 + 1,024 + 1,024 +
  // 12,288 + 12,288) x 16 = 491,520 and 131,072: 1,212,416 x 2 x 36 =
  // 87,293,952.
  EXPECT_EQ(lora_bytes(spec, lora_settings(1)), 87'293'952u);
}

TEST(VllmLora, SlotsAndRankScaleEveryBuffer) {
  // Four slots of rank 64 at TP 2: 4 x 4 x 60,162,048 = 962,592,768 (no
  // buffer reaches 10 MiB: the largest, gate's B, is 4 x 6,144 x 64 x 2 =
  // 3,145,728 B).
  const ModelSpec spec = testing::corpus_spec("qwen3/Qwen3-8B");
  VllmSettings s = lora_settings(2);
  s.lora.max_loras = 4;
  s.lora.max_lora_rank = 64;
  EXPECT_EQ(lora_bytes(spec, s), 962'592'768u);
}

TEST(VllmLora, FullyShardedSplitsTheColumnAsAndTheRowBs) {
  // --fully-sharded-loras at TP 2: the column layers' A hold 16 / 2 = 8
  // rows, 5 x 8 x 4,096 = 163,840; their B as before, 245,760; the row
  // layers' A as before, 131,072, their B 4,096 / 2 = 2,048 rows, 2 x
  // 2,048 x 16 = 65,536. 606,208 x 2 B x 36 = 43,646,976.
  const ModelSpec spec = testing::corpus_spec("qwen3/Qwen3-8B");
  VllmSettings s = lora_settings(2);
  s.lora.fully_sharded = true;
  EXPECT_EQ(lora_bytes(spec, s), 43'646'976u);
  // TP 3 divides neither 16 nor 4,096: vLLM's divide() asserts.
  s.tensor_parallel = 3;
  Result<uint64_t> bad = vllm_lora_bytes(spec, s);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field(), "fully_sharded_loras");
}

TEST(VllmLora, OffByDefaultAndTheSettingsCountOnlyWithIt) {
  const ModelSpec spec = testing::corpus_spec("qwen3/Qwen3-8B");
  VllmSettings s;
  s.tensor_parallel = 2;
  s.lora.max_loras = 8;  // vLLM builds no LoRA config without --enable-lora
  EXPECT_EQ(lora_bytes(spec, s), 0u);
}

TEST(VllmLora, ARankVllmRefusesIsAUsageError) {
  const ModelSpec spec = testing::corpus_spec("qwen3/Qwen3-8B");
  VllmSettings s = lora_settings(1);
  s.lora.max_lora_rank = 24;
  Result<uint64_t> bad = vllm_lora_bytes(spec, s);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field(), "max_lora_rank");
  EXPECT_NE(bad.error().message().find("24: vLLM accepts 1, 8, 16, 32, 64, 128, 256, 320 or 512"),
            std::string::npos)
      << bad.error().message();
}

TEST(VllmLora, AMoeModelsExpertSlotsAreNotModelledSoItIsRefused) {
  const ModelSpec spec = testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B");
  Result<uint64_t> bad = vllm_lora_bytes(spec, lora_settings(1));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field(), "enable_lora");
}

TEST(VllmLora, TheEstimateCountsTheSlotsInTheLoadedWeights) {
  // Inside "Model loading took" (load_lora_model runs in its block): the
  // weights grow by the slots, 60,162,048 B at TP 2, and the KV cache
  // shrinks by as much.
  Model m = testing::corpus_model("qwen3/Qwen3-8B", 16'381'470'720ull);
  VllmSettings off;
  off.tensor_parallel = 2;
  off.gpu_memory_total = 80ull << 30;
  VllmSettings on = off;
  on.lora.enabled = true;
  Result<VllmEstimate> a = estimate_vllm(m, {}, off, kBudgetLora);
  Result<VllmEstimate> b = estimate_vllm(m, {}, on, kBudgetLora);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->weights.lora_bytes, 0u);
  EXPECT_EQ(b->weights.lora_bytes, 60'162'048u);
  EXPECT_EQ(b->weights.bytes - a->weights.bytes, 60'162'048u);
  EXPECT_EQ(a->kv_cache_bytes - b->kv_cache_bytes, 60'162'048u);
}

}  // namespace
}  // namespace memfit
