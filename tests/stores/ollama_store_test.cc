// Ollama's store on disk (memfit/model_stores.h): manifests and blobs laid
// out as Ollama writes them, from generated GGUFs.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

#include "memfit/model_stores.h"
#include "memfit/ollama_store.h"
#include "support/ollama_store_writer.h"
#include "support/small_ggufs.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

class OllamaStore : public ::testing::Test {
 protected:
  Result<Model> open(const std::string& name) {
    return open_store_model(*fs_, name, stores_, OpenModelOptions{});
  }

  TempDir dir_;
  OllamaStoreWriter store_{dir_.file_path("models")};
  ModelStoreOptions stores_{.ollama_dirs = {store_.dir()}, .lmstudio_dirs = {}};
  std::unique_ptr<FileSystem> fs_ = make_real_file_system();
};

TEST_F(OllamaStore, TheModelLayerIsTheGgufAndParamsSetTheContext) {
  store_.add_model("registry.ollama.ai/library/tiny/latest",
                   {ollama_model_layer(tiny_store_gguf()),
                    ollama_params_layer(R"({"num_ctx":2048,"stop":["<|im_end|>"],"temperature":0.6})")});
  Result<Model> m = open("ollama:tiny");
  ASSERT_TRUE(m.ok()) << m.error().message();
  // 12,800 + 2 x 8,192 = 29,184 B of f16 tensors, from the GGUF header.
  EXPECT_EQ(m->weights.bytes, 29184u);
  EXPECT_EQ(m->weights.source, WeightsSource::kGgufHeader);
  EXPECT_EQ(m->spec.max_position_tokens, 4096u);
  Result<StoreDefaults> d = read_store_defaults(*fs_, "ollama:tiny", stores_);
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->store, "ollama");
  EXPECT_EQ(d->model_path, m->path);
  EXPECT_EQ(d->context_tokens, 2048u);
  ASSERT_EQ(d->parameters.size(), 3u);
  EXPECT_EQ(d->parameters[1].first, "stop");
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_EQ(m->warnings[0],
            "Ollama's Modelfile parameters, recorded and not priced: stop [\"<|im_end|>\"], "
            "temperature 0.6");
  // The same model by its full name and its explicit tag.
  EXPECT_TRUE(open("ollama:registry.ollama.ai/library/tiny:latest").ok());
  EXPECT_TRUE(open("ollama:tiny:latest").ok());
}

TEST_F(OllamaStore, AProjectorIsRecordedAndNamedForMmproj) {
  store_.add_model("registry.ollama.ai/library/vision/latest",
                   {ollama_model_layer(tiny_store_gguf()),
                    {"application/vnd.ollama.image.projector", tiny_projector_gguf().bytes()}});
  Result<Model> m = open("ollama:vision");
  ASSERT_TRUE(m.ok()) << m.error().message();
  Result<StoreDefaults> d = read_store_defaults(*fs_, "ollama:vision", stores_);
  ASSERT_TRUE(d.ok()) << d.error().message();
  ASSERT_EQ(d->projector_paths.size(), 1u);
  EXPECT_TRUE(d->projector_paths[0].starts_with(store_.dir() + "/blobs/sha256-"));
  EXPECT_FALSE(d->context_tokens.has_value());  // no params layer
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_TRUE(m->warnings[0].starts_with("Ollama loads its projector '" + store_.dir() + "/blobs/sha256-"))
      << m->warnings[0];
}

TEST_F(OllamaStore, ANameInNoFolderSaysWhereItLooked) {
  Result<Model> m = open("ollama:qwen3:8b");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(m.error().message(),
            "'ollama:qwen3:8b': no manifest 'registry.ollama.ai/library/qwen3/8b' in Ollama's models "
            "folders ('" + store_.dir() + "'); set OLLAMA_MODELS to the folder that holds it");
}

TEST_F(OllamaStore, TheFirstFolderThatHoldsTheNameIsRead) {
  OllamaStoreWriter system(dir_.file_path("system"));
  system.add_model("registry.ollama.ai/library/tiny/latest", {ollama_model_layer(tiny_store_gguf())});
  stores_.ollama_dirs.push_back(system.dir());  // the user's folder first: it lacks the name
  Result<Model> m = open("ollama:tiny");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_TRUE(m->path.starts_with(system.dir() + "/blobs/")) << m->path;
}

TEST_F(OllamaStore, AMissingBlobIsAnErrorNamingIt) {
  const std::string manifest = store_.add_model("registry.ollama.ai/library/tiny/latest",
                                                {ollama_model_layer(tiny_store_gguf())});
  // Remove the model blob: the digest is the manifest's second "sha256:".
  const size_t at = manifest.find("sha256:", manifest.find("sha256:") + 1) + 7;
  const std::string hex = manifest.substr(at, 64);
  ASSERT_EQ(std::remove((store_.dir() + "/blobs/sha256-" + hex).c_str()), 0);
  Result<Model> m = open("ollama:tiny");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "'ollama:tiny': its model blob 'sha256-" + hex.substr(0, 12) +
                                     "' is missing from '" + store_.dir() + "/blobs'");
}

TEST_F(OllamaStore, ABrokenManifestIsAnError) {
  store_.add_manifest_text("registry.ollama.ai/library/broken/latest", "{\"layers\": 3}");
  Result<Model> m = open("ollama:broken");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(), "'ollama:broken': manifest: no \"layers\" array");
}

TEST_F(OllamaStore, AnOversizedManifestIsRefusedBeforeItIsRead) {
  store_.add_manifest_text("registry.ollama.ai/library/huge/latest",
                           std::string(kMaxOllamaManifestBytes + 1, ' '));
  Result<Model> m = open("ollama:huge");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message(),
            "'ollama:huge': manifest '" + store_.dir() +
                "/manifests/registry.ollama.ai/library/huge/latest': 1048577 bytes, more than the "
                "1048576 it may hold");
}

TEST_F(OllamaStore, ListingNamesEachManifestAndCarriesEachBrokenOnesError) {
  store_.add_model("registry.ollama.ai/library/tiny/latest", {ollama_model_layer(tiny_store_gguf())});
  store_.add_model("registry.ollama.ai/me/tuned/v2", {ollama_model_layer(tiny_store_gguf())});
  store_.add_manifest_text("registry.ollama.ai/library/broken/latest", "not json");
  const std::vector<LocalModelEntry> entries = list_local_models(*fs_, stores_, HfCacheOptions{}, {});
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].name, "ollama:broken:latest");
  EXPECT_TRUE(entries[0].error.starts_with("manifest: not JSON: ")) << entries[0].error;
  EXPECT_EQ(entries[1].name, "ollama:me/tuned:v2");
  EXPECT_EQ(entries[1].error, "");
  EXPECT_EQ(entries[2].name, "ollama:tiny:latest");
  EXPECT_EQ(entries[2].format, "gguf");
  EXPECT_EQ(entries[2].store, "ollama");
}

}  // namespace
}  // namespace memfit
