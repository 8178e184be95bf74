// `memfit inspect -m org/name` read from a fake Hugging Face Hub on
// loopback (support/fake_hub.h), found through HF_ENDPOINT.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "support/fake_hub.h"
#include "support/gguf_hub_repo.h"
#include "support/run_command.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

using testing::run_memfit;

constexpr char kCommit[] = "0123456789abcdef0123456789abcdef01234567";

class InspectHub : public ::testing::Test {
 protected:
  void SetUp() override {
    // org/llama: 2 layers of llama at width 64, vocabulary 100; one
    // model.safetensors of a BF16 embedding [100, 64] (12,800 B) and an
    // F32 norm [64] (256 B): 13,056 B.
    FakeHubRepo repo;
    repo.commit = kCommit;
    const std::string config = R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,
        "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})";
    repo.files["config.json"] = FakeHubFile{config, config.size()};
    const std::string st = safetensors_file_bytes(
        {{"model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt},
         {"model.norm.weight", "F32", {64}, std::nullopt}});
    repo.files["model.safetensors"] = FakeHubFile{st, st.size()};
    hub_.add_repo("org/llama", repo);
    repo.token = "hf_granted";
    hub_.add_repo("org/gated", repo);
  }

  // An empty HF cache, no token from this process's environment or files.
  // What a CLI run says of a gated repo it has no token for.
  std::string gated_message(const std::string& repo) const {
    return "memfit: '" + repo + "': gated or private on the Hub (HTTP 401): accept its terms at " +
           hub_.endpoint() + "/" + repo + " and set HF_TOKEN or --token to a token that may read it\n";
  }

  std::map<std::string, std::string> env() const {
    return {{"HF_HUB_CACHE", dir_.path()},      {"HF_ENDPOINT", hub_.endpoint()},
            {"HF_TOKEN", ""},                   {"HUGGING_FACE_HUB_TOKEN", ""},
            {"HF_TOKEN_PATH", dir_.path() + "/no-token"}, {"HF_HUB_OFFLINE", ""},
            {"MEMFIT_MEMORY_LIMIT", "64GiB"}, {"MEMFIT_CACHE_DIR", dir_.path() + "/memfit"}};
  }

  FakeHub hub_;
  TempDir dir_;
};

TEST_F(InspectHub, ANameIsInspectedFromTheHub) {
  auto r = run_memfit({"inspect", "-m", "org/llama", "--json", "--max-tokens", "1000"}, env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["weights_bytes"], 13056u);  // 12,800 + 256, from the header
  EXPECT_EQ(j["weights_source"], "safetensors_header");
  // 2 layers x 2 (K, V) x 2 heads x 16 x 2 B x 1,024 tokens (1,000 rounded up).
  EXPECT_EQ(j["kv_bytes_total"], 262144u);
  EXPECT_EQ(r.err, "");  // stderr is no terminal: no progress line
  EXPECT_EQ(hub_.requests().size(), 5u);  // the API, then 2 files x (Hub + storage)
}

TEST_F(InspectHub, AGatedRepoIsOneLineAndTheTokenFlagOpensIt) {
  auto r = run_memfit({"inspect", "-m", "org/gated"}, env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, gated_message("org/gated"));

  r = run_memfit({"inspect", "-m", "org/gated", "--token", "hf_granted", "--json"}, env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["weights_bytes"], 13056u);
  for (const FakeHubRequest& request : hub_.requests()) {
    if (request.host == "storage") {
      EXPECT_EQ(request.authorization, "") << request.path;
    }
  }
}

TEST_F(InspectHub, OfflineTheHubIsNotAsked) {
  auto r = run_memfit({"inspect", "-m", "org/llama", "--offline"}, env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "memfit: 'org/llama': not a local path, and revision 'main' is neither in the "
                   "Hugging Face cache at '" + dir_.path() + "' nor in memfit's header cache; "
                   "offline (HF_HUB_OFFLINE or --offline): only the caches are read\n");
  EXPECT_EQ(hub_.requests().size(), 0u);
}

// recommend-quant -m org/name-GGUF over the Hub: the table and --json
// over the repo's three GGUF models (support/gguf_hub_repo.h), their
// sizes from the listing, their headers only read; a second run asks only
// which commit main names (the header cache keeps the rest).
TEST_F(InspectHub, RecommendQuantPricesAGgufRepoOnTheHub) {
  const GgufHubRepo quants = gguf_hub_repo(kCommit);
  hub_.add_repo("unsloth/Qwen3-8B-GGUF", quants.repo);
  auto r = run_memfit({"recommend-quant", "-m", "unsloth/Qwen3-8B-GGUF", "-c", "4096", "--repack",
                       "none", "--json"},
                      env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["models"].size(), 3u);
  EXPECT_EQ(j["models"][0]["file"], "Q2_K/Qwen3-8B-Q2_K-00001-of-00002.gguf");
  EXPECT_EQ(j["models"][0]["quant"], "Q2_K");
  EXPECT_EQ(j["models"][0]["file_count"], 2);
  EXPECT_EQ(j["models"][0]["size_bytes"], quants.split_bytes);
  EXPECT_EQ(j["models"][1]["file"], "Qwen3-8B-Q4_K_M.gguf");
  EXPECT_EQ(j["models"][1]["size_bytes"], quants.q4_bytes);
  EXPECT_EQ(j["models"][2]["file"], "Qwen3-8B-Q8_0.gguf");
  EXPECT_EQ(j["models"][2]["size_bytes"], quants.q8_bytes);
  EXPECT_EQ(j["recommended"], "Qwen3-8B-Q8_0.gguf");  // the largest within 64 GiB
  // The API, then 4 GGUF files x (Hub + storage), each one range of its first MiB.
  const std::vector<FakeHubRequest> requests = hub_.requests();
  EXPECT_EQ(requests.size(), 9u);
  for (const FakeHubRequest& request : requests) {
    if (request.path.find("/resolve/") != std::string::npos || request.host == "storage") {
      EXPECT_EQ(request.range, "bytes=0-1048575") << request.path;
    }
    EXPECT_EQ(request.path.find("mmproj"), std::string::npos);
  }

  hub_.clear_requests();
  r = run_memfit({"recommend-quant", "-m", "unsloth/Qwen3-8B-GGUF", "-c", "4096", "--repack",
                  "none"},
                 env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("'unsloth/Qwen3-8B-GGUF': 3 GGUF models, llama.cpp at 4096 tokens"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  Qwen3-8B-Q4_K_M.gguf                    Q4_K_M    q4_K"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nRecommended: Qwen3-8B-Q8_0.gguf\n"), std::string::npos) << r.out;
  EXPECT_EQ(hub_.requests().size(), 1u);  // the revision check alone
}

TEST_F(InspectHub, RecommendQuantOfAGatedGgufRepoIsOneLine) {
  GgufHubRepo quants = gguf_hub_repo(kCommit);
  quants.repo.token = "hf_granted";
  hub_.add_repo("org/gated-GGUF", quants.repo);
  auto r = run_memfit({"recommend-quant", "-m", "org/gated-GGUF"}, env());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, gated_message("org/gated-GGUF"));
}

}  // namespace
}  // namespace memfit
