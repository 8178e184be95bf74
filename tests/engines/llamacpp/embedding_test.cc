// llama.cpp serving embeddings (docs/embedding-models.md): an encoder keeps
// no KV cache and its batch is not capped at the context; --embedding
// makes every batch token an output row of logits and embeddings; mean
// pooling adds its matrix to the compute graph. Figures by hand on the
// synthetic shapes of estimate_test.cc: 4 blocks, hidden 256, 8 heads of
// 32, n_ff 512, vocab 32000.
#include <gtest/gtest.h>

#include "engines/llamacpp/parts.h"
#include "memfit/llamacpp.h"

namespace memfit {
namespace {

const MemoryBudget kBudgetEmbedding{64ull << 30, 64ull << 30, BudgetSource::kExplicit};

Model model_of_embedding(ModelSpec spec) {
  Model m;
  m.has_config = true;
  m.spec = std::move(spec);
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

// A BERT-shaped encoder: no layer caches anything, trained for 512 tokens.
ModelSpec synthetic_encoder() {
  ModelSpec s;
  s.geometry = {4, 256, 8, 8, 32, 512, 32000};
  s.max_position_tokens = 512;
  s.layers.assign(4, LayerCache{LayerKind::kNone});
  s.layout = "encoder";
  s.embedding.bidirectional = true;
  s.embedding.by_architecture = true;
  s.embedding.pooling = "cls";
  return s;
}

// The synthetic llama of estimate_test.cc: 4 full-attention layers.
ModelSpec synthetic_llama() {
  ModelSpec s;
  s.geometry = {4, 256, 8, 2, 32, 512, 32000};
  s.max_position_tokens = 4096;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 128, 0, 0, 0});
  return s;
}

LlamaCppEstimate run_embedding(const ModelSpec& spec, const LlamaCppSettings& s) {
  Result<LlamaCppEstimate> e = estimate_llamacpp(model_of_embedding(spec), s, kBudgetEmbedding);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : LlamaCppEstimate{};
}

TEST(LlamaCppEmbedding, AnEncoderKeepsNoCacheAndItsBatchIsNotCapped) {
  LlamaCppSettings s;
  s.embedding = true;
  const LlamaCppEstimate e = run_embedding(synthetic_encoder(), s);
  // The training context, 512 tokens; n_batch stays 2048: only causal
  // attention caps it at the context.
  EXPECT_EQ(e.context.n_batch, 2048u);
  EXPECT_EQ(e.context.n_ubatch, 512u);
  EXPECT_EQ(e.kv_bytes, 0u);
  EXPECT_EQ(e.kv_bytes_per_token, 0u);
  // Every token of a full batch is an output: 2048 rows of 32000 logits
  // and 256 embeddings, f32: 4 x 2048 x 32256 = 264,241,152 B.
  EXPECT_EQ(e.output_bytes, 264241152u);
  EXPECT_EQ(e.context_bytes, 264241152u);
}

TEST(LlamaCppEmbedding, AnEncoderKeptADecodersCacheBefore13108) {
  // Before #13108 the context made the usual cache for an encoder, never
  // read: 512 cells x 4 layers x (K and V of 8 KV heads x 32, f16: 2 x 8 x
  // 32 x 2 B = 1,024 B) = 2,097,152 B. From b5340 (the first build memfit
  // takes for it) none.
  LlamaCppSettings s;
  s.build = 5339;
  EXPECT_EQ(run_embedding(synthetic_encoder(), s).kv_bytes, 2'097'152u);
  s.build = 5340;
  EXPECT_EQ(run_embedding(synthetic_encoder(), s).kv_bytes, 0u);
  // A decoder's cache is the same either side.
  s.build = 5339;
  const uint64_t before = run_embedding(synthetic_llama(), s).kv_bytes;
  s.build = 5340;
  EXPECT_EQ(run_embedding(synthetic_llama(), s).kv_bytes, before);
}

TEST(LlamaCppEmbedding, WithoutEmbeddingTheOutputIsOneRowOfLogitsASequence) {
  LlamaCppSettings s;
  const LlamaCppEstimate e = run_embedding(synthetic_encoder(), s);
  EXPECT_EQ(e.context.n_batch, 2048u);  // the encoder's rule holds regardless
  EXPECT_EQ(e.output_bytes, 128000u);   // 4 x 1 x 32000
}

TEST(LlamaCppEmbedding, ACausalEmbedderKeepsItsCacheAndOutputsEveryToken) {
  // The synthetic llama with --embedding, n_ctx 1000: n_batch is capped
  // at 1000, the KV cache is the measured 1 MiB, and the output buffer
  // 4 x 1000 x (32000 + 256) = 129,024,000 B.
  LlamaCppSettings s;
  s.ctx_size = 1000;
  s.embedding = true;
  const LlamaCppEstimate e = run_embedding(synthetic_llama(), s);
  EXPECT_EQ(e.context.n_batch, 1000u);
  EXPECT_EQ(e.kv_bytes, 1u << 20);
  EXPECT_EQ(e.output_bytes, 129024000u);
}

TEST(LlamaCppEmbedding, BeforeTheReworkAPooledRunKeepsNoOutputBuffer) {
  // b5618 precedes #14208: output_reserve kept no logits with
  // --embedding (has_logits = !embeddings) and n_embd floats a row only
  // without pooling (has_embd = embeddings && pooling == NONE). With
  // --pooling mean both are 0: the 0.00 MiB ROCm/ROCm#4903 printed.
  LlamaCppSettings s;
  s.ctx_size = 1000;
  s.embedding = true;
  s.pooling = "mean";
  s.build = 5618;
  EXPECT_EQ(run_embedding(synthetic_llama(), s).output_bytes, 0u);
  // Pooling none keeps the embeddings alone: 4 x 1000 rows x 256 =
  // 1,024,000 B (n_batch capped at n_ctx 1000, every token an output).
  s.pooling = "none";
  EXPECT_EQ(run_embedding(synthetic_llama(), s).output_bytes, 1024000u);
  // The model states no pooling (llama.cpp's NONE): the same.
  s.pooling = "";
  EXPECT_EQ(run_embedding(synthetic_llama(), s).output_bytes, 1024000u);
  // Without --embedding nothing changed: 4 x 1 x 32000 = 128,000 B.
  s.embedding = false;
  EXPECT_EQ(run_embedding(synthetic_llama(), s).output_bytes, 128000u);
}

TEST(LlamaCppEmbedding, FromTheReworkLogitsAndEmbeddingsAreKeptWhateverThePooling) {
  // The first build priced with #14208 and the pinned release: 4 x 1000
  // x (32000 + 256) = 129,024,000 B with mean pooling too.
  LlamaCppSettings s;
  s.ctx_size = 1000;
  s.embedding = true;
  s.pooling = "mean";
  s.build = 5670;
  EXPECT_EQ(run_embedding(synthetic_llama(), s).output_bytes, 129024000u);
  s.build.reset();
  EXPECT_EQ(run_embedding(synthetic_llama(), s).output_bytes, 129024000u);
  // The last build before it: nothing kept.
  s.build = 5669;
  EXPECT_EQ(run_embedding(synthetic_llama(), s).output_bytes, 0u);
}

TEST(LlamaCppEmbedding, AMeanPoolingMatrixKeepsTheGpusLogitsAboveTheInputCopies) {
  // The synthetic llama on one GPU, --embedding --pooling mean, 4,096
  // cells, U 512, flash attention, b5618 (before #14208: a square mean
  // matrix; an F32 mask input). The GPU's input copies, in the order the
  // split reads them: rows 4 x 512 x 256 = 524,288, positions and output
  // ids 2,048 each, the F32 mask 4 x 4,096 x 512 = 8,388,608: 8,916,992,
  // freed below the mean matrix 4 x 512 x 512 = 1,048,576, which the
  // pooling reads after the logits 4 x 512 x 32,000 = 65,536,000 (too
  // large for the hole): 75,501,568 B, above the logits and result_norm
  // alone, 4 x 512 x (32,000 + 256) = 66,060,288.
  LlamaCppSettings s;
  s.ctx_size = 4096;
  s.embedding = true;
  s.pooling = "mean";
  s.flash_attn = FlashAttn::kOn;
  s.build = 5618;
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", 24ull << 30}};
  EXPECT_EQ(run_embedding(synthetic_llama(), s).placement.devices[0].compute_bytes, 75501568u);
  // Without pooling nothing is read after the logits: 66,060,288.
  s.pooling = "none";
  EXPECT_EQ(run_embedding(synthetic_llama(), s).placement.devices[0].compute_bytes, 66060288u);
  // The pinned build: an F16 mask 2 x 4,096 x 512 = 4,194,304, k_idxs and
  // v_idxs 8 x 512 each, a matrix of 512 tokens x 1 sequence (2,048):
  // 524,288 + 2 x 2,048 + 4,194,304 + 8,192 + 2,048 + 65,536,000 = 70,268,928.
  s.pooling = "mean";
  s.build.reset();
  EXPECT_EQ(run_embedding(synthetic_llama(), s).placement.devices[0].compute_bytes, 70268928u);
}

TEST(LlamaCppEmbedding, OutputEmbeddingsAddNEmbdFloatsARowAndNothingElse) {
  // A context that asks for embeddings without --embedding (Ollama's
  // runner): one row a sequence, as without it, of 32000 logits and 256
  // embeddings: 4 x 2 x (32000 + 256) = 258,048 B for 2 sequences, where
  // the logits alone are 4 x 2 x 32000 = 256,000 B. n_batch, the KV cache
  // and the compute buffer are the plain run's.
  LlamaCppSettings s;
  s.ctx_size = 2048;
  s.parallel = 2;
  const LlamaCppEstimate plain = run_embedding(synthetic_llama(), s);
  s.output_embeddings = true;
  const LlamaCppEstimate with = run_embedding(synthetic_llama(), s);
  EXPECT_EQ(plain.output_bytes, 256000u);
  EXPECT_EQ(with.output_bytes, 258048u);
  EXPECT_EQ(with.context.n_batch, plain.context.n_batch);
  EXPECT_EQ(with.kv_bytes, plain.kv_bytes);
  EXPECT_EQ(with.compute_bytes, plain.compute_bytes);
}

TEST(LlamaCppEmbedding, OutputEmbeddingsOfAPoolingModelBeforeTheRework) {
  // The encoder pools ("cls"). From #14208 has_embd = cparams.embeddings:
  // 4 x 1 x (32000 + 256) = 129,024 B; before it (Ollama's
  // 0003-embeddings.patch: has_embd = embeddings && pooling == NONE) the
  // logits alone, 4 x 1 x 32000 = 128,000 B.
  LlamaCppSettings s;
  s.output_embeddings = true;
  EXPECT_EQ(run_embedding(synthetic_encoder(), s).output_bytes, 129024u);
  s.build = 5669;
  EXPECT_EQ(run_embedding(synthetic_encoder(), s).output_bytes, 128000u);
  // A generation model pools nothing: kept before the rework too.
  EXPECT_EQ(run_embedding(synthetic_llama(), s).output_bytes, 129024u);
}

TEST(LlamaCppEmbedding, TheEncodersGraphAttendsOverItsBatchWithNoLogits) {
  LlamaCppSettings s;
  s.embedding = true;
  Result<LlamaCppContext> c = resolve_llamacpp_context(synthetic_encoder(), s);
  ASSERT_TRUE(c.ok());
  Result<llamacpp::ComputePhases> phases = llamacpp::compute_phases(synthetic_encoder(), *c, s);
  ASSERT_TRUE(phases.ok());
  // n_out = n_tok = min(n_ctx 512, n_ubatch 512) = 512, n_kv = 512 (the
  // batch itself), flash attention on. Attention: 4 x 512 x (2 x 256 +
  // 256 + 2 x 8 x 32 + 2 x 256) + 2 x 512 x 512 = 3,670,016 + 524,288.
  EXPECT_EQ(phases->attention, 4194304u);
  // Output, no vocabulary: 4 x 512 x (768 - 256) + the input rows
  // 4 x 512 x 256 = 1,048,576 + 524,288.
  EXPECT_EQ(phases->output, 1572864u);
  // Mean pooling adds its f32 matrix, 512 tokens x 1 sequence: 2,048 B.
  s.pooling = "mean";
  Result<llamacpp::ComputePhases> mean = llamacpp::compute_phases(synthetic_encoder(), *c, s);
  ASSERT_TRUE(mean.ok());
  EXPECT_EQ(mean->output, 1572864u + 2048u);
}

TEST(LlamaCppEmbedding, BertsFfnHoldsItsUpProductAloneWhereGatedOnesHoldThree) {
  // The synthetic encoder (no model type): a gated FFN's phase, 4 x 512 x
  // (3 x 512 + 4 x 256) + the f16 mask 2 x 512 x 512 = 5,242,880 + 524,288.
  LlamaCppSettings s;
  s.embedding = true;
  ModelSpec spec = synthetic_encoder();
  Result<LlamaCppContext> c = resolve_llamacpp_context(spec, s);
  ASSERT_TRUE(c.ok());
  Result<llamacpp::ComputePhases> gated = llamacpp::compute_phases(spec, *c, s);
  ASSERT_TRUE(gated.ok());
  EXPECT_EQ(gated->ffn, 5767168u);
  // BERT: up, GELU in place, down (LLM_FFN_SEQ, no gate): 4 x 512 x (512
  // + 4 x 256) + 524,288 = 3,145,728 + 524,288.
  spec.model_type = "bert";
  Result<llamacpp::ComputePhases> bert = llamacpp::compute_phases(spec, *c, s);
  ASSERT_TRUE(bert.ok());
  EXPECT_EQ(bert->ffn, 3670016u);
  // Jina's BERT v2 gates its FFN (GEGLU): the gated phase.
  spec.family = "jina_bert_v2";
  Result<llamacpp::ComputePhases> jina = llamacpp::compute_phases(spec, *c, s);
  ASSERT_TRUE(jina.ok());
  EXPECT_EQ(jina->ffn, 5767168u);
}

TEST(LlamaCppEmbedding, PoolingIsTheModelsOwnUnlessGivenAndNoneWithoutEmbedding) {
  LlamaCppSettings s;
  EXPECT_EQ(llamacpp::pooling_of(synthetic_encoder(), s), "");
  s.embedding = true;
  EXPECT_EQ(llamacpp::pooling_of(synthetic_encoder(), s), "cls");
  s.pooling = "mean";
  EXPECT_EQ(llamacpp::pooling_of(synthetic_encoder(), s), "mean");
}

}  // namespace
}  // namespace memfit
