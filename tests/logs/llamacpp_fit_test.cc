// llama.cpp's --fit lines read back (src/logs/llamacpp_fit.cc): the
// placement and context the fit chose, as the settings memfit prices.
// The line forms by build: llama_params_fit_impl (src/llama.cpp, from
// #16653; b8233's RTX 4060 run in tests/data/logs/llamacpp), and
// common_params_fit_impl / common_fit_params once the fit moved to
// common/fit.cpp (b9106's RX 9070 XT run). Each log below is a few lines
// of those runs' forms; the overrides are worked out from the rule in
// llamacpp_fit.cc's header.
#include <gtest/gtest.h>

#include <string>

#include "logs/log_test_data.h"
#include "memfit/runtime_log.h"

namespace memfit {
namespace {

using testing::setting_of;

RuntimeLog read_llamacpp_fit(const std::string& text) {
  Result<RuntimeLog> log = read_runtime_log(text);
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message());
  return log.ok() ? std::move(*log) : RuntimeLog{};
}

const char* const kExperts = "\\.ffn_(up|down|gate_up|gate)_(ch)?exps=CPU";

// b8233's MoE form, one GPU: 49 layers (48 blocks + the output), 47
// overflowing. il0 = 49 - 49 = 0; the 2 full layers are blk.0 and blk.1;
// the 47 partial ones are il 2..48, and 48 is the output layer's index
// (no blk.48): the experts of blk.2..blk.47 move, 46 blocks, in two rules
// of 32 and 14 numbers.
TEST(LlamaCppFitLines, OverflowingLayersMoveTheirExpertsToTheHost) {
  const RuntimeLog log = read_llamacpp_fit(
      "0.00.275.412 I llama_params_fit_impl: context size set by user to 40960 -> no change\n"
      "0.00.612.183 I llama_params_fit_impl: filling dense-only layers back-to-front:\n"
      "0.00.812.984 I llama_params_fit_impl:   - CUDA0 (NVIDIA GeForce RTX 4060): 49 layers,   4272 MiB used,"
      "   2695 MiB free\n"
      "0.01.744.099 I llama_params_fit_impl:   - CUDA0 (NVIDIA GeForce RTX 4060): 49 layers (47 overflowing),"
      "   5767 MiB used,   1201 MiB free\n"
      "0.01.744.103 I llama_params_fit: successfully fit params to free device memory\n"
      "1.01.032.560 I load_tensors: offloaded 49/49 layers to GPU\n");
  std::string first;
  for (int il = 2; il <= 33; ++il) first += (il == 2 ? "" : "|") + std::to_string(il);
  std::string second;
  for (int il = 34; il <= 47; ++il) second += (il == 34 ? "" : "|") + std::to_string(il);
  EXPECT_EQ(setting_of(log, "override_tensor"),
            "blk\\.(" + first + ")" + kExperts + ",blk\\.(" + second + ")" + kExperts);
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "49");
  EXPECT_EQ(setting_of(log, "tensor_split"), "<none>");  // one device
}

// The debug line's overflow type (ggml-org/llama.cpp#22673's run: 42
// layers, 6 partial, UP then GATE: the last stands). 43 offloadable (42
// blocks + the output), ngl 42: il0 = 43 - 42 = 1, +36 full = 37; partial
// il 37..42: blk.37 moves only its down (GATE: "blk\.37\.ffn_down" to the
// CPU, the one device's overflow buffer), blk.38..41 their experts, 42 is
// the output layer's index.
TEST(LlamaCppFitLines, DebugOverflowTypeSetsTheFirstPartialLayersFraction) {
  const RuntimeLog log = read_llamacpp_fit(
      "common_params_fit_impl: set ngl_per_device[0].(n_layer, n_part, overflow_type)=(42, 6, UP), "
      "id_dense_start=0\n"
      "common_params_fit_impl: set ngl_per_device[0].(n_layer, n_part, overflow_type)=(42, 6, GATE), "
      "id_dense_start=0\n"
      "common_params_fit_impl:   - CUDA0 (NVIDIA GeForce RTX 4090): 42 layers ( 6 overflowing),  22454 MiB used,"
      "   1151 MiB free\n"
      "common_fit_params: successfully fit params to free device memory\n"
      "load_tensors: offloaded 42/43 layers to GPU\n");
  EXPECT_EQ(setting_of(log, "override_tensor"),
            std::string("blk\\.37\\.ffn_down=CPU,blk\\.(38|39|40|41)") + kExperts);
}

// Two GPUs, step 4's order (CUDA0 first): 49 offloadable, CUDA0 30 layers
// (2 overflowing), CUDA1 19 (3 overflowing, the output among them).
// il0 = 0; CUDA0: +28 full -> 28, partial 28, 29; CUDA1: il0 = 30, +16
// full -> 46, partial 46, 47, 48 (the output's). Experts of 28, 29, 46,
// 47; the split is the layers, 30,19.
TEST(LlamaCppFitLines, SeveralDevicesSplitByTheirLayers) {
  const RuntimeLog log = read_llamacpp_fit(
      "llama_params_fit_impl:   - CUDA0 (NVIDIA RTX A6000): 30 layers ( 2 overflowing),  46000 MiB used\n"
      "llama_params_fit_impl:   - CUDA1 (NVIDIA RTX A6000): 19 layers ( 3 overflowing),  40000 MiB used\n"
      "llama_params_fit: successfully fit params to free device memory\n"
      "load_tensors: offloaded 49/49 layers to GPU\n");
  EXPECT_EQ(setting_of(log, "override_tensor"), std::string("blk\\.(28|29|46|47)") + kExperts);
  EXPECT_EQ(setting_of(log, "tensor_split"), "30,19");
}

// A dense model (b7972's form, "21 layers,"): whole layers, no override;
// the multi-device projection lines ("4096 total") are not a placement.
TEST(LlamaCppFitLines, DenseLayersAndProjectionsSetNoOverride) {
  const RuntimeLog log = read_llamacpp_fit(
      "llama_params_fit_impl:   - Vulkan0 (Radeon RX 580 Series):   4096 total,   1237 used,   1932 free vs. "
      "target of   1024\n"
      "llama_params_fit_impl: filling dense layers back-to-front:\n"
      "llama_params_fit_impl:   - ROCm0 (AMD Radeon (TM) Pro VII): 21 layers,   6080 MiB used,   1107 MiB free\n"
      "llama_params_fit: successfully fit params to free device memory\n"
      "load_tensors: offloaded 21/29 layers to GPU\n");
  EXPECT_EQ(setting_of(log, "override_tensor"), "<none>");
  EXPECT_EQ(setting_of(log, "tensor_split"), "<none>");
  EXPECT_EQ(setting_of(log, "n_gpu_layers"), "21");
}

// The context the fit set (b9106's common form) is the run's when the log
// prints no llama_context n_ctx; the printed one wins when it does.
TEST(LlamaCppFitLines, ReducedContextIsTheRunsWhenNoneIsPrinted) {
  const std::string fit =
      "common_params_fit_impl: context size reduced from 131072 to 31488 -> need 15726 MiB less memory in total\n"
      "common_params_fit_impl: entire model can be fit by reducing context\n"
      "common_fit_params: successfully fit params to free device memory\n"
      "load_tensors: offloaded 41/41 layers to GPU\n";
  EXPECT_EQ(setting_of(read_llamacpp_fit(fit), "n_ctx"), "31488");
  EXPECT_EQ(setting_of(read_llamacpp_fit(fit + "llama_context: n_ctx         = 31744\n"), "n_ctx"), "31744");
}

// A fit that failed (ggml-org/llama.cpp#19437: -ngl set by the user) had
// already reduced the context (step 2 writes it before the abort), and set
// no layers: no override.
TEST(LlamaCppFitLines, FailedFitKeepsItsContextAndSetsNoLayers) {
  const RuntimeLog log = read_llamacpp_fit(
      "llama_params_fit_impl: context size reduced from 262144 to 30000 -> need 6257 MiB less memory in total\n"
      "llama_params_fit_impl:   - CUDA0 (NVIDIA GeForce GTX 1080 Ti): 30 layers ( 9 overflowing),   8000 MiB used\n"
      "llama_params_fit: failed to fit params to free device memory: n_gpu_layers already set by user to 99, "
      "abort\n"
      "load_tensors: offloaded 49/49 layers to GPU\n");
  EXPECT_EQ(setting_of(log, "n_ctx"), "30000");
  EXPECT_EQ(setting_of(log, "override_tensor"), "<none>");
}

}  // namespace
}  // namespace memfit
