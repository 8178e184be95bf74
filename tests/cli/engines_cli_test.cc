// `memfit engines`: each engine's release, the field that names another,
// what is priced when none is given and where releases differ, one line
// each; --json is GET /v1/engines's object.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_command.h"

namespace memfit {
namespace {

using testing::run_memfit;

TEST(EnginesCli, ListsEachEnginesReleasesAndWhereTheyDiffer) {
  auto r = run_memfit({"engines"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  --mlx-lm-version (JSON mlx_lm_version): default 0.31.3, the newest "
                       "release read (v0.31.3 of 2026-04-22; later ones by its rules, not read)\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    mlx-lm 0.27.0 and later: the last chunk's logits one row: the "
                       "prompt's last token alone gets logits (mlx-lm #406), as when none is "
                       "given\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  --vllm-version (JSON vllm_version): default the current line, 0.21 to "
                       "0.32 (the CUDA graphs' estimate subtracted from the KV memory, utilization "
                       "0.92)\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    0.11 to 0.20: the rules read at v0.11: the CUDA graphs captured "
                       "past the utilization (not subtracted from the KV memory), the "
                       "utilization's default 0.9\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    before b5913: one KV stream for every sequence, as --kv-unified "
                       "(#14363 gave each sequence its own)\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  --ollama-version (JSON ollama_version): default the newest release "
                       "read, v0.32.15: "),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    before v0.11.5: its llama.cpp (before b5424) keeps one KV cache for "
                       "every sequence (kv_size = num_ctx x parallel, the attention over all of "
                       "it) and a sliding-window layer's cache the whole context\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mlxcel: "), std::string::npos) << r.out;
}

TEST(EnginesCli, JsonHasEachEnginesVersions) {
  auto r = run_memfit({"engines", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const nlohmann::json& e : j["engines"]) {
    ASSERT_TRUE(e.contains("versions")) << e["name"];
    if (e["name"] == "mlx-lm") {
      EXPECT_EQ(e["versions"]["field"], "mlx_lm_version");
      // Oldest first: before 0.17.0, the unfused prompt attention to 0.19.x,
      // chunks of 512 to 0.22.1, full logits to 0.26.x, then 0.27.0, the
      // releases not read (mlx-lm 0.32, MLX after 0.32.1), MLX's floor, and
      // MLX's split-K rules (0.24.0 to 0.30.4, 0.30.5, 0.31.2).
      EXPECT_EQ(e["versions"]["differences"].size(), 11u);
      EXPECT_EQ(e["versions"]["differences"][8]["releases"], "MLX 0.30.5 and later");
      EXPECT_EQ(e["versions"]["differences"][5]["releases"], "mlx-lm 0.32.0 and later");
      EXPECT_EQ(e["versions"]["differences"][2]["releases"], "mlx-lm 0.17.0 to 0.22.1");
      EXPECT_EQ(e["versions"]["differences"][4]["releases"], "mlx-lm 0.27.0 and later");
    }
    if (e["name"] == "sglang") {
      EXPECT_EQ(e["versions"]["field"], "sglang_version");
      // Oldest first (profile.cc): refused before 0.5.3, no piecewise
      // reserve to 0.5.9, #16331's reserve, #29615's --disable-cuda-graph
      // guard from 0.5.16, #37898's GPU-size defaults at 0.5.20, the
      // releases after it priced by it, 0.6 refused.
      const nlohmann::json& d = e["versions"]["differences"];
      ASSERT_EQ(d.size(), 7u);
      EXPECT_EQ(d[3]["releases"], "0.5.16 to 0.5.19");
      EXPECT_EQ(d[4]["releases"], "0.5.20");
      EXPECT_NE(d[4]["change"].get<std::string>().find("#37898"), std::string::npos);
      EXPECT_EQ(d[5]["releases"], "0.5.21 and later 0.5");
    }
    if (e["name"] == "llamacpp") {
      EXPECT_EQ(e["versions"]["field"], "llamacpp_version");
      // Oldest first, one line a rule's first build (releases.cc;
      // LlamaCppReleases.EveryRuleBuildIsListed): #6017's input buffer,
      // #6083's op offload, #6122's output rows, #10026's shared duplicates,
      // #10133's SYCL get_rows, #11120's host-buffer offload, #12801's MLA
      // graph, #13108's cache-less encoders, #13194's SWA cache (and
      // #13833's), #13627's CANN flash
      // attention, #14158's fused GLU, #14208's embeddings, #14568's phi3
      // views, #14363's streams, #14959's set_rows, #15476's LFM2 output,
      // #15662's phi3 V view, #16812's padding, #18148's -ngl, #18898's
      // vector input, #19067's V-less MLA cache, #14939's glm4moe NextN KV
      // (through b7847), #20190's SYCL flash
      // attention, #20943's embedding norm, #21038's rotation, b8720's
      // per-layer input tensors, #23764's F16 mask, then #23861's output
      // rows under llama-server, #26296's Qwen3.5 MTP block; ggml-metal's
      // flash attention scratch (#15966, #17143, #18545, #27390) beside them.
      const nlohmann::json& d = e["versions"]["differences"];
      EXPECT_EQ(d.size(), 36u);
      EXPECT_EQ(d[0]["releases"], "before b2413");
      EXPECT_EQ(d[1]["releases"], "before b2459");
      EXPECT_EQ(d[2]["releases"], "before b2537");
      EXPECT_EQ(d[3]["releases"], "before b3990");
      EXPECT_EQ(d[4]["releases"], "b4040 to b4219, SYCL");
      EXPECT_EQ(d[6]["releases"], "before b5091");
      EXPECT_EQ(d[8]["releases"], "before b5424");
      EXPECT_EQ(d[9]["releases"], "b5424 to b5553");
      EXPECT_EQ(d[10]["releases"], "before b5489, CANN");
      EXPECT_EQ(d[18]["releases"], "before b6473, Metal");
      EXPECT_EQ(d[19]["releases"], "b6845 and before");
      EXPECT_EQ(d[20]["releases"], "before b7591");
      EXPECT_EQ(d[21]["releases"], "before b7591, Metal");
      EXPECT_EQ(d[23]["releases"], "before b7836");
      EXPECT_EQ(d[24]["releases"], "before b7848, glm4moe");
      EXPECT_EQ(d[25]["releases"], "before b8234, SYCL");
      EXPECT_EQ(d[27]["releases"], "before b8510, Metal");
      EXPECT_EQ(d[29]["releases"], "before b8720");
      EXPECT_EQ(d[30]["releases"], "before b9444");
      EXPECT_EQ(d[31]["releases"], "before b9460, llama-server");
      EXPECT_EQ(d[32]["releases"], "before b10212, qwen35");
      EXPECT_EQ(d[33]["releases"], "before b11300, Metal, given");
      // Then v0.5.0's three rules, for a build given from it, and the tags
      // not read.
      EXPECT_EQ(d[34]["releases"], "b11300 (v0.5.0) and later, given");
      EXPECT_EQ(d[35]["releases"], "v0.5.1 and later");
    }
    if (e["name"] == "ollama") {
      EXPECT_EQ(e["versions"]["field"], "ollama_version");
      // Oldest first, by the last release each covers.
      // 20: llama-server from v0.30.0 and its older builds to v0.32.14 are
      // the last; v0.5.1's llama.cpp before #10026 the last added.
      EXPECT_EQ(e["versions"]["differences"].size(), 20u);
      EXPECT_EQ(e["versions"]["differences"][18]["releases"], "before v0.30.0");
      EXPECT_EQ(e["versions"]["differences"][19]["releases"], "v0.30.0 to v0.32.14");
      EXPECT_EQ(e["versions"]["differences"][0]["releases"], "before v0.1.30");
      EXPECT_EQ(e["versions"]["differences"][1]["releases"], "before v0.1.32");
      EXPECT_EQ(e["versions"]["differences"][4]["releases"], "before v0.5.2");
      EXPECT_EQ(e["versions"]["differences"][9]["releases"], "before v0.11.5");
    }
    if (e["name"] == "mlxcel") {
      EXPECT_EQ(e["versions"]["field"], nullptr);
      EXPECT_TRUE(e["versions"]["differences"].empty());
    }
  }
}

}  // namespace
}  // namespace memfit
