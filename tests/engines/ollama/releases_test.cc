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
  // v0.30.0 starts llama-server: not Ollama's own runner.
  Result<OllamaRelease> later = parse_ollama_release("0.30.1");
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().kind(), ErrorKind::kUsage);
  EXPECT_NE(later.error().message().find("--engine llamacpp"), std::string::npos);
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
}

}  // namespace
}  // namespace memfit::ollama
