// memfit ls: every local model, what fits first (docs/stores.md), and
// -m ollama:NAME through inspect; the JSON matches its schema.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "support/ollama_store_writer.h"
#include "support/paths.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

class LsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ollama_.add_model("registry.ollama.ai/library/tiny/latest",
                      {ollama_model_layer(tiny_store_gguf()), ollama_params_layer(R"({"num_ctx":2048})")});
    ollama_.add_manifest_text("registry.ollama.ai/library/broken/latest", "{");
    dir_.make_dir("home/.lmstudio/models/pub/Tiny-GGUF");
    dir_.make_dir("root");
    tiny_store_gguf().write(dir_.file_path("home/.lmstudio/models/pub/Tiny-GGUF/Tiny-F16.gguf"),
                            GgufTensorData::kZeros);
    tiny_store_gguf().write(dir_.file_path("root/tiny.gguf"), GgufTensorData::kZeros);
    dir_.make_dir("hf");
  }

  // Only this test's stores: its own home, Ollama folder and cache.
  std::map<std::string, std::string> env() const {
    return {{"HOME", dir_.file_path("home")},
            {"OLLAMA_MODELS", ollama_.dir()},
            {"HF_HUB_CACHE", dir_.file_path("hf")}};
  }

  TempDir dir_;
  OllamaStoreWriter ollama_{dir_.file_path("ollama")};
};

TEST_F(LsCli, JsonListsEveryStoreWhatFitsFirstAndMatchesItsSchema) {
  auto r = testing::run_memfit({"ls", "--json", "--memory-limit", "1GiB", "--model-root", dir_.file_path("root")}, env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["models"].size(), 4u) << r.out;
  // Three copies of one GGUF fit up to their training context, 4,096
  // tokens: by name. The broken manifest last.
  EXPECT_EQ(j["models"][0]["name"], dir_.file_path("root/tiny.gguf"));
  EXPECT_EQ(j["models"][0]["store"], "folder");
  EXPECT_EQ(j["models"][1]["name"], "lmstudio:pub/Tiny-GGUF/Tiny-F16.gguf");
  EXPECT_EQ(j["models"][2]["name"], "ollama:tiny:latest");
  EXPECT_EQ(j["models"][2]["default_context"], 2048);
  EXPECT_EQ(j["models"][2]["weights_bytes"], 29184);
  EXPECT_EQ(j["models"][2]["fit"], "fits");
  EXPECT_EQ(j["models"][2]["largest_context"], 4096);
  EXPECT_EQ(j["models"][3]["name"], "ollama:broken:latest");
  EXPECT_EQ(j["models"][3]["fit"], "error");

  auto check = testing::run_command({"/usr/bin/env", "python3", "-c",
                            "import json, sys, jsonschema\n"
                            "schema = json.load(open(sys.argv[1]))\n"
                            "jsonschema.Draft202012Validator.check_schema(schema)\n"
                            "jsonschema.validate(json.load(open(sys.argv[2])), schema,"
                            " cls=jsonschema.Draft202012Validator)\n",
                            std::string(MEMFIT_SOURCE_DIR) + "/schema/local-models.schema.json",
                            dir_.write_file("ls.json", r.out)});
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

TEST_F(LsCli, TextIsOneLineAModel) {
  auto r = testing::run_memfit({"ls", "--memory-limit", "1GiB"}, env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 29,184 B = 28.5 KiB; Ollama's model at its Modelfile's num_ctx 2048,
  // started at the largest num_ctx by its name; LM Studio's copy with
  // llama-server's flags at the largest context.
  EXPECT_NE(r.out.find("\n  ollama:tiny:latest  gguf  28.5 KiB  ollama: fits at 2048 tokens; up to 4096 "
                       "tokens (its own ceiling): ollama run tiny:latest, then /set parameter num_ctx 4096\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  lmstudio:pub/Tiny-GGUF/Tiny-F16.gguf  gguf  28.5 KiB  llamacpp: fits at 4096 tokens; "
                       "up to 4096 tokens (its own ceiling): -c 4096 -np 1\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  ollama:broken:latest  gguf  error: manifest: not JSON: "), std::string::npos) << r.out;
}

TEST_F(LsCli, InspectReadsAnOllamaName) {
  auto r = testing::run_memfit({"inspect", "-m", "ollama:tiny", "--memory-limit", "1GiB", "--json"}, env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // A model of Ollama's store is priced by its engine when none is named
  // (docs/stores.md), as ls prices it.
  EXPECT_EQ(j["engine"], "ollama");
  EXPECT_EQ(j["engine_reason"], "the default for models of Ollama's store (ollama:NAME); --engine "
                                "names another (mlxcel, llamacpp, mlx-lm, vllm, sglang)");
  EXPECT_EQ(j["inputs"]["n_ctx"], 2048);  // the Modelfile's num_ctx
  auto missing = testing::run_memfit({"inspect", "-m", "ollama:absent:7b"}, env());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "memfit: 'ollama:absent:7b': no manifest "
                         "'registry.ollama.ai/library/absent/7b' in Ollama's models folders ('" +
                             ollama_.dir() + "'); set OLLAMA_MODELS to the folder that holds it\n");
}

}  // namespace
}  // namespace memfit
