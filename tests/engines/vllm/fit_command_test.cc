// The vllm fit hook's options (src/engines/vllm/fit_command.cc): the CLI's -c and
// /v1/fit's curve are refused, solve defaults to max-model-len; on
// Meta-Llama-3.1-8B's config for one 80 GiB GPU.
#include <gtest/gtest.h>

#include <string>

#include "support/command_hooks.h"
#include "support/paths.h"

namespace memfit::engines {
namespace {

using nlohmann::json;

Result<CommandAnswer> fit(json options) {
  EstimateRequest r;
  r.model = std::string(MEMFIT_TEST_DATA_DIR) + "/corpus/llama3/Meta-Llama-3.1-8B";
  r.engine = "vllm";
  r.vllm.gpu_memory_total = r.memory_limit_bytes = 80ull << 30;
  return testing::ask_hook(r, EngineCommand::kFit, options);
}

TEST(VllmFitHook, RefusesWhatOnlyTheOtherEnginesRead) {
  EXPECT_EQ(fit({{"ctx_size", 4096}}).error().message(),
            "ctx_size: is a llama.cpp setting: give engine llamacpp");
  EXPECT_EQ(fit({{"curve_tokens", {8192}}}).error().message(),
            "curve_tokens: is a context curve of the mlxcel and llamacpp engines; vllm's fit has none");
  EXPECT_EQ(fit({{"solve", "slots"}}).error().message(),
            "solve: slots is an mlxcel and llamacpp solve; vllm solves max-model-len (or "
            "max-tokens) and max-num-seqs (or batch)");
}

TEST(VllmFitHook, SolvesMaxModelLenUnlessTold) {
  Result<CommandAnswer> a = fit(json::object());
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->json["solve"], "max-model-len");
  EXPECT_EQ(fit({{"solve", "max-num-seqs"}})->json["solve"], "max-num-seqs");
}

}  // namespace
}  // namespace memfit::engines
