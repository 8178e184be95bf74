// One fixture per layer kind and per config form that says which layers
// are which (tests/data/fixtures). fp16 (2 B) KV, f32 (4 B) recurrent
// state; expected bytes worked out in each comment.
#include <gtest/gtest.h>

#include "memfit/kv_cache.h"
#include "memfit/model_spec.h"
#include "support/corpus.h"

namespace memfit {
namespace {

using testing::fixture_kv;
using testing::fixture_spec;

uint64_t count_kind(const ModelSpec& spec, LayerKind kind) {
  return std::count_if(spec.layers.begin(), spec.layers.end(),
                       [kind](const LayerCache& l) { return l.kind == kind; });
}

TEST(LayerKinds, ChunkedLlama4EveryFourthLayerGlobal) {
  // 48 layers; (i + 1) % 4 == 0 global: 12 full, 36 chunked at 8192.
  // 2 x 8 kv x 128 = 2048 elements = 4096 B per layer per token.
  // ctx 32768: full 12 x 4096 x 32768 = 1,610,612,736;
  //            chunked 36 x 4096 x 8192 = 1,207,959,552; total 2,818,572,288.
  ModelSpec spec = fixture_spec("llama4-chunked");
  EXPECT_EQ(spec.layout, "chunked");
  EXPECT_EQ(spec.family, "llama4");
  EXPECT_EQ(count_kind(spec, LayerKind::kChunked), 36u);
  EXPECT_EQ(spec.layers[3].kind, LayerKind::kFullAttention);
  EXPECT_EQ(fixture_kv("llama4-chunked", 32768).total_bytes, 2818572288u);
  // At the chunk size every layer holds the whole context: 48 x 4096 x 8192 = 1,610,612,736.
  EXPECT_EQ(fixture_kv("llama4-chunked", 8192).total_bytes, 1610612736u);
}

TEST(LayerKinds, ChunkedLayersNamedInLayerTypesTakeTheChunkSize) {
  // Recent Llama 4 configs list their layers; the chunked ones attend
  // within attention_chunk_size (here 4096), not the whole context.
  Result<ModelSpec> spec = parse_model_config(R"({
    "model_type": "llama4_text", "num_hidden_layers": 4, "hidden_size": 1024,
    "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 128,
    "attention_chunk_size": 4096,
    "layer_types": ["chunked_attention", "chunked_attention", "chunked_attention",
                    "full_attention"]})");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->layers[0].kind, LayerKind::kChunked);
  EXPECT_EQ(spec->layers[0].window_tokens, 4096u);
  EXPECT_EQ(spec->layers[3].kind, LayerKind::kFullAttention);
  EXPECT_EQ(spec->layers[3].window_tokens, 0u);
}

TEST(LayerKinds, MimoV2FlashWindowLayersByPatternWithTheirOwnKAndVDims) {
  // MiMo-V2-Flash's form (XiaomiMiMo/MiMo-V2-Flash config.json): layer i
  // slides when hybrid_layer_pattern[i] == 1, over sliding_window tokens,
  // with swa_num_key_value_heads at swa_head_dim (K) and swa_v_head_dim
  // (V); the full layers num_key_value_heads at head_dim and v_head_dim.
  // The attention_chunk_size beside them is not Llama 4's chunking.
  // Full: 4 x (192 + 128) = 1,280 elements; sliding: 8 x 320 = 2,560.
  Result<ModelSpec> spec = parse_model_config(R"({
    "model_type": "mimo_v2_flash", "num_hidden_layers": 4, "hidden_size": 4096,
    "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 192, "v_head_dim": 128,
    "swa_num_attention_heads": 64, "swa_num_key_value_heads": 8, "swa_head_dim": 192,
    "swa_v_head_dim": 128, "sliding_window": 128, "attention_chunk_size": 128,
    "hybrid_layer_pattern": [0, 1, 1, 0], "intermediate_size": 16384, "vocab_size": 152576})");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->layers[0].kind, LayerKind::kFullAttention);
  EXPECT_EQ(spec->layers[0].elems_per_token, 1280u);
  EXPECT_EQ(spec->layers[1].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(spec->layers[1].window_tokens, 128u);
  EXPECT_EQ(spec->layers[1].elems_per_token, 2560u);
  EXPECT_EQ(spec->layers[3].kind, LayerKind::kFullAttention);
  // A pattern of another value is refused.
  Result<ModelSpec> bad = parse_model_config(R"({
    "model_type": "mimo_v2_flash", "num_hidden_layers": 2, "hidden_size": 64,
    "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
    "hybrid_layer_pattern": [0, 2]})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("hybrid_layer_pattern[1] = 2 is not 0 or 1"), std::string::npos)
      << bad.error().message();
}

TEST(LayerKinds, SharedKvLayersHoldNothingGemma3n) {
  // 30 layers, the last 10 share KV. Of the first 20, i % 5 == 4 are full (4),
  // 16 sliding at 512. 2 x 2 kv x 256 = 1024 elements = 2048 B per layer per token.
  // full 4 x 2048 x 8192 = 67,108,864; sliding 16 x 2048 x 512 = 16,777,216;
  // shared 0; total 83,886,080.
  ModelSpec spec = fixture_spec("gemma3n-shared-kv");
  EXPECT_EQ(count_kind(spec, LayerKind::kSharedKv), 10u);
  KvCacheEstimate kv = fixture_kv("gemma3n-shared-kv", 8192);
  EXPECT_EQ(kv.total_bytes, 83886080u);
}

// Gemma 4 E4B's text config as transformers' Gemma4TextConfig writes it
// (google/gemma-4-E4B-it, under text_config): 42 layers, five windowed
// then one global, the last 18 reading earlier layers' KV; the windowed
// layers' heads head_dim 256 wide, the global layers' global_head_dim 512.
constexpr const char* kGemma4E4b = R"({
  "model_type": "gemma4",
  "text_config": {
    "model_type": "gemma4_text", "num_hidden_layers": 42, "hidden_size": 2560,
    "intermediate_size": 10240, "num_attention_heads": 8, "num_key_value_heads": 2,
    "head_dim": 256, "global_head_dim": 512, "num_kv_shared_layers": 18,
    "sliding_window": 512, "vocab_size": 262144, "hidden_size_per_layer_input": 256,
    "layer_types": [
      "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "full_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "full_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "full_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
      "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention",
      "sliding_attention", "full_attention"]}})";

TEST(LayerKinds, Gemma4GlobalLayersCacheTheirWiderHeads) {
  // Layers 0..23 hold KV (42 - 18 shared): global 5, 11, 17, 23 (4),
  // windowed 20. Windowed: 2 x 2 kv x 256 = 1,024 elements; global
  // 2 x 2 kv x 512 = 2,048 (llama.cpp's n_embd_k_gqa 512 and 1024 per K row).
  Result<ModelSpec> spec = parse_model_config(kGemma4E4b);
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(count_kind(*spec, LayerKind::kSharedKv), 18u);
  EXPECT_EQ(count_kind(*spec, LayerKind::kFullAttention), 4u);
  EXPECT_EQ(count_kind(*spec, LayerKind::kSlidingWindow), 20u);
  EXPECT_EQ(spec->layers[0].elems_per_token, 1024u);
  EXPECT_EQ(spec->layers[5].elems_per_token, 2048u);
  EXPECT_EQ(spec->layers[5].kind, LayerKind::kFullAttention);
  EXPECT_EQ(spec->layers[29].kind, LayerKind::kSharedKv);
  // fp16, 65,536 tokens: global 4 x 2,048 x 2 B x 65,536 = 1,073,741,824;
  // windowed 20 x 1,024 x 2 B x 512 (the window) = 20,971,520;
  // total 1,094,713,344 (the log's non-SWA cache is 1024.00 MiB).
  Result<KvCacheEstimate> kv = estimate_kv_cache(*spec, 65536, 1, KvElement::kFp16);
  ASSERT_TRUE(kv.ok()) << kv.error().message();
  EXPECT_EQ(kv->total_bytes, 1094713344u);
}

TEST(LayerKinds, Gemma4GlobalKvHeadsApplyToTheGlobalLayers) {
  // Gemma 4 31B's form: num_global_key_value_heads 4 beside 16 windowed
  // KV heads. 2 layers: windowed 2 x 16 x 256 = 8,192 elements; global
  // 2 x 4 x 512 = 4,096.
  Result<ModelSpec> spec = parse_model_config(R"({
    "model_type": "gemma4_text", "num_hidden_layers": 2, "hidden_size": 5376,
    "num_attention_heads": 32, "num_key_value_heads": 16, "num_global_key_value_heads": 4,
    "head_dim": 256, "global_head_dim": 512, "sliding_window": 1024,
    "layer_types": ["sliding_attention", "full_attention"]})");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->layers[0].elems_per_token, 8192u);
  EXPECT_EQ(spec->layers[1].elems_per_token, 4096u);
}

TEST(LayerKinds, JambaAttentionByPeriodAndOffset) {
  // attention where i % 8 == 4: layers 4, 12, 20, 28.
  // attention 4 x (2 x 8 x 128 x 2 B = 4096) x 8192 = 134,217,728.
  // mamba (d_inner 2 x 4096 = 8192): conv 3 x 8192 = 24,576; ssm 8192 x 16 = 131,072;
  //   155,648 x 4 = 622,592 B per layer; 28 layers = 17,432,576.
  // total 151,650,304.
  ModelSpec spec = fixture_spec("jamba-period");
  EXPECT_EQ(spec.layers[4].kind, LayerKind::kFullAttention);
  EXPECT_EQ(spec.layers[5].kind, LayerKind::kSsm);
  EXPECT_EQ(fixture_kv("jamba-period", 8192).total_bytes, 151650304u);
}

TEST(LayerKinds, FalconH1HasAttentionAndSsmInEveryLayer) {
  // attention 24 x (2 x 2 x 128 x 2 B = 1024) x 8192 = 201,326,592.
  // mamba2 per layer: conv 3 x (3072 d_ssm + 2 x 1 x 256) = 10,752;
  //   ssm 24 x 128 x 256 = 786,432; 797,184 x 4 = 3,188,736; x 24 = 76,529,664.
  // total 277,856,256.
  ModelSpec spec = fixture_spec("falcon-h1-parallel");
  EXPECT_EQ(spec.layout, "hybrid");
  KvCacheEstimate kv = fixture_kv("falcon-h1-parallel", 8192);
  EXPECT_EQ(kv.total_bytes, 277856256u);
  ASSERT_EQ(kv.groups.size(), 1u);
  EXPECT_EQ(kv.groups[0].fixed_bytes, 76529664u);
}

TEST(LayerKinds, GraniteHybridWithAutoHeadDim) {
  // layer_types: attention at i % 10 == 5 (4 layers), 36 mamba.
  // head_dim 1536 / 12 = 128: attention 4 x (2 x 4 x 128 x 2 B = 2048) x 8192 = 67,108,864.
  // mamba_d_head "auto" = 2 x 1536 / 48 = 64; d_ssm 3072:
  //   conv 3 x (3072 + 2 x 1 x 128) = 9,984; ssm 48 x 64 x 128 = 393,216;
  //   403,200 x 4 = 1,612,800; x 36 = 58,060,800.
  // total 125,169,664.
  EXPECT_EQ(fixture_kv("granite-hybrid", 8192).total_bytes, 125169664u);
}

TEST(LayerKinds, LightningAttentionMiniMax) {
  // attn_type_list: 2 softmax, 6 lightning.
  // softmax 2 x (2 x 8 x 128 x 2 B = 4096) x 8192 = 67,108,864.
  // lightning 64 heads x 128 x 128 = 1,048,576 x 4 = 4,194,304; x 6 = 25,165,824.
  // total 92,274,688.
  ModelSpec spec = fixture_spec("minimax-lightning");
  EXPECT_EQ(count_kind(spec, LayerKind::kLinearAttention), 6u);
  EXPECT_EQ(fixture_kv("minimax-lightning", 8192).total_bytes, 92274688u);
}

TEST(LayerKinds, GatedDeltaNetByFullAttentionInterval) {
  // interval 4: 12 full, 36 linear.
  // full 12 x (2 x 2 x 256 x 2 B = 2048) x 8192 = 201,326,592.
  // delta: conv 3 x (2 x 16 x 128 + 32 x 128) = 3 x 8192 = 24,576;
  //   recurrent 32 x 128 x 128 = 524,288; 548,864 x 4 = 2,195,456; x 36 = 79,036,416.
  // total 280,363,008.
  EXPECT_EQ(fixture_kv("qwen3-next-interval", 8192).total_bytes, 280363008u);
}

TEST(LayerKinds, MlaWithIndexerCachesTheIndexKey) {
  // (512 latent + 64 rope + 128 indexer key) = 704 elements = 1408 B per layer per token;
  // 61 layers = 85,888 B/token; x 8192 = 703,594,496.
  KvCacheEstimate kv = fixture_kv("deepseek-v32-indexer", 8192);
  EXPECT_EQ(kv.total_bytes, 703594496u);
  EXPECT_EQ(kv.unbounded_fp16_bytes_per_token, 85888u);
}

TEST(LayerKinds, BlockConfigsGiveEachLayerItsOwnKvHeads) {
  // head_dim 8192 / 64 = 128. Layer 0: 64 / 8 = 8 kv heads (2 x 8 x 128 x 2 B = 4096 B);
  // layers 1, 2: no cache; layer 3: 64 / 4 = 16 kv heads (8192 B).
  // (4096 + 8192) x 8192 = 100,663,296.
  ModelSpec spec = fixture_spec("nemotron-nas-blocks");
  EXPECT_EQ(count_kind(spec, LayerKind::kNone), 2u);
  EXPECT_EQ(fixture_kv("nemotron-nas-blocks", 8192).total_bytes, 100663296u);
}

TEST(LayerKinds, ConvLayersByLayerTypes) {
  // 1 attention: 2 x 8 x 64 (1024 / 16) x 2 B = 2048 x 8192 = 16,777,216;
  // 3 conv: (3 - 1) x 1024 x 4 = 8192 each = 24,576. total 16,801,792.
  ModelSpec spec = fixture_spec("lfm2-layer-types");
  EXPECT_EQ(count_kind(spec, LayerKind::kConv), 3u);
  EXPECT_EQ(fixture_kv("lfm2-layer-types", 8192).total_bytes, 16801792u);
}

TEST(LayerKinds, UnknownModelTypeUsesTheGeometry) {
  // standard: 10 x (2 x 4 x 64 x 2 B = 1024) x 8192 = 83,886,080.
  ModelSpec spec = fixture_spec("unknown-type");
  EXPECT_EQ(spec.layout, "standard");
  EXPECT_EQ(spec.family, "brand_new_arch");
  EXPECT_EQ(fixture_kv("unknown-type", 8192).total_bytes, 83886080u);
}

}  // namespace
}  // namespace memfit
