// Multi-device plans on real configs from tests/data/corpus: which layers
// each pipeline stage holds, what a tensor-parallel rank holds of each
// tensor, and the per-rank estimate. Checkpoints are the tensors a
// transformers checkpoint of that config holds (names as in the corpus
// indexes, shapes from the config, BF16 unless said), so every expected
// figure below is worked out by hand from the config.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engines/shared/parallel_tensors.h"
#include "memfit/parallel_plan.h"
#include "support/corpus.h"

namespace memfit {
namespace {

SafetensorsTensor tensor(std::string name, std::vector<uint64_t> shape, uint64_t width = 2) {
  uint64_t elements = 1;
  for (uint64_t d : shape) elements *= d;
  return SafetensorsTensor{std::move(name), width == 1 ? "F8_E4M3" : "BF16", std::move(shape),
                           elements * width};
}

// A Llama-layout dense checkpoint of `spec`.
std::vector<SafetensorsTensor> dense_checkpoint(const ModelSpec& spec, bool tied) {
  const ModelGeometry& g = spec.geometry;
  const uint64_t q = g.heads * g.head_dim, kv = g.kv_heads * g.head_dim;
  std::vector<SafetensorsTensor> t = {tensor("model.embed_tokens.weight", {g.vocab, g.hidden})};
  for (uint64_t i = 0; i < g.layers; ++i) {
    std::string p = "model.layers." + std::to_string(i) + ".";
    t.push_back(tensor(p + "input_layernorm.weight", {g.hidden}));
    t.push_back(tensor(p + "self_attn.q_proj.weight", {q, g.hidden}));
    t.push_back(tensor(p + "self_attn.k_proj.weight", {kv, g.hidden}));
    t.push_back(tensor(p + "self_attn.v_proj.weight", {kv, g.hidden}));
    t.push_back(tensor(p + "self_attn.o_proj.weight", {g.hidden, q}));
    t.push_back(tensor(p + "post_attention_layernorm.weight", {g.hidden}));
    t.push_back(tensor(p + "mlp.gate_proj.weight", {g.intermediate, g.hidden}));
    t.push_back(tensor(p + "mlp.up_proj.weight", {g.intermediate, g.hidden}));
    t.push_back(tensor(p + "mlp.down_proj.weight", {g.hidden, g.intermediate}));
  }
  t.push_back(tensor("model.norm.weight", {g.hidden}));
  if (!tied) t.push_back(tensor("lm_head.weight", {g.vocab, g.hidden}));
  return t;
}

// Qwen3-30B-A3B: 48 layers of 32 q heads and 4 KV heads x 128, q/k norms,
// a router over 128 experts of moe_intermediate_size 768, untied head.
std::vector<SafetensorsTensor> qwen3_moe_checkpoint(const ModelSpec& spec) {
  const ModelGeometry& g = spec.geometry;
  constexpr uint64_t kMoeIntermediate = 768;  // config moe_intermediate_size
  std::vector<SafetensorsTensor> t = {tensor("model.embed_tokens.weight", {g.vocab, g.hidden})};
  for (uint64_t i = 0; i < g.layers; ++i) {
    std::string p = "model.layers." + std::to_string(i) + ".";
    t.push_back(tensor(p + "input_layernorm.weight", {g.hidden}));
    t.push_back(tensor(p + "self_attn.q_proj.weight", {g.heads * g.head_dim, g.hidden}));
    t.push_back(tensor(p + "self_attn.k_proj.weight", {g.kv_heads * g.head_dim, g.hidden}));
    t.push_back(tensor(p + "self_attn.v_proj.weight", {g.kv_heads * g.head_dim, g.hidden}));
    t.push_back(tensor(p + "self_attn.o_proj.weight", {g.hidden, g.heads * g.head_dim}));
    t.push_back(tensor(p + "self_attn.q_norm.weight", {g.head_dim}));
    t.push_back(tensor(p + "self_attn.k_norm.weight", {g.head_dim}));
    t.push_back(tensor(p + "post_attention_layernorm.weight", {g.hidden}));
    t.push_back(tensor(p + "mlp.gate.weight", {spec.moe.experts, g.hidden}));
    for (uint64_t e = 0; e < spec.moe.experts; ++e) {
      std::string x = p + "mlp.experts." + std::to_string(e) + ".";
      t.push_back(tensor(x + "gate_proj.weight", {kMoeIntermediate, g.hidden}));
      t.push_back(tensor(x + "up_proj.weight", {kMoeIntermediate, g.hidden}));
      t.push_back(tensor(x + "down_proj.weight", {g.hidden, kMoeIntermediate}));
    }
  }
  t.push_back(tensor("model.norm.weight", {g.hidden}));
  t.push_back(tensor("lm_head.weight", {g.vocab, g.hidden}));
  return t;
}

Model model_of(const std::string& corpus, const std::vector<SafetensorsTensor>& tensors) {
  Model m;
  m.path = corpus;
  m.has_config = true;
  m.spec = testing::corpus_spec(corpus);
  for (const SafetensorsTensor& t : tensors) m.weights.bytes += t.data_bytes;
  m.weights.source = WeightsSource::kSafetensorsHeader;
  m.weights.tensor_count = tensors.size();
  return m;
}

ParallelPlan plan(const Model& m, const std::vector<SafetensorsTensor>& tensors, uint64_t tp,
                  uint64_t pp, ShardingRules rules = ShardingRules::kVllm,
                  uint64_t budget = 80ull << 30) {
  Result<ParallelPlan> p = plan_parallel(m, tensors, MlxcelInputs{}, MlxcelSettings{},
                                         Platform{}, MemoryBudget{budget, budget, BudgetSource::kExplicit},
                                         ParallelConfig{tp, pp, rules});
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  return p.ok() ? *p : ParallelPlan{};
}

std::string plan_error(const Model& m, uint64_t tp, uint64_t pp,
                       ShardingRules rules = ShardingRules::kVllm) {
  Result<ParallelPlan> p = plan_parallel(m, {}, MlxcelInputs{}, MlxcelSettings{}, Platform{},
                                         MemoryBudget{1ull << 40, 1ull << 40, BudgetSource::kExplicit},
                                         ParallelConfig{tp, pp, rules});
  EXPECT_FALSE(p.ok());
  return p.ok() ? "" : p.error().message();
}

uint64_t share(const SafetensorsTensor& t, uint64_t tp, uint64_t kv_heads,
               ShardingRules rules = ShardingRules::kVllm) {
  Result<uint64_t> b = tp_rank_tensor_bytes(t, place_tensor(t.name).role, {rules, tp, kv_heads});
  EXPECT_TRUE(b.ok());
  return b.ok() ? *b : 0;
}

// ---- pipeline stages ------------------------------------------------------

TEST(ParallelStages, VllmGivesTheRemainderToTheStagesBeforeTheLast) {
  // Llama 3.1 70B, 80 layers over 3 stages: 26 each, remainder 2 to
  // stages P-2 and P-3 (vLLM get_pp_indices) -> 27, 27, 26.
  Result<std::vector<LayerRange>> r = pipeline_layer_ranges(ShardingRules::kVllm, 80, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<LayerRange>{{0, 27}, {27, 54}, {54, 80}}));
  // DeepSeek-V3, 61 layers over 4 stages: 15 each, remainder 1 to stage 2.
  r = pipeline_layer_ranges(ShardingRules::kVllm, 61, 4);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<LayerRange>{{0, 15}, {15, 30}, {30, 46}, {46, 61}}));
}

TEST(ParallelStages, MlxGivesTheRemainderToTheLastStages) {
  // mlx-lm pipeline ranks 0 and 1 take one more layer and rank 0 holds the
  // last layers: in layer order 26, 27, 27.
  Result<std::vector<LayerRange>> r = pipeline_layer_ranges(ShardingRules::kMlxLm, 80, 3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<LayerRange>{{0, 26}, {26, 53}, {53, 80}}));
}

TEST(ParallelStages, EvenSplitAndEveryLayerHeldOnce) {
  for (ShardingRules rules : {ShardingRules::kVllm, ShardingRules::kMlxLm}) {
    for (uint64_t pp = 1; pp <= 61; ++pp) {
      Result<std::vector<LayerRange>> r = pipeline_layer_ranges(rules, 61, pp);
      ASSERT_TRUE(r.ok());
      ASSERT_EQ(r->size(), pp);
      uint64_t next = 0;
      for (const LayerRange& range : *r) {
        EXPECT_EQ(range.begin, next);
        EXPECT_GE(range.count(), 61 / pp);
        EXPECT_LE(range.count(), 61 / pp + 1);
        next = range.end;
      }
      EXPECT_EQ(next, 61u);
    }
  }
  Result<std::vector<LayerRange>> even = pipeline_layer_ranges(ShardingRules::kVllm, 32, 4);
  ASSERT_TRUE(even.ok());
  EXPECT_EQ(*even, (std::vector<LayerRange>{{0, 8}, {8, 16}, {16, 24}, {24, 32}}));
}

TEST(ParallelStages, MoreStagesThanLayersIsRefused) {
  Model m = model_of("llama3/Llama-3.2-1B-Instruct", {});
  EXPECT_EQ(plan_error(m, 1, 17), "pipeline parallel size 17 exceeds the model's 16 layers");
  EXPECT_EQ(plan_error(m, 1, 0), "pipeline parallel size must be at least 1");
  EXPECT_EQ(plan_error(m, 0, 1), "tensor parallel size must be at least 1");
  EXPECT_EQ(plan_error(m, 4096, 2), "4096 x 2 ranks: more than the 4096 memfit plans");
}

// ---- what a tensor is -----------------------------------------------------

TEST(ParallelTensors, RealIndexNamesArePlaced) {
  // Every tensor name of a real Llama 3.2 3B index (28 layers, tied).
  nlohmann::json index = nlohmann::json::parse(testing::read_test_data(
      "corpus/llama3/Llama-3.2-3B-pertensor-shards/model.safetensors.index.json"));
  std::map<TensorRole, int> roles;
  for (const auto& [name, shard] : index["weight_map"].items()) {
    TensorPlacement p = place_tensor(name);
    roles[p.role] += 1;
    if (name.rfind("model.layers.", 0) == 0) {
      ASSERT_TRUE(p.layer.has_value()) << name;
      EXPECT_LT(*p.layer, 28u) << name;
    } else {
      EXPECT_FALSE(p.layer.has_value()) << name;
    }
  }
  EXPECT_EQ(roles[TensorRole::kColumnParallel], 3 * 28);  // q, gate, up
  EXPECT_EQ(roles[TensorRole::kKvProjection], 2 * 28);
  EXPECT_EQ(roles[TensorRole::kRowParallel], 2 * 28);     // o, down
  EXPECT_EQ(roles[TensorRole::kReplicated], 2 * 28);      // two norms per layer
  EXPECT_EQ(roles[TensorRole::kEmbedding], 1);
  EXPECT_EQ(roles[TensorRole::kFinalNorm], 1);
  EXPECT_EQ(roles[TensorRole::kLmHead], 0);
}

TEST(ParallelTensors, NamesOfOtherLayouts) {
  EXPECT_EQ(place_tensor("lm_head.scales").role, TensorRole::kLmHead);  // MLX 4-bit
  EXPECT_EQ(place_tensor("model.layers.3.mlp.gate.weight").role, TensorRole::kReplicated);
  EXPECT_EQ(place_tensor("model.layers.3.mlp.experts.7.down_proj.weight").role,
            TensorRole::kRowParallel);
  EXPECT_EQ(place_tensor("model.layers.3.mlp.switch_mlp.up_proj.weight").role,
            TensorRole::kColumnParallel);
  EXPECT_EQ(place_tensor("model.layers.3.mlp.experts.gate_up_proj_blocks").role,
            TensorRole::kColumnParallel);  // gpt-oss MXFP4
  EXPECT_EQ(place_tensor("model.layers.3.mlp.experts.down_proj_bias").role,
            TensorRole::kRowParallelBias);
  EXPECT_EQ(place_tensor("model.layers.0.self_attn.o_proj.bias").role,
            TensorRole::kRowParallelBias);
  EXPECT_EQ(place_tensor("model.layers.0.self_attn.q_proj.bias").role,
            TensorRole::kColumnParallel);
  EXPECT_EQ(place_tensor("model.layers.0.self_attn.kv_a_proj_with_mqa.weight").role,
            TensorRole::kReplicated);
  EXPECT_EQ(place_tensor("model.layers.0.self_attn.kv_b_proj.weight_scale_inv").role,
            TensorRole::kColumnParallel);
  EXPECT_EQ(place_tensor("model.layers.0.self_attn.k_proj.weight.absmax").role,
            TensorRole::kKvProjection);  // bitsandbytes
  EXPECT_EQ(place_tensor("visual.blocks.0.attn.qkv.weight").role, TensorRole::kTower);
  EXPECT_FALSE(place_tensor("visual.blocks.0.attn.qkv.weight").layer.has_value());
  EXPECT_EQ(place_tensor("backbone.layers.12.mixer.out_proj.weight").layer, 12u);
  EXPECT_EQ(place_tensor("transformer.h.5.attn.c_attn.weight").layer, 5u);
}

// ---- tensor parallelism on real configs -----------------------------------

// Llama 3.1 8B: hidden 4096, 32 heads and 8 KV heads x 128, intermediate
// 14336, vocab 128256 (= 2004 x 64, so vLLM's padding adds no row).
//   q, o          4096 x 4096 x 2  = 33,554,432
//   k, v          1024 x 4096 x 2  =  8,388,608
//   gate, up, down 14336 x 4096 x 2 = 117,440,512
//   embedding     128256 x 4096 x 2 = 1,050,673,152 (8192 B a row)
TEST(ParallelTensors, LlamaGqaSplitsAtTp2And4AndReplicatesKvAt16) {
  ModelSpec spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  ASSERT_EQ(spec.geometry.kv_heads, 8u);
  std::vector<SafetensorsTensor> t = dense_checkpoint(spec, false);
  auto find = [&](std::string_view name) {
    for (const SafetensorsTensor& x : t) {
      if (x.name == name) return x;
    }
    ADD_FAILURE() << name;
    return SafetensorsTensor{};
  };
  SafetensorsTensor q = find("model.layers.0.self_attn.q_proj.weight");
  SafetensorsTensor k = find("model.layers.0.self_attn.k_proj.weight");
  SafetensorsTensor down = find("model.layers.0.mlp.down_proj.weight");
  SafetensorsTensor embed = find("model.embed_tokens.weight");
  SafetensorsTensor norm = find("model.layers.0.input_layernorm.weight");
  EXPECT_EQ(share(q, 2, 8), 16'777'216u);
  EXPECT_EQ(share(q, 4, 8), 8'388'608u);
  EXPECT_EQ(share(down, 4, 8), 29'360'128u);
  EXPECT_EQ(share(k, 2, 8), 4'194'304u);  // 4 of 8 heads
  EXPECT_EQ(share(k, 4, 8), 2'097'152u);  // 2 of 8
  EXPECT_EQ(share(k, 8, 8), 1'048'576u);  // 1 of 8
  // 16 ranks, 8 KV heads: each rank keeps one whole head (a replica), not
  // half of one: 8,388,608 / 8.
  EXPECT_EQ(share(k, 16, 8), 1'048'576u);
  EXPECT_EQ(share(embed, 4, 8), 262'668'288u);  // 32064 rows x 8192 B
  EXPECT_EQ(share(norm, 16, 8), 8192u);         // whole
  // mlx-lm replicates the embedding.
  EXPECT_EQ(share(embed, 4, 8, ShardingRules::kMlxLm), 1'050'673'152u);
}

TEST(ParallelTensors, SplitTensorsSumToTheWholeOverTpRanks) {
  ModelSpec spec = testing::corpus_spec("llama3/Meta-Llama-3.1-8B");
  for (uint64_t tp : {2, 4, 8}) {
    for (const SafetensorsTensor& t : dense_checkpoint(spec, false)) {
      TensorRole role = place_tensor(t.name).role;
      uint64_t rank_bytes = share(t, tp, 8);
      if (role == TensorRole::kReplicated || role == TensorRole::kFinalNorm) {
        EXPECT_EQ(rank_bytes, t.data_bytes) << t.name;
      } else {
        EXPECT_EQ(rank_bytes * tp, t.data_bytes) << t.name << " at tp " << tp;
      }
    }
  }
}

TEST(ParallelTensors, VocabIsPaddedTo64RowsPerVllmRank) {
  // 32000 rows (Mixtral) = 500 x 64: no padding; 8 ranks take 4000 rows.
  SafetensorsTensor embed = tensor("model.embed_tokens.weight", {32000, 4096});
  EXPECT_EQ(share(embed, 8, 8), 4000u * 4096 * 2);
  // 32001 rows pad to 32064: 8 ranks take 4008 rows each, more than 1/8.
  SafetensorsTensor odd = tensor("lm_head.weight", {32001, 4096});
  EXPECT_EQ(share(odd, 8, 8), 4008u * 4096 * 2);
}

// Per layer, one TP rank of Llama 3.1 8B (norms 2 x 4096 x 2 = 16,384 whole):
//   tp 2: 2 x 16,777,216 + 2 x 4,194,304 + 3 x 58,720,256 + 16,384 = 218,120,192
//   tp 4: 2 x  8,388,608 + 2 x 2,097,152 + 3 x 29,360,128 + 16,384 = 109,068,288
// embedding and LM head: 128256 / tp rows x 8192 B; final norm 8192 whole.
TEST(ParallelPlan, LlamaTensorParallelWeightsPerRank) {
  std::vector<SafetensorsTensor> t =
      dense_checkpoint(testing::corpus_spec("llama3/Meta-Llama-3.1-8B"), false);
  Model m = model_of("llama3/Meta-Llama-3.1-8B", t);
  EXPECT_EQ(m.weights.bytes, 16'060'522'496u);
  ParallelPlan p2 = plan(m, t, 2, 1);
  ASSERT_EQ(p2.ranks.size(), 2u);
  EXPECT_TRUE(p2.from_tensor_list);
  // 32 x 218,120,192 + 2 x 525,336,576 + 8192
  EXPECT_EQ(p2.ranks[0].estimate.weights_bytes, 8'030'527'488u);
  EXPECT_EQ(p2.ranks[1].estimate.weights_bytes, 8'030'527'488u);
  // The two ranks hold the whole once, plus a second copy of the
  // replicated norms: 32 x 16,384 + 8192 = 532,480.
  EXPECT_EQ(2 * p2.ranks[0].estimate.weights_bytes - m.weights.bytes, 532'480u);
  ParallelPlan p4 = plan(m, t, 4, 1);
  // 32 x 109,068,288 + 2 x 262,668,288 + 8192
  EXPECT_EQ(p4.ranks[3].estimate.weights_bytes, 4'015'529'984u);
}

// KV per token per layer, fp16: 2 x heads_per_rank x 128 x 2 B.
//   whole: 4096 B; tp 2: 2048; tp 4: 1024; tp 8 and tp 16: 512 (one head).
// x 32 layers x 8192 tokens.
TEST(ParallelPlan, KvHeadsSplitByTpAndReplicatedPastThem) {
  std::vector<SafetensorsTensor> t =
      dense_checkpoint(testing::corpus_spec("llama3/Meta-Llama-3.1-8B"), false);
  Model m = model_of("llama3/Meta-Llama-3.1-8B", t);
  EXPECT_EQ(plan(m, t, 2, 1).ranks[0].estimate.kv.total_bytes, 536'870'912u);
  EXPECT_EQ(plan(m, t, 4, 1).ranks[0].estimate.kv.total_bytes, 268'435'456u);
  ParallelPlan p8 = plan(m, t, 8, 1);
  ParallelPlan p16 = plan(m, t, 16, 1);
  EXPECT_EQ(p8.ranks[0].estimate.kv.total_bytes, 134'217'728u);
  EXPECT_EQ(p16.ranks[15].estimate.kv.total_bytes, 134'217'728u);
  EXPECT_EQ(p16.ranks[15].kv_heads, 1u);
  EXPECT_EQ(p16.ranks.size(), 16u);
  bool said = false;
  for (const std::string& a : p16.assumptions) {
    said |= a.find("8 KV heads for 16 tensor-parallel ranks") != std::string::npos;
  }
  EXPECT_TRUE(said);
}

// Llama 3.1 8B at tp 4, 8192 tokens, batch 1, default settings:
//   weights 4,015,529,984 + kv 268,435,456              = 4,283,965,440
//   overhead 0.20 x 4,283,965,440                         =   856,793,088
//   activation 2 x 2048 x (4096 + 14336) x 2 + 128256 x 2 =   151,251,456
//   total                                                 = 5,292,009,984
TEST(ParallelPlan, EachRankIsCheckedAgainstOneDeviceBudget) {
  std::vector<SafetensorsTensor> t =
      dense_checkpoint(testing::corpus_spec("llama3/Meta-Llama-3.1-8B"), false);
  Model m = model_of("llama3/Meta-Llama-3.1-8B", t);
  ParallelPlan p4 = plan(m, t, 4, 1, ShardingRules::kVllm, 8ull << 30);
  const MlxcelEstimate& e = p4.ranks[2].estimate;
  EXPECT_EQ(e.headroom_bytes, 856'793'088u + 151'251'456u);
  EXPECT_EQ(e.total_bytes, 5'292'009'984u);
  EXPECT_EQ(e.weights_bytes + e.kv.total_bytes + e.headroom_bytes, e.total_bytes);
  EXPECT_EQ(e.budget_bytes, 8ull << 30);
  EXPECT_TRUE(p4.fits);
  // At tp 2 a rank needs 8,030,527,488 of weights alone plus 512 MiB of KV
  // and 20 % overhead: more than 8 GiB.
  ParallelPlan p2 = plan(m, t, 2, 1, ShardingRules::kVllm, 8ull << 30);
  EXPECT_FALSE(p2.ranks[0].estimate.fits);
  EXPECT_FALSE(p2.fits);
}

// tp 2 x pp 2, 16 layers a stage (218,120,192 each per rank):
//   vLLM stage 0: 16 x 218,120,192 + embedding 525,336,576          = 4,015,259,648
//   vLLM stage 1: 16 x 218,120,192 + LM head 525,336,576 + norm 8192 = 4,015,267,840
//   mlx every stage: 3,489,923,072 + embedding and head whole
//                    2 x 1,050,673,152 + norm 8192                   = 5,591,277,568
// KV per rank: 16 layers x 8192 x 2048 B = 268,435,456.
TEST(ParallelPlan, PipelineStagesHoldTheirLayersAndTheEngineEnds) {
  std::vector<SafetensorsTensor> t =
      dense_checkpoint(testing::corpus_spec("llama3/Meta-Llama-3.1-8B"), false);
  Model m = model_of("llama3/Meta-Llama-3.1-8B", t);
  ParallelPlan v = plan(m, t, 2, 2);
  ASSERT_EQ(v.ranks.size(), 4u);
  EXPECT_EQ(v.ranks[1].tp_rank, 1u);
  EXPECT_EQ(v.ranks[1].pp_stage, 0u);
  EXPECT_EQ(v.ranks[2].pp_stage, 1u);
  EXPECT_EQ(v.ranks[2].layers, (LayerRange{16, 32}));
  EXPECT_EQ(v.ranks[0].estimate.weights_bytes, 4'015'259'648u);
  EXPECT_EQ(v.ranks[3].estimate.weights_bytes, 4'015'267'840u);
  EXPECT_EQ(v.ranks[3].estimate.kv.total_bytes, 268'435'456u);
  ParallelPlan x = plan(m, t, 2, 2, ShardingRules::kMlxLm);
  EXPECT_EQ(x.ranks[0].estimate.weights_bytes, 5'591'277'568u);
  EXPECT_EQ(x.ranks[3].estimate.weights_bytes, 5'591'277'568u);
}

TEST(ParallelPlan, TiedEmbeddingIsAlsoTheLastStagesHead) {
  // Llama 3.2 1B (tied): 16 layers, hidden 2048, 32 x 64 q, 8 x 64 KV,
  // intermediate 8192. Per layer: q, o 8,388,608; k, v 2,097,152;
  // gate, up, down 33,554,432; two norms 8192 in all:
  //   2 x 8,388,608 + 2 x 2,097,152 + 3 x 33,554,432 + 8192 = 121,643,008.
  // Embedding 128256 x 2048 x 2 = 525,336,576.
  // pp 2: stage 0 = 8 x 121,643,008 + 525,336,576 = 1,498,480,640
  //       stage 1 = 8 x 121,643,008 + 525,336,576 (embedding as head) + 4096
  //               = 1,498,484,736
  std::vector<SafetensorsTensor> t =
      dense_checkpoint(testing::corpus_spec("llama3/Llama-3.2-1B-Instruct"), true);
  Model m = model_of("llama3/Llama-3.2-1B-Instruct", t);
  ParallelPlan p = plan(m, t, 1, 2);
  EXPECT_EQ(p.ranks[0].estimate.weights_bytes, 1'498'480'640u);
  EXPECT_EQ(p.ranks[1].estimate.weights_bytes, 1'498'484'736u);
}

// DeepSeek-V3 (MLA, FP8 weights, 1 byte each): one layer's attention,
//   q_a_proj 1536 x 7168            = 11,010,048  whole (ReplicatedLinear)
//   q_b_proj 24576 x 1536            = 37,748,736  / 8 =  4,718,592
//   kv_a_proj_with_mqa 576 x 7168    =  4,128,768  whole
//   kv_b_proj 32768 x 512            = 16,777,216  / 8 =  2,097,152
//   o_proj 7168 x 16384              = 117,440,512 / 8 = 14,680,064
//   q_b_proj.weight_scale_inv 192 x 12 F32 = 9216  / 8 =      1,152
TEST(ParallelTensors, DeepSeekMlaProjectionsAtTp8) {
  EXPECT_EQ(share(tensor("model.layers.0.self_attn.q_a_proj.weight", {1536, 7168}, 1), 8, 128),
            11'010'048u);
  EXPECT_EQ(share(tensor("model.layers.0.self_attn.q_b_proj.weight", {24576, 1536}, 1), 8, 128),
            4'718'592u);
  EXPECT_EQ(share(tensor("model.layers.0.self_attn.kv_a_proj_with_mqa.weight", {576, 7168}, 1), 8,
                  128),
            4'128'768u);
  EXPECT_EQ(share(tensor("model.layers.0.self_attn.kv_b_proj.weight", {32768, 512}, 1), 8, 128),
            2'097'152u);
  EXPECT_EQ(share(tensor("model.layers.0.self_attn.o_proj.weight", {7168, 16384}, 1), 8, 128),
            14'680'064u);
  EXPECT_EQ(share(tensor("model.layers.0.self_attn.q_b_proj.weight_scale_inv", {192, 12}, 4), 8,
                  128),
            1'152u);
}

// MLA's cache is one latent per token (kv_lora_rank 512 + rope 64 = 576
// elements, 1152 B at fp16) that every TP rank holds whole:
//   61 layers x 8192 x 1152 = 575,668,224 on every rank at tp 8;
//   pp 4 (15, 15, 16, 15 layers): stage 2 = 16 x 8192 x 1152 = 150,994,944.
TEST(ParallelPlan, MlaLatentCacheIsNotSplitByTp) {
  Model m = model_of("deepseek_v3/DeepSeek-V3", {});
  m.weights.bytes = 688'000'000'000;  // index-only: the proportional split
  KvCacheEstimate whole = testing::corpus_kv("deepseek_v3/DeepSeek-V3", 8192);
  ASSERT_EQ(whole.total_bytes, 575'668'224u);
  ParallelPlan p = plan(m, {}, 8, 1, ShardingRules::kVllm, 1ull << 40);
  ASSERT_EQ(p.ranks.size(), 8u);
  EXPECT_EQ(p.ranks[5].estimate.kv.total_bytes, 575'668'224u);
  EXPECT_FALSE(p.from_tensor_list);
  ParallelPlan pp = plan(m, {}, 8, 4, ShardingRules::kVllm, 1ull << 40);
  ASSERT_EQ(pp.ranks.size(), 32u);
  EXPECT_EQ(pp.ranks[16].layers, (LayerRange{30, 46}));
  EXPECT_EQ(pp.ranks[16].estimate.kv.total_bytes, 150'994'944u);
}

TEST(ParallelPlan, LayersPastTheDecoderAreNotLoaded) {
  // DeepSeek-V3 checkpoints carry layer 61, the multi-token-prediction
  // module, which neither engine loads for decoding.
  Model m = model_of("deepseek_v3/DeepSeek-V3", {});
  std::vector<SafetensorsTensor> t;
  for (int layer : {0, 60, 61}) {
    t.push_back(tensor("model.layers." + std::to_string(layer) + ".self_attn.o_proj.weight",
                       {7168, 16384}, 1));
  }
  m.weights.bytes = 3 * 117'440'512ull;
  ParallelPlan p = plan(m, t, 1, 2, ShardingRules::kVllm, 1ull << 40);
  // 61 layers, pp 2: 31 + 30 (vLLM gives the remainder to stage 0 here).
  EXPECT_EQ(p.ranks[0].layers, (LayerRange{0, 31}));
  EXPECT_EQ(p.ranks[0].estimate.weights_bytes, 117'440'512u);
  EXPECT_EQ(p.ranks[1].estimate.weights_bytes, 117'440'512u);
  bool said = false;
  for (const std::string& a : p.assumptions) said |= a.rfind("1 tensors of layers past the 61", 0) == 0;
  EXPECT_TRUE(said);
}

// Qwen3-30B-A3B (4 KV heads x 128, 128 experts of 768), one layer:
//   q, o 4096 x 2048 x 2 = 16,777,216; k, v 512 x 2048 x 2 = 2,097,152;
//   norms 2 x 4096 + q/k norms 2 x 256 = 8,704; router 128 x 2048 x 2 = 524,288;
//   experts 128 x 3 x 768 x 2048 x 2 = 1,207,959,552.
// tp 4 (1 KV head a rank): 2 x 4,194,304 + 2 x 524,288 + 8,704 + 524,288
//   + 301,989,888 = 311,960,064 per layer; x 48 = 14,974,083,072;
//   embedding and head 151936 / 4 = 37984 rows x 4096 B = 155,582,464 each;
//   final norm 4096 -> 15,285,252,096.
// tp 8: KV heads replicated (one a rank): k stays 524,288.
TEST(ParallelPlan, MoeExpertsSplitByTpRouterWhole) {
  ModelSpec spec = testing::corpus_spec("qwen3_moe/Qwen3-30B-A3B");
  ASSERT_EQ(spec.moe.experts, 128u);
  std::vector<SafetensorsTensor> t = qwen3_moe_checkpoint(spec);
  Model m = model_of("qwen3_moe/Qwen3-30B-A3B", t);
  EXPECT_EQ(m.weights.bytes, 61'064'245'248u);
  ParallelPlan p4 = plan(m, t, 4, 1, ShardingRules::kVllm, 1ull << 40);
  EXPECT_EQ(p4.ranks[0].estimate.weights_bytes, 15'285'252'096u);
  // KV: 48 layers x 8192 x (2 x 1 x 128 x 2 B) = 201,326,592 at tp 4 and 8.
  EXPECT_EQ(p4.ranks[0].estimate.kv.total_bytes, 201'326'592u);
  ParallelPlan p8 = plan(m, t, 8, 1, ShardingRules::kVllm, 1ull << 40);
  EXPECT_EQ(p8.ranks[7].estimate.kv.total_bytes, 201'326'592u);
  EXPECT_EQ(share(tensor("model.layers.0.self_attn.k_proj.weight", {512, 2048}), 8, 4), 524'288u);
  EXPECT_EQ(share(tensor("model.layers.0.mlp.gate.weight", {128, 2048}), 8, 4), 524'288u);
  EXPECT_EQ(share(tensor("model.layers.0.mlp.experts.9.up_proj.weight", {768, 2048}), 8, 4),
            393'216u);
}

TEST(ParallelPlan, EngineRefusalsAreErrors) {
  Model llama8 = model_of("llama3/Meta-Llama-3.1-8B", {});
  EXPECT_EQ(plan_error(llama8, 3, 1),
            "tensor parallel size 3 does not divide the model's 32 attention heads (vLLM requires "
            "num_attention_heads % tensor_parallel_size == 0)");
  // Llama 3.2 3B: 24 heads, 8 KV heads.
  Model llama3b = model_of("llama3/Llama-3.2-3B-Instruct", {});
  EXPECT_EQ(plan_error(llama3b, 6, 1),
            "tensor parallel size 6 does not divide the model's 8 KV heads (vLLM requires "
            "num_key_value_heads % tensor_parallel_size == 0)");
  EXPECT_EQ(plan_error(llama3b, 12, 1),
            "tensor parallel size 12 is not a multiple of the model's 8 KV heads (vLLM replicates "
            "KV heads only when tensor_parallel_size % num_key_value_heads == 0)");
  // mlx-lm cannot replicate KV heads: Qwen3-30B-A3B has 4.
  Model qwen = model_of("qwen3_moe/Qwen3-30B-A3B", {});
  EXPECT_EQ(plan_error(qwen, 8, 1, ShardingRules::kMlxLm),
            "tensor parallel size 8 does not divide the model's 4 KV heads (mlx-lm's shard() "
            "splits k_proj and v_proj evenly and cannot replicate KV heads)");
}

TEST(ParallelPlan, WithoutATensorListTheSplitIsProportionalAndSaysSo) {
  // Qwen3-14B-MLX-4bit as an index-only download: 8,307,783,680 B.
  Model m = model_of("mlx/Qwen3-14B-MLX-4bit", {});
  m.weights.bytes = 8'307'783'680;
  m.weights.source = WeightsSource::kSafetensorsIndex;
  m.weights.verified = false;
  ParallelPlan p = plan(m, {}, 2, 2);
  ASSERT_EQ(p.ranks.size(), 4u);
  EXPECT_FALSE(p.from_tensor_list);
  // One vocab x hidden matrix at the average bytes per parameter:
  // ceil(W x 151936 x 5120 / params); the rest over 40 layers.
  const uint64_t params = m.spec.analytical_params;
  ASSERT_GT(params, 0u);
  __extension__ unsigned __int128 wide =
      static_cast<unsigned __int128>(m.weights.bytes) * 151936 * 5120;
  uint64_t matrix = static_cast<uint64_t>((wide + params - 1) / params);
  uint64_t body = m.weights.bytes - 2 * matrix;
  // Stage 0 (20 of 40 layers) on one of 2 TP ranks:
  // ceil(ceil(body x 20 / 40) / 2) + ceil(matrix / 2) for the embedding.
  auto ceil_half = [](uint64_t v) { return v / 2 + v % 2; };
  EXPECT_EQ(p.ranks[0].estimate.weights_bytes, ceil_half(ceil_half(body)) + ceil_half(matrix));
  // The last stage holds the LM head instead.
  EXPECT_EQ(p.ranks[3].estimate.weights_bytes, p.ranks[0].estimate.weights_bytes);
  // Every rank together holds at least the checkpoint.
  uint64_t sum = 0;
  for (const RankEstimate& r : p.ranks) sum += r.estimate.weights_bytes;
  EXPECT_GE(sum, m.weights.bytes);
  bool said = false;
  for (const std::string& a : p.assumptions) said |= a.find("split proportionally") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace memfit
