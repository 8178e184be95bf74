// --llamacpp-version: an older build's cache rules (docs/engine-llamacpp.md,
// "Releases"), worked by hand on gemma-2-2b: 13 sliding-window layers
// (window 4096) and 13 full ones, 4 KV heads x 256, so 4096 B per layer per
// cell at f16 (K + V).
#include <gtest/gtest.h>

#include "engines/llamacpp/parts.h"
#include "memfit/llamacpp.h"
#include "support/corpus.h"

namespace memfit {
namespace {

const MemoryBudget kBudget{64ull << 30, 64ull << 30, BudgetSource::kExplicit};

LlamaCppEstimate run(LlamaCppSettings s) {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("gemma2/gemma-2-2b-it");
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kBudget);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : LlamaCppEstimate{};
}

LlamaCppSettings at(uint64_t ctx, std::optional<uint64_t> build) {
  LlamaCppSettings s;
  s.ctx_size = ctx;
  s.build = build;
  return s;
}

// The full layers at 32768 cells: 13 x 4096 x 32768.
constexpr uint64_t kFullLayers32k = 1'744'830'464;

TEST(LlamaCppReleases, SlidingWindowCacheBeforeAndAfter13194) {
  // The pinned release: SWA pad256(min(32768, 4096 + 512)) = 4608 cells,
  // 13 x 4096 x 4608 = 245,366,784.
  LlamaCppEstimate now = run(at(32768, std::nullopt));
  EXPECT_EQ(now.context.swa_cells, 4608u);
  EXPECT_EQ(now.kv_bytes, kFullLayers32k + 245'366'784u);
  // b5423, before #13194: every layer caches the context, as --swa-full:
  // 26 x 4096 x 32768 = 3,489,660,928, 1.75x the window's figure.
  LlamaCppEstimate old = run(at(32768, 5423));
  EXPECT_EQ(old.context.swa_cells, 32768u);
  EXPECT_EQ(old.kv_bytes, 2 * kFullLayers32k);
  // The windowed layers no longer stop growing: every layer's row counts
  // per token, 26 x 4096 = 106,496 B (the pinned release: 13 x 4096).
  EXPECT_EQ(old.kv_bytes_per_token, 106'496u);
  EXPECT_EQ(now.kv_bytes_per_token, 53'248u);
  // b5424 to b5553: the window plus the logical batch, pad256(4096 + 2048)
  // = 6144 cells: 13 x 4096 x 6144 = 327,155,712.
  LlamaCppEstimate batch = run(at(32768, 5553));
  EXPECT_EQ(batch.context.swa_cells, 6144u);
  EXPECT_EQ(batch.kv_bytes, kFullLayers32k + 327'155'712u);
  // b5554 (#13833): the ubatch, as the pinned release.
  EXPECT_EQ(run(at(32768, 5554)).kv_bytes, now.kv_bytes);
}

TEST(LlamaCppReleases, OneStreamForEverySequenceBefore14363) {
  // -np 4 on the pinned release: a stream per sequence, 8192 base cells and
  // 4608 SWA cells in each: 13 x 4096 x 4608 x 4 = 981,467,136.
  LlamaCppSettings s = at(32768, std::nullopt);
  s.parallel = 4;
  EXPECT_EQ(run(s).kv_bytes, kFullLayers32k + 981'467'136u);
  // b5912: one stream, as --kv-unified: SWA pad256(4096 x 4 + 512) = 16896
  // cells, 13 x 4096 x 16896 = 899,678,208.
  s.build = 5912;
  LlamaCppEstimate old = run(s);
  EXPECT_EQ(old.context.streams, 1u);
  EXPECT_EQ(old.context.swa_cells, 16896u);
  EXPECT_EQ(old.kv_bytes, kFullLayers32k + 899'678'208u);
  s.build = 5913;
  EXPECT_EQ(run(s).context.streams, 4u);
}

TEST(LlamaCppReleases, FlashAttentionOffPadsTo32UpToB6845) {
  // ctx 4000, flash attention off. The pinned release pads to 256: 4096
  // cells, SWA min(4096, 4608) = 4096: 26 x 4096 x 4096 = 436,207,616.
  LlamaCppSettings s = at(4000, std::nullopt);
  s.flash_attn = FlashAttn::kOff;
  EXPECT_EQ(run(s).kv_bytes, 436'207'616u);
  // b6845 pads to 32: 4000 cells (125 x 32), SWA min(4000, 4608) = 4000:
  // 26 x 4096 x 4000 = 425,984,000.
  s.build = 6845;
  LlamaCppEstimate old = run(s);
  EXPECT_EQ(old.context.n_ctx, 4000u);
  EXPECT_EQ(old.kv_bytes, 425'984'000u);
  // With flash attention on that build pads to 256, as the pinned release.
  s.flash_attn = FlashAttn::kOn;
  EXPECT_EQ(run(s).context.n_ctx, 4096u);
  s.flash_attn = FlashAttn::kOff;
  s.build = 6846;
  EXPECT_EQ(run(s).context.n_ctx, 4096u);
}

TEST(LlamaCppReleases, OutputBufferHeldEveryBatchRowBefore6122) {
  // gemma-2-2b's 256,000-token vocabulary, ctx 4096, n_batch 2048. Since
  // #6122 (b2537) one row of logits a sequence: 4 x 1 x 256,000 =
  // 1,024,000 B; b2536 kept a row per batch token: 4 x 2,048 x 256,000 =
  // 2,097,152,000 B.
  EXPECT_EQ(run(at(4096, std::nullopt)).output_bytes, 1'024'000u);
  EXPECT_EQ(run(at(4096, 2537)).output_bytes, 1'024'000u);
  EXPECT_EQ(run(at(4096, 2536)).output_bytes, 2'097'152'000u);
}

TEST(LlamaCppReleases, ParsesBuildNumbers) {
  EXPECT_EQ(parse_llamacpp_build("b6500").value(), 6500u);
  EXPECT_EQ(parse_llamacpp_build("6500").value(), 6500u);
  EXPECT_EQ(parse_llamacpp_build("v1.4").error().message(),
            "llamacpp_version: 'v1.4': expected a build number, e.g. b6500, or a tag, v0.4.0");
  EXPECT_FALSE(parse_llamacpp_build("b").ok());
  EXPECT_FALSE(parse_llamacpp_build("b0").ok());
  EXPECT_FALSE(parse_llamacpp_build("b65000000").ok());
  EXPECT_FALSE(parse_llamacpp_build("b65 ").ok());
}

// Semver tags began at 0.1.0-dev-b10335 (llama.cpp PR #26839): every tag up
// to the pinned v0.4.0 reads as build 10335, after every rule's first build
// (the latest, b6846's 256-cell padding), so it prices the pinned rules.
TEST(LlamaCppReleases, ParsesReleaseTagsUpToThePinnedOne) {
  EXPECT_EQ(parse_llamacpp_build("v0.4.0").value(), 10335u);
  EXPECT_EQ(parse_llamacpp_build("0.1.0").value(), 10335u);
  EXPECT_EQ(parse_llamacpp_build("v0.4.0-rc1").error().message(),
            "llamacpp_version: 'v0.4.0-rc1': expected a build number, e.g. b6500, or a tag, "
            "v0.4.0");
  EXPECT_EQ(parse_llamacpp_build("v0.5.0").error().message(),
            "llamacpp_version: 'v0.5.0': tagged releases v0.1.0 to v0.4.0 are read (the pinned "
            "v0.4.0); not given, the pinned release");
  EXPECT_FALSE(parse_llamacpp_build("v0.0.9").ok());
}

// The output phase by build (docs/llamacpp-rules.md, "Compute buffers
// (modelled)"), on a synthetic llama: hidden 256, 8 heads (2 KV) of 32,
// vocabulary 32,000, 4,096 cells, U 512, so n_out = n_tok = 512 and the
// tail max(3 x 256, 256 + 2 x 8 x 32) = 768 floats a row.
llamacpp::ComputePhases phases_at(std::optional<uint64_t> build, std::string model_type) {
  ModelSpec spec;
  spec.geometry = {4, 256, 8, 2, 32, 512, 32000};
  spec.max_position_tokens = 4096;
  spec.layers.assign(4, LayerCache{LayerKind::kFullAttention, 128, 0, 0, 0});
  spec.model_type = std::move(model_type);
  LlamaCppSettings s = at(4096, build);
  Result<LlamaCppContext> c = resolve_llamacpp_context(spec, s);
  EXPECT_TRUE(c.ok());
  if (!c.ok()) return {};
  Result<llamacpp::ComputePhases> p = llamacpp::compute_phases(spec, *c, s);
  EXPECT_TRUE(p.ok());
  return p.ok() ? *p : llamacpp::ComputePhases{};
}

TEST(LlamaCppReleases, TheVectorInputsRowsFrom18898AndALayerNormsOwnBlockBefore) {
  // Pinned: the logits over the tail, 4 x 512 x (32,000 + 768 - 256) =
  // 66,584,576, + the never-freed inp_embd 4 x 512 x 256 = 524,288.
  EXPECT_EQ(phases_at(std::nullopt, "llama").output, 67108864u);
  // b7108 (Ollama's runner from v0.13.2): no vector input in the graph.
  EXPECT_EQ(phases_at(7108, "llama").output, 66584576u);
  // b7775 on (#18898): the input again.
  EXPECT_EQ(phases_at(7775, "llama").output, 67108864u);
  // Phi-2 before #18898: its LayerNorm takes its own block under the
  // logits, 4 x 512 x (32,000 + 256) = 66,060,288; the pinned build keeps
  // the tail and the input (not measured there).
  EXPECT_EQ(phases_at(7108, "phi2").output, 66060288u);
  EXPECT_EQ(phases_at(std::nullopt, "phi2").output, 67108864u);
  // On a GPU the logits and result_norm alone, whatever the build:
  // 66,060,288.
  EXPECT_EQ(phases_at(std::nullopt, "llama").output_offloaded, 66060288u);
  EXPECT_EQ(phases_at(7108, "llama").output_offloaded, 66060288u);
}

}  // namespace
}  // namespace memfit
