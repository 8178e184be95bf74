// --ollama-version (src/engines/ollama/releases.cc): each rule that
// differs between Ollama's releases, at the tags docs/engine-ollama.md
// ("Releases") names.
#include <gtest/gtest.h>

#include "engines/ollama/releases.h"
#include "engines/ollama/settings.h"
#include "memfit/llamacpp.h"

namespace memfit::ollama {
namespace {

OllamaRelease tag(std::string_view text) { return parse_ollama_release(text).value(); }

TEST(OllamaReleases, ParsesTagsWithOrWithoutTheV) {
  EXPECT_EQ(tag("0.5.7"), (OllamaRelease{0, 5, 7}));
  EXPECT_EQ(tag("v0.24.0"), kPinnedRelease);
  EXPECT_EQ(tag("v0.12.7-rc1"), (OllamaRelease{0, 12, 7}));
  EXPECT_EQ(to_string(tag("0.1.28")), "v0.1.28");
  // v0.30.0 to v0.32.15 start llama-server; none was tagged between
  // v0.24.0 and v0.30.0, and none past v0.32.15 is read.
  EXPECT_EQ(tag("0.30.1"), (OllamaRelease{0, 30, 1}));
  EXPECT_EQ(tag("v0.32.15"), kNewestRelease);
  EXPECT_TRUE(starts_llama_server(tag("0.30.0")));
  EXPECT_FALSE(starts_llama_server(kPinnedRelease));
  for (std::string_view t : {"0.24.1", "0.29.9", "0.32.16", "0.33.0"}) {
    Result<OllamaRelease> r = parse_ollama_release(t);
    ASSERT_FALSE(r.ok()) << t;
    EXPECT_EQ(r.error().kind(), ErrorKind::kUsage);
    EXPECT_NE(r.error().message().find("v0.30.0 to v0.32.15"), std::string::npos) << r.error().message();
  }
  EXPECT_FALSE(parse_ollama_release("0.0.19").ok());
  EXPECT_FALSE(parse_ollama_release("0.5").ok());
  EXPECT_FALSE(parse_ollama_release("0.5.7.1").ok());
  EXPECT_FALSE(parse_ollama_release("latest").ok());
  EXPECT_FALSE(parse_ollama_release("").ok());
}

TEST(OllamaReleases, VendoredLlamaCppBuildsSitOnTheRulesSides) {
  // v0.1.31 vendors b2527: before #6122's row of logits a sequence.
  EXPECT_LT(*vendored_llamacpp_build(tag("0.1.31")), 2537u);
  // v0.1.32 to v0.11.4: after b2537, before b5424 (#13194) and b5913's
  // streams: one cache for every sequence.
  for (std::string_view t : {"0.1.32", "0.5.12", "0.6.8", "0.11.4"}) {
    const uint64_t build = *vendored_llamacpp_build(tag(t));
    EXPECT_GE(build, 2537u) << t;
    EXPECT_LT(build, kLlamaCppSwaWindowBuild) << t;
  }
  // v0.1.32 to v0.5.1 vendor a llama.cpp before #10026 (b3990: 3f1ae2e at
  // v0.3.14 to v0.5.1), whose blocks copy duplicated tensors; v0.5.2
  // (Ollama #7875, 40c6d79) is past it.
  for (std::string_view t : {"0.1.32", "0.3.8", "0.5.1"}) {
    EXPECT_LT(*vendored_llamacpp_build(tag(t)), 3990u) << t;
  }
  EXPECT_GE(*vendored_llamacpp_build(tag("0.5.2")), 3990u);
  // v0.11.5 to v0.13.1: streams, cells padded to 32 without flash attention.
  for (std::string_view t : {"0.11.5", "0.12.11", "0.13.1"}) {
    const uint64_t build = *vendored_llamacpp_build(tag(t));
    EXPECT_GE(build, kLlamaCppStreamsBuild) << t;
    EXPECT_LE(build, kLlamaCppLastPad32Build) << t;
  }
  // v0.13.2 (b7108) to v0.24.0 (ec98e2002): the pinned cache rules (no
  // 32-cell padding), but before #18898's vector input (b7781 on).
  for (OllamaRelease r : {tag("0.13.2"), tag("0.15.6"), kPinnedRelease}) {
    const uint64_t build = *vendored_llamacpp_build(r);
    EXPECT_GT(build, kLlamaCppLastPad32Build) << to_string(r);
    EXPECT_LT(build, 7781u) << to_string(r);
  }
}

TEST(OllamaReleases, RunnerByReleaseList) {
  // gemma3 came with Ollama's own engine in v0.6.0.
  EXPECT_EQ(runner_for("gemma3", tag("0.5.13")), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("gemma3", tag("0.6.0")), OllamaRunner::kOllama);
  // qwen3 from v0.12.0, dropped in v0.12.5, back in v0.12.6.
  EXPECT_EQ(runner_for("qwen3", tag("0.11.11")), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("qwen3", tag("0.12.0")), OllamaRunner::kOllama);
  EXPECT_EQ(runner_for("qwen3", tag("0.12.5")), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("qwen3", tag("0.12.6")), OllamaRunner::kOllama);
  // gpt-oss: "gptoss" from v0.11.0, the "gpt-oss" spelling from v0.11.5.
  EXPECT_EQ(runner_for("gpt-oss", tag("0.11.4")), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("gpt-oss", tag("0.11.5")), OllamaRunner::kOllama);
  // llama is llama.cpp's in every release.
  EXPECT_EQ(runner_for("llama", tag("0.1.0")), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("llama", kPinnedRelease), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("gemma4", tag("0.19.0")), OllamaRunner::kLlama);
  EXPECT_EQ(runner_for("gemma4", tag("0.20.0")), OllamaRunner::kOllama);
}

TEST(OllamaReleases, FlashAttentionDefaults) {
  // No list before v0.12.4; qwen3 from it, gemma3 from v0.12.6.
  EXPECT_FALSE(flash_attention_by_default("qwen3", tag("0.12.3")));
  EXPECT_TRUE(flash_attention_by_default("qwen3", tag("0.12.4")));
  EXPECT_FALSE(flash_attention_by_default("gemma3", tag("0.12.5")));
  EXPECT_TRUE(flash_attention_by_default("gemma3", tag("0.12.6")));
  EXPECT_FALSE(flash_attention_by_default("llama", kPinnedRelease));
  // llama.cpp's runner decides itself from v0.13.5.
  EXPECT_FALSE(llama_runner_flash_attention_auto(tag("0.13.4")));
  EXPECT_TRUE(llama_runner_flash_attention_auto(tag("0.13.5")));
}

TEST(OllamaReleases, DefaultContextAndSequences) {
  EXPECT_EQ(default_context(tag("0.6.6")), 2048u);
  EXPECT_EQ(default_context(tag("0.6.7")), 4096u);
  EXPECT_EQ(default_context(tag("0.15.4")), 4096u);
  EXPECT_FALSE(default_context(tag("0.15.5")).has_value());  // the VRAM tier
  EXPECT_TRUE(memory_go_places_layers(tag("0.12.10")));
  EXPECT_FALSE(memory_go_places_layers(tag("0.12.11")));
  EXPECT_FALSE(reads_num_parallel(tag("0.1.32")));
  EXPECT_TRUE(reads_num_parallel(tag("0.1.33")));
  EXPECT_EQ(default_parallel(tag("0.1.48")), 1u);
  EXPECT_EQ(default_parallel(tag("0.2.0")), 4u);
  EXPECT_EQ(default_parallel(tag("0.6.8")), 4u);
  EXPECT_EQ(default_parallel(tag("0.7.0")), 2u);
  EXPECT_EQ(default_parallel(tag("0.9.6")), 2u);
  EXPECT_EQ(default_parallel(tag("0.10.0")), 1u);
}

TEST(OllamaReleases, RunnerBatch) {
  // v0.3.14, the C++ server: --batch-size 1024, ubatch llama.cpp's 512.
  EXPECT_EQ(runner_batch(tag("0.3.14"), 1024, 4).n_batch, 1024u);
  EXPECT_EQ(runner_batch(tag("0.3.14"), 1024, 4).n_ubatch, 512u);
  // v0.5.12 (ollama#9352): 512 x 10 = 5120, ubatch 512.
  EXPECT_EQ(runner_batch(tag("0.5.12"), 512, 10).n_batch, 5120u);
  EXPECT_EQ(runner_batch(tag("0.5.12"), 512, 10).n_ubatch, 512u);
  // 128 x 2 = 256: the default ubatch is at most n_batch.
  EXPECT_EQ(runner_batch(tag("0.13.2"), 128, 2).n_ubatch, 256u);
  // v0.13.3 on: the ubatch is num_batch.
  EXPECT_EQ(runner_batch(tag("0.13.3"), 128, 2).n_ubatch, 128u);
  EXPECT_EQ(runner_batch(tag("0.13.3"), 1024, 1).n_ubatch, 1024u);
  EXPECT_EQ(runner_batch(tag("0.13.3"), 1024, 1).n_batch, 1024u);
}

TEST(OllamaReleases, ContextFloorByFamilyReleaseAndVram) {
  constexpr uint64_t kGiB = uint64_t{1} << 30;
  EXPECT_FALSE(context_floor("gptoss", tag("0.10.1"), 24 * kGiB).has_value());
  EXPECT_EQ(context_floor("gptoss", tag("0.11.0"), 0), 8192u);  // no low VRAM mode yet
  EXPECT_FALSE(context_floor("gptoss", tag("0.11.4"), 19 * kGiB).has_value());
  EXPECT_EQ(context_floor("gptoss", tag("0.11.4"), 20 * kGiB), 8192u);
  EXPECT_FALSE(context_floor("gpt-oss", tag("0.11.4"), 24 * kGiB).has_value());
  EXPECT_EQ(context_floor("gpt-oss", tag("0.11.5"), 24 * kGiB), 8192u);
  EXPECT_FALSE(context_floor("qwen3vl", tag("0.12.6"), 24 * kGiB).has_value());
  EXPECT_EQ(context_floor("qwen3vlmoe", tag("0.12.7"), 24 * kGiB), 8192u);
  EXPECT_EQ(context_floor("gptoss", tag("0.15.4"), 24 * kGiB), 8192u);
  EXPECT_FALSE(context_floor("gptoss", tag("0.15.5"), 24 * kGiB).has_value());
}

TEST(OllamaReleases, OwnEngineGpuPoolInTheGraphRecord) {
  // 3d0b1734c ("ggml: Preallocate CUDA pool memory") is first in v0.12.4;
  // RDNA3 takes hipBLAS over 64 tokens through v0.13.2's ggml, MMQ from
  // v0.13.3's (ggml_cuda_should_use_mmq).
  EXPECT_FALSE(own_engine_graph_holds_gpu_pool(tag("0.12.3")));
  EXPECT_TRUE(own_engine_graph_holds_gpu_pool(tag("0.12.4")));
  EXPECT_TRUE(own_engine_graph_holds_gpu_pool(tag("0.24.0")));
  EXPECT_FALSE(own_engine_rdna3_product_pool(tag("0.11.10")));
  EXPECT_TRUE(own_engine_rdna3_product_pool(tag("0.12.6")));
  EXPECT_TRUE(own_engine_rdna3_product_pool(tag("0.13.2")));
  EXPECT_FALSE(own_engine_rdna3_product_pool(tag("0.13.3")));
  // Turing's and Ampere's pool: from the same v0.12.4 to v0.24.0, whose
  // ggml-cuda was read; v0.30.0's llama-server is not this engine.
  EXPECT_FALSE(own_engine_cuda_mma_pool(tag("0.12.3")));
  EXPECT_TRUE(own_engine_cuda_mma_pool(tag("0.12.4")));
  EXPECT_TRUE(own_engine_cuda_mma_pool(tag("0.24.0")));
  EXPECT_FALSE(own_engine_cuda_mma_pool(tag("0.30.0")));
}

TEST(OllamaReleases, LlamaServerRunsItsReleasesBuildAndNumBatch) {
  // LLAMA_CPP_VERSION: v0.30.0 b9452, v0.32.15 b10488; no own engine from
  // v0.30.0 (qwen3moe was Ollama's own from v0.12.2 to v0.24.0).
  EXPECT_EQ(vendored_llamacpp_build(tag("0.30.0")), 9452u);
  EXPECT_EQ(vendored_llamacpp_build(kNewestRelease), 10488u);
  EXPECT_TRUE(ollama_engine_required("qwen3moe", kPinnedRelease));
  EXPECT_FALSE(ollama_engine_required("qwen3moe", tag("0.30.0")));
  // -b num_batch -ub num_batch, whatever the slots (v0.24.0: 512 x 4).
  EXPECT_EQ(runner_batch(tag("0.30.0"), 512, 4).n_batch, 512u);
  EXPECT_EQ(runner_batch(tag("0.30.0"), 512, 4).n_ubatch, 512u);
  EXPECT_EQ(runner_batch(kPinnedRelease, 512, 4).n_batch, 2048u);
}

TEST(OllamaReleases, PredictServerVramIsTheFileAndAnF16Cache) {
  // 2 x 4 blocks x 2 KV heads x (64 / 4 = 16) x 32768 cells x 2 B =
  // 16,777,216 B, and the file's 150,000 B.
  EXPECT_EQ(predicted_server_bytes(150000, 4, 2, 64, 4, 32768), 16927216u);
  // No heads: no cache (Go's 0 head width); no KV heads count as one.
  EXPECT_EQ(predicted_server_bytes(7, 4, 2, 64, 0, 32768), 7u);
  EXPECT_EQ(predicted_server_bytes(0, 1, 0, 8, 1, 1), 2u * 8 * 2);
}

TEST(OllamaReleases, AutomaticGenerationBatchByCellsAndHeadroom) {
  constexpr uint64_t kMiB = uint64_t{1} << 20, kGiB = uint64_t{1} << 30;
  AutoBatchInputs in;
  // 4096 cells or fewer: 512; up to 32768: 1024; past it: 2048 (nothing
  // predicted: every batch fits).
  in.cells = 4096;
  EXPECT_EQ(automatic_generation_batch(in), 512u);
  in.cells = 32768;
  EXPECT_EQ(automatic_generation_batch(in), 1024u);
  in.cells = 32769;
  EXPECT_EQ(automatic_generation_batch(in), 2048u);
  // 24 GiB free, 8 GiB predicted: 2048 needs 8 <= 60 % of 24 = 14.4 GiB
  // and 2 GiB <= 80 % x 24 - 8 = 11.2 GiB: kept.
  in.available_bytes = 24 * kGiB;
  in.predicted_bytes = 8 * kGiB;
  EXPECT_EQ(automatic_generation_batch(in), 2048u);
  // 16 GiB predicted: past 60 % (14.4 GiB), within 75 % (18 GiB), and
  // 768 MiB <= 19.2 - 16 = 3.2 GiB: 1024.
  in.predicted_bytes = 16 * kGiB;
  EXPECT_EQ(automatic_generation_batch(in), 1024u);
  // 18.5 GiB: past 75 % (18 GiB): 512.
  in.predicted_bytes = 18 * kGiB + 512 * kMiB;
  EXPECT_EQ(automatic_generation_batch(in), 512u);
  // 1044 MiB free (1,094,713,344 B), 16,927,216 B predicted at 36,864
  // cells: 2048's 2 GiB surcharge is past 80 % (875,770,675 B) less the
  // prediction; 1024's 768 MiB (805,306,368 B) is within 858,843,459 B.
  in.cells = 36864;
  in.available_bytes = 1044 * kMiB;
  in.predicted_bytes = 16927216;
  EXPECT_EQ(automatic_generation_batch(in), 1024u);
  // Flash attention off on CUDA: 512, 256 past 4096 cells on a GPU of at
  // most 8 GiB.
  in.flash_attention_off = true;
  in.cuda = true;
  EXPECT_EQ(automatic_generation_batch(in), 512u);
  in.small_cuda = true;
  EXPECT_EQ(automatic_generation_batch(in), 256u);
  in.cells = 4096;
  EXPECT_EQ(automatic_generation_batch(in), 512u);
}

}  // namespace
}  // namespace memfit::ollama
