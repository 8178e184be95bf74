// check-log prices a llama.cpp log by the build it ran (docs/check-log.md;
// docs/engine-llamacpp.md, "Releases"): the corpus's whole log of the
// pinned library on the synthetic gemma3-swa model, 6 layers of one KV
// head of 128 (512 B per layer per cell at f16: K + V), 5 of them
// sliding over 256 tokens, at a context of 4096 and a batch and ubatch of
// 512, priced under the build the log is given.
#include <gtest/gtest.h>

#include "logs/log_test_data.h"
#include "memfit/log_check.h"

namespace memfit {
namespace {

using testing::read_test_log;

const char* kLog = "llamacpp-pinned-gemma3-swa-ctx4096.log";

LogCheck check_llamacpp_release(const std::string& version) {
  LogCheckOptions options;
  options.version = version;
  return testing::check_test_log("llamacpp", kLog, options);
}

uint64_t kv_cache(const LogCheck& c) {
  for (const FigureCheck& f : c.figures) {
    if (f.printed.figure == LogFigure::kKvCache && f.printed.device == "CPU") {
      return f.memfit.value_or(0);
    }
  }
  ADD_FAILURE() << "no KV cache priced: " << c.not_priced;
  return 0;
}

TEST(CheckLogLlamaCppBuild, TheLogsBuildPricesItsSlidingWindowCache) {
  // The pinned rules: the full layer 4096 cells x 512 B = 2,097,152; the
  // SWA cache pad256(min(4096, 256 + 512)) = 768 cells x 5 x 512 B =
  // 1,966,080: 4,063,232, as the log printed (2.00 + 1.88 MiB).
  const LogCheck pinned = check_llamacpp_release("");
  EXPECT_EQ(kv_cache(pinned), 4'063'232u);
  // b5000, before #13194: the 5 windowed layers cache the context too,
  // 6 x 4096 x 512 = 12,582,912.
  const LogCheck old = check_llamacpp_release("b5000");
  EXPECT_EQ(old.log.version, "b5000");
  EXPECT_EQ(kv_cache(old), 12'582'912u);
  // b6000 has every rule the pinned release has for this run.
  EXPECT_EQ(kv_cache(check_llamacpp_release("b6000")), 4'063'232u);
}

// The output buffer of a llama-server log (CPU's output row): rows x
// n_vocab x 4 B (llama_output_reserve of n_seq_max, from #6122).
uint64_t output_of(const std::string& file, const std::string& version = "") {
  LogCheckOptions options;
  options.version = version;
  const LogCheck c = testing::check_test_log("llamacpp", file, options);
  const FigureCheck* f = testing::find_check_figure(c, "CPU", LogFigure::kOutput);
  return f != nullptr ? f->memfit.value_or(0) : 0;
}

TEST(CheckLogLlamaCppBuild, TheOldServerKeepsASequenceBesideItsSlots) {
  // ggml-org/llama.cpp#9587: llama-server b3802, Gemma 2 27B (n_vocab
  // 256000), no -np: its one slot and the extra sequence (#5328, to b4020
  // at least), 2 x 256,000 x 4 = 2,048,000 B (printed 1.95 MiB =
  // 2,044,723 B, within the print's 5,243).
  EXPECT_EQ(output_of("llamacpp-neverllama7-9587-3060-gemma2-27b-q8_0-ngl0.log"), 2'048'000u);
  // #8616's server b2859 (its JSON build line), CausalLM 14B (n_vocab
  // 152064): 2 x 152,064 x 4 = 1,216,512 B (printed 1.16 MiB).
  EXPECT_EQ(output_of("llamacpp-neverllama7-8616-3080-causallm-14b-q8_0-ngl0.log"), 1'216'512u);
  // #9628's llama-cli b3808 keeps none: Qwen2 57B (n_vocab 151936),
  // 151,936 x 4 = 607,744 B (printed 0.58 MiB).
  EXPECT_EQ(output_of("llamacpp-neverllama7-9628-4x-h100-qwen2-57b-a14b-f16-ngl0.log"), 607'744u);
  // #10701's server b4277 prints n_seq_max = 1: Llama 3.1 8B (n_vocab
  // 128256), one row, 513,024 B (printed 0.49 MiB).
  EXPECT_EQ(output_of("llamacpp-10701-llama31-8b-q4km-rocm-apu.log"), 513'024u);
  // #10152's server b4020 prints its context's n_seq_max = 2 (one slot and
  // the extra sequence): counted once, Qwen2.5 32B (n_vocab 152064),
  // 2 x 152,064 x 4 = 1,216,512 B (printed 1.16 MiB).
  EXPECT_EQ(output_of("llamacpp-10152-qwen25-32b-3x-p40.log"), 1'216'512u);
}

TEST(CheckLogLlamaCppBuild, TheCacheSummaryWithoutStreamsDatesAnUnbuiltLogBeforeThem) {
  // ggml-org/llama.cpp#14441: a CANN source build (b0) whose lines date it
  // to b4731..b6698 (llama_context's lines, llama_kv_cache_unified's), and
  // whose cache summary prints "1 seqs", no streams: before #14363
  // (b5913), so priced as b5912, before the KV store's I64 indices
  // (#14959, b6051). Qwen2 1.5B (n_embd 1536, 2 KV heads of 128), 512
  // tokens over 4,096 cells, the host's inputs: the token rows 4 x 512 x
  // 1,536 = 3,145,728, the F32 mask 4 x 4,096 x 512 = 8,388,608, token
  // ids, positions and output ids 3 x 4 x 512 = 6,144: 11,540,480 B
  // (printed 11.01 MiB = 11,544,822). With the indices (b6698: 8 x 512 +
  // 8 x 256 x 512 = 1,052,672 more) it was 12,593,152.
  const LogCheck c = testing::check_test_log("llamacpp", "llamacpp-neverllama7-14441-cann-qwen2-1.5b-f16-910b4.log");
  const FigureCheck* host = testing::find_check_figure(c, "CPU", LogFigure::kCompute);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->memfit, std::optional<uint64_t>(11'540'480u));
  EXPECT_TRUE(testing::has_log_note(c, "priced as b5912"));
}

}  // namespace
}  // namespace memfit
