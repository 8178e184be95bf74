// Tensor names of real multimodal checkpoints and where they belong.
#include <gtest/gtest.h>

#include "model/weight_components.h"

namespace memfit {
namespace {

TEST(WeightComponents, LanguageModelByDefault) {
  for (const char* name : {"model.layers.0.self_attn.q_proj.weight", "lm_head.weight",
                           "model.embed_tokens.weight", "language_model.model.norm.weight",
                           "model.language_model.layers.3.mlp.down_proj.weight",
                           "model.layers.0.mlp.experts.17.gate_proj.weight"}) {
    EXPECT_EQ(classify_tensor(name), WeightComponent::kLanguageModel) << name;
  }
}

TEST(WeightComponents, VisionTowers) {
  for (const char* name : {"visual.blocks.0.attn.qkv.weight",                      // Qwen2.5-VL
                           "model.visual.patch_embed.proj.weight",                  // Qwen3-VL
                           "vision_tower.vision_model.encoder.layers.0.mlp.fc1.weight",  // LLaVA, Gemma 3
                           "model.vision_tower.embeddings.patch_embedding.weight",
                           "vision_model.encoder.layers.1.self_attn.k_proj.weight",  // Llama 3.2 Vision
                           "vpm.encoder.layers.0.mlp.fc2.weight"}) {                 // MiniCPM-V
    EXPECT_EQ(classify_tensor(name), WeightComponent::kVisionTower) << name;
  }
}

TEST(WeightComponents, AudioTowers) {
  for (const char* name : {"audio_tower.layers.0.fc1.weight",  // Qwen2-Audio
                           "model.audio_tower.conv1.weight", "apm.layers.3.fc2.bias"}) {
    EXPECT_EQ(classify_tensor(name), WeightComponent::kAudioTower) << name;
  }
}

TEST(WeightComponents, ProjectorsWinOverTowers) {
  for (const char* name : {"multi_modal_projector.linear_1.weight",  // LLaVA
                           "visual.merger.mlp.0.weight",              // Qwen2.5-VL's merger
                           "model.mm_projector.0.weight", "mlp1.1.weight",  // InternVL
                           "model.embed_vision.embedding_projection.weight"}) {  // Gemma 3n
    EXPECT_EQ(classify_tensor(name), WeightComponent::kProjector) << name;
  }
}

TEST(WeightComponents, SubstringsAreNotSegments) {
  // "visualize" and "revision" contain tower words but are not tower segments.
  EXPECT_EQ(classify_tensor("model.visualize_head.weight"), WeightComponent::kLanguageModel);
  EXPECT_EQ(classify_tensor("revision.weight"), WeightComponent::kLanguageModel);
  EXPECT_EQ(classify_tensor(""), WeightComponent::kLanguageModel);
  EXPECT_EQ(classify_tensor("..."), WeightComponent::kLanguageModel);
}

}  // namespace
}  // namespace memfit
