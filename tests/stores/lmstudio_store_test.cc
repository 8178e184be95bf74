// LM Studio's models folder (memfit/model_stores.h): PUBLISHER/REPO/FILE.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "memfit/model_stores.h"
#include "support/ollama_store_writer.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

class LmStudioStore : public ::testing::Test {
 protected:
  void SetUp() override {
    models_ = dir_.make_dir("models");
    dir_.make_dir("models/lmstudio-community/Tiny-GGUF");
    tiny_store_gguf().write(dir_.file_path("models/lmstudio-community/Tiny-GGUF/Tiny-Q8_0.gguf"),
                            GgufTensorData::kZeros);
    tiny_projector_gguf().write(dir_.file_path("models/lmstudio-community/Tiny-GGUF/mmproj-Tiny-F16.gguf"),
                                GgufTensorData::kZeros);
    stores_.lmstudio_dirs = {models_};
  }

  Result<Model> open(const std::string& name) {
    return open_store_model(*fs_, name, stores_, OpenModelOptions{});
  }

  TempDir dir_;
  std::string models_;
  ModelStoreOptions stores_;
  std::unique_ptr<FileSystem> fs_ = make_real_file_system();
};

TEST_F(LmStudioStore, AFileAndItsRepoFolderAreTheSameModel) {
  Result<Model> file = open("lmstudio:lmstudio-community/Tiny-GGUF/Tiny-Q8_0.gguf");
  ASSERT_TRUE(file.ok()) << file.error().message();
  EXPECT_EQ(file->weights.bytes, 29184u);  // tiny_store_gguf: 12,800 + 2 x 8,192
  // The folder holds one GGUF model (the mmproj file is a projector).
  Result<Model> folder = open("lmstudio:lmstudio-community/Tiny-GGUF");
  ASSERT_TRUE(folder.ok()) << folder.error().message();
  EXPECT_EQ(folder->path, file->path);
}

TEST_F(LmStudioStore, AnMlxFolderIsASafetensorsModel) {
  dir_.write_file("models/mlx-community/Tiny-4bit/config.json",
                  R"({"model_type":"qwen3","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,)"
                  R"("num_key_value_heads":2,"head_dim":16,"vocab_size":100,"intermediate_size":256,)"
                  R"("max_position_embeddings":4096})");
  const std::vector<LocalModelEntry> entries = list_local_models(*fs_, stores_, HfCacheOptions{}, {});
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "lmstudio:lmstudio-community/Tiny-GGUF/Tiny-Q8_0.gguf");
  EXPECT_EQ(entries[0].format, "gguf");
  EXPECT_EQ(entries[1].name, "lmstudio:mlx-community/Tiny-4bit");
  EXPECT_EQ(entries[1].format, "safetensors");
  Result<Model> mlx = open("lmstudio:mlx-community/Tiny-4bit");
  ASSERT_TRUE(mlx.ok()) << mlx.error().message();
  EXPECT_TRUE(mlx->has_config);
}

TEST_F(LmStudioStore, NamesThatClimbOrAreMissingAreRefused) {
  Result<Model> climbing = open("lmstudio:../secrets/x.gguf");
  ASSERT_FALSE(climbing.ok());
  EXPECT_EQ(climbing.error().kind(), ErrorKind::kUsage);
  Result<Model> bare = open("lmstudio:Tiny-GGUF");
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.error().message(), "model: 'lmstudio:Tiny-GGUF': give lmstudio:PUBLISHER/REPO[/FILE]");
  Result<Model> missing = open("lmstudio:someone/Other");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "'lmstudio:someone/Other': not in LM Studio's models folders ('" + models_ + "')");
}

TEST(ModelStoreOptions, EachOsDefaultFolders) {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  TempDir home;
  MapEnvironment env{{"HOME", home.path()}, {"USERPROFILE", "C:/Users/u"}};
  ModelStoreOptions linux_options = model_store_options_from_environment(env, *fs, StoreOs::kLinux);
  EXPECT_EQ(linux_options.ollama_dirs,
            (std::vector<std::string>{home.path() + "/.ollama/models", "/usr/share/ollama/.ollama/models"}));
  EXPECT_EQ(linux_options.lmstudio_dirs,
            (std::vector<std::string>{home.path() + "/.lmstudio/models", home.path() + "/.cache/lm-studio/models"}));
  ModelStoreOptions mac = model_store_options_from_environment(env, *fs, StoreOs::kMacos);
  EXPECT_EQ(mac.ollama_dirs, (std::vector<std::string>{home.path() + "/.ollama/models"}));
  ModelStoreOptions windows = model_store_options_from_environment(env, *fs, StoreOs::kWindows);
  EXPECT_EQ(windows.ollama_dirs, (std::vector<std::string>{"C:/Users/u/.ollama/models"}));
  EXPECT_EQ(windows.lmstudio_dirs.front(), "C:/Users/u/.lmstudio/models");
}

TEST(ModelStoreOptions, OllamaModelsAloneAndTheLmStudioHomePointer) {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  TempDir home;
  // LM Studio moved its home: the pointer file names the new one.
  home.write_file(".lmstudio-home-pointer", "/data/lmstudio\n");
  // Ollama's envconfig.Var trims spaces, then quotes.
  MapEnvironment env{{"HOME", home.path()}, {"OLLAMA_MODELS", " '/srv/ollama' "}};
  ModelStoreOptions o = model_store_options_from_environment(env, *fs, StoreOs::kLinux);
  EXPECT_EQ(o.ollama_dirs, (std::vector<std::string>{"/srv/ollama"}));
  EXPECT_EQ(o.lmstudio_dirs, (std::vector<std::string>{"/data/lmstudio/models", home.path() + "/.lmstudio/models",
                                                      home.path() + "/.cache/lm-studio/models"}));
  // No home and no variable: the system service's folder only (Linux).
  ModelStoreOptions none = model_store_options_from_environment(MapEnvironment{}, *fs, StoreOs::kLinux);
  EXPECT_EQ(none.ollama_dirs, (std::vector<std::string>{"/usr/share/ollama/.ollama/models"}));
  EXPECT_TRUE(none.lmstudio_dirs.empty());
}

}  // namespace
}  // namespace memfit
