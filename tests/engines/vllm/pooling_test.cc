// vLLM's pooling runner (docs/embedding-models.md): no sampler in the
// profile, and for an encoder no KV cache at all, so the utilization is not
// taken; --runner auto picks it for a pooling architecture. Figures by hand.
#include <gtest/gtest.h>

#include "memfit/model_spec.h"
#include "memfit/vllm.h"
#include "support/corpus.h"
#include "support/units.h"

namespace memfit {
namespace {

using ::memfit::testing::kGiB;
const MemoryBudget kBudgetPooling{1ull << 40, 1ull << 40, BudgetSource::kExplicit};

// all-MiniLM-L6-v2's geometry: BertModel, hidden 384, 6 layers of 12 heads
// of 32, intermediate 1536, vocab 30522, 512 positions.
Model minilm() {
  Result<ModelSpec> spec = parse_model_config(R"({"architectures": ["BertModel"],
      "model_type": "bert", "hidden_size": 384, "num_hidden_layers": 6,
      "num_attention_heads": 12, "intermediate_size": 1536, "vocab_size": 30522,
      "max_position_embeddings": 512})");
  EXPECT_TRUE(spec.ok());
  Model m;
  m.has_config = true;
  m.spec = spec.ok() ? *spec : ModelSpec{};
  m.weights.bytes = m.spec.analytical_weights.bytes;
  m.weights.source = WeightsSource::kAnalyticalConfig;
  return m;
}

VllmSettings on_80gib() {
  VllmSettings s;
  s.gpu_memory_total = 80 * kGiB;  // no name, >= 70 GiB: 8192 batched tokens, 1024 sequences
  return s;
}

VllmEstimate run(const Model& m, const VllmSettings& s) {
  Result<VllmEstimate> e = estimate_vllm(m, {}, s, kBudgetPooling);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : VllmEstimate{};
}

TEST(VllmPooling, AnEncoderUnderAutoPoolsAndHoldsNoKvCache) {
  const VllmEstimate e = run(minilm(), on_80gib());
  EXPECT_EQ(e.settings.runner, VllmRunner::kPooling);
  // Forward of T = 8192 tokens: hidden states 4 x 8192 x 384 x 2 B =
  // 25,165,824; the MLP's 8192 x 3 x 1536 x 2 B = 75,497,472 (more than
  // attention's 8192 x (2 x 12 + 2 x 12) x 32 x 2 B = 25,165,824).
  EXPECT_EQ(e.activation_bytes, 25165824u + 75497472u);
  EXPECT_TRUE(e.layout.groups.empty());
  EXPECT_EQ(e.kv_cache_bytes, 0u);
  EXPECT_TRUE(e.starts);
  // No KV cache, so no share of the 80 GiB is taken: weights, activation,
  // non-torch (144 MiB) and the CUDA graphs: 1,024 sequences and 8,192
  // batched tokens capture 51 + 51 graphs, x 6 layers x 256 KiB =
  // 160,432,128 B.
  EXPECT_EQ(e.cuda_graph_bytes, 160432128u);
  EXPECT_EQ(e.total_bytes, e.weights.bytes + 100663296u + (144ull << 20) + 160432128u);
}

TEST(VllmPooling, TheGenerateRunnerSamplesOverTheVocabulary) {
  VllmSettings s = on_80gib();
  s.runner = VllmRunner::kGenerate;
  s.release = VllmRelease{0, 28, 0, true};  // the V1 runner's last default release
  const VllmEstimate e = run(minilm(), s);
  EXPECT_FALSE(e.v2_model_runner);
  // The dummy sampler run (0.22 on: no sort): T hidden states 8192 x 384
  // x 2 B = 6,291,456 plus the 16-bit logits over the vocabulary padded to
  // 64, 1024 rows x 30,528 x 2 B = 62,521,344, and 1024 rows x 30,522 x
  // 12 B = 375,054,336.
  EXPECT_EQ(e.activation_bytes, 6291456u + 62521344u + 375054336u);
}

TEST(VllmPooling, TheV2RunnerSamplesAFloat32CopyOfTheLogits) {
  VllmSettings s = on_80gib();
  s.runner = VllmRunner::kGenerate;  // the current line: the V2 runner (0.29 on)
  const VllmEstimate e = run(minilm(), s);
  EXPECT_TRUE(e.v2_model_runner);
  // T hidden states 8192 x 384 x 2 B = 6,291,456; the 16-bit logits of
  // 1024 rows over the vocabulary padded to 64 (30522 -> 30528):
  // 1024 x 30528 x 2 B = 62,521,344; the sampler's float32 copy
  // 1024 x 30522 x 4 B = 125,018,112. More than the forward's 100,663,296.
  EXPECT_EQ(e.activation_bytes, 6291456u + 62521344u + 125018112u);
}

TEST(VllmPooling, PoolingADecoderDropsTheSamplerAndKeepsItsKvCache) {
  Model m = testing::corpus_model("llama3/Meta-Llama-3.1-8B", 16060522496ull);
  VllmSettings s = on_80gib();
  s.release = VllmRelease{0, 28, 0, true};  // the V1 runner's sampler (39 B a logit)
  const VllmEstimate generate = run(m, s);
  EXPECT_EQ(generate.settings.runner, VllmRunner::kGenerate);  // LlamaForCausalLM
  s.runner = VllmRunner::kPooling;
  const VllmEstimate pooled = run(m, s);
  // Forward of 8192 tokens: 4 x 8192 x 4096 x 2 B = 268,435,456 and the
  // MLP's 8192 x 3 x 14336 x 2 B = 704,643,072.
  EXPECT_EQ(pooled.activation_bytes, 268435456u + 704643072u);
  EXPECT_LT(pooled.activation_bytes, generate.activation_bytes);
  EXPECT_FALSE(pooled.layout.groups.empty());
  // What the sampler no longer holds is left to the KV cache.
  EXPECT_EQ(pooled.kv_cache_bytes - generate.kv_cache_bytes,
            generate.activation_bytes - pooled.activation_bytes);
}

}  // namespace
}  // namespace memfit
