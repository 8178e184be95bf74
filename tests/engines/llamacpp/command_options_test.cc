// The llamacpp command hooks' options (engines/llamacpp/commands.h): the
// CLI's -c as fit's ctx_size option, /v1/fit's curve, and the mlxcel
// server flags preflight serve refuses, on tests/golden/models/llama-dense.gguf.
#include <gtest/gtest.h>

#include <string>

#include "engines/llamacpp/commands.h"
#include "support/command_hooks.h"
#include "support/paths.h"

namespace memfit::engines {
namespace {

using nlohmann::json;

const std::string kDense = std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/llama-dense.gguf";

TEST(LlamaCppServeOptions, TheMlxcelServerOptionsInTheirOrder) {
  EXPECT_EQ(first_mlxcel_server_option(json::object()), "");
  EXPECT_EQ(first_mlxcel_server_option({{"ctx_size", 8192}, {"n_parallel", 2}, {"force", true}}), "");
  // max_batch_size, no_batch, kv_cache_budget, kv_block_size: the first of
  // them, whatever the object's order; null is not given.
  EXPECT_EQ(first_mlxcel_server_option({{"kv_block_size", 64}, {"no_batch", true}}), "no_batch");
  EXPECT_EQ(first_mlxcel_server_option({{"max_batch_size", nullptr}, {"kv_cache_budget", "none"}}),
            "kv_cache_budget");
}

// A hook's answer for the dense model at a 16 MiB budget.
Result<CommandAnswer> ask(EngineCommand command, json options,
                          CommandFront front = CommandFront::kCli) {
  EstimateRequest r;
  r.model = kDense;
  r.memory_limit_bytes = 16ull << 20;
  return testing::ask_hook(r, command, options, front);
}

TEST(LlamaCppHooks, FitReadsTheClisContextAsAnOption) {
  // The request was prepared without -c: the option is llama.cpp's
  // --ctx-size, which the server flags at the answer repeat.
  Result<CommandAnswer> a = ask(EngineCommand::kFit, {{"solve", "parallel"}, {"ctx_size", 2048}});
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->json["solve"], "parallel");
  ASSERT_GE(a->json["flags"].size(), 2u);
  EXPECT_EQ(a->json["flags"][0], "-c");
  EXPECT_EQ(a->json["flags"][1], "2048");
  // Without solve: ctx-size.
  EXPECT_EQ(ask(EngineCommand::kFit, json::object())->json["solve"], "ctx-size");
}

TEST(LlamaCppHooks, FitsCurveIsACtxSizeCurve) {
  EXPECT_EQ(ask(EngineCommand::kFit, {{"solve", "parallel"}, {"curve_tokens", {1}}},
                CommandFront::kService)
                .error()
                .message(),
            "curve_tokens: is a --ctx-size curve: give it with solve ctx-size");
  // One point per cache type row (f16, q8_0, q4_0), each at --ctx-size 256.
  Result<CommandAnswer> a =
      ask(EngineCommand::kFit, {{"curve_tokens", {256}}}, CommandFront::kService);
  ASSERT_TRUE(a.ok()) << a.error().message();
  ASSERT_EQ(a->json["by_cache_type"].size(), 3u);
  for (const auto& row : a->json["by_cache_type"]) {
    ASSERT_EQ(row["curve"].size(), 1u);
    EXPECT_EQ(row["curve"][0]["ctx_size"], 256);
  }
}

TEST(LlamaCppHooks, PreflightServeRefusesTheMlxcelServerFlags) {
  EXPECT_EQ(ask(EngineCommand::kPreflightServe, {{"ctx_size", 4096}, {"kv_block_size", 64}})
                .error()
                .message(),
            "kv_block_size: is an mlxcel server setting; llama-server takes --ctx-size, "
            "--parallel, --batch-size, --ubatch-size, --cache-type-k/-v, --flash-attn, "
            "--swa-full and --kv-unified");
  // -c 4096 -np 2: --parallel given, llama-server keeps a cache per slot
  // (kv_unified off), pad256(floor(4,096 / 2)) = 2,048 cells each
  // (docs/llamacpp-rules.md, "Context sizing").
  Result<CommandAnswer> a =
      ask(EngineCommand::kPreflightServe, {{"ctx_size", 4096}, {"n_parallel", 2}, {"force", true}});
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(a->json["serve"]["active_slots"], 2);
  EXPECT_EQ(a->json["serve"]["effective_context"], 2048);
  EXPECT_EQ(a->json["preflight"]["forced"], true);
}

}  // namespace
}  // namespace memfit::engines
