// Parsing messages a user can act on (issue 29): unknown subcommands and
// flags named with their nearest match, counts' ranges in words, token
// counts with k/M.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>

#include "flag_text.h"
#include "memfit/edit_distance.h"
#include "nearest_name.h"
#include "support/paths.h"
#include "support/run_command.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

const std::string kExampleParseMessagesCli = std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit";

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("inspct", "inspect"), 1u);   // insert 'e'
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);   // k->s, e->i, insert g
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("plot", "plot"), 0u);
}

TEST(NearestName, WithinAThirdOfTheWordOrTwo) {
  EXPECT_EQ(cli::nearest_name("inspct", {"host", "inspect", "fit"}), "inspect");
  // "zzzzzz" is 6 edits from "inspect": beyond max(2, 6 / 3) = 2.
  EXPECT_EQ(cli::nearest_name("zzzzzz", {"host", "inspect", "fit"}), std::nullopt);
}

TEST(ParseMessages, UnknownSubcommandNamesTheNearest) {
  auto r = run_memfit({"inspct"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown subcommand 'inspct' for 'memfit'; did you mean 'inspect'?"),
            std::string::npos)
      << r.err;
  auto nested = run_memfit({"preflight", "genrate"});
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_NE(nested.err.find("unknown subcommand 'genrate' for 'memfit preflight'; did you mean "
                            "'generate'?"),
            std::string::npos)
      << nested.err;
}

TEST(ParseMessages, UnknownFlagNamesTheNearest) {
  auto r = run_memfit({"inspect", "-m", kExampleParseMessagesCli, "--max-tokns", "5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown flag '--max-tokns' for 'memfit inspect'; did you mean "
                       "'--max-tokens'?"),
            std::string::npos)
      << r.err;
}

TEST(ParseMessages, CountRangesInWordsNotDigits) {
  auto r = run_memfit({"preflight", "generate", "-m", kExampleParseMessagesCli, "--prompt-tokens", "5",
                       "--max-tokens", "5", "--batch", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected a positive integer, got 0"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("1797693134862315708"), std::string::npos) << r.err;
  auto zero = run_memfit({"preflight", "generate", "-m", kExampleParseMessagesCli, "--prompt-tokens", "5",
                          "--max-tokens", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("expected a positive integer, got 0"), std::string::npos) << zero.err;
}

TEST(ParseMessages, PreflightTokenCountsTakeK) {
  // 1k + 7k = 1024 + 7168 = 8192 tokens: the default inspect figures.
  auto r = run_memfit({"preflight", "generate", "-m", kExampleParseMessagesCli, "--prompt-tokens", "1k",
                       "--max-tokens", "7k", "--json"},
                      {{"MEMFIT_MEMORY_LIMIT", "64GiB"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"max_tokens\": 8192"), std::string::npos);
}

TEST(ParseMessages, InspectMaxTokensTakesK) {
  // 32k = 32 x 1024 = 32768 tokens.
  auto r = run_memfit({"inspect", "-m", kExampleParseMessagesCli, "--max-tokens", "32k", "--json"},
                      {{"MEMFIT_MEMORY_LIMIT", "64GiB"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"max_tokens\": 32768"), std::string::npos) << r.out;
}

TEST(ParseMessages, EngineNamesTakeTheirUsualSpellings) {
  // The page's names, and Python's: each is the engine's own name.
  for (const auto& [spelling, name] : {std::pair{"llama.cpp", "llamacpp"}, std::pair{"vLLM", "vllm"},
                                       std::pair{"mlx_lm", "mlx-lm"}, std::pair{"MLX-LM", "mlx-lm"}}) {
    auto r = run_memfit({"inspect", "-m", kExampleParseMessagesCli, "--engine", spelling, "--gpu", "h100-80gb",
                         "--json"});
    ASSERT_EQ(r.exit_code, 0) << spelling << ": " << r.err;
    EXPECT_NE(r.out.find(std::string("\"engine\": \"") + name + "\""), std::string::npos)
        << spelling << ": " << r.out.substr(0, 400);
  }
}

TEST(FlagText, FieldNamesBecomeFlagsOutsideQuotes) {
  EXPECT_EQ(cli::with_flag_names("and ctx_size are both the context"),
            "and --ctx-size are both the context");
  // The JSON name's spelling is a flag of the row: --max-model-len.
  EXPECT_EQ(cli::with_flag_names("the model's max_model_len"), "the model's --max-model-len");
  // Quoted text is a quotation or user input; a longer word is not the field.
  EXPECT_EQ(cli::with_flag_names("'/x/ctx_size': \"max_model_len (5)\" my_ctx_size ctx_sizes"),
            "'/x/ctx_size': \"max_model_len (5)\" my_ctx_size ctx_sizes");
}

TEST(ParseMessages, CliErrorsNameFlagsNotJsonFields) {
  TempDir dir;
  const std::string gguf = dir.file_path("qwen3-8b.gguf");
  qwen3_8b_gguf().write(gguf);
  auto r = run_memfit({"inspect", "-m", gguf, "--max-tokens", "5", "-c", "5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --max-tokens: and --ctx-size are both the context: give one "
                   "(--ctx-size is llama.cpp's name)\n");
}

TEST(ParseMessages, AMissingPathUnderAFolderHereIsNoSuchFolder) {
  // "models/nope" is also a Hub name; with ./models here it is a path
  // first, and the Hub (unreachable: nothing listens on port 1) comes after.
  TempDir dir;
  dir.make_dir("models");
  const std::filesystem::path was = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  auto r = run_memfit({"inspect", "-m", "models/nope"},
                      {{"HF_HUB_CACHE", dir.file_path("hub")}, {"HF_ENDPOINT", "http://127.0.0.1:1"},
                       {"HF_HUB_OFFLINE", ""}, {"MEMFIT_CACHE_DIR", dir.file_path("cache")}});
  std::filesystem::current_path(was);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("memfit: 'models/nope': no such file or folder (and not from the Hugging "
                        "Face Hub: ",
                        0),
            0u)
      << r.err;
  // A path that cannot be a Hub name says so alone.
  auto plain = run_memfit({"inspect", "-m", dir.file_path("nope")});
  EXPECT_EQ(plain.err, "memfit: '" + dir.file_path("nope") + "': no such file or folder\n");
}

}  // namespace
}  // namespace memfit
