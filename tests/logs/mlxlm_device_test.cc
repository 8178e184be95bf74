// check-log prices an mlx-lm log on the device given beside it
// (docs/check-log.md, "mlx-lm"; --gpu-name, a sidecar's device): an NVIDIA
// GPU is MLX's CUDA backend, an Apple chip's class sets Metal's
// command-buffer limits. The corpus's mlx_lm.benchmark run of mlx-lm PR
// #396 (Llama 3.2 3B, 2048 + 128 tokens), priced from the model's config.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "logs/log_test_data.h"
#include "memfit/log_check.h"
#include "support/corpus.h"
#include "support/paths.h"

namespace memfit {
namespace {

// Llama 3.2 3B Instruct's config, the model of mlx-lm#396's log.
std::string corpus_config_mlxlm_device() { return testing::read_test_data("corpus/llama3/Llama-3.2-3B-Instruct/config.json"); }

LogCheck check_on(const std::string& device) {
  LogCheckOptions options;
  options.config_json = corpus_config_mlxlm_device();
  options.gpu_name = device;
  return testing::check_test_log("mlx-lm", "mlxlm-396-benchmark-default-llama32-3b-4bit.log",
                                 options);
}

constexpr auto peak = &testing::priced_peak;
constexpr auto has_note = &testing::has_log_note;

TEST(CheckLogMlxLmDevice, AnNvidiaGpuIsMlxsCudaBackend) {
  const LogCheck none = check_on("");
  const LogCheck h100 = check_on("NVIDIA H100");
  EXPECT_EQ(none.log.backend, "Metal");
  EXPECT_EQ(h100.log.backend, "MLX-CUDA");
  EXPECT_TRUE(has_note(h100, "is an NVIDIA GPU: MLX's CUDA backend")) << h100.log.notes.size();
  // CUDA graphs of 100 ops and 1000 x 2^20 elements hold more of the pass
  // than Metal's 50-op buffers: the peak differs from the Metal one.
  EXPECT_NE(peak(h100), peak(none));
}

TEST(CheckLogMlxLmDevice, AnAppleChipsClassSetsMetalsLimits) {
  const LogCheck max = check_on("Apple M4 Max (64 GB)");
  const LogCheck pro = check_on("Apple M3 Pro (MacBook Pro 14\", 18 GB)");
  const LogCheck base = check_on("Apple M4 (MacBook Pro)");
  EXPECT_EQ(pro.log.backend, "Metal");
  EXPECT_TRUE(has_note(pro, "is an Apple pro chip: Metal's limits for its class (40 ops, 40 x "
                            "2^20 elements a command buffer)"));
  // Max is the default without a device; base and Pro share 40 / 40.
  EXPECT_EQ(peak(max), peak(check_on("")));
  EXPECT_EQ(peak(pro), peak(base));
  // A 40-op buffer commits sooner than a 50-op one: less is held at once.
  EXPECT_LT(peak(pro), peak(max));
  // A name that is no known device changes nothing and says nothing.
  const LogCheck other = check_on("AMD Radeon 8060S");
  EXPECT_EQ(peak(other), peak(max));
  EXPECT_FALSE(has_note(other, "the device given"));
}

}  // namespace
}  // namespace memfit
