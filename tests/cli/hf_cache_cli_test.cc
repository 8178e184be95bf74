// `memfit inspect -m org/name` as a whole process, with HF_HUB_CACHE
// pointing at a generated Hugging Face cache.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/hf_cache_writer.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

// org/llama at main: config.json (2 layers, 2 KV heads of 16), one
// model.safetensors: embed BF16 [100, 64] = 12,800 B and norm F32 [64] =
// 256 B, 13,056 B in all.
class InspectHfCache : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string a = fake_commit('a');
    cache_.add_file("org/llama", a, "config.json",
                    R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,
                        "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})");
    cache_.add_safetensors("org/llama", a, "model.safetensors",
                           {{"model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt},
                            {"model.norm.weight", "F32", {64}, std::nullopt}});
    cache_.set_ref("org/llama", "main", a);
  }

  std::map<std::string, std::string> env(bool offline = false) const {
    // The Hub is never asked here: a name the cache lacks goes to a
    // loopback port where nothing listens (discard, 9).
    std::map<std::string, std::string> vars = {{"HF_HUB_CACHE", dir_.path()},
                                               {"HF_ENDPOINT", "http://127.0.0.1:9"},
                                               {"MEMFIT_MEMORY_LIMIT", "64GiB"},
                                               {"MEMFIT_CACHE_DIR", dir_.path() + "/memfit"}};
    if (offline) vars["HF_HUB_OFFLINE"] = "1";
    return vars;
  }

  TempDir dir_;
  HfCacheWriter cache_{dir_.path()};
};

TEST_F(InspectHfCache, ACachedNameIsInspectedFromItsSnapshot) {
  auto r = run_memfit({"inspect", "-m", "org/llama", "--json", "--max-tokens", "1000"}, env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["weights_bytes"], 13056u);  // 12,800 + 256, from the header
  EXPECT_EQ(j["weights_source"], "safetensors_header");
  // 2 layers x 2 (K, V) x 2 heads x 16 x 2 B x 1,024 tokens (1,000 rounded up).
  EXPECT_EQ(j["kv_bytes_total"], 262144u);
  EXPECT_EQ(r.err, "");
}

TEST_F(InspectHfCache, ANameTheCacheLacksIsOneLineAndExitOne) {
  auto r = run_memfit({"inspect", "-m", "org/absent", "--offline"}, env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "memfit: 'org/absent': not a local path, and revision 'main' is neither in the "
                   "Hugging Face cache at '" + dir_.path() + "' nor in memfit's header cache; "
                   "offline (HF_HUB_OFFLINE or --offline): only the caches are read\n");

  r = run_memfit({"inspect", "-m", "org/llama@v2"}, env(/*offline=*/true));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "memfit: 'org/llama@v2': not a local path, and revision 'v2' is neither in the "
                   "Hugging Face cache at '" + dir_.path() + "' nor in memfit's header cache; "
                   "offline (HF_HUB_OFFLINE or --offline): only the caches are read\n");
}

TEST_F(InspectHfCache, ABadRevisionIsAUsageErrorAboutTheModelFlag) {
  auto r = run_memfit({"inspect", "-m", "org/llama@../../x"}, env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "memfit: --model: revision '../../x': expected a branch, a tag or a commit: "
                   "1 to 128 letters, digits, '-', '_', '.' and '/', no part empty or starting "
                   "with '.', no '..'\n");
}

}  // namespace
}  // namespace memfit
