// A multimodal checkpoint's weights split into language model, vision
// tower and projector by tensor name; geometry from the text config.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "memfit/model.h"
#include "support/recording_file_system.h"
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

// How many times each file's 8-byte prefix was read.
std::map<std::string, int> prefix_reads_multimodal_weights(const RecordingFileSystem& fs) {
  std::map<std::string, int> out;
  for (const FileRead& read : fs.reads()) {
    if (read.offset_bytes == 0 && read.length_bytes == 8) ++out[read.path];
  }
  return out;
}

TEST(MultimodalWeights, EachHeaderIsReadOnceForTheSplit) {
  TempDir dir;
  dir.write_file("config.json", R"({"model_type":"llava","vision_config":{"hidden_size":1024},
      "text_config":{"model_type":"llama","num_hidden_layers":2,"hidden_size":64,
      "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100}})");
  // language 100 x 64 BF16 = 12,800; vision 1024 x 48 F32 = 196,608.
  const std::vector<TensorSpec> first = {
      {"language_model.model.embed_tokens.weight", "BF16", {100, 64}, std::nullopt}};
  const std::vector<TensorSpec> second = {
      {"vision_tower.vision_model.embeddings.patch_embedding.weight", "F32", {1024, 48},
       std::nullopt}};
  const std::string a = dir.file_path("model-00001-of-00002.safetensors");
  const std::string b = dir.file_path("model-00002-of-00002.safetensors");
  write_safetensors_file(a, first);
  write_safetensors_file(b, second);
  // A trusted index: sizing alone would not read the headers, the split must.
  nlohmann::json index;
  index["metadata"]["total_size"] = 209408;  // 12,800 + 196,608
  index["weight_map"] = {{first[0].name, "model-00001-of-00002.safetensors"},
                         {second[0].name, "model-00002-of-00002.safetensors"}};
  dir.write_file("model.safetensors.index.json", index.dump());
  std::unique_ptr<FileSystem> real = make_real_file_system();
  RecordingFileSystem fs(*real);
  Result<Model> model = open_model(fs, dir.path());
  ASSERT_TRUE(model.ok()) << model.error().message();
  EXPECT_EQ(model->weights.bytes, 209408u);
  EXPECT_EQ(model->weights.source, WeightsSource::kSafetensorsHeader);
  const uint64_t* components = model->weights.component_bytes;
  EXPECT_EQ(components[static_cast<int>(WeightComponent::kLanguageModel)], 12800u);
  EXPECT_EQ(components[static_cast<int>(WeightComponent::kVisionTower)], 196608u);
  EXPECT_TRUE(model->tensors.empty());  // used for the split, not kept: nobody asked
  EXPECT_EQ(prefix_reads_multimodal_weights(fs), (std::map<std::string, int>{{a, 1}, {b, 1}}));
  const uint64_t header_bytes = safetensors_header_json(first).size() +
                                safetensors_header_json(second).size();
  const uint64_t index_bytes = index.dump().size();
  const uint64_t config_bytes = std::filesystem::file_size(dir.file_path("config.json"));
  EXPECT_EQ(fs.bytes_read(), config_bytes + index_bytes + 2 * 8 + header_bytes);
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
