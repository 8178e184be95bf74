// The C API opens models by name as the command does: memfit_model_open and
// the JSON request both read a Hugging Face name from the cache that
// HF_HUB_CACHE names (set in this process for the test, restored after).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "memfit/memfit.h"
#include "support/hf_cache_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CapiHubName, ModelOpenAndTheJsonRequestReadTheCache) {
  // org/llama at main: one model.safetensors, embed BF16 [100, 64] =
  // 12,800 B and norm F32 [64] = 256 B: 13,056 B.
  TempDir dir;
  HfCacheWriter cache(dir.path());
  const std::string a = fake_commit('a');
  cache.add_file("org/llama", a, "config.json",
                 R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,
                     "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})");
  cache.add_safetensors("org/llama", a, "model.safetensors",
                        {{"model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt},
                         {"model.norm.weight", "F32", {64}, std::nullopt}});
  cache.set_ref("org/llama", "main", a);
  ScopedEnv hub_cache("HF_HUB_CACHE", dir.path());
  ScopedEnv header_cache("MEMFIT_CACHE_DIR", dir.path() + "/memfit");

  memfit_model* model = nullptr;
  char* error = nullptr;
  ASSERT_EQ(memfit_model_open("org/llama", &model, &error), MEMFIT_OK) << (error ? error : "");
  memfit_estimate_request request{1024, 1, 0, 64ull << 30};
  memfit_estimate_result result{};
  ASSERT_EQ(memfit_estimate(model, &request, &result, &error), MEMFIT_OK) << (error ? error : "");
  EXPECT_EQ(result.weights_bytes, 13056u);
  memfit_model_free(model);

  char* report = nullptr;
  ASSERT_EQ(memfit_estimate_request_json(
                R"({"model":"org/llama","max_tokens":1024,"memory_limit":"64GiB"})", &report),
            MEMFIT_OK)
      << (report ? report : "");
  EXPECT_EQ(nlohmann::json::parse(report)["weights_bytes"], 13056u);
  memfit_string_free(report);

  // Offline, a name the cache lacks is not looked for on the Hub.
  ScopedEnv offline("HF_HUB_OFFLINE", "1");
  EXPECT_EQ(memfit_model_open("org/absent", &model, &error), MEMFIT_ERROR);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(std::string(error),
            "'org/absent': not a local path, and revision 'main' is neither in the Hugging Face "
            "cache at '" + dir.path() + "' nor in memfit's header cache; offline (HF_HUB_OFFLINE "
            "or --offline): only the caches are read");
  memfit_string_free(error);
}

}  // namespace
}  // namespace memfit
