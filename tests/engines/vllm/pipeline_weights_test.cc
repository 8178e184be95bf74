// One rank's weights under vLLM's pipeline parallelism
// (docs/engine-vllm.md, "Pipeline parallelism: the weights"): each stage
// loads its own decoder layers (get_pp_indices, vllm/distributed/utils.py),
// the first stage the embedding, the last the final norm and the LM head,
// and with tied embeddings the last its own copy of the embedding as that
// head (`is_first_rank or (tie_word_embeddings and is_last_rank)`,
// models/llama.py). Worked by hand on a five-layer model of hidden 64 and
// a vocabulary of 128 (one 64-row pad: 128 rows, 64 a rank at TP 2), with
// no rotary cache (no positions), from the config's geometry and from a
// tensor list.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engines/shared/tp_rank_weights.h"
#include "engines/vllm/parts.h"

namespace memfit {
namespace {

constexpr uint64_t kLayers = 5, kHidden = 64, kVocab = 128;

ModelSpec five_layer_spec(bool tied) {
  ModelSpec spec;
  spec.geometry = ModelGeometry{kLayers, kHidden, 4, 4, 16, 128, kVocab};
  spec.layers.assign(kLayers, LayerCache{LayerKind::kFullAttention, 2 * 4 * 16});
  spec.tied_embeddings = tied;
  spec.max_position_tokens = 0;  // no rotary cache
  // The layers' 163,840 bf16 parameters (65,536 B a layer) and one (tied)
  // or two 128 x 64 tables of 8,192 parameters.
  spec.analytical_params = 163'840 + (tied ? 1 : 2) * kVocab * kHidden;
  return spec;
}

Model geometry_model(bool tied) {
  Model m;
  m.has_config = true;
  m.spec = five_layer_spec(tied);
  m.weights.bytes = 5 * 65'536 + (tied ? 1 : 2) * 16'384;
  m.weights.source = WeightsSource::kAnalyticalConfig;
  return m;
}

std::vector<uint64_t> stage_bytes(const Model& m, std::span<const SafetensorsTensor> tensors, uint64_t tp,
                                  uint64_t pp) {
  Result<std::vector<PipelineStage>> stages = vllm_pipeline_stages(kLayers, pp);
  EXPECT_TRUE(stages.ok());
  std::vector<uint64_t> out;
  for (const PipelineStage& s : stages.ok() ? *stages : std::vector<PipelineStage>{}) {
    Result<VllmWeights> w = vllm_rank_weights(m, tensors, tp, Mxfp4Kernel::kTriton, s);
    EXPECT_TRUE(w.ok()) << w.error().message();
    out.push_back(w.ok() ? w->bytes : 0);
  }
  return out;
}

TEST(VllmPipelineWeights, StagesSplitTheLayersAndPlaceTheTables) {
  // 5 layers over 2 stages: 2 each, the remainder's one to the stage before
  // the last: [3, 2]; over 3: 1 each, the remainder's two to stages 1 and
  // 0: [2, 2, 1].
  Result<std::vector<PipelineStage>> two = vllm_pipeline_stages(kLayers, 2);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].layers, (LayerRange{0, 3}));
  EXPECT_EQ((*two)[1].layers, (LayerRange{3, 5}));
  EXPECT_TRUE((*two)[0].first && !(*two)[0].last);
  EXPECT_TRUE(!(*two)[1].first && (*two)[1].last);
  Result<std::vector<PipelineStage>> three = vllm_pipeline_stages(kLayers, 3);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ((*three)[1].layers, (LayerRange{2, 4}));
  EXPECT_FALSE(vllm_pipeline_stages(kLayers, 6).ok());  // more stages than layers
}

TEST(VllmPipelineWeights, FromTheGeometryUntied) {
  const Model m = geometry_model(false);
  // TP 2: the layers' 327,680 B / 2 = 163,840 a rank; a table 64 rows x 64
  // x 2 B = 8,192 a rank. Whole model: 163,840 + 2 x 8,192 = 180,224.
  Result<VllmWeights> whole = vllm_rank_weights(m, {}, 2);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->bytes, 180'224u);
  // PP 2, [3, 2]: stage 0 163,840 x 3 / 5 = 98,304 + the embedding 8,192 =
  // 106,496; stage 1 163,840 x 2 / 5 = 65,536 + the head 8,192 = 73,728
  // (together the whole model's 180,224).
  EXPECT_EQ(stage_bytes(m, {}, 2, 2), (std::vector<uint64_t>{106'496, 73'728}));
}

TEST(VllmPipelineWeights, FromTheGeometryTiedTheLastStageHoldsACopy) {
  const Model m = geometry_model(true);
  // Whole model at TP 2: 163,840 + one table 8,192 = 172,032.
  Result<VllmWeights> whole = vllm_rank_weights(m, {}, 2);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->bytes, 172'032u);
  // PP 3, [2, 2, 1]: stage 0 163,840 x 2 / 5 = 65,536 + 8,192 = 73,728;
  // stage 1 65,536 and no table; stage 2 163,840 / 5 = 32,768 + its own
  // embedding as the head 8,192 = 40,960. The stages hold 8,192 more than
  // the whole model: the tied table twice.
  EXPECT_EQ(stage_bytes(m, {}, 2, 3), (std::vector<uint64_t>{73'728, 65'536, 40'960}));
}

SafetensorsTensor bf16(const std::string& name, std::vector<uint64_t> shape) {
  uint64_t bytes = 2;
  for (uint64_t d : shape) bytes *= d;
  return SafetensorsTensor{name, "BF16", std::move(shape), bytes};
}

// The embedding [128, 64] (16,384 B), one q_proj [64, 64] (8,192 B) a
// layer, the final norm [64] (128 B) and, untied, lm_head [128, 64].
std::vector<SafetensorsTensor> five_layer_tensors(bool tied) {
  std::vector<SafetensorsTensor> t{bf16("model.embed_tokens.weight", {kVocab, kHidden})};
  for (uint64_t i = 0; i < kLayers; ++i) {
    t.push_back(bf16("model.layers." + std::to_string(i) + ".self_attn.q_proj.weight", {kHidden, kHidden}));
  }
  t.push_back(bf16("model.norm.weight", {kHidden}));
  if (!tied) t.push_back(bf16("lm_head.weight", {kVocab, kHidden}));
  return t;
}

Model header_model(bool tied) {
  Model m;
  m.has_config = true;
  m.spec = five_layer_spec(tied);
  m.weights.source = WeightsSource::kSafetensorsHeader;
  return m;
}

TEST(VllmPipelineWeights, FromTheTensorList) {
  // TP 2: the embedding and lm_head 64 rows x 64 x 2 B = 8,192 a rank each,
  // q_proj (column-parallel) 4,096 a rank, the norm whole, 128.
  const std::vector<SafetensorsTensor> untied = five_layer_tensors(false);
  // Untied, [3, 2]: stage 0 8,192 + 3 x 4,096 = 20,480; stage 1 2 x 4,096
  // + 128 + 8,192 = 16,512; together the whole model's 36,992.
  EXPECT_EQ(stage_bytes(header_model(false), untied, 2, 2), (std::vector<uint64_t>{20'480, 16'512}));
  Result<VllmWeights> whole = vllm_rank_weights(header_model(false), untied, 2);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->bytes, 36'992u);
  // Tied (no lm_head tensor): the whole model 8,192 + 20,480 + 128 =
  // 28,800; stage 1 holds the embedding as its head: 8,192 + 128 + 8,192
  // = 16,512, stage 0 20,480 as before.
  const std::vector<SafetensorsTensor> tied = five_layer_tensors(true);
  Result<VllmWeights> tied_whole = vllm_rank_weights(header_model(true), tied, 2);
  ASSERT_TRUE(tied_whole.ok());
  EXPECT_EQ(tied_whole->bytes, 28'800u);
  EXPECT_EQ(stage_bytes(header_model(true), tied, 2, 2), (std::vector<uint64_t>{20'480, 16'512}));
}

TEST(VllmPipelineWeights, Qwen3MoeBuildsItsTablesOnEveryStage) {
  // qwen3_moe.py builds embed_tokens, norm and lm_head without a PP guard:
  // untied at TP 2 over [3, 2], stage 0 98,304 + 2 x 8,192 = 114,688 and
  // stage 1 65,536 + 2 x 8,192 = 81,920.
  Model m = geometry_model(false);
  m.spec.model_type = "qwen3_moe";
  EXPECT_EQ(stage_bytes(m, {}, 2, 2), (std::vector<uint64_t>{114'688, 81'920}));
  // From the tensor list: stage 0 20,480 + the head 8,192 + the norm 128 =
  // 28,800; stage 1 16,512 + the embedding 8,192 = 24,704.
  Model h = geometry_model(false);
  h.spec.model_type = "qwen3_moe";
  h.weights.source = WeightsSource::kSafetensorsHeader;
  EXPECT_EQ(stage_bytes(h, five_layer_tensors(false), 2, 2), (std::vector<uint64_t>{28'800, 24'704}));
}

}  // namespace
}  // namespace memfit
