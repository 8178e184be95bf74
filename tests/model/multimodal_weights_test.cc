// A multimodal checkpoint's weights split into language model, vision
// tower and projector by tensor name; geometry from the text config.
#include <gtest/gtest.h>

#include "memfit/model.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

TEST(MultimodalWeights, SplitByTensorName) {
  TempDir dir;
  dir.write_file("config.json", R"({"model_type":"llava","vision_config":{"num_hidden_layers":24,
      "hidden_size":1024},"text_config":{"model_type":"llama","num_hidden_layers":2,
      "hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100}})");
  // language: embed 100 x 64 BF16 = 12,800 + q_proj 64 x 64 = 8,192 -> 20,992
  // vision: patch 1024 x 48 F32 = 196,608; projector: 64 x 1024 BF16 = 131,072.
  write_safetensors_file(dir.file_path("model.safetensors"),
                         {{"language_model.model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt},
                          {"language_model.model.layers.0.self_attn.q_proj.weight", "BF16", {64, 64}, std::nullopt},
                          {"vision_tower.vision_model.embeddings.patch_embedding.weight", "F32", {1024, 48}, std::nullopt},
                          {"multi_modal_projector.linear_1.weight", "BF16", {64, 1024}, std::nullopt}});
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> model = open_model(*fs, dir.path());
  ASSERT_TRUE(model.ok()) << model.error().message();
  EXPECT_TRUE(model->spec.multimodal);
  EXPECT_EQ(model->spec.geometry.layers, 2u);  // the text model's, not the tower's 24
  EXPECT_EQ(model->weights.bytes, 348672u);    // 20,992 + 196,608 + 131,072
  EXPECT_EQ(model->weights.component_bytes[static_cast<int>(WeightComponent::kLanguageModel)], 20992u);
  EXPECT_EQ(model->weights.component_bytes[static_cast<int>(WeightComponent::kVisionTower)], 196608u);
  EXPECT_EQ(model->weights.component_bytes[static_cast<int>(WeightComponent::kProjector)], 131072u);
  EXPECT_EQ(model->weights.component_bytes[static_cast<int>(WeightComponent::kAudioTower)], 0u);
}

TEST(MultimodalWeights, TextOnlyModelsAreNotSplit) {
  TempDir dir;
  dir.write_file("config.json", R"({"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4})");
  write_safetensors_file(dir.file_path("model.safetensors"),
                         {{"model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt}});
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> model = open_model(*fs, dir.path());
  ASSERT_TRUE(model.ok());
  EXPECT_FALSE(model->spec.multimodal);
  EXPECT_EQ(model->weights.component_bytes[0], 0u);
}

}  // namespace
}  // namespace memfit
