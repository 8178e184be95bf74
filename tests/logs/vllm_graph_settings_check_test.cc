// check-log on a vLLM log that sets neither max_num_seqs nor
// max_num_batched_tokens and names no GPU (docs/engine-vllm.md, "Batch
// settings from the graph lines"): souspilot's v0.27.1 run of Qwen3.6-27B
// at TP 2 on two 79.25 GiB GPUs, whose config line prints
// "'compile_ranges_endpoints': [2048]" and whose workers print
// "Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35
// (largest=256)".
#include <gtest/gtest.h>

#include <string>

#include "logs/log_test_data.h"
#include "memfit/log_check.h"

namespace memfit {
namespace {

using testing::find_check_figure;
using testing::has_log_note;
using testing::read_test_log;

const char* kSlug = "vllm-nevervllm8-souspilot-qwen36-27b-tp2-v0271";

LogCheck check(const std::string& text) { return testing::check_with_its_config("vllm", kSlug, text); }

TEST(CheckLogVllmGraphSettings, TheRunsOwnLinesGiveItsBatchSettings) {
  const LogCheck c = check(read_test_log("vllm", std::string(kSlug) + ".log"));
  // 2,048 batched tokens, the largest endpoint; FULL largest 256 below
  // the next capture size 272: 256 to 271 sequences, of the defaults
  // (256, 1,024) only 256.
  EXPECT_TRUE(has_log_note(c, "max_num_batched_tokens 2048: read from the config line"));
  EXPECT_TRUE(has_log_note(c, "max_num_seqs 256: read from the CUDA-graph line"));
  EXPECT_TRUE(has_log_note(c, "bound it to 256 to 271"));
  // No large-GPU defaults over them.
  EXPECT_FALSE(has_log_note(c, "vLLM's defaults for a GPU of 70 GiB or more"));
  const FigureCheck* kv = find_check_figure(c, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_NE(kv, nullptr);
  ASSERT_TRUE(kv->memfit.has_value());
  // The graphs: 51 PIECEWISE (1 to 512) + 35 FULL (1 to 256) = 86, as
  // the line counts, x 64 layers x 256 KiB = 1,442,840,576 B.
  const FigureCheck* graphs = find_check_figure(c, "rank0", LogFigure::kCudaGraph);
  ASSERT_NE(graphs, nullptr);
  EXPECT_EQ(graphs->memfit, 86u * 64u * 262'144u);
  EXPECT_EQ(kv->memfit, 47'778'004'275u);  // 0.9948 of the printed 44.73 GiB
}

TEST(CheckLogVllmGraphSettings, SettingsTheLogPrintsAreKept) {
  // The same lines with the large GPU's defaults in the non-default args,
  // "'max_num_seqs': 1024, 'max_num_batched_tokens': 8192": both kept,
  // nothing read from the graph lines. The profile's activation is the
  // hidden states and the sampler's rows (FlashInfer's, no sort: 14 B an
  // entry over a 248,320 vocabulary): 8,192 x 5,120 x 2 + 1,024 x 248,320
  // x 14 = 83,886,080 + 3,559,915,520 = 3,643,801,600 B against 2,048 x
  // 5,120 x 2 + 256 x 248,320 x 14 = 20,971,520 + 889,978,880 =
  // 910,950,400 B read from the lines: 2,732,851,200 B more; and 51 + 51 =
  // 102 graphs against 86: 16 x 64 x 256 KiB = 268,435,456 B more. The
  // KV memory is 3,001,286,656 B less.
  std::string text = read_test_log("vllm", std::string(kSlug) + ".log");
  const std::string args = "'tensor_parallel_size': 2}";
  const size_t at = text.find(args);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, args.size(),
               "'tensor_parallel_size': 2, 'max_num_seqs': 1024, 'max_num_batched_tokens': 8192}");
  const LogCheck large = check(text);
  EXPECT_FALSE(has_log_note(large, "read from the config line"));
  EXPECT_FALSE(has_log_note(large, "read from the CUDA-graph line"));
  const LogCheck read = check(read_test_log("vllm", std::string(kSlug) + ".log"));
  const FigureCheck* kv_large = find_check_figure(large, "rank0", LogFigure::kKvCacheAvailable);
  const FigureCheck* kv_read = find_check_figure(read, "rank0", LogFigure::kKvCacheAvailable);
  ASSERT_TRUE(kv_large != nullptr && kv_read != nullptr);
  ASSERT_TRUE(kv_large->memfit.has_value() && kv_read->memfit.has_value());
  EXPECT_EQ(*kv_read->memfit - *kv_large->memfit, 2'732'851'200u + 268'435'456u);
  EXPECT_EQ(find_check_figure(large, "rank0", LogFigure::kCudaGraph)->memfit, 102u * 64u * 262'144u);
}

TEST(CheckLogVllmGraphSettings, ADrafterLeavesTheSequencesUnread) {
  // With a drafter the FULL graphs are max_num_seqs x (1 + its tokens)
  // long: the line bounds nothing by itself, so max_num_seqs is not read.
  std::string text = read_test_log("vllm", std::string(kSlug) + ".log");
  const std::string none = "speculative_config=None";
  const size_t at = text.find(none);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, none.size(), "speculative_config=SpeculativeConfig(method='mtp', num_spec_tokens=1)");
  const LogCheck c = check(text);
  EXPECT_FALSE(has_log_note(c, "read from the CUDA-graph line"));
}

}  // namespace
}  // namespace memfit
