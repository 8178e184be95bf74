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

LogCheck check(const std::string& version) {
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
  const LogCheck pinned = check("");
  EXPECT_EQ(kv_cache(pinned), 4'063'232u);
  // b5000, before #13194: the 5 windowed layers cache the context too,
  // 6 x 4096 x 512 = 12,582,912.
  const LogCheck old = check("b5000");
  EXPECT_EQ(old.log.version, "b5000");
  EXPECT_EQ(kv_cache(old), 12'582'912u);
  // b6000 has every rule the pinned release has for this run.
  EXPECT_EQ(kv_cache(check("b6000")), 4'063'232u);
}

}  // namespace
}  // namespace memfit
