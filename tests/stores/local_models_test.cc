// price_local_models (memfit/local_models.h): each store's model priced
// under its usual engine, what fits first, a broken entry one row.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>
#include <string>

#include "memfit/environment.h"
#include "memfit/local_models.h"
#include "memfit/memfit.h"
#include "memfit/run_report.h"
#include "support/ollama_store_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

class LocalModels : public ::testing::Test {
 protected:
  void SetUp() override {
    // Ollama's copy sets num_ctx 2048; LM Studio's copy is the same GGUF
    // with no Modelfile: llama.cpp's default, the training context 4,096.
    ollama_.add_model("registry.ollama.ai/library/tiny/latest",
                      {ollama_model_layer(tiny_store_gguf()), ollama_params_layer(R"({"num_ctx":2048})")});
    ollama_.add_manifest_text("registry.ollama.ai/library/broken/latest", "{");
    // The CLI and the C API read store names from the process's
    // environment (process_model_store_options): this test's folders.
    home_ = dir_.make_dir("home");
    dir_.make_dir("home/.lmstudio/models/pub/Tiny-GGUF");
    tiny_store_gguf().write(dir_.file_path("home/.lmstudio/models/pub/Tiny-GGUF/Tiny-F16.gguf"),
                            GgufTensorData::kZeros);
    saved_ = {getenv_or_null("OLLAMA_MODELS"), getenv_or_null("HOME")};
    setenv("OLLAMA_MODELS", ollama_.dir().c_str(), 1);
    setenv("HOME", home_.c_str(), 1);
    stores_ = process_model_store_options();
  }

  void TearDown() override {
    restore("OLLAMA_MODELS", saved_.first);
    restore("HOME", saved_.second);
  }

  static std::optional<std::string> getenv_or_null(const char* name) {
    const char* value = std::getenv(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  }
  static void restore(const char* name, const std::optional<std::string>& value) {
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }

  std::vector<LocalModelRow> rows(uint64_t memory_limit_bytes) {
    std::unique_ptr<FileSystem> fs = make_real_file_system();
    const std::vector<LocalModelEntry> entries = list_local_models(*fs, stores_, HfCacheOptions{}, {});
    EstimateRequest base;
    base.memory_limit_bytes = memory_limit_bytes;
    LocalRequestContext context(MapEnvironment{});
    return price_local_models(entries, base,
                              [&context](const LocalModelEntry&) -> Result<RequestContext*> { return &context; });
  }

  TempDir dir_;
  OllamaStoreWriter ollama_{dir_.file_path("ollama")};
  ModelStoreOptions stores_;
  std::string home_;
  std::pair<std::optional<std::string>, std::optional<std::string>> saved_;
};

TEST_F(LocalModels, WhatFitsComesFirstAndABrokenManifestIsOneRow) {
  const std::vector<LocalModelRow> r = rows(1ull << 30);
  ASSERT_EQ(r.size(), 3u);
  // Both copies fit in 1 GiB at any context: the largest is their
  // training context, 4,096 (capped), so the name decides the order.
  EXPECT_EQ(r[0].entry.name, "lmstudio:pub/Tiny-GGUF/Tiny-F16.gguf");
  EXPECT_EQ(r[1].entry.name, "ollama:tiny:latest");
  // LM Studio's copy is priced by llama.cpp's rules, Ollama's by Ollama's.
  EXPECT_EQ(r[0].engine, "llamacpp");
  EXPECT_EQ(r[1].engine, "ollama");
  EXPECT_EQ(r[0].settings, "-c 4096 -np 1");
  EXPECT_EQ(r[1].settings, "ollama run tiny:latest, then /set parameter num_ctx 4096");
  for (const LocalModelRow* row : {&r[0], &r[1]}) {
    EXPECT_EQ(row->fit, LocalFit::kFits) << row->error;
    EXPECT_EQ(row->weights_bytes, 29184u);  // 12,800 + 2 x 8,192
    EXPECT_EQ(row->largest_context_tokens, 4096u);
    EXPECT_TRUE(row->largest_capped);
    EXPECT_EQ(row->budget_bytes, 1ull << 30);
  }
  // The default context: llama.cpp's training context for LM Studio's
  // copy, the Modelfile's num_ctx for Ollama's.
  EXPECT_EQ(r[0].default_context_tokens, 4096u);
  EXPECT_EQ(r[1].default_context_tokens, 2048u);
  // Half the context costs less: 2 layers x 2 KV heads x 16 x 2 (K and V)
  // x 2 B = 256 B a token in the cache, 2,048 tokens fewer = 524,288 B
  // fewer at least.
  EXPECT_GE(r[0].total_bytes, r[1].total_bytes + 524288u);
  EXPECT_EQ(r[2].entry.name, "ollama:broken:latest");
  EXPECT_EQ(r[2].fit, LocalFit::kError);
  EXPECT_TRUE(r[2].error.starts_with("manifest: not JSON: ")) << r[2].error;
}

TEST_F(LocalModels, TheSameFiguresAsInspect) {
  const std::vector<LocalModelRow> r = rows(1ull << 30);
  ASSERT_EQ(r[1].entry.name, "ollama:tiny:latest");
  EstimateRequest request;
  request.model = "ollama:tiny";
  request.memory_limit_bytes = 1ull << 30;
  LocalRequestContext context(MapEnvironment{});
  Result<EstimateRun> run = memfit::run(request, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  ASSERT_TRUE(run->llamacpp.has_value());
  EXPECT_EQ(run->llamacpp->context.n_ctx, 2048u);  // num_ctx
  // A model of Ollama's store is priced by the ollama engine when the
  // request names none, as ls prices it (its usual engine; a qwen3 file:
  // Ollama's own engine, whose graph is its own,
  // engines/ollama/engine_graph.h): inspect's figures are ls's row.
  EXPECT_EQ(run->engine->name(), "ollama");
  EXPECT_FALSE(run->engine_named);
  EXPECT_EQ(run->llamacpp->total_bytes, r[1].total_bytes);
  // A llama.cpp setting asks for llama.cpp's server.
  EstimateRequest with_flag = request;
  with_flag.llamacpp.ubatch_size = 512;
  Result<EstimateRun> llamacpp_run = memfit::run(with_flag, context);
  ASSERT_TRUE(llamacpp_run.ok()) << llamacpp_run.error().message();
  EXPECT_EQ(llamacpp_run->engine->name(), "llamacpp");
  bool warned = false;
  for (const Warning& w : run->warnings) {
    warned |= w.text == "the context is 2048 tokens, the num_ctx of the model's Ollama Modelfile "
                        "(--max-tokens gives another)";
  }
  EXPECT_TRUE(warned);
  // A context the request gives wins over num_ctx.
  request.max_tokens = 1024;
  Result<EstimateRun> asked = memfit::run(request, context);
  ASSERT_TRUE(asked.ok());
  EXPECT_EQ(asked->llamacpp->context.n_ctx, 1024u);
}

TEST_F(LocalModels, ABudgetBetweenTheTwoContextsFitsOnlyTheSmallerDefault) {
  const std::vector<LocalModelRow> wide = rows(1ull << 30);
  // Halfway between the total at 2,048 tokens (Ollama's num_ctx) and at
  // 4,096 (LM Studio's copy, the training context): Ollama's copy still
  // fits at its default, LM Studio's only at a smaller context, which
  // sorts it after.
  const uint64_t budget = (wide[0].total_bytes + wide[1].total_bytes) / 2;
  const std::vector<LocalModelRow> r = rows(budget);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].entry.name, "ollama:tiny:latest");
  EXPECT_EQ(r[0].fit, LocalFit::kFits);
  EXPECT_EQ(r[1].entry.name, "lmstudio:pub/Tiny-GGUF/Tiny-F16.gguf");
  EXPECT_EQ(r[1].fit, LocalFit::kSmallerFits);
  ASSERT_TRUE(r[1].largest_context_tokens.has_value());
  // llama.cpp pads the context to 256 cells: at least 2,048, below 4,096.
  EXPECT_GE(*r[1].largest_context_tokens, 2048u);
  EXPECT_LT(*r[1].largest_context_tokens, 4096u);
  EXPECT_EQ(*r[1].largest_context_tokens % 256, 0u);
  EXPECT_EQ(render_local_models_text(r).substr(0, 72),
            "Local models, what fits first (name, format, weights, engine: verdict):\n");
}

TEST_F(LocalModels, ABudgetBelowTheWeightsFitsNothing) {
  // 16 KiB holds not even the 29,184 B of weights.
  const std::vector<LocalModelRow> r = rows(16 << 10);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fit, LocalFit::kNothingFits);
  EXPECT_FALSE(r[0].largest_context_tokens.has_value());
  EXPECT_EQ(r[1].fit, LocalFit::kNothingFits);
  EXPECT_EQ(r[2].fit, LocalFit::kError);
  const nlohmann::ordered_json j = local_models_to_json(r);
  EXPECT_EQ(j["models"][0]["fit"], "does-not-fit");
  EXPECT_TRUE(j["models"][0]["largest_context"].is_null());
  EXPECT_TRUE(j["models"][2]["weights_bytes"].is_null());
}

TEST_F(LocalModels, AStoreModelIsNamedByItsNameAndItsBlobApart) {
  EstimateRequest request;
  request.model = "ollama:tiny";
  request.memory_limit_bytes = 1ull << 30;
  LocalRequestContext context(MapEnvironment{});
  Result<EstimateRun> run = memfit::run(request, context);
  ASSERT_TRUE(run.ok()) << run.error().message();
  EXPECT_EQ(run->model->name, "ollama:tiny:latest");
  const nlohmann::ordered_json j = run_to_json(*run);
  EXPECT_EQ(j["model"], "ollama:tiny:latest");
  // The file Ollama's runner loads: the manifest's model blob.
  EXPECT_EQ(j["model_file"], run->model->path);
  EXPECT_TRUE(run->model->path.starts_with(ollama_.dir())) << run->model->path;
  EXPECT_NE(run->model->path.find("/blobs/sha256-"), std::string::npos) << run->model->path;
  const std::string text = render_run_text(*run);
  // The first line names the model; the file has a line of its own (after
  // the line that says which engine priced it: Ollama's, the default for
  // its store's models).
  EXPECT_NE(text.find(" — ollama:tiny:latest (engine ollama, "), std::string::npos) << text;
  EXPECT_NE(text.find("\npriced by ollama: the default for models of Ollama's store (ollama:NAME);"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nfile " + run->model->path + "\nmodel_type qwen3,"), std::string::npos) << text;
}

TEST(UsualEngine, OllamasStoreIsOllamaAnotherGgufLlamaCppAndTheRestFollowTheMachine) {
  const LocalModelEntry ollama{"ollama:tiny:latest", "ollama", "gguf", ""};
  const LocalModelEntry gguf{"lmstudio:pub/Tiny-GGUF/Tiny-F16.gguf", "lmstudio", "gguf", ""};
  const LocalModelEntry folder{"org/name", "hf-cache", "safetensors", ""};
  const LocalModelEntry mlx{"org/name-4bit", "hf-cache", "mlx", ""};
  for (LocalMachine m : {LocalMachine::kCpu, LocalMachine::kGpu, LocalMachine::kMac}) {
    EXPECT_EQ(usual_engine(ollama, m), "ollama");
    EXPECT_EQ(usual_engine(gguf, m), "llamacpp");
  }
  EXPECT_EQ(usual_engine(folder, LocalMachine::kGpu), "vllm");
  EXPECT_EQ(usual_engine(folder, LocalMachine::kMac), "");  // the default, mlxcel
  EXPECT_EQ(usual_engine(folder, LocalMachine::kCpu), "");
  EXPECT_EQ(usual_engine(mlx, LocalMachine::kGpu), "");  // MLX runs on Apple silicon only
}

TEST(UsualEngine, TheMachineIsTheOneNamedElseThisHost) {
  LocalRequestContext context(MapEnvironment{});
  EstimateRequest base;
  base.machine.gpu = {"rtx4090"};
  EXPECT_EQ(local_machine(base, context), LocalMachine::kGpu);
  base.machine.gpu.clear();
  base.machine.mac = "m4-max-128gb";
  EXPECT_EQ(local_machine(base, context), LocalMachine::kMac);
  base.machine.mac.reset();
  base.device = DeviceSelector{DeviceSelector::Kind::kCuda, 0};
  EXPECT_EQ(local_machine(base, context), LocalMachine::kGpu);
  base.device = DeviceSelector{DeviceSelector::Kind::kCpu, 0};
  EXPECT_EQ(local_machine(base, context), LocalMachine::kCpu);
}

}  // namespace
}  // namespace memfit
