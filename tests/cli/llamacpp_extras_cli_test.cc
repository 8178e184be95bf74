// The llama-server extras through the real binary: --mmproj on the
// Qwen3-8B-shaped GGUF header of the placement tests, with a small
// projector: 224 px images in 14 px patches, width 64, FFN 128, 4 heads;
// an f16 patch embedding 14 x 14 x 3 x 64 (75,264 B) and an f32
// projection 64 x 128 (32,768 B): 108,032 B of weights, and a modelled
// compute buffer (flash attention auto: on, no scores) of
// 4 x 256 x (2 x 64 + 128) = 262,144 B.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/gguf_writer.h"
#include "support/run_command.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

class LlamaCppExtrasCli : public ::testing::Test {
 protected:
  void SetUp() override {
    qwen3_8b_gguf().write(gguf_);
    tiny_projector_gguf().write(mmproj_);
  }
  TempDir dir_;
  std::string gguf_ = dir_.file_path("qwen3-8b.gguf");
  std::string mmproj_ = dir_.file_path("mmproj.gguf");
};

TEST_F(LlamaCppExtrasCli, TheProjectorIsALineOnTheFirstGpuAndTheReportKeepsItsSchema) {
  auto base = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                          "--gpu-memory", "0=8GiB"});
  ASSERT_EQ(base.exit_code, 0) << base.err;
  auto r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                       "--gpu-memory", "0=8GiB", "--mmproj", mmproj_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json b = nlohmann::json::parse(base.out);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& x = j["llamacpp"]["extras"];
  ASSERT_EQ(x.size(), 2u);
  EXPECT_EQ(x[0]["name"], "mmproj weights");
  EXPECT_EQ(x[0]["device"], "gpu:0");
  EXPECT_EQ(x[0]["bytes"], 108032u);
  EXPECT_EQ(x[0]["figure"], "exact");
  EXPECT_EQ(x[1]["bytes"], 262144u);
  EXPECT_EQ(x[1]["figure"], "modelled");
  EXPECT_EQ(j["llamacpp"]["extras_bytes"], 370176u);  // 108,032 + 262,144
  EXPECT_EQ(j["total_bytes"].get<uint64_t>(), b["total_bytes"].get<uint64_t>() + 370176u);
  EXPECT_EQ(j["llamacpp"]["devices"][0]["extras_bytes"], 370176u);
  EXPECT_EQ(j["llamacpp"]["devices"][1]["extras_bytes"], 0u);
  const std::string report = dir_.file_path("report.json");
  std::ofstream(report) << r.out;
  auto check = testing::check_report_schema(report);
  EXPECT_EQ(check.exit_code, 0) << check.err;

  // --no-mmproj-offload: on the host; the text names the lines.
  r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096", "--gpu-memory",
                  "0=8GiB", "--mmproj", mmproj_, "--no-mmproj-offload"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mmproj weights"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact, on cpu"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("modelled, on cpu"), std::string::npos) << r.out;
}

TEST_F(LlamaCppExtrasCli, AModelGivenAsTheProjectorIsRefused) {
  auto r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096", "--mmproj", gguf_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a projector"), std::string::npos) << r.err;
}

// --cache-ram on the command line: a line on the host at its limit,
// 512 x 2^20 = 536,870,912 B. Qwen3-8B is full attention only: no
// checkpoint line for --ctx-checkpoints.
TEST_F(LlamaCppExtrasCli, ThePromptCacheIsAHostLine) {
  auto r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                       "--gpu-memory", "0=8GiB", "--cache-ram", "512", "--ctx-checkpoints", "8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& x = j["llamacpp"]["extras"];
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0]["name"], "prompt cache");
  EXPECT_EQ(x[0]["device"], "cpu");
  EXPECT_EQ(x[0]["bytes"], 536870912u);
  EXPECT_EQ(x[0]["file"], "");
  EXPECT_EQ(j["llamacpp"]["devices"][1]["extras_bytes"], 536870912u);

  // -1 is taken as a value, not a flag: no limit, the context's KV,
  // 36 layers x 2,048 B x 2 (K, V) x 4,096 cells = 603,979,776 B.
  r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                  "--cache-ram", "-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["llamacpp"]["extras"][0]["bytes"], 603979776u);

  r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "--cache-ram", "8GiB"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--cache-ram"), std::string::npos) << r.err;
}

// preflight serve is llama-server's run: the prompt cache at the server's
// default limit, 8,192 MiB = 8,589,934,592 B, without any flag.
TEST_F(LlamaCppExtrasCli, PreflightServeCountsTheServersPromptCache) {
  auto r = run_memfit({"preflight", "serve", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c",
                       "4096", "-np", "1"});
  ASSERT_LE(r.exit_code, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& x = j["llamacpp"]["extras"];
  ASSERT_EQ(x.size(), 1u) << x.dump();
  EXPECT_EQ(x[0]["name"], "prompt cache");
  EXPECT_EQ(x[0]["bytes"], 8589934592u);
  EXPECT_EQ(j["llamacpp"]["extras_bytes"], 8589934592u);
}

// --model-draft with -ngld 0: the draft (here the same Qwen3-8B-shaped
// file) entirely on the host: its 689,799,168 B of weights, and its KV,
// 36 layers x 2,048 B x 2 (K, V) x 4,096 cells = 603,979,776 B, with its
// output buffer, 4 x 151,936 = 607,744 B: 604,587,520 B of context.
TEST_F(LlamaCppExtrasCli, TheDraftModelIsLinesOnItsDevices) {
  auto r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                       "--gpu-memory", "0=8GiB", "-md", gguf_, "-ngld", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  uint64_t model = 0, context = 0, on_gpu = 0;
  for (const nlohmann::json& x : j["llamacpp"]["extras"]) {
    if (x["device"] != "cpu") on_gpu += x["bytes"].get<uint64_t>();
    if (x["name"] == "draft model" && x["device"] == "cpu") model = x["bytes"];
    if (x["name"] == "draft context" && x["device"] == "cpu") context = x["bytes"];
  }
  EXPECT_EQ(model, 689799168u);
  EXPECT_EQ(context, 604587520u);
  EXPECT_EQ(on_gpu, 0u);

  // The pinned release has no --ctx-size-draft.
  r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "-md", gguf_, "-cd", "4096"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ctx"), std::string::npos) << r.err;
}

// --lora and --lora-scaled: a rank-8 f16 adapter over blk.0 and blk.35's
// attn_q (4,096 x 4,096): each half 4,096 x 8 x 2 B = 65,536 B, 131,072 B
// a pair (a multiple of 128 and of 32), 262,144 B an adapter.
TEST_F(LlamaCppExtrasCli, LoraAdaptersAreLinesOnTheirBaseTensorsDevices) {
  auto adapter = [](std::string_view arch, std::string_view first) {
    GgufWriter w;
    w.add_string("general.architecture", arch)
        .add_string("general.type", "adapter")
        .add_string("adapter.type", "lora")
        .add_tensor(std::string(first) + ".lora_a", GgmlType::kF16, {4096, 8})
        .add_tensor(std::string(first) + ".lora_b", GgmlType::kF16, {8, 4096})
        .add_tensor("blk.35.attn_q.weight.lora_a", GgmlType::kF16, {4096, 8})
        .add_tensor("blk.35.attn_q.weight.lora_b", GgmlType::kF16, {8, 4096});
    return w;
  };
  const std::string a = dir_.file_path("a-lora.gguf"), b = dir_.file_path("b-lora.gguf");
  adapter("qwen3", "blk.0.attn_q.weight").write(a);
  adapter("qwen3", "blk.0.attn_q.weight").write(b);
  auto r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                       "--gpu-memory", "0=8GiB", "--lora", a, "--lora-scaled", b, "0.5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  nlohmann::json x = j["llamacpp"]["extras"];
  ASSERT_EQ(x.size(), 2u) << x.dump();
  EXPECT_EQ(x[0]["name"], "LoRA adapter");
  EXPECT_EQ(x[0]["file"], a);
  EXPECT_EQ(x[0]["device"], "gpu:0");
  EXPECT_EQ(x[0]["bytes"], 262144u);
  EXPECT_EQ(x[0]["figure"], "exact");
  EXPECT_EQ(x[1]["file"], b);
  EXPECT_EQ(j["llamacpp"]["devices"][0]["extras_bytes"], 524288u);
  const std::string report = dir_.file_path("report.json");
  std::ofstream(report) << r.out;
  auto check = testing::check_report_schema(report);
  EXPECT_EQ(check.exit_code, 0) << check.err;

  // -ngl 10 of 37 slots: blocks 27..35 on the GPU; blk.0's pair on the host.
  r = run_memfit({"inspect", "--json", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096",
                  "--gpu-memory", "0=8GiB", "-ngl", "10", "--lora", a});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["llamacpp"]["devices"][0]["extras_bytes"], 131072u);
  EXPECT_EQ(j["llamacpp"]["devices"][1]["extras_bytes"], 131072u);

  // The text names each line's device and file.
  r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "-c", "4096", "--lora", a});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("LoRA adapter"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exact, on cpu, " + a), std::string::npos) << r.out;

  // Errors: one line each.
  const std::string wrong = dir_.file_path("wrong-lora.gguf");
  adapter("qwen3", "blk.40.attn_q.weight").write(wrong);
  r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "--lora", wrong});
  EXPECT_EQ(r.exit_code, 1);
  // (an estimate's error names the model first)
  EXPECT_EQ(r.err, "memfit: '" + gguf_ + "': lora '" + wrong +
                       "': LoRA tensor 'blk.40.attn_q.weight' does not exist in base model (hint: maybe wrong "
                       "base model?)\n");
  r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "--lora", mmproj_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("expect general.type to be 'adapter'"), std::string::npos) << r.err;
  r = run_memfit({"inspect", "-m", gguf_, "--memory-limit", "64GiB", "--lora-scaled", a, "half"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--lora-scaled"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace memfit
