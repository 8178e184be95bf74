// -ngl's two placement rules on the golden llama-dense.gguf (4 blocks, so
// 5 slots) at -ngl 2 (docs/engine-llamacpp.md, "Releases"): llama.cpp from
// b7591 (#18148) offloads the output layer and block 3; older builds and
// every Ollama release's llama.cpp offload blocks 2 and 3 and keep the
// output layer on the host.
//
// The file's tensors (tests/golden/models/make_models.py, llama()): per
// block q and o 64 x 64 Q4_0 (128 blocks x 18 B = 2,304 B each), k and v
// 64 x 32 (1,152 B each), gate, up and down 64 x 128 (4,608 B each), two
// f32 norms of 256 B: 21,248 B a block. token_embd and output 64 x 256
// Q8_0 (512 x 34 B = 17,408 B each), output_norm 256 B. The host's rows
// are these sums unpadded (ggml-cuda pads only its own devices' rows).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/paths.h"
#include "support/run_command.h"

namespace memfit {
namespace {

using testing::run_memfit;
using Json = nlohmann::json;

const std::string kDense = std::string(MEMFIT_SOURCE_DIR) + "/tests/golden/models/llama-dense.gguf";

Json devices(std::vector<std::string> args) {
  std::vector<std::string> all = {"inspect", "-m", kDense, "--gpu", "rtx4060", "--json"};
  all.insert(all.end(), args.begin(), args.end());
  const testing::CommandResult r = run_memfit(all);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? Json::parse(r.out)["llamacpp"]["devices"] : Json::array();
}

TEST(NglRuleCli, OutputLayerFirstFromB7591) {
  const Json d = devices({"--engine", "llamacpp", "-ngl", "2", "--llamacpp-version", "b7591"});
  ASSERT_EQ(d.size(), 2u) << d.dump(1);
  EXPECT_EQ(d[0]["blocks"], 1);
  EXPECT_EQ(d[0]["output_layer"], true);
  // The host: blocks 0..2 + token_embd = 3 x 21,248 + 17,408 = 81,152 B.
  EXPECT_EQ(d[1]["blocks"], 3);
  EXPECT_EQ(d[1]["model_bytes"], 81152u);
}

TEST(NglRuleCli, TheLastBlocksFirstBeforeB7591AndInOllama) {
  const std::vector<std::vector<std::string>> runs = {
      {"--engine", "llamacpp", "-ngl", "2", "--llamacpp-version", "b7590"},
      {"--engine", "ollama", "--num-gpu", "2", "--ollama-version", "0.24.0"}};
  for (const std::vector<std::string>& args : runs) {
    const Json d = devices(args);
    ASSERT_EQ(d.size(), 2u) << d.dump(1);
    EXPECT_EQ(d[0]["blocks"], 2) << args[1];
    EXPECT_EQ(d[0]["output_layer"], false) << args[1];
    // The host: blocks 0, 1 + token_embd + output + output_norm =
    // 2 x 21,248 + 2 x 17,408 + 256 = 77,568 B.
    EXPECT_EQ(d[1]["blocks"], 2) << args[1];
    EXPECT_EQ(d[1]["output_layer"], true) << args[1];
    EXPECT_EQ(d[1]["model_bytes"], 77568u) << args[1];
  }
}

TEST(NglRuleCli, OllamasLlamaServerOffloadsTheOutputLayerFirst) {
  // From v0.30.0 (the default, v0.32.15 at b10488) Ollama passes num_gpu
  // to llama-server as -ngl, whose build is past b7591: the output layer
  // and the last block on the GPU, as llama.cpp's own -ngl 2.
  const Json d = devices({"--engine", "ollama", "--num-gpu", "2"});
  ASSERT_EQ(d.size(), 2u) << d.dump(1);
  EXPECT_EQ(d[0]["blocks"], 1);
  EXPECT_EQ(d[0]["output_layer"], true);
  EXPECT_EQ(d[1]["blocks"], 3);
  EXPECT_EQ(d[1]["model_bytes"], 81152u);
}

}  // namespace
}  // namespace memfit
