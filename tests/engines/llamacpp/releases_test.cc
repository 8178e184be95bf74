// --llamacpp-version: an older build's cache rules (docs/engine-llamacpp.md,
// "Releases"), worked by hand on gemma-2-2b: 13 sliding-window layers
// (window 4096) and 13 full ones, 4 KV heads x 256, so 4096 B per layer per
// cell at f16 (K + V).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "engines/llamacpp/parts.h"
#include "engines/llamacpp/releases.h"
#include "memfit/llamacpp.h"
#include "support/corpus.h"
#include "support/paths.h"

namespace memfit {
namespace {

const MemoryBudget kBudgetReleases{64ull << 30, 64ull << 30, BudgetSource::kExplicit};

LlamaCppEstimate run(LlamaCppSettings s) {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("gemma2/gemma-2-2b-it");
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kBudgetReleases);
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
// dated before it, so it prices the pinned rules; v0.5.0 (node-llama-cpp
// 3.22.1's) reads as b11300, its rules' first build taken; later tags are
// not read.
TEST(LlamaCppReleases, ParsesReleaseTagsUpToTheNewestRead) {
  EXPECT_EQ(parse_llamacpp_build("v0.4.0").value(), 10335u);
  EXPECT_EQ(parse_llamacpp_build("0.1.0").value(), 10335u);
  EXPECT_EQ(parse_llamacpp_build("v0.5.0").value(), 11300u);
  EXPECT_EQ(parse_llamacpp_build("v0.4.0-rc1").error().message(),
            "llamacpp_version: 'v0.4.0-rc1': expected a build number, e.g. b6500, or a tag, "
            "v0.4.0");
  EXPECT_EQ(parse_llamacpp_build("v0.5.1").error().message(),
            "llamacpp_version: 'v0.5.1': tagged releases v0.1.0 to v0.5.0 are read; not given, "
            "the pinned v0.4.0");
  EXPECT_FALSE(parse_llamacpp_build("v0.8.0").ok());
  EXPECT_FALSE(parse_llamacpp_build("v0.0.9").ok());
}

// The v0.5.0 rules come after the pinned release: the default (no build)
// and every build up to b11299 keep v0.4.0's, a build given from b11300 on
// (or the tag v0.5.0) takes them.
TEST(LlamaCppReleases, TheV050RulesNeedABuildGivenFromIt) {
  LlamaCppSettings s;
  EXPECT_FALSE(llamacpp::filters_every_nextn(s));
  EXPECT_FALSE(llamacpp::auto_context_per_sequence(s));
  EXPECT_FALSE(llamacpp::repacks_q1_0(s));
  s.build = 11299;
  EXPECT_FALSE(llamacpp::filters_every_nextn(s));
  EXPECT_FALSE(llamacpp::auto_context_per_sequence(s));
  EXPECT_FALSE(llamacpp::repacks_q1_0(s));
  s.build = parse_llamacpp_build("v0.5.0").value();
  EXPECT_TRUE(llamacpp::filters_every_nextn(s));
  EXPECT_TRUE(llamacpp::auto_context_per_sequence(s));
  EXPECT_TRUE(llamacpp::repacks_q1_0(s));
}

TEST(LlamaCppReleases, Qwen35LoadsItsMtpBlockOnlyBefore26296) {
  // #26296 (first build b10212) made Qwen3.5's MTP block TENSOR_SKIP
  // unless --spec-type draft-mtp asks for it; the pinned v0.4.0 has it.
  LlamaCppSettings s;
  EXPECT_FALSE(llamacpp::loads_qwen35_mtp_block(s));
  s.build = 10211;
  EXPECT_TRUE(llamacpp::loads_qwen35_mtp_block(s));
  s.build = 10212;
  EXPECT_FALSE(llamacpp::loads_qwen35_mtp_block(s));
  s.build = parse_llamacpp_build("v0.4.0").value();
  EXPECT_FALSE(llamacpp::loads_qwen35_mtp_block(s));
}

// The compute phases llama.cpp's graph has for `spec` under `s`; a gtest
// failure, and no phases, where the library returns an error.
llamacpp::ComputePhases phases_of(const ModelSpec& spec, const LlamaCppSettings& s) {
  Result<LlamaCppContext> c = resolve_llamacpp_context(spec, s);
  EXPECT_TRUE(c.ok());
  if (!c.ok()) return {};
  Result<llamacpp::ComputePhases> p = llamacpp::compute_phases(spec, *c, s);
  EXPECT_TRUE(p.ok());
  return p.ok() ? *p : llamacpp::ComputePhases{};
}

// The synthetic llama of these tests: 4 layers, hidden 256, 8 heads (2 KV)
// of 32, FFN 512, vocabulary 32,000, 4,096 positions, every layer full
// attention.
ModelSpec synthetic_llama() {
  ModelSpec spec;
  spec.geometry = {4, 256, 8, 2, 32, 512, 32000};
  spec.max_position_tokens = 4096;
  spec.layers.assign(4, LayerCache{LayerKind::kFullAttention, 128, 0, 0, 0});
  return spec;
}

// The output phase by build (docs/llamacpp-rules.md, "Compute buffers
// (modelled)"), on a synthetic llama: hidden 256, 8 heads (2 KV) of 32,
// vocabulary 32,000, 4,096 cells, U 512, so n_out = n_tok = 512 and the
// tail max(3 x 256, 256 + 2 x 8 x 32) = 768 floats a row.
llamacpp::ComputePhases phases_at(std::optional<uint64_t> build, std::string model_type,
                                  FlashAttn flash_attn = FlashAttn::kAuto, uint64_t window = 0) {
  ModelSpec spec = synthetic_llama();
  // An ISWA model: the first two layers windowed.
  if (window > 0) spec.layers[0] = spec.layers[1] = LayerCache{LayerKind::kSlidingWindow, 128, 0, window, 0};
  spec.model_type = std::move(model_type);
  LlamaCppSettings s = at(4096, build);
  s.flash_attn = flash_attn;
  return phases_of(spec, s);
}

TEST(LlamaCppReleases, TheVectorInputsRowsFrom18898AndALayerNormsOwnBlockBefore) {
  // Pinned: the logits over the tail, 4 x 512 x (32,000 + 768 - 256) =
  // 66,584,576, + the never-freed inp_embd 4 x 512 x 256 = 524,288.
  EXPECT_EQ(phases_at(std::nullopt, "llama").output, 67108864u);
  // b7108 (Ollama's runner from v0.13.2): no vector input in the graph.
  EXPECT_EQ(phases_at(7108, "llama").output, 66584576u);
  // b7780 has not got #18898 yet (llamacpp-rusteze's host buffer); b7781
  // on: the input again.
  EXPECT_EQ(phases_at(7780, "llama").output, 66584576u);
  EXPECT_EQ(phases_at(7781, "llama").output, 67108864u);
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

// The host's inputs under a full offload (ComputePhases::input), same
// model: n_tok 512, 4,096 cells, every input 32-byte aligned (each below
// is a multiple of 32). Before #14959: the input rows 4 x 512 x 256 =
// 524,288, token ids and positions 2 x 4 x 512 = 4,096, output ids 2,048,
// the F32 mask 4 x 4,096 x 512 = 8,388,608: 8,919,040.
constexpr uint64_t kInputsBefore14959 = 8'919'040;

TEST(LlamaCppReleases, TheHostsInputsTakeTheKvIndicesFrom14959AndTheVectorInputFrom18898) {
  EXPECT_EQ(phases_at(6050, "llama").input, kInputsBefore14959);
  EXPECT_EQ(phases_at(6050, "llama", FlashAttn::kOff).input, kInputsBefore14959);
  // b6051 (#14959, set_rows): k_idxs 8 x 512 = 4,096 and, with flash
  // attention, v_idxs 8 x 512 = 4,096: 8,927,232.
  EXPECT_EQ(phases_at(6051, "llama").input, 8'927'232u);
  // Without it V is stored transposed, one index per element: v_idxs
  // 8 x 512 x (2 x 32) = 262,144; 8,919,040 + 4,096 + 262,144 = 9,185,280.
  EXPECT_EQ(phases_at(6051, "llama", FlashAttn::kOff).input, 9'185'280u);
  EXPECT_EQ(phases_at(7780, "llama").input, 8'927'232u);
  // b7781 (#18898): + the vector-input leaf, 4 x 512 x 256 = 524,288:
  // 9,451,520 (the pinned build the same); 9,709,568 without flash attention.
  EXPECT_EQ(phases_at(7781, "llama").input, 9'451'520u);
  EXPECT_EQ(phases_at(std::nullopt, "llama").input, 9'451'520u);
  EXPECT_EQ(phases_at(std::nullopt, "llama", FlashAttn::kOff).input, 9'709'568u);
}

TEST(LlamaCppReleases, AnIswaModelsHostHoldsTheWindowsMaskAndTwoCachesIndices) {
  // Two layers windowed at 256 tokens: the SWA cache pad256(min(4,096,
  // 256 + 512)) = 768 cells, whose mask input 4 x 768 x 512 = 1,572,864
  // lies beside the full one's; k_idxs and v_idxs for both caches, 4 x
  // 4,096 = 16,384. The pinned build: 8,919,040 + 524,288 (the vector
  // input) + 1,572,864 + 16,384 = 11,032,576.
  EXPECT_EQ(phases_at(std::nullopt, "llama", FlashAttn::kAuto, 256).input, 11'032'576u);
  // b6050: the second mask alone, 8,919,040 + 1,572,864 = 10,491,904.
  EXPECT_EQ(phases_at(6050, "llama", FlashAttn::kAuto, 256).input, 10'491'904u);
}

TEST(LlamaCppReleases, AnIswaModelBeforeTheF16MaskCastsBothMasksOnTheGpu) {
  // The synthetic llama with its first two layers windowed at 256 tokens
  // (SWA cache 768 cells), b8836, flash attention on: two F32 mask inputs,
  // each cast to F16 where the first layer of its kind reads it. Per
  // phase: the input rows 4 x 512 x 256 = 524,288 and the query 4 x 512
  // x 8 x 32 = 524,288; the masks' elements, full 4,096 x 512 = 2,097,152
  // and SWA 768 x 512 = 393,216. The SWA mask is cast first (layer 0):
  // first  = 1,048,576 + 4 x (393,216 + 2,097,152) + 2 x 393,216 = 11,796,480;
  // second = 1,048,576 + 4 x 2,097,152 + 2 x (393,216 + 2,097,152) = 14,417,920.
  EXPECT_EQ(phases_at(8836, "llama", FlashAttn::kOn, 256).mask_cast, 14'417'920u);
  // The pinned build takes F16 inputs: no cast.
  EXPECT_EQ(phases_at(std::nullopt, "llama", FlashAttn::kOn, 256).mask_cast, 0u);
  // Without an SWA cache beside it, one mask: 1,048,576 + 6 x 2,097,152.
  EXPECT_EQ(phases_at(8836, "llama", FlashAttn::kOn).mask_cast, 13'631'488u);
  // Its full layers first (the last two windowed): the full mask's cast
  // comes first, with both F32 copies live: 1,048,576 + 4 x 2,490,368 + 2
  // x 2,097,152 = 15,204,352, above the second, 1,048,576 + 4 x 393,216 +
  // 2 x 2,490,368 = 7,602,176.
  ModelSpec spec = synthetic_llama();
  spec.layers[2] = spec.layers[3] = LayerCache{LayerKind::kSlidingWindow, 128, 0, 256, 0};
  spec.model_type = "llama";
  LlamaCppSettings s = at(4096, 8836);
  s.flash_attn = FlashAttn::kOn;
  EXPECT_EQ(phases_of(spec, s).mask_cast, 15'204'352u);
}

// #6017 (b2413) allocated the graph inputs in the graph and added n_ubatch;
// b2412 and older kept them in a host buffer of their own (#5100) and ran
// n_batch tokens a graph. The synthetic llama above, ctx 4096, -b 2048.
TEST(LlamaCppReleases, GraphInputsInABufferOfTheirOwnBefore6017) {
  ModelSpec spec = synthetic_llama();
  const LlamaCppSettings old = at(4096, 2412);
  Result<LlamaCppContext> c = resolve_llamacpp_context(spec, old);
  ASSERT_TRUE(c.ok());
  // No n_ubatch before #6017: the graph runs n_batch = min(4096, 2048).
  EXPECT_EQ(c->n_ubatch, 2048u);
  EXPECT_EQ(resolve_llamacpp_context(spec, at(4096, 2413))->n_ubatch, 512u);
  // ids, positions and CLS rows 4 x 2048 = 8,192 each; the input rows 4 x
  // 256 x 2048 = 2,097,152; the mask 4 x 4096 x 2048 = 33,554,432; ALiBi
  // positions and shifts 4 x 4096 = 16,384 each; the mean matrix 4 x 2048
  // x 2048 = 16,777,216: 52,486,144 B, every tensor a multiple of 32.
  EXPECT_EQ(llamacpp::input_buffer_bytes(spec, *c, old), 52'486'144u);
  EXPECT_EQ(llamacpp::input_buffer_bytes(spec, *c, at(4096, 2413)), 0u);
  // The host's compute buffer keeps the rows it gathers alone: 4 x 2048 x
  // 256 = 2,097,152; from b2413 the inputs too (U 512): rows 524,288, ids
  // and positions 2 x 2,048, output ids 2,048, mask 4 x 4096 x 512 =
  // 8,388,608: 8,919,040.
  EXPECT_EQ(phases_at(2412, "llama").input, 2'097'152u);
  EXPECT_EQ(phases_at(2413, "llama").input, 8'919'040u);
}

TEST(LlamaCppReleases, InputBufferAsEarly2024LogsPrintIt) {
  // open_llama 7B (n_embd 4096), n_ctx 2048, -b 512, as ggml-org/ci's b2308
  // perplexity run: ids, positions, CLS 2,048 B each, rows 8,388,608, mask
  // 4,194,304, ALiBi positions and shifts 8,192 each, mean 1,048,576:
  // 13,654,016 B = 13.0215 MiB, printed "13.02 MiB".
  ModelSpec spec;
  spec.geometry = {32, 4096, 32, 32, 128, 11008, 32000};
  spec.max_position_tokens = 2048;
  spec.layers.assign(32, LayerCache{LayerKind::kFullAttention, 8192, 0, 0, 0});
  LlamaCppSettings s = at(2048, 2308);
  s.batch_size = 512;
  Result<LlamaCppContext> c = resolve_llamacpp_context(spec, s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(llamacpp::input_buffer_bytes(spec, *c, s), 13'654'016u);
  // The estimate counts it in the host's context beside the output buffer
  // (4 x 512 x 32,000 = 65,536,000 B before #6122) and the cache (32 x
  // 2048 x 8192 x 2 B = 1,073,741,824).
  Model m;
  m.has_config = true;
  m.spec = spec;
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kBudgetReleases);
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->output_bytes, 65'536'000u);
  EXPECT_EQ(e->kv_bytes, 1'073'741'824u);
  EXPECT_EQ(e->context_bytes, 1'073'741'824u + 65'536'000u + 13'654'016u);
}

TEST(LlamaCppReleases, TheEarlyGraphsPhasesBefore6122) {
  // The synthetic llama above (hidden 256, 8 heads of 32, 2 KV heads, FFN
  // 512, vocabulary 32,000), 4096 cells, U 512, flash attention off.
  auto phases = [](uint64_t build) { return phases_at(build, "llama", FlashAttn::kOff); };
  // b2536: the input rows' copy, the residual, the norm's hole and Q, 4 x
  // 512 x (3 x 256 + 256) = 2,097,152, the scores 4 x 4096 x 512 x 8 =
  // 67,108,864 and the mask 8,388,608: 77,594,624.
  const llamacpp::ComputePhases early = phases(2536);
  EXPECT_EQ(early.attention, 77'594'624u);
  // The FFN: 4 x 512 x (3 x 256 + 2 x 512) = 3,670,016 and the mask.
  EXPECT_EQ(early.ffn, 12'058'624u);
  // The host's output: the logits and one row, 4 x 512 x (32,000 + 256).
  EXPECT_EQ(early.output, 66'060'288u);
  // b2537, the pinned phases: 4 x 512 x (2 x 256 + 256 + 2 x 64 + 2 x 256)
  // = 2,883,584 + 67,108,864 + 8,388,608; output 4 x 512 x (32,000 + 768 -
  // 256). Its FFN runs SiLU and the product in place (a build before
  // #14158: TheSwigluRunsInPlaceBefore14158).
  const llamacpp::ComputePhases now = phases(2537);
  EXPECT_EQ(now.attention, 78'381'056u);
  EXPECT_EQ(now.ffn, 11'534'336u);
  EXPECT_EQ(now.output, 66'584'576u);
}

TEST(LlamaCppReleases, TheSwigluRunsInPlaceBefore14158) {
  // The synthetic llama (hidden 256, FFN 512), 4096 cells, U 512, flash
  // attention off. b5618: the FFN input and its norm, the up and gate
  // products, 4 x 512 x (2 x 256 + 2 x 512) = 3,145,728, and the f32 mask
  // 4 x 4096 x 512 = 8,388,608: 11,534,336. b5619 (the fused
  // ggml_swiglu_split taken): 4 x 512 x (3 x 512 + 4 x 256) = 5,242,880 +
  // 8,388,608 = 13,631,488.
  auto ffn = [](uint64_t build) { return phases_at(build, "llama", FlashAttn::kOff).ffn; };
  EXPECT_EQ(ffn(5618), 11'534'336u);
  EXPECT_EQ(ffn(5619), 13'631'488u);
}

TEST(LlamaCppReleases, Phi3CopiesQAndKOutOfItsQkvBefore14568AndVBefore15662) {
  // The boundaries memfit takes (releases.cc): b5836 for #14568, b6403 for
  // #15662. A build not given is the pinned one: views only.
  const auto qk = [](std::optional<uint64_t> build) { return llamacpp::fused_qkv_qk_cont(at(4096, build)); };
  const auto v = [](std::optional<uint64_t> build) { return llamacpp::fused_qkv_v_cont(at(4096, build)); };
  EXPECT_TRUE(qk(3735));
  EXPECT_TRUE(qk(5835));
  EXPECT_FALSE(qk(5836));
  EXPECT_FALSE(qk(std::nullopt));
  EXPECT_TRUE(v(5835));
  EXPECT_TRUE(v(6402));
  EXPECT_FALSE(v(6403));
  EXPECT_FALSE(v(std::nullopt));
}

TEST(LlamaCppReleases, Lfm2DuplicatesItsTiedOutputFrom15476) {
  // #15476 gave LLM_ARCH_LFM2 an output.weight and, without one, the
  // TENSOR_DUPLICATED token_embd: llama.rn's b6209 sync has neither, its
  // b6250 sync both (memfit takes b6250). Every other model keeps the copy
  // whatever the build; an unknown build is the pinned one's.
  ModelSpec lfm2;
  lfm2.model_type = "lfm2";
  ModelSpec llama;
  llama.model_type = "llama";
  LlamaCppSettings s;
  s.build = 6249;
  EXPECT_FALSE(llamacpp::duplicates_tied_output(lfm2, s));
  EXPECT_TRUE(llamacpp::duplicates_tied_output(llama, s));
  s.build = 6250;
  EXPECT_TRUE(llamacpp::duplicates_tied_output(lfm2, s));
  s.build = std::nullopt;
  EXPECT_TRUE(llamacpp::duplicates_tied_output(lfm2, s));
}

TEST(LlamaCppReleases, SyclTakesTheTokenTablesGetRowsFrom10133To10432) {
  // #10133 (3bcd40b3, b4040) counted a GET_ROWS's rows in ggml-sycl's
  // get_op_batch_size; #10432 (0f77aae5, b4220) set them back to 0. Its
  // GET_ROWS runs f16, f32, q4_0, q4_1, q5_0, q5_1 and q8_0 tables, not
  // q6_K; no other backend's offload_op takes it; an unknown build is the
  // pinned one's (after #10432).
  LlamaCppGpu sycl;
  sycl.device = "sycl:0";
  LlamaCppGpu cuda;
  cuda.device = "cuda:0";
  LlamaCppSettings s;
  s.build = 4039;
  EXPECT_FALSE(llamacpp::offloads_get_rows(sycl, s, "q4_0"));
  s.build = 4040;
  EXPECT_TRUE(llamacpp::offloads_get_rows(sycl, s, "q4_0"));
  EXPECT_TRUE(llamacpp::offloads_get_rows(sycl, s, "q8_0"));
  EXPECT_FALSE(llamacpp::offloads_get_rows(sycl, s, "q6_K"));
  EXPECT_FALSE(llamacpp::offloads_get_rows(cuda, s, "q4_0"));
  s.build = 4219;
  EXPECT_TRUE(llamacpp::offloads_get_rows(sycl, s, "f16"));
  s.build = 4220;
  EXPECT_FALSE(llamacpp::offloads_get_rows(sycl, s, "q4_0"));
  s.build = std::nullopt;
  EXPECT_FALSE(llamacpp::offloads_get_rows(sycl, s, "q4_0"));
}

TEST(LlamaCppReleases, AutoResolvedOffKeepsVUntransposedAndCopiesItOut) {
  // The synthetic llama (hidden 256, 8 heads and 2 KV heads of 32), 4,096
  // cells, U 512. Flash attention off: the attention phase's activations
  // 4 x 512 x (2 x 256 + 256 + 64 + 64 + 2 x 256) = 2,883,584, the scores
  // 4 x 4,096 x 512 x 8 = 67,108,864 and the f32 mask 8,388,608:
  // 78,381,056. auto resolved off at run time leaves the cache auto made,
  // V untransposed: build_attn_mha copies it out transposed, 4,096 cells x
  // 64 x 2 B = 524,288 more (78,905,344), and v_idxs is one index a token,
  // 512 x 8 B, not 512 x 64 x 8: the host's inputs 258,048 B fewer.
  ModelSpec spec = synthetic_llama();
  spec.model_type = "llama";
  LlamaCppSettings off = at(4096, std::nullopt);
  off.flash_attn = FlashAttn::kOff;
  LlamaCppSettings auto_off = at(4096, std::nullopt);
  auto_off.flash_attn = FlashAttn::kAuto;
  auto_off.flash_attn_auto_on = false;
  const llamacpp::ComputePhases a = phases_of(spec, off);
  const llamacpp::ComputePhases b = phases_of(spec, auto_off);
  EXPECT_EQ(a.attention, 78'381'056u);
  EXPECT_EQ(b.attention, 78'905'344u);
  EXPECT_EQ(a.input - b.input, 258'048u);
}

TEST(LlamaCppReleases, TheMaskCastLeavesTheFirstBlocksNormAndKBelowIt) {
  // The same llama, flash attention on, b9443 (an F32 mask cast to F16):
  // the cast holds the rows' copy 4 x 512 x 256 = 524,288, the F32 and F16
  // masks 6 x 4096 x 512 = 12,582,912 and Q 4 x 512 x 8 x 32 = 524,288:
  // 13,631,488; below it the holes of the norm and K, 4 x 512 x (256 + 2 x
  // 32) = 655,360. b9444 takes an F16 input: no cast, no holes.
  auto phases = [](uint64_t build) { return phases_at(build, "llama", FlashAttn::kOn); };
  const llamacpp::ComputePhases cast = phases(9443);
  EXPECT_EQ(cast.mask_cast, 13'631'488u);
  EXPECT_EQ(cast.mask_cast_holes, 655'360u);
  const llamacpp::ComputePhases pinned = phases(9444);
  EXPECT_EQ(pinned.mask_cast, 0u);
  EXPECT_EQ(pinned.mask_cast_holes, 0u);
}

// n_outputs_max (#23861, b9460): the synthetic llama at 4,096 cells and
// U 512 with llama-server's one slot, outputs_max 1.
llamacpp::ComputePhases phases_with_outputs(std::optional<uint64_t> build, uint64_t outputs_max) {
  LlamaCppSettings s = at(4096, build);
  s.outputs_max = outputs_max;
  return phases_of(synthetic_llama(), s);
}

TEST(LlamaCppReleases, TheContextPrintsTheCallersOutputLimitFrom23861) {
  LlamaCppSettings s = at(4096, std::nullopt);
  // Not set (the library's default 0): n_batch, min(4,096, 2,048).
  Result<LlamaCppContext> library = resolve_llamacpp_context(synthetic_llama(), s);
  ASSERT_TRUE(library.ok());
  EXPECT_EQ(library->n_outputs_max, 2048u);
  EXPECT_EQ(llamacpp::reserved_output_rows(*library), 512u);  // the ubatch's tokens
  s.outputs_max = 3;
  for (std::optional<uint64_t> build : {std::optional<uint64_t>(9460), std::optional<uint64_t>()}) {
    s.build = build;
    Result<LlamaCppContext> server = resolve_llamacpp_context(synthetic_llama(), s);
    ASSERT_TRUE(server.ok());
    EXPECT_EQ(server->n_outputs_max, 3u);
    EXPECT_EQ(llamacpp::reserved_output_rows(*server), 3u);
  }
  // b9459 has no such field: n_batch, every token an output row.
  s.build = 9459;
  Result<LlamaCppContext> before = resolve_llamacpp_context(synthetic_llama(), s);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->n_outputs_max, 2048u);
  EXPECT_EQ(llamacpp::reserved_output_rows(*before), 512u);
  // A limit above the ubatch leaves its 512 rows; so does T5's encoder,
  // whatever the caller asks (llama_model_has_encoder: n_batch).
  s.build = std::nullopt;
  s.outputs_max = 1000;
  EXPECT_EQ(llamacpp::reserved_output_rows(*resolve_llamacpp_context(synthetic_llama(), s)), 512u);
  ModelSpec t5 = synthetic_llama();
  t5.model_type = "t5encoder";
  s.outputs_max = 1;
  EXPECT_EQ(resolve_llamacpp_context(t5, s)->n_outputs_max, 2048u);
}

TEST(LlamaCppReleases, OneOutputRowShrinksTheLogitsAndTheOutputIdsFrom23861) {
  // b9459: every token's logits over the tail, 4 x 512 x (32,000 + 768 -
  // 256) = 66,584,576, + the input leaf 4 x 512 x 256 = 524,288.
  const llamacpp::ComputePhases all = phases_with_outputs(9459, 1);
  EXPECT_EQ(all.output, 67'108'864u);
  EXPECT_EQ(all.output_offloaded, 66'060'288u);  // 4 x 512 x (32,000 + 256)
  // b9460 with one output row: 4 x 1 x 32,512 = 130,048 + the input leaf
  // (still 512 tokens) 524,288 = 654,336; on a GPU the logits and
  // result_norm of one row, 4 x (32,000 + 256) = 129,024.
  const llamacpp::ComputePhases one = phases_with_outputs(9460, 1);
  EXPECT_EQ(one.output, 654'336u);
  EXPECT_EQ(one.output_offloaded, 129'024u);
  // The host's inputs (F16 mask from b9444: 9,451,520 less half the F32
  // mask's 8,388,608 = 5,257,216): the output ids 4 x 1 B padded to 32
  // where they were 4 x 512 = 2,048: 5,257,216 - 2,048 + 32 = 5,255,200.
  EXPECT_EQ(all.input, 5'257'216u);
  EXPECT_EQ(one.input, 5'255'200u);
  // The attention and FFN phases keep the ubatch's 512 tokens.
  EXPECT_EQ(one.attention, all.attention);
  EXPECT_EQ(one.ffn, all.ffn);
}

TEST(LlamaCppReleases, BatchDefaultsTo512Before6017) {
  // Not given, --batch-size is 512 tokens before #6017 (b2413), 2048 from it.
  EXPECT_EQ(llamacpp::default_batch_size(at(4096, 2412)), 512u);
  EXPECT_EQ(llamacpp::default_batch_size(at(4096, 2413)), 2048u);
  EXPECT_EQ(llamacpp::default_batch_size(at(4096, std::nullopt)), 2048u);
}

// #19067 ("kv-cache : support V-less cache"): before it an MLA layer also
// cached a V tensor of kv_lora_rank elements (memfit takes b7836 as its
// first build). DeepSeek-V3's config: 61 layers, kv_lora_rank 512, rope 64.
LlamaCppEstimate deepseek_v3_at(uint64_t ctx, std::optional<uint64_t> build, FlashAttn fa,
                                GgmlType type = GgmlType::kF16) {
  Model m;
  m.has_config = true;
  m.spec = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  m.weights.bytes = 1000;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  LlamaCppSettings s = at(ctx, build);
  s.flash_attn = fa;
  s.cache_type_k = s.cache_type_v = type;
  Result<LlamaCppEstimate> e = estimate_llamacpp(m, s, kBudgetReleases);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message());
  return e.ok() ? *e : LlamaCppEstimate{};
}

TEST(LlamaCppReleases, AnMlaLayerCachesItsLatentsVBefore19067) {
  // The layers carry the latent's width: 512 of the 576 elements a row.
  const ModelSpec spec = testing::corpus_spec("deepseek_v3/DeepSeek-V3");
  ASSERT_EQ(spec.layers.size(), 61u);
  EXPECT_EQ(spec.layers[0].elems_per_token, 576u);
  EXPECT_EQ(spec.layers[0].latent_elems, 512u);
  // ik_llama.cpp#394's mainline b5331 run, 16,384 cells, f16, -fa: K 61 x
  // 16,384 x 576 x 2 B = 1,151,336,448 B (1098.00 MiB, as printed) and V 61
  // x 16,384 x 512 x 2 B = 1,023,410,176 B (976.00 MiB, as printed).
  LlamaCppEstimate e = deepseek_v3_at(16384, 5331, FlashAttn::kOn);
  EXPECT_EQ(e.k_bytes, 1'151'336'448u);
  EXPECT_EQ(e.v_bytes, 1'023'410'176u);
  EXPECT_EQ(e.kv_bytes, 2'174'746'624u);  // 2074.00 MiB, the log's KV self size
  // Per token: 61 x (576 + 512) x 2 B = 132,736 B.
  EXPECT_EQ(e.kv_bytes_per_token, 132'736u);
  // Without flash attention V is stored transposed: the same bytes.
  EXPECT_EQ(deepseek_v3_at(16384, 5331, FlashAttn::kOff).v_bytes, 1'023'410'176u);
  // q8_0 (K and V alike): V 512 / 32 x 34 = 544 B a row, 61 x 16,384 x
  // 544 = 543,686,656 B.
  EXPECT_EQ(deepseek_v3_at(16384, 5331, FlashAttn::kOn, GgmlType::kQ8_0).v_bytes, 543'686'656u);
  // #14201's b5614 run, 32,768 cells, f16, -fa: K 61 x 32,768 x 576 x 2 B
  // = 2,302,672,896 B (2196.00 MiB) and V 61 x 32,768 x 512 x 2 B =
  // 2,046,820,352 B (1952.00 MiB), as printed.
  e = deepseek_v3_at(32768, 5614, FlashAttn::kOn);
  EXPECT_EQ(e.k_bytes, 2'302'672'896u);
  EXPECT_EQ(e.v_bytes, 2'046'820'352u);
  // b7798 (llama.rn's sync makes cache_v_l for every layer) keeps it too,
  // b7835 (the last build memfit prices so) as well; b7836 on (llama.rn's
  // sync with has_v) and the pinned build keep K alone.
  EXPECT_EQ(deepseek_v3_at(16384, 7798, FlashAttn::kOn).v_bytes, 1'023'410'176u);
  EXPECT_EQ(deepseek_v3_at(16384, 7835, FlashAttn::kOn).v_bytes, 1'023'410'176u);
  EXPECT_EQ(deepseek_v3_at(16384, 7836, FlashAttn::kOn).v_bytes, 0u);
  e = deepseek_v3_at(16384, std::nullopt, FlashAttn::kOn);
  EXPECT_EQ(e.v_bytes, 0u);
  EXPECT_EQ(e.k_bytes, 1'151'336'448u);
}

// A small MLA model (docs/validation-llamacpp.md's deepseek2-mla shape): 3
// layers of a 256 + 64 latent, hidden 512, 8 heads of 64, vocabulary
// 32,000; -c 12000 -b 1024 -ub 1024 gives 12,032 cells (the cell padding
// of 256) and n_tok 1,024.
llamacpp::ComputePhases mla_phases_at(std::optional<uint64_t> build, FlashAttn fa) {
  ModelSpec spec;
  spec.model_type = "deepseek2";
  spec.geometry = {3, 512, 8, 1, 64, 1536, 32000};
  spec.max_position_tokens = 16384;
  LayerCache latent{LayerKind::kMlaLatent, 320, 0, 0, 0};
  latent.latent_elems = 256;
  spec.layers.assign(3, latent);
  LlamaCppSettings s = at(12000, build);
  s.batch_size = s.ubatch_size = 1024;
  s.flash_attn = fa;
  return phases_of(spec, s);
}

TEST(LlamaCppReleases, AnMlaGraphReadsItsOwnVCacheBefore19067) {
  // Without flash attention the pinned graph copies V (a view of the latent
  // K) out transposed, 640 B x 12,032 cells = 7,700,480 B, beside the
  // scores 4 x 12,032 x 1,024 x 8 = 394,264,576, the mask 4 x 12,032 x
  // 1,024 = 49,283,072 and the activations 4 x 1,024 x (2 x 512 + 2 x 8 x
  // 320 + 2 x 8 x 64) = 29,360,128: 480,608,256. b7835's V tensor is
  // stored transposed and read as it is: 472,907,776.
  EXPECT_EQ(mla_phases_at(std::nullopt, FlashAttn::kOff).attention, 480'608'256u);
  EXPECT_EQ(mla_phases_at(7836, FlashAttn::kOff).attention, 480'608'256u);
  EXPECT_EQ(mla_phases_at(7835, FlashAttn::kOff).attention, 472'907'776u);
  // Flash attention reads V untransposed either way: no copy, no change.
  EXPECT_EQ(mla_phases_at(7835, FlashAttn::kOn).attention, mla_phases_at(7836, FlashAttn::kOn).attention);
  // The V tensor is written through v_idxs (i64): with flash attention one
  // a token, 8 x 1,024 = 8,192 B; without it one an element of the
  // transposed row, 8 x 1,024 x 256 = 2,097,152 B. From #19067 none.
  EXPECT_EQ(mla_phases_at(7835, FlashAttn::kOn).kv_indices - mla_phases_at(7836, FlashAttn::kOn).kv_indices,
            8'192u);
  EXPECT_EQ(mla_phases_at(7835, FlashAttn::kOff).kv_indices - mla_phases_at(7836, FlashAttn::kOff).kv_indices,
            2'097'152u);
}

// #12801 (DeepSeek MLA, merged 2025-04-15; memfit takes b5091): before it
// deepseek2 ran its own graph over every head's K and V. neverllama5's
// b4568 log has it, ik394's b5331 the MLA graph; no build given is the
// pinned one.
TEST(LlamaCppReleases, TheOldDeepseekGraphIsTheBuildsBefore12801) {
  EXPECT_TRUE(llamacpp::legacy_deepseek2_graph(at(4096, 4568)));
  EXPECT_TRUE(llamacpp::legacy_deepseek2_graph(at(4096, 5090)));
  EXPECT_FALSE(llamacpp::legacy_deepseek2_graph(at(4096, 5091)));
  EXPECT_FALSE(llamacpp::legacy_deepseek2_graph(at(4096, 5331)));
  EXPECT_FALSE(llamacpp::legacy_deepseek2_graph(at(4096, std::nullopt)));
}

TEST(LlamaCppReleases, PerLayerInputsTakeTheirRolesLayersFromB8720) {
  // llama.rn's sync to b8702 has the per-layer input tensors as output-layer
  // ones in llama-arch.cpp, its sync to b8720 the table as an input-layer
  // tensor and the projection and norm as repeating-layer ones; a log of
  // b5775 (llamacpp-14448-gemma3n-e4b-q4km-rocm-890m) the old rule.
  EXPECT_FALSE(llamacpp::per_layer_inputs_by_role(at(4096, 5775)));
  EXPECT_FALSE(llamacpp::per_layer_inputs_by_role(at(4096, 8719)));
  EXPECT_TRUE(llamacpp::per_layer_inputs_by_role(at(4096, 8720)));
  EXPECT_TRUE(llamacpp::per_layer_inputs_by_role(at(4096, std::nullopt)));  // the pinned release
}

// Every build a rule starts from (a `constexpr uint64_t k...Build = N;` in
// releases.cc or llamacpp.h, or one named after another) is named by a line
// of the listing `memfit engines` prints, as its first build ("before
// bN", "bN to ...") or the build before it ("bN-1 and before", "... to
// bN-1"): a rule added without its line fails here.
std::string read_source(const std::string& path) {
  std::ifstream in(std::string(MEMFIT_SOURCE_DIR) + "/" + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(LlamaCppReleases, EveryRuleBuildIsListed) {
  std::map<std::string, uint64_t> builds;  // constant -> its build
  const std::regex number(R"(constexpr uint64_t (k\w*Build) = (\d+);)");
  const std::regex alias(R"(constexpr uint64_t (k\w*Build) = (k\w*Build);)");
  std::vector<std::pair<std::string, std::string>> aliases;
  for (const char* path : {"src/engines/llamacpp/releases.cc", "src/engines/llamacpp/releases.h",
                           "include/memfit/llamacpp.h"}) {
    const std::string text = read_source(path);
    ASSERT_FALSE(text.empty()) << path;
    for (std::sregex_iterator m(text.begin(), text.end(), number), end; m != end; ++m) {
      builds[(*m)[1]] = std::stoull((*m)[2]);
    }
    for (std::sregex_iterator m(text.begin(), text.end(), alias), end; m != end; ++m) {
      aliases.emplace_back((*m)[1], (*m)[2]);
    }
  }
  // Not a rule: the build a v0.x.y tag reads as (parse_llamacpp_build).
  builds.erase("kFirstSemverBuild");
  for (const auto& [name, target] : aliases) {
    ASSERT_TRUE(builds.contains(target)) << name << " names " << target;
    builds[name] = builds[target];
  }
  // The file holds at least the 27 rules it had when this test was written.
  EXPECT_GE(builds.size(), 27u);
  std::string listed;
  for (const ReleaseDifference& d : llamacpp::release_differences()) {
    listed += std::string(d.releases) + " ";
  }
  const std::regex named(R"(b(\d+))");
  std::set<uint64_t> named_builds;
  for (std::sregex_iterator m(listed.begin(), listed.end(), named), end; m != end; ++m) {
    named_builds.insert(std::stoull((*m)[1]));
  }
  for (const auto& [name, build] : builds) {
    EXPECT_TRUE(named_builds.contains(build) || named_builds.contains(build - 1))
        << name << " (b" << build << ") has no line in llamacpp::release_differences()";
  }
}

// The listing is oldest first: each line's first build no earlier than the
// line before's.
TEST(LlamaCppReleases, TheListingIsOldestFirst) {
  const std::regex first(R"(b(\d+))");
  uint64_t last = 0;
  bool tags = false;  // a tag's line (vX.Y.Z) comes after every build's
  for (const ReleaseDifference& d : llamacpp::release_differences()) {
    const std::string label(d.releases);
    if (label.starts_with("v")) {
      tags = true;
      continue;
    }
    EXPECT_FALSE(tags) << label << " follows a tag's line";
    std::smatch m;
    ASSERT_TRUE(std::regex_search(label, m, first)) << label;
    const uint64_t build = std::stoull(m[1]);
    EXPECT_GE(build, last) << label;
    last = build;
  }
}


// ggml-metal's flash attention scratch by build (releases.cc,
// kMetalAllocSizeBuild on): nothing before #15966 (b6473), the vector
// kernel's partials alone to b7590, every part always from b7591 (#17143),
// 64 cells of padding for either kernel from b8510 (#18545), the F16 K and
// V copies in the pinned default and from b11300 given (#27390).
TEST(LlamaCppReleases, MetalFlashAttnScratchByBuild) {
  using llamacpp::MetalFaScratch;
  const auto rule = [](std::optional<uint64_t> build) {
    return llamacpp::metal_flash_attn_scratch_rule(at(4096, build));
  };
  EXPECT_EQ(rule(6472), MetalFaScratch::kNone);
  EXPECT_EQ(rule(6473), MetalFaScratch::kVecPartials);
  EXPECT_EQ(rule(7590), MetalFaScratch::kVecPartials);
  EXPECT_EQ(rule(7591), MetalFaScratch::kKernelPad);
  EXPECT_EQ(rule(8509), MetalFaScratch::kKernelPad);
  EXPECT_EQ(rule(8510), MetalFaScratch::kPad64);
  EXPECT_EQ(rule(11299), MetalFaScratch::kPad64);
  EXPECT_EQ(rule(11300), MetalFaScratch::kKvF16);
  EXPECT_EQ(rule(std::nullopt), MetalFaScratch::kKvF16);
  // A tag up to v0.4.0 reads as b10335, before the rule's first build
  // memfit takes (unconfirmed), though v0.4.0's source has it.
  EXPECT_EQ(rule(parse_llamacpp_build("v0.4.0").value()), MetalFaScratch::kPad64);
}

// The Metal GPU's flash attention scratch in the phases
// (ComputePhases::metal_flash_attn), on the synthetic llama: 8 heads (2 KV)
// of 32, 4,096 cells, 512 queries (the 8-query kernel), one stream; an F16
// cell row of K or V is 2 x 32 x 2 = 128 B.
TEST(LlamaCppReleases, MetalFlashAttnScratchInThePhases) {
  // b8510 to b11299: pad 64 x (128 x 2 + 128 x 2 + 2 x 512) = 98,304; the
  // block map (512 / 8) x (4,096 / 64) = 4,096; the partials 4 x 32 x 8 x
  // 32 x (32 + 2) = 1,114,112. Sum 1,216,512.
  EXPECT_EQ(phases_at(8510, "llama").metal_flash_attn, 1'216'512u);
  EXPECT_EQ(phases_at(11299, "llama").metal_flash_attn, 1'216'512u);
  // b7591 to b8509: the prompt graph's kernel pads 64 cells too.
  EXPECT_EQ(phases_at(7591, "llama").metal_flash_attn, 1'216'512u);
  // b6473 to b7590: the vector kernel's partials alone, and 512 queries
  // run the 8-query kernel: nothing. Before b6473 nothing.
  EXPECT_EQ(phases_at(7590, "llama").metal_flash_attn, 0u);
  EXPECT_EQ(phases_at(6000, "llama").metal_flash_attn, 0u);
  // The pinned v0.4.0: + F16 copies of K and V, 2 x (2 x 32 x 4,096 x 2)
  // = 1,048,576: 2,265,088.
  EXPECT_EQ(phases_at(std::nullopt, "llama").metal_flash_attn, 2'265'088u);
  // Without flash attention nothing.
  EXPECT_EQ(phases_at(std::nullopt, "llama", FlashAttn::kOff).metal_flash_attn, 0u);
  // A Q8_0 cache in the pinned v0.4.0: 512 queries use the F16 copy, so
  // the padding reads its head rows, 2 x 32 = 64 B: 64 x (64 x 2 + 64 x 2
  // + 1,024) = 81,920; + 4,096 + 1,114,112 + 1,048,576 = 2,248,704.
  ModelSpec spec = synthetic_llama();
  spec.model_type = "llama";
  LlamaCppSettings s = at(4096, std::nullopt);
  s.flash_attn = FlashAttn::kOn;
  s.cache_type_k = GgmlType::kQ8_0;
  s.cache_type_v = GgmlType::kQ8_0;
  EXPECT_EQ(phases_of(spec, s).metal_flash_attn, 2'248'704u);
}

}  // namespace
}  // namespace memfit
