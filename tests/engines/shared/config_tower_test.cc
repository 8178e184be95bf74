// A config-only model's vision tower as a part of its own, and the engines
// that leave it out (engines/shared/config_tower.h).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engines/shared/config_tower.h"
#include "memfit/model.h"
#include "memfit/request.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

constexpr int kLanguage = static_cast<int>(WeightComponent::kLanguageModel);
constexpr int kTower = static_cast<int>(WeightComponent::kVisionTower);

// A one-layer Gemma 3 text model with a one-layer SigLIP tower.
constexpr const char* kGemma3Config = R"({"model_type": "gemma3",
    "text_config": {"model_type": "gemma3_text", "hidden_size": 64, "intermediate_size": 128,
      "num_attention_heads": 2, "num_key_value_heads": 1, "num_hidden_layers": 1,
      "head_dim": 32, "vocab_size": 100},
    "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 64,
      "intermediate_size": 128, "num_hidden_layers": 1, "patch_size": 2, "image_size": 8}})";

Model open_config_only(const std::string& config) {
  TempDir dir;
  dir.write_file("config.json", config);
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> model = open_model(*fs, dir.path());
  EXPECT_TRUE(model.ok()) << model.error().message();
  return model.ok() ? std::move(*model) : Model{};
}

TEST(ConfigTower, TheLoaderPricesTheTowerAsAPartOfItsOwn) {
  const Model model = open_config_only(kGemma3Config);
  // Text: a layer q 64 x 64 + k, v 32 x 64 + o 64 x 64 = 12,288, q/k norms
  // 64, MLP 3 x 64 x 128 = 24,576, four norms 256: 37,184; + embeddings
  // 100 x 64 + the final norm 64: 43,648 parameters, 87,296 bytes.
  // Tower (SigLIP, v 64, f 128, 4 x 4 patches of 2):
  //   patch embedding 64 x 3 x 2 x 2 + 64 = 832; positions 16 x 64 = 1,024
  //   the layer: q, k, v, out 4 x (64 x 64 + 64) = 16,640; fc1 128 x 64 +
  //     128 = 8,320; fc2 64 x 128 + 64 = 8,256; two layer norms 256: 33,472
  //   post layernorm 128; projector 64 x 64 + its norm 64 = 4,160
  //   39,616 parameters, 79,232 bytes.
  ASSERT_EQ(model.weights.source, WeightsSource::kAnalyticalConfig);
  EXPECT_EQ(model.weights.bytes, 166'528u);  // 87,296 + 79,232
  EXPECT_EQ(model.weights.component_bytes[kLanguage], 87'296u);
  EXPECT_EQ(model.weights.component_bytes[kTower], 79'232u);
}

TEST(ConfigTower, ATextOnlyConfigHasNoSplit) {
  const Model model = open_config_only(R"({"model_type": "llama", "hidden_size": 64,
      "intermediate_size": 128, "num_attention_heads": 2, "num_key_value_heads": 1,
      "num_hidden_layers": 1, "vocab_size": 100})");
  ASSERT_EQ(model.weights.source, WeightsSource::kAnalyticalConfig);
  EXPECT_GT(model.weights.bytes, 0u);
  EXPECT_EQ(model.weights.component_bytes[kLanguage], 0u);
  EXPECT_EQ(model.weights.component_bytes[kTower], 0u);
}

TEST(ConfigTower, AnEngineThatDoesNotLoadItLeavesItOut) {
  PreparedRequest p;
  p.model = std::make_shared<const Model>(open_config_only(kGemma3Config));
  drop_config_tower(p, "the engine's reason");
  // 166,528 - the tower's 79,232 = the text model's 87,296.
  EXPECT_EQ(p.model->weights.bytes, 87'296u);
  EXPECT_EQ(p.model->weights.component_bytes[kTower], 0u);
  EXPECT_EQ(p.model->weights.component_bytes[kLanguage], 0u);  // no split left
  // 83,264 parameters - the tower's 39,616 = the text model's 43,648.
  EXPECT_EQ(p.model->spec.analytical_params, 43'648u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].text.find("vision tower"), std::string::npos);
  EXPECT_NE(p.warnings[0].text.find("the engine's reason"), std::string::npos);
  // Once out, a second call changes nothing.
  drop_config_tower(p, "again");
  EXPECT_EQ(p.model->weights.bytes, 87'296u);
  EXPECT_EQ(p.warnings.size(), 1u);
}

TEST(ConfigTower, WeightsReadFromFilesAreLeftAsTheyAre) {
  Model read = open_config_only(kGemma3Config);
  read.weights.source = WeightsSource::kSafetensorsHeader;  // as if headers gave them
  PreparedRequest p;
  p.model = std::make_shared<const Model>(read);
  drop_config_tower(p, "the engine's reason");
  EXPECT_EQ(p.model->weights.bytes, 166'528u);
  EXPECT_TRUE(p.warnings.empty());
}

}  // namespace
}  // namespace memfit
