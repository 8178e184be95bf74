// model_spec_from_gguf: GGUF metadata carrying the geometry of a real
// config.json (tests/data/corpus), as llama.cpp's converter writes it, gives
// the spec the config gives; llama.cpp's own rules where it treats a model
// differently; and one clear error per kind of broken metadata.
#include <gtest/gtest.h>

#include <numeric>
#include <string>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/kv_cache.h"
#include "memfit/model_spec.h"
#include "support/corpus.h"
#include "support/gguf_writer.h"

namespace memfit {
namespace {

using testing::corpus_spec;

// `writer`'s metadata parsed back.
GgufHeader header_of(const GgufWriter& writer) {
  const std::string bytes = writer.bytes();
  Result<GgufHeader> header = parse_gguf_header(bytes, bytes.size());
  EXPECT_TRUE(header.ok()) << header.error().message();
  return header.ok() ? *header : GgufHeader{};
}

ModelSpec gguf_spec(const GgufWriter& writer) {
  Result<ModelSpec> spec = model_spec_from_gguf(header_of(writer));
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

std::string gguf_error(const GgufWriter& writer) {
  Result<ModelSpec> spec = model_spec_from_gguf(header_of(writer));
  EXPECT_FALSE(spec.ok());
  return spec.ok() ? "" : spec.error().message();
}

// Layers, family, layout, geometry and MoE shape as the config gives them.
void expect_same_spec(const ModelSpec& gguf, const ModelSpec& config) {
  EXPECT_EQ(gguf.layers, config.layers);
  EXPECT_EQ(gguf.family, config.family);
  EXPECT_EQ(gguf.layout, config.layout);
  EXPECT_EQ(gguf.cache_detail, config.cache_detail);
  EXPECT_EQ(gguf.geometry.layers, config.geometry.layers);
  EXPECT_EQ(gguf.geometry.hidden, config.geometry.hidden);
  EXPECT_EQ(gguf.geometry.heads, config.geometry.heads);
  EXPECT_EQ(gguf.geometry.kv_heads, config.geometry.kv_heads);
  EXPECT_EQ(gguf.geometry.head_dim, config.geometry.head_dim);
  EXPECT_EQ(gguf.geometry.vocab, config.geometry.vocab);
  EXPECT_EQ(gguf.moe.experts, config.moe.experts);
  EXPECT_EQ(gguf.moe.experts_per_token, config.moe.experts_per_token);
  EXPECT_EQ(gguf.moe.shared_experts, config.moe.shared_experts);
}

uint64_t elems_per_token(const ModelSpec& spec) {
  return std::accumulate(spec.layers.begin(), spec.layers.end(), uint64_t{0},
                         [](uint64_t sum, const LayerCache& l) { return sum + l.elems_per_token; });
}

uint64_t count_kind(const ModelSpec& spec, LayerKind kind) {
  return std::count_if(spec.layers.begin(), spec.layers.end(),
                       [kind](const LayerCache& l) { return l.kind == kind; });
}

GgufWriter arch(std::string_view name) {
  GgufWriter w;
  w.add_string("general.architecture", name);
  return w;
}

// Qwen3-8B as convert_hf_to_gguf.py writes it, the vocabulary as the token
// list (151,936 tokens) rather than a vocab_size key.
GgufWriter qwen3_8b() {
  GgufWriter w = arch("qwen3");
  w.add_u32("qwen3.block_count", 36)
      .add_u32("qwen3.context_length", 40960)
      .add_u32("qwen3.embedding_length", 4096)
      .add_u32("qwen3.feed_forward_length", 12288)
      .add_u32("qwen3.attention.head_count", 32)
      .add_u32("qwen3.attention.head_count_kv", 8)
      .add_u32("qwen3.attention.key_length", 128)
      .add_u32("qwen3.attention.value_length", 128)
      .add_f32("qwen3.rope.freq_base", 1000000.0f)
      .add_string_array("tokenizer.ggml.tokens", std::vector<std::string>(151936, "t"));
  return w;
}

TEST(GgufGeometry, Qwen3DenseMatchesItsConfig) {
  const ModelSpec spec = gguf_spec(qwen3_8b());
  expect_same_spec(spec, corpus_spec("qwen3/Qwen3-8B"));
  EXPECT_EQ(spec.model_type, "qwen3");  // general.architecture, verbatim
  EXPECT_EQ(spec.family, "qwen3");
  EXPECT_EQ(spec.max_position_tokens, 40960u);
  EXPECT_EQ(spec.geometry.vocab, 151936u);
  EXPECT_EQ(spec.geometry.intermediate, 12288u);
  EXPECT_TRUE(spec.assumptions.empty()) << spec.assumptions.front();
  // 36 layers x 2 (K, V) x 8 KV heads x 128 head_dim = 73,728 elements per
  // token; x 2 bytes = 147,456 B.
  EXPECT_EQ(elems_per_token(spec), 73728u);
  Result<KvCacheEstimate> kv = estimate_kv_cache(spec, 8192, 1, KvElement::kFp16);
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->unbounded_fp16_bytes_per_token, 147456u);
  EXPECT_EQ(kv->total_bytes, 147456u * 8192);  // 1,207,959,552
}

TEST(GgufGeometry, Qwen2MoeWithoutTheSharedWidthKeyTakesFeedForwardLength) {
  // ggml-org/llama.cpp#9628's Qwen2 57B A14B (an older converter's file):
  // no expert_shared_feed_forward_length; llama.cpp's loader then sizes
  // the always-loaded shared expert at feed_forward_length, 20480 (n_ff_shexp
  // = hparams.n_ff_shexp ? hparams.n_ff_shexp : n_ff).
  GgufWriter w = arch("qwen2moe");
  w.add_u32("qwen2moe.block_count", 28)
      .add_u32("qwen2moe.context_length", 32768)
      .add_u32("qwen2moe.embedding_length", 3584)
      .add_u32("qwen2moe.feed_forward_length", 20480)
      .add_u32("qwen2moe.attention.head_count", 28)
      .add_u32("qwen2moe.attention.head_count_kv", 4)
      .add_u32("qwen2moe.expert_count", 64)
      .add_u32("qwen2moe.expert_used_count", 8)
      .add_u32("qwen2moe.expert_feed_forward_length", 2560);
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(spec.moe.shared_expert_intermediate, 20480u);
  EXPECT_EQ(spec.moe.shared_experts, 1u);
  EXPECT_EQ(spec.moe.expert_intermediate, 2560u);
  // A file that gives the key keeps it.
  GgufWriter keyed = arch("qwen2moe");
  keyed.add_u32("qwen2moe.block_count", 24)
      .add_u32("qwen2moe.context_length", 8192)
      .add_u32("qwen2moe.embedding_length", 2048)
      .add_u32("qwen2moe.feed_forward_length", 5632)
      .add_u32("qwen2moe.attention.head_count", 16)
      .add_u32("qwen2moe.attention.head_count_kv", 16)
      .add_u32("qwen2moe.expert_count", 60)
      .add_u32("qwen2moe.expert_used_count", 4)
      .add_u32("qwen2moe.expert_feed_forward_length", 1408)
      .add_u32("qwen2moe.expert_shared_feed_forward_length", 5632);
  EXPECT_EQ(gguf_spec(keyed).moe.shared_expert_intermediate, 5632u);
}

TEST(GgufGeometry, Qwen3MoeMatchesItsConfig) {
  GgufWriter w = arch("qwen3moe");
  w.add_u32("qwen3moe.block_count", 48)
      .add_u32("qwen3moe.context_length", 40960)
      .add_u32("qwen3moe.embedding_length", 2048)
      .add_u32("qwen3moe.feed_forward_length", 6144)
      .add_u32("qwen3moe.attention.head_count", 32)
      .add_u32("qwen3moe.attention.head_count_kv", 4)
      .add_u32("qwen3moe.attention.key_length", 128)
      .add_u32("qwen3moe.attention.value_length", 128)
      .add_u32("qwen3moe.expert_count", 128)
      .add_u32("qwen3moe.expert_used_count", 8)
      .add_u32("qwen3moe.expert_feed_forward_length", 768)
      .add_u32("qwen3moe.vocab_size", 151936);
  const ModelSpec spec = gguf_spec(w);
  expect_same_spec(spec, corpus_spec("qwen3_moe/Qwen3-30B-A3B"));
  EXPECT_EQ(spec.family, "qwen3_moe");
  EXPECT_EQ(spec.moe.experts, 128u);
  EXPECT_EQ(spec.moe.experts_per_token, 8u);
  // 48 x 2 x 4 x 128 = 49,152 elements per token.
  EXPECT_EQ(elems_per_token(spec), 49152u);
}

// Gemma 4 E2B as its GGUF's dump prints it (tests/data/logs/llamacpp/
// llamacpp-kbagent-gemma4-e2b-q4km-m4-metal.log): 35 layers, four windowed
// then one global (the pattern's flags), the last 20 sharing KV; windowed
// heads 256 wide (key_length_swa), global 512 (key_length).
GgufWriter gemma4_e2b() {
  std::vector<int32_t> pattern;
  for (int i = 0; i < 35; ++i) pattern.push_back(i % 5 != 4 ? 1 : 0);
  GgufWriter w = arch("gemma4");
  w.add_u32("gemma4.block_count", 35)
      .add_u32("gemma4.context_length", 131072)
      .add_u32("gemma4.embedding_length", 1536)
      .add_u32("gemma4.feed_forward_length", 6144)
      .add_u32("gemma4.attention.head_count", 8)
      .add_u32("gemma4.attention.head_count_kv", 1)
      .add_u32("gemma4.attention.key_length", 512)
      .add_u32("gemma4.attention.value_length", 512)
      .add_u32("gemma4.attention.sliding_window", 512)
      .add_u32("gemma4.attention.shared_kv_layers", 20)
      .add_i32_array("gemma4.attention.sliding_window_pattern", pattern)
      .add_u32("gemma4.attention.key_length_swa", 256)
      .add_u32("gemma4.attention.value_length_swa", 256)
      .add_u32("gemma4.vocab_size", 262144);
  return w;
}

TEST(GgufGeometry, Gemma4CachesOnlyItsFirstLayersEachAtItsOwnHeadWidth) {
  const ModelSpec spec = gguf_spec(gemma4_e2b());
  EXPECT_EQ(spec.family, "gemma4");
  // Layers 0..14 hold KV (n_layer_kv_from_start = 35 - 20): global 4, 9,
  // 14; windowed the other 12; 20 shared.
  EXPECT_EQ(count_kind(spec, LayerKind::kFullAttention), 3u);
  EXPECT_EQ(count_kind(spec, LayerKind::kSlidingWindow), 12u);
  EXPECT_EQ(count_kind(spec, LayerKind::kSharedKv), 20u);
  EXPECT_EQ(spec.layers[4].kind, LayerKind::kFullAttention);
  EXPECT_EQ(spec.layers[3].window_tokens, 512u);
  // Windowed 2 x 1 x 256 = 512 elements, global 2 x 1 x 512 = 1,024: the
  // dump's n_embd_k_gqa 256 and 512 per K row. 12 x 512 + 3 x 1,024 = 9,216.
  EXPECT_EQ(spec.layers[0].elems_per_token, 512u);
  EXPECT_EQ(spec.layers[4].elems_per_token, 1024u);
  EXPECT_EQ(elems_per_token(spec), 9216u);
}

TEST(GgufGeometry, Gemma4NeedsItsWindowPattern) {
  // llama.cpp reads gemma4's pattern with get_key_or_arr, required.
  GgufWriter w = arch("gemma4");
  w.add_u32("gemma4.block_count", 2)
      .add_u32("gemma4.embedding_length", 512)
      .add_u32("gemma4.attention.head_count", 4)
      .add_u32("gemma4.attention.sliding_window", 512)
      .add_u32("gemma4.attention.key_length_swa", 128)
      .add_u32("gemma4.attention.value_length_swa", 128)
      .add_u32("gemma4.vocab_size", 32000);
  EXPECT_EQ(gguf_error(w),
            "gguf metadata: 'gemma4.attention.sliding_window_pattern' is missing (llama.cpp "
            "requires it for gemma4)");
}

TEST(GgufGeometry, Gemma4GlobalLayersTakeTheirOwnKvHeadCount) {
  // The 31B's form: head_count_kv per layer, 16 on the windowed layers
  // and 4 on the global. Layer 0 windowed: 2 x 16 x 256 = 8,192
  // elements; layer 1 global: 2 x 4 x 512 = 4,096.
  GgufWriter w = arch("gemma4");
  w.add_u32("gemma4.block_count", 2)
      .add_u32("gemma4.embedding_length", 5376)
      .add_u32("gemma4.attention.head_count", 32)
      .add_u32_array("gemma4.attention.head_count_kv", {16, 4})
      .add_u32("gemma4.attention.key_length", 512)
      .add_u32("gemma4.attention.value_length", 512)
      .add_u32("gemma4.attention.sliding_window", 1024)
      .add_i32_array("gemma4.attention.sliding_window_pattern", {1, 0})
      .add_u32("gemma4.attention.key_length_swa", 256)
      .add_u32("gemma4.attention.value_length_swa", 256)
      .add_u32("gemma4.vocab_size", 262144);
  const ModelSpec spec = gguf_spec(w);
  ASSERT_EQ(spec.layers.size(), 2u);
  EXPECT_EQ(spec.layers[0].elems_per_token, 8192u);
  EXPECT_EQ(spec.layers[1].elems_per_token, 4096u);
}

TEST(GgufGeometry, Gemma3WindowsFiveLayersInSixByLlamaCppsRule) {
  GgufWriter w = arch("gemma3");
  w.add_u32("gemma3.block_count", 26)
      .add_u32("gemma3.context_length", 32768)
      .add_u32("gemma3.embedding_length", 1152)
      .add_u32("gemma3.feed_forward_length", 6912)
      .add_u32("gemma3.attention.head_count", 4)
      .add_u32("gemma3.attention.head_count_kv", 1)
      .add_u32("gemma3.attention.key_length", 256)
      .add_u32("gemma3.attention.value_length", 256)
      .add_u32("gemma3.attention.sliding_window", 512)
      .add_u32("gemma3.vocab_size", 262144);
  const ModelSpec spec = gguf_spec(w);
  expect_same_spec(spec, corpus_spec("gemma3/gemma-3-1b-it"));
  EXPECT_EQ(spec.family, "gemma3");
  // Layers 5, 11, 17, 23 global; the other 22 within 512 tokens.
  EXPECT_EQ(count_kind(spec, LayerKind::kFullAttention), 4u);
  EXPECT_EQ(count_kind(spec, LayerKind::kSlidingWindow), 22u);
  EXPECT_EQ(spec.layers[5].kind, LayerKind::kFullAttention);
  EXPECT_EQ(spec.layers[4].window_tokens, 512u);
  ASSERT_EQ(spec.assumptions.size(), 1u);
  EXPECT_EQ(spec.assumptions[0],
            "gemma3: layers 5, 11, 17, ... (one in 6) attend to the whole context, the others "
            "within the 512-token window (llama.cpp's rule; the file does not say)");
  // 2 x 1 x 256 = 512 elements = 1,024 B per layer per token. At 32,768
  // tokens: full 4 x 1,024 x 32,768 = 134,217,728; sliding 22 x 1,024 x 512
  // = 11,534,336; in all 145,752,064.
  Result<KvCacheEstimate> kv = estimate_kv_cache(spec, 32768, 1, KvElement::kFp16);
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->total_bytes, 145752064u);
}

TEST(GgufGeometry, DeepSeekV3CachesTheMlaLatent) {
  GgufWriter w = arch("deepseek2");
  w.add_u32("deepseek2.block_count", 61)
      .add_u32("deepseek2.context_length", 163840)
      .add_u32("deepseek2.embedding_length", 7168)
      .add_u32("deepseek2.feed_forward_length", 18432)
      .add_u32("deepseek2.attention.head_count", 128)
      .add_u32("deepseek2.attention.head_count_kv", 1)  // MLA: one latent "head"
      .add_u32("deepseek2.attention.key_length", 576)
      .add_u32("deepseek2.attention.value_length", 512)
      .add_u32("deepseek2.attention.key_length_mla", 192)
      .add_u32("deepseek2.attention.value_length_mla", 128)
      .add_u32("deepseek2.attention.q_lora_rank", 1536)
      .add_u32("deepseek2.attention.kv_lora_rank", 512)
      .add_u32("deepseek2.rope.dimension_count", 64)
      .add_u32("deepseek2.leading_dense_block_count", 3)
      .add_u32("deepseek2.expert_count", 256)
      .add_u32("deepseek2.expert_used_count", 8)
      .add_u32("deepseek2.expert_shared_count", 1)
      .add_u32("deepseek2.expert_feed_forward_length", 2048)
      .add_u32("deepseek2.vocab_size", 129280);
  const ModelSpec spec = gguf_spec(w);
  const ModelSpec config = corpus_spec("deepseek_v3/DeepSeek-V3");
  expect_same_spec(spec, config);
  EXPECT_EQ(spec.layout, "mla");
  EXPECT_EQ(spec.model_type, "deepseek2");
  // 61 layers x (512 kv_lora_rank + 64 rope) = 35,136 elements per token,
  // as llama.cpp's one 576-wide K row per layer.
  EXPECT_EQ(elems_per_token(spec), 35136u);
  EXPECT_EQ(spec.layers[0].kind, LayerKind::kMlaLatent);
  EXPECT_EQ(spec.analytical_params, config.analytical_params);
}

TEST(GgufGeometry, DeepSeekV32AddsTheIndexerKeyToEachLatentLayer) {
  // DeepSeek-V3.2-Exp as llama.cpp's converter writes it: deepseek2's MLA
  // keys under deepseek32, plus the lightning indexer's (one key head of
  // 128). llama.cpp caches the indexer key beside the latent in the K type
  // (llama_kv_cache_dsa): 512 + 64 + 128 = 704 elements per layer per
  // token, the config's rate.
  GgufWriter w = arch("deepseek32");
  w.add_u32("deepseek32.block_count", 61)
      .add_u32("deepseek32.context_length", 163840)
      .add_u32("deepseek32.embedding_length", 7168)
      .add_u32("deepseek32.feed_forward_length", 18432)
      .add_u32("deepseek32.attention.head_count", 128)
      .add_u32("deepseek32.attention.head_count_kv", 1)
      .add_u32("deepseek32.attention.key_length", 576)
      .add_u32("deepseek32.attention.value_length", 512)
      .add_u32("deepseek32.attention.key_length_mla", 192)
      .add_u32("deepseek32.attention.value_length_mla", 128)
      .add_u32("deepseek32.attention.q_lora_rank", 1536)
      .add_u32("deepseek32.attention.kv_lora_rank", 512)
      .add_u32("deepseek32.attention.indexer.head_count", 64)
      .add_u32("deepseek32.attention.indexer.key_length", 128)
      .add_u32("deepseek32.attention.indexer.top_k", 2048)
      .add_u32("deepseek32.rope.dimension_count", 64)
      .add_u32("deepseek32.leading_dense_block_count", 3)
      .add_u32("deepseek32.expert_count", 256)
      .add_u32("deepseek32.expert_used_count", 8)
      .add_u32("deepseek32.expert_shared_count", 1)
      .add_u32("deepseek32.expert_feed_forward_length", 2048)
      .add_u32("deepseek32.vocab_size", 129280);
  const ModelSpec spec = gguf_spec(w);
  const ModelSpec config = corpus_spec("deepseek_v32/DeepSeek-V3.2-Exp-ptpc");
  expect_same_spec(spec, config);
  EXPECT_EQ(spec.model_type, "deepseek32");
  EXPECT_EQ(spec.family, "deepseek_v32");
  EXPECT_EQ(spec.layers[0].kind, LayerKind::kMlaLatent);
  EXPECT_EQ(elems_per_token(spec), 61u * 704);
}

TEST(GgufGeometry, DeepSeekV32NeedsItsIndexerKeyLength) {
  // llama.cpp requires attention.indexer.key_length of a deepseek32 file.
  GgufWriter w = arch("deepseek32");
  w.add_u32("deepseek32.block_count", 4)
      .add_u32("deepseek32.embedding_length", 512)
      .add_u32("deepseek32.attention.head_count", 8)
      .add_u32("deepseek32.attention.head_count_kv", 1)
      .add_u32("deepseek32.attention.key_length_mla", 192)
      .add_u32("deepseek32.attention.value_length_mla", 128)
      .add_u32("deepseek32.attention.kv_lora_rank", 256)
      .add_u32("deepseek32.rope.dimension_count", 64)
      .add_u32("deepseek32.vocab_size", 32000);
  const std::string error = gguf_error(w);
  EXPECT_NE(error.find("attention.indexer.key_length"), std::string::npos) << error;
}

TEST(GgufGeometry, DeepSeekWithoutMlaLengthsRunsDecompressed) {
  // A file converted before llama.cpp's MLA support: K and V per head, 16
  // heads x (192 + 128) = 5,120 elements per layer per token.
  GgufWriter w = arch("deepseek2");
  w.add_u32("deepseek2.block_count", 27)
      .add_u32("deepseek2.embedding_length", 2048)
      .add_u32("deepseek2.attention.head_count", 16)
      .add_u32("deepseek2.attention.head_count_kv", 16)
      .add_u32("deepseek2.attention.key_length", 192)
      .add_u32("deepseek2.attention.value_length", 128)
      .add_u32("deepseek2.attention.kv_lora_rank", 512)
      .add_u32("deepseek2.rope.dimension_count", 64)
      .add_u32("deepseek2.vocab_size", 102400);
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(spec.family, "deepseek_v2");
  EXPECT_EQ(spec.layers[0].elems_per_token, 5120u);
  EXPECT_EQ(elems_per_token(spec), 27u * 5120);
  // K and V of their own widths: 16 x 192 = 3,072 of K, 16 x 128 = 2,048 of V.
  EXPECT_TRUE(is_decompressed_mla(spec.layers[0]));
  EXPECT_EQ(k_row_elems(spec.layers[0]), 3072u);
  EXPECT_EQ(v_row_elems(spec.layers[0]), 2048u);
}

TEST(GgufGeometry, DeepSeekWithMlaLengthsCachesTheLatentAlone) {
  // A file converted since #12801: key_length_mla / value_length_mla, one
  // KV head of the latent: 512 + 64 = 576 elements of K a token, no V.
  GgufWriter w = arch("deepseek2");
  w.add_u32("deepseek2.block_count", 27)
      .add_u32("deepseek2.embedding_length", 2048)
      .add_u32("deepseek2.attention.head_count", 16)
      .add_u32("deepseek2.attention.head_count_kv", 1)
      .add_u32("deepseek2.attention.key_length", 576)
      .add_u32("deepseek2.attention.value_length", 512)
      .add_u32("deepseek2.attention.key_length_mla", 192)
      .add_u32("deepseek2.attention.value_length_mla", 128)
      .add_u32("deepseek2.attention.kv_lora_rank", 512)
      .add_u32("deepseek2.rope.dimension_count", 64)
      .add_u32("deepseek2.vocab_size", 102400);
  const ModelSpec spec = gguf_spec(w);
  EXPECT_FALSE(is_decompressed_mla(spec.layers[0]));
  EXPECT_EQ(k_row_elems(spec.layers[0]), 576u);
  EXPECT_EQ(v_row_elems(spec.layers[0]), 0u);
}

TEST(GgufGeometry, Mamba2MatchesItsConfig) {
  GgufWriter w = arch("mamba2");
  w.add_u32("mamba2.block_count", 64)
      .add_u32("mamba2.embedding_length", 4096)
      .add_u32("mamba2.feed_forward_length", 0)
      .add_u32("mamba2.attention.head_count", 0)
      .add_u32("mamba2.ssm.conv_kernel", 4)
      .add_u32("mamba2.ssm.inner_size", 8192)
      .add_u32("mamba2.ssm.state_size", 128)
      .add_u32("mamba2.ssm.time_step_rank", 128)
      .add_u32("mamba2.ssm.group_count", 8)
      .add_u32("mamba2.vocab_size", 32768);
  const ModelSpec spec = gguf_spec(w);
  expect_same_spec(spec, corpus_spec("mamba2/Mamba-Codestral-7B-hfconv"));
  EXPECT_EQ(spec.layout, "ssm");
  // conv 3 x (8192 + 2 x 8 x 128) = 30,720; ssm 128 heads x 64 x 128 =
  // 1,048,576; (30,720 + 1,048,576) x 4 B = 4,317,184 B per layer.
  EXPECT_EQ(spec.layers[0].state_bytes, 4317184u);
  EXPECT_EQ(elems_per_token(spec), 0u);
}

TEST(GgufGeometry, NemotronHReadsItsLayersFromPerLayerArrays) {
  // NVIDIA-Nemotron-3-Nano-30B-A3B: M = Mamba-2 (no KV heads, no
  // feed-forward), E = MoE (no KV heads, a feed-forward), * = attention.
  const std::string pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";
  std::vector<uint32_t> kv, ff;
  for (char c : pattern) {
    kv.push_back(c == '*' ? 2 : 0);
    ff.push_back(c == 'E' ? 1856 : 0);
  }
  GgufWriter w = arch("nemotron_h_moe");
  w.add_u32("nemotron_h_moe.block_count", 52)
      .add_u32("nemotron_h_moe.context_length", 262144)
      .add_u32("nemotron_h_moe.embedding_length", 2688)
      .add_u32_array("nemotron_h_moe.feed_forward_length", ff)
      .add_u32("nemotron_h_moe.attention.head_count", 32)
      .add_u32_array("nemotron_h_moe.attention.head_count_kv", kv)
      .add_u32("nemotron_h_moe.attention.key_length", 128)
      .add_u32("nemotron_h_moe.attention.value_length", 128)
      .add_u32("nemotron_h_moe.ssm.conv_kernel", 4)
      .add_u32("nemotron_h_moe.ssm.inner_size", 4096)
      .add_u32("nemotron_h_moe.ssm.state_size", 128)
      .add_u32("nemotron_h_moe.ssm.time_step_rank", 64)
      .add_u32("nemotron_h_moe.ssm.group_count", 8)
      .add_u32("nemotron_h_moe.expert_count", 128)
      .add_u32("nemotron_h_moe.expert_used_count", 6)
      .add_u32("nemotron_h_moe.expert_shared_count", 1)
      .add_u32("nemotron_h_moe.expert_feed_forward_length", 1856)
      .add_u32("nemotron_h_moe.expert_shared_feed_forward_length", 3712)
      .add_u32("nemotron_h_moe.vocab_size", 131072);
  const ModelSpec spec = gguf_spec(w);
  expect_same_spec(spec, corpus_spec("nemotron_h/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"));
  EXPECT_EQ(spec.layout, "hybrid");
  EXPECT_EQ(count_kind(spec, LayerKind::kFullAttention), 6u);
  EXPECT_EQ(count_kind(spec, LayerKind::kSsm), 23u);
  EXPECT_EQ(count_kind(spec, LayerKind::kNone), 23u);
  // 6 attention layers x 2 x 2 KV heads x 128 = 3,072 elements per token.
  EXPECT_EQ(elems_per_token(spec), 3072u);
  // Mamba-2: conv 3 x (4096 + 2 x 8 x 128) = 18,432; ssm 64 x 64 x 128 =
  // 524,288; (18,432 + 524,288) x 4 B = 2,170,880 B per layer.
  EXPECT_EQ(spec.layers[0].state_bytes, 2170880u);
}

TEST(GgufGeometry, GptOssAlternatesWindowedAndFullLayers) {
  GgufWriter w = arch("gpt-oss");
  w.add_u32("gpt-oss.block_count", 24)
      .add_u32("gpt-oss.context_length", 131072)
      .add_u32("gpt-oss.embedding_length", 2880)
      .add_u32("gpt-oss.feed_forward_length", 2880)
      .add_u32("gpt-oss.attention.head_count", 64)
      .add_u32("gpt-oss.attention.head_count_kv", 8)
      .add_u32("gpt-oss.attention.key_length", 64)
      .add_u32("gpt-oss.attention.value_length", 64)
      .add_u32("gpt-oss.attention.sliding_window", 128)
      .add_u32("gpt-oss.expert_count", 32)
      .add_u32("gpt-oss.expert_used_count", 4)
      .add_u32("gpt-oss.expert_feed_forward_length", 2880)
      .add_u32("gpt-oss.vocab_size", 201088);
  const ModelSpec spec = gguf_spec(w);
  expect_same_spec(spec, corpus_spec("gpt_oss/gpt-oss-20b"));
  EXPECT_EQ(spec.layers[0].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(spec.layers[0].window_tokens, 128u);
  EXPECT_EQ(spec.layers[1].kind, LayerKind::kFullAttention);
  // 12 full layers x 2 x 8 x 64 x 2 B = 24,576 B per token unbounded; 12
  // windowed layers hold 256 tokens (128 rounded up to a 256-token block):
  // 12 x 2,048 B x 256 = 6,291,456. At 8,192 tokens: 24,576 x 8,192 =
  // 201,326,592 + 6,291,456 = 207,618,048.
  Result<KvCacheEstimate> kv = estimate_kv_cache(spec, 8192, 1, KvElement::kFp16);
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->unbounded_fp16_bytes_per_token, 24576u);
  EXPECT_EQ(kv->total_bytes, 207618048u);
}

TEST(GgufGeometry, Lfm2ConvolutionLayersHaveNoKvHeads) {
  std::vector<uint32_t> kv(16, 0);
  for (int i : {2, 5, 8, 10, 12, 14}) kv[i] = 8;
  GgufWriter w = arch("lfm2");
  w.add_u32("lfm2.block_count", 16)
      .add_u32("lfm2.context_length", 128000)
      .add_u32("lfm2.embedding_length", 1536)
      .add_u32("lfm2.feed_forward_length", 6912)
      .add_u32("lfm2.attention.head_count", 24)
      .add_u32_array("lfm2.attention.head_count_kv", kv)
      .add_u32("lfm2.shortconv.l_cache", 3)
      .add_u32("lfm2.vocab_size", 65536);
  const ModelSpec spec = gguf_spec(w);
  // The config leaves intermediate_size out (its block_ff_dim is
  // auto-adjusted); the layers agree.
  EXPECT_EQ(spec.layers, corpus_spec("lfm2/LFM2-700M").layers);
  // conv (3 - 1) x 1536 x 4 B = 12,288 B per convolution layer.
  EXPECT_EQ(spec.layers[0].kind, LayerKind::kConv);
  EXPECT_EQ(spec.layers[0].state_bytes, 12288u);
}

TEST(GgufGeometry, MixtralIsLlamaWithExperts) {
  GgufWriter w = arch("llama");
  w.add_u32("llama.block_count", 32)
      .add_u32("llama.context_length", 32768)
      .add_u32("llama.embedding_length", 4096)
      .add_u32("llama.feed_forward_length", 14336)
      .add_u32("llama.attention.head_count", 32)
      .add_u32("llama.attention.head_count_kv", 8)
      .add_u32("llama.rope.dimension_count", 128)
      .add_u32("llama.expert_count", 8)
      .add_u32("llama.expert_used_count", 2)
      .add_u32("llama.vocab_size", 32000);
  const ModelSpec spec = gguf_spec(w);
  expect_same_spec(spec, corpus_spec("mixtral/Mixtral-8x7B-v0.1"));
  EXPECT_EQ(spec.family, "mixtral");
}

TEST(GgufGeometry, Qwen35MoeGatedDeltaNetEveryFourthLayerFull) {
  GgufWriter w = arch("qwen35moe");
  w.add_u32("qwen35moe.block_count", 41)  // 40 decoder layers + 1 MTP layer
      .add_u32("qwen35moe.nextn_predict_layers", 1)
      .add_u32("qwen35moe.context_length", 262144)
      .add_u32("qwen35moe.embedding_length", 2048)
      .add_u32("qwen35moe.attention.head_count", 16)
      .add_u32("qwen35moe.attention.head_count_kv", 2)
      .add_u32("qwen35moe.attention.key_length", 256)
      .add_u32("qwen35moe.attention.value_length", 256)
      .add_u32("qwen35moe.full_attention_interval", 4)
      .add_u32("qwen35moe.ssm.conv_kernel", 4)
      .add_u32("qwen35moe.ssm.inner_size", 4096)
      .add_u32("qwen35moe.ssm.state_size", 128)
      .add_u32("qwen35moe.ssm.time_step_rank", 32)
      .add_u32("qwen35moe.ssm.group_count", 16)
      .add_u32("qwen35moe.expert_count", 256)
      .add_u32("qwen35moe.expert_used_count", 8)
      .add_u32("qwen35moe.expert_feed_forward_length", 512)
      .add_u32("qwen35moe.expert_shared_feed_forward_length", 512)
      .add_u32("qwen35moe.vocab_size", 248320);
  const ModelSpec spec = gguf_spec(w);
  const ModelSpec config = corpus_spec("qwen3_5/Qwen3.5-35B-A3B");
  EXPECT_EQ(spec.layers, config.layers);
  EXPECT_EQ(spec.family, config.family);
  EXPECT_EQ(spec.geometry.layers, 40u);
  // 10 full layers x 2 x 2 x 256 = 10,240 elements per token.
  EXPECT_EQ(elems_per_token(spec), 10240u);
  EXPECT_EQ(spec.nextn_layers, 1u);
  EXPECT_EQ(spec.assumptions.front(),
            "1 multi-token-prediction layer(s) after the 40 decoder layers: no cache "
            "under mlxcel; under llamacpp a KV cache where llama.cpp keeps one "
            "(docs/llamacpp-rules.md)");
}

TEST(GgufGeometry, Glm47DropsItsMultiTokenPredictionLayer) {
  GgufWriter w = arch("glm4moe");
  w.add_u32("glm4moe.block_count", 93)
      .add_u32("glm4moe.nextn_predict_layers", 1)
      .add_u32("glm4moe.context_length", 202752)
      .add_u32("glm4moe.embedding_length", 5120)
      .add_u32("glm4moe.feed_forward_length", 12288)
      .add_u32("glm4moe.attention.head_count", 96)
      .add_u32("glm4moe.attention.head_count_kv", 8)
      .add_u32("glm4moe.attention.key_length", 128)
      .add_u32("glm4moe.attention.value_length", 128)
      .add_u32("glm4moe.leading_dense_block_count", 3)
      .add_u32("glm4moe.expert_count", 160)
      .add_u32("glm4moe.expert_used_count", 8)
      .add_u32("glm4moe.expert_shared_count", 1)
      .add_u32("glm4moe.expert_feed_forward_length", 1536)
      .add_u32("glm4moe.vocab_size", 151552);
  const ModelSpec spec = gguf_spec(w);
  expect_same_spec(spec, corpus_spec("glm/GLM-4.7"));
  // 93 blocks = 92 decoder layers + 1 NextN block, carried for the llama.cpp
  // profile (whose KV cache keeps it on glm4moe).
  EXPECT_EQ(spec.layers.size(), 92u);
  EXPECT_EQ(spec.nextn_layers, 1u);
  // expert_feed_forward_length, as moe_intermediate_size.
  EXPECT_EQ(spec.moe.expert_intermediate, 1536u);
}

TEST(GgufGeometry, MiniMaxM2AndCohereAreFullAttention) {
  GgufWriter minimax = arch("minimax-m2");
  minimax.add_u32("minimax-m2.block_count", 62)
      .add_u32("minimax-m2.embedding_length", 3072)
      .add_u32("minimax-m2.feed_forward_length", 1536)
      .add_u32("minimax-m2.attention.head_count", 48)
      .add_u32("minimax-m2.attention.head_count_kv", 8)
      .add_u32("minimax-m2.attention.key_length", 128)
      .add_u32("minimax-m2.attention.value_length", 128)
      .add_u32("minimax-m2.expert_count", 256)
      .add_u32("minimax-m2.expert_used_count", 8)
      .add_u32("minimax-m2.vocab_size", 200064);
  expect_same_spec(gguf_spec(minimax), corpus_spec("minimax/MiniMax-M2.5"));
  GgufWriter cohere = arch("command-r");
  cohere.add_u32("command-r.block_count", 32)
      .add_u32("command-r.embedding_length", 4096)
      .add_u32("command-r.feed_forward_length", 14336)
      .add_u32("command-r.attention.head_count", 32)
      .add_u32("command-r.attention.head_count_kv", 8)
      .add_u32("command-r.vocab_size", 256000);
  expect_same_spec(gguf_spec(cohere), corpus_spec("cohere/aya-23-8B"));
}

TEST(GgufGeometry, LlamaCppRunsPhi3WithFullAttention) {
  // Phi-3.5-mini's config windows every layer at 262,144 tokens; llama.cpp
  // disables Phi-3's window, and the GGUF spec follows llama.cpp.
  GgufWriter w = arch("phi3");
  w.add_u32("phi3.block_count", 32)
      .add_u32("phi3.embedding_length", 3072)
      .add_u32("phi3.feed_forward_length", 8192)
      .add_u32("phi3.attention.head_count", 32)
      .add_u32("phi3.attention.head_count_kv", 32)
      .add_u32("phi3.attention.sliding_window", 262144)
      .add_u32("phi3.vocab_size", 32064);
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(corpus_spec("phi3/Phi-3.5-mini-instruct").layers[0].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(count_kind(spec, LayerKind::kFullAttention), 32u);
  ASSERT_EQ(spec.assumptions.size(), 1u);
  EXPECT_EQ(spec.assumptions[0],
            "'phi3.attention.sliding_window' 262144 is not applied: llama.cpp runs 'phi3' layers "
            "with full attention");
}

TEST(GgufGeometry, Gemma2WithoutAWindowTakesLlamaCppsDefault) {
  GgufWriter w = arch("gemma2");
  w.add_u32("gemma2.block_count", 26)
      .add_u32("gemma2.embedding_length", 2304)
      .add_u32("gemma2.attention.head_count", 8)
      .add_u32("gemma2.attention.head_count_kv", 4)
      .add_u32("gemma2.attention.key_length", 256)
      .add_u32("gemma2.attention.value_length", 256)
      .add_u32("gemma2.vocab_size", 256000);
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(spec.layers[0].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(spec.layers[0].window_tokens, 4096u);
  EXPECT_EQ(spec.layers[1].kind, LayerKind::kFullAttention);
  ASSERT_EQ(spec.assumptions.size(), 2u) << ::testing::PrintToString(spec.assumptions);
  EXPECT_EQ(spec.assumptions[0],
            "'gemma2.attention.sliding_window' = 4096 (llama.cpp's default for gemma2)");
}

TEST(GgufGeometry, TheFilesOwnSlidingWindowPatternWins) {
  // attention.sliding_window_pattern as per-layer flags (true = windowed).
  GgufWriter w = arch("gemma3");
  w.add_u32("gemma3.block_count", 4)
      .add_u32("gemma3.embedding_length", 1024)
      .add_u32("gemma3.attention.head_count", 4)
      .add_u32("gemma3.attention.head_count_kv", 1)
      .add_u32("gemma3.attention.key_length", 256)
      .add_u32("gemma3.attention.sliding_window", 512)
      .add_u32("gemma3.vocab_size", 1000)
      .add_raw("gemma3.attention.sliding_window_pattern", gguf_type::kArr,
               gguf_array_prefix(gguf_type::kBool, 4) + std::string("\x00\x01\x01\x00", 4));
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(spec.layers[0].kind, LayerKind::kFullAttention);
  EXPECT_EQ(spec.layers[1].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(spec.layers[2].kind, LayerKind::kSlidingWindow);
  EXPECT_EQ(spec.layers[3].kind, LayerKind::kFullAttention);
  EXPECT_TRUE(spec.assumptions.empty()) << spec.assumptions.front();
}

TEST(GgufGeometry, AttentionLayersWithTheirOwnKvHeads) {
  // A llama whose layers keep 8, 4, 0 and 2 KV heads of 128: 2 x (8 + 4 +
  // 2) x 128 = 3,584 elements per token; the third layer holds none.
  GgufWriter w = arch("llama");
  w.add_u32("llama.block_count", 4)
      .add_u32("llama.embedding_length", 4096)
      .add_u32("llama.attention.head_count", 32)
      .add_u32_array("llama.attention.head_count_kv", {8, 4, 0, 2});
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(spec.layers[0].elems_per_token, 2048u);
  EXPECT_EQ(spec.layers[1].elems_per_token, 1024u);
  EXPECT_EQ(spec.layers[2].kind, LayerKind::kNone);
  EXPECT_EQ(elems_per_token(spec), 3584u);
}

TEST(GgufGeometry, UnknownArchitectureIsFullAttentionFromItsHeads) {
  GgufWriter w = arch("newmodel");
  w.add_u32("newmodel.block_count", 2)
      .add_u32("newmodel.embedding_length", 512)
      .add_u32("newmodel.attention.head_count", 8)
      .add_u32("newmodel.attention.head_count_kv", 2);
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(spec.model_type, "newmodel");
  // head_dim 512 / 8 = 64: 2 x 2 x 64 = 256 elements per layer.
  EXPECT_EQ(spec.layers, (std::vector<LayerCache>(2, {LayerKind::kFullAttention, 256, 0, 0, 0})));
}

// `layers` layers of 8 heads of 128 (width 1024), `kv` KV heads per layer.
GgufWriter small(std::string_view name, uint32_t layers, std::vector<uint32_t> kv) {
  const std::string a(name);
  GgufWriter w = arch(name);
  w.add_u32(a + ".block_count", layers)
      .add_u32(a + ".embedding_length", 1024)
      .add_u32(a + ".attention.head_count", 8)
      .add_u32(a + ".vocab_size", 1000)
      .add_u32_array(a + ".attention.head_count_kv", kv);
  return w;
}

std::vector<LayerKind> kinds(const ModelSpec& spec) {
  std::vector<LayerKind> out;
  for (const LayerCache& l : spec.layers) out.push_back(l.kind);
  return out;
}

constexpr LayerKind F = LayerKind::kFullAttention, S = LayerKind::kSlidingWindow,
                    C = LayerKind::kChunked, M = LayerKind::kSsm, X = LayerKind::kSharedKv;

TEST(GgufGeometry, SlidingAndChunkedPatternsLlamaCppHardCodes) {
  // llama4: chunks of 8192 whatever the file says, layers 3 and 7 global.
  GgufWriter llama4 = small("llama4", 8, std::vector<uint32_t>(8, 2));
  llama4.add_u32("llama4.attention.sliding_window", 4096);
  const ModelSpec l4 = gguf_spec(llama4);
  EXPECT_EQ(kinds(l4), (std::vector<LayerKind>{C, C, C, F, C, C, C, F}));
  EXPECT_EQ(l4.layers[0].window_tokens, 8192u);
  // cohere2: one layer in 4 global.
  GgufWriter cohere2 = small("cohere2", 8, std::vector<uint32_t>(8, 2));
  cohere2.add_u32("cohere2.attention.sliding_window", 4096);
  EXPECT_EQ(kinds(gguf_spec(cohere2)), (std::vector<LayerKind>{S, S, S, F, S, S, S, F}));
  // olmo2 with a window is OLMo 3: one in 4; without, full attention.
  GgufWriter olmo3 = small("olmo2", 4, std::vector<uint32_t>(4, 2));
  olmo3.add_u32("olmo2.attention.sliding_window", 4096);
  const ModelSpec o3 = gguf_spec(olmo3);
  EXPECT_EQ(o3.family, "olmo3");
  EXPECT_EQ(kinds(o3), (std::vector<LayerKind>{S, S, S, F}));
  EXPECT_EQ(kinds(gguf_spec(small("olmo2", 2, {2, 2}))), (std::vector<LayerKind>{F, F}));
  // exaone4: only the 64-layer model is windowed (4096, one in 4).
  const ModelSpec exaone = gguf_spec(small("exaone4", 64, std::vector<uint32_t>(64, 2)));
  EXPECT_EQ(count_kind(exaone, F), 16u);
  EXPECT_EQ(exaone.layers[0].window_tokens, 4096u);
  EXPECT_EQ(count_kind(gguf_spec(small("exaone4", 30, std::vector<uint32_t>(30, 2))), S), 0u);
  // gemma3n: one in 5 global; layers 20 on read earlier layers' KV.
  GgufWriter gemma3n = small("gemma3n", 30, std::vector<uint32_t>(30, 2));
  gemma3n.add_u32("gemma3n.attention.sliding_window", 512);
  const ModelSpec g3n = gguf_spec(gemma3n);
  EXPECT_EQ(count_kind(g3n, X), 10u);
  EXPECT_EQ(count_kind(g3n, F), 4u);
  EXPECT_EQ(count_kind(g3n, S), 16u);
}

TEST(GgufGeometry, Gemma3nPassesOverItsPatternArray) {
  // llama.cpp's gemma3n loader sets one layer in 5 global and never reads
  // the converter's bool array: flags saying layers 0 and 1 global, the
  // rest windowed, leave layer 4 global and layers 0-3 windowed.
  GgufWriter w = small("gemma3n", 5, std::vector<uint32_t>(5, 2));
  w.add_u32("gemma3n.attention.sliding_window", 512)
      .add_raw("gemma3n.attention.sliding_window_pattern", gguf_type::kArr,
               gguf_array_prefix(gguf_type::kBool, 5) + std::string("\x00\x00\x01\x01\x01", 5));
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(kinds(spec), (std::vector<LayerKind>{LayerKind::kSlidingWindow, LayerKind::kSlidingWindow,
                                                 LayerKind::kSlidingWindow, LayerKind::kSlidingWindow,
                                                 LayerKind::kFullAttention}));
  ASSERT_FALSE(spec.assumptions.empty());
  EXPECT_EQ(spec.assumptions[0],
            "gemma3n: layers 4, 9, 14, ... (one in 5) attend to the whole context, the others within "
            "the 512-token window (llama.cpp's rule: its loader does not read "
            "'gemma3n.attention.sliding_window_pattern', an array)");
}

TEST(GgufGeometry, RecurrentLayersOfHybridsAndRwkv) {
  // granitehybrid: no KV heads is Mamba-2. Attention 2 x 8 x 128 = 2,048
  // elements. Mamba-2 (inner 3072, 48 heads of 64, 1 group, state 128):
  // conv 3 x (3072 + 2 x 128) = 9,984; ssm 48 x 64 x 128 = 393,216;
  // (9,984 + 393,216) x 4 B = 1,612,800 B.
  GgufWriter granite = small("granitehybrid", 4, {0, 0, 8, 0});
  granite.add_u32("granitehybrid.ssm.conv_kernel", 4)
      .add_u32("granitehybrid.ssm.inner_size", 3072)
      .add_u32("granitehybrid.ssm.state_size", 128)
      .add_u32("granitehybrid.ssm.time_step_rank", 48)
      .add_u32("granitehybrid.ssm.group_count", 1);
  const ModelSpec g = gguf_spec(granite);
  EXPECT_EQ(kinds(g), (std::vector<LayerKind>{M, M, F, M}));
  EXPECT_EQ(g.layers[0].state_bytes, 1612800u);
  EXPECT_EQ(g.layers[2].elems_per_token, 2048u);
  // falcon-h1: attention and the same Mamba-2 state in every layer.
  GgufWriter falcon = small("falcon-h1", 2, {2, 2});
  falcon.add_u32("falcon-h1.ssm.conv_kernel", 4)
      .add_u32("falcon-h1.ssm.inner_size", 3072)
      .add_u32("falcon-h1.ssm.state_size", 128)
      .add_u32("falcon-h1.ssm.time_step_rank", 48)
      .add_u32("falcon-h1.ssm.group_count", 1);
  const ModelSpec f = gguf_spec(falcon);
  EXPECT_EQ(f.layout, "hybrid");
  EXPECT_EQ(f.layers[1], (LayerCache{F, 512, 0, 0, 1612800}));
  // jamba: Mamba with inner 2 x 1024: conv 3 x 2048 = 6,144; ssm 2048 x 16 =
  // 32,768; (6,144 + 32,768) x 4 B = 155,648 B.
  GgufWriter jamba = small("jamba", 2, {0, 8});
  jamba.add_u32("jamba.ssm.conv_kernel", 4)
      .add_u32("jamba.ssm.inner_size", 2048)
      .add_u32("jamba.ssm.state_size", 16)
      .add_u32("jamba.ssm.time_step_rank", 64);
  EXPECT_EQ(gguf_spec(jamba).layers[0], (LayerCache{M, 0, 0, 0, 155648}));
  // rwkv6: 2 x 1024 token shift + 1024 x 64 wkv = 67,584 x 4 B = 270,336 B.
  GgufWriter rwkv = arch("rwkv6");
  rwkv.add_u32("rwkv6.block_count", 2)
      .add_u32("rwkv6.embedding_length", 1024)
      .add_u32("rwkv6.wkv.head_size", 64)
      .add_u32("rwkv6.vocab_size", 65536);
  const ModelSpec r = gguf_spec(rwkv);
  EXPECT_EQ(r.layout, "ssm");
  EXPECT_EQ(r.layers[0], (LayerCache{M, 0, 0, 0, 270336}));
}

// Qwen3-8B with one key replaced (or removed, when `value` is empty).
GgufWriter qwen3_with(std::string_view key, std::optional<uint64_t> value = std::nullopt) {
  GgufWriter w = arch("qwen3");
  const std::vector<std::pair<std::string_view, uint32_t>> keys = {
      {"qwen3.block_count", 36},           {"qwen3.embedding_length", 4096},
      {"qwen3.attention.head_count", 32},  {"qwen3.attention.head_count_kv", 8},
      {"qwen3.attention.key_length", 128}, {"qwen3.attention.value_length", 128}};
  for (const auto& [name, v] : keys) {
    if (name != key) w.add_u32(name, v);
  }
  if (value) w.add_u64(key, *value);
  return w;
}

TEST(GgufGeometryErrors, OneClearErrorEach) {
  EXPECT_EQ(gguf_error(GgufWriter().add_u32("qwen3.block_count", 36)),
            "gguf metadata: 'general.architecture' is missing");
  EXPECT_EQ(gguf_error(qwen3_with("qwen3.block_count")),
            "gguf metadata: 'qwen3.block_count' is missing");
  EXPECT_EQ(gguf_error(qwen3_with("qwen3.embedding_length")),
            "gguf metadata: 'qwen3.embedding_length' is missing");
  EXPECT_EQ(gguf_error(qwen3_with("qwen3.block_count", 0)),
            "gguf metadata: 'qwen3.block_count' is 0, outside 1..4096");
  EXPECT_EQ(gguf_error(qwen3_with("qwen3.block_count", 5000)),
            "gguf metadata: 'qwen3.block_count' is 5000, outside 1..4096");
  EXPECT_EQ(gguf_error(qwen3_with("qwen3.embedding_length", 1ull << 40)),
            "gguf metadata: 'qwen3.embedding_length' is 1099511627776, more than the 32 bits "
            "llama.cpp reads it into");
  // A string where a count belongs.
  GgufWriter text = arch("qwen3");
  text.add_string("qwen3.block_count", "thirty-six");
  EXPECT_EQ(gguf_error(text),
            "gguf metadata: 'qwen3.block_count' is str 'thirty-six', not a non-negative integer");
  // A per-layer array one short.
  GgufWriter short_array = qwen3_with("qwen3.attention.head_count_kv");
  short_array.add_u32_array("qwen3.attention.head_count_kv", std::vector<uint32_t>(35, 8));
  EXPECT_EQ(gguf_error(short_array),
            "gguf metadata: 'qwen3.attention.head_count_kv' has 35 entries, but "
            "'qwen3.block_count' is 36");
  GgufWriter negative = qwen3_with("qwen3.attention.head_count_kv");
  negative.add_i32_array("qwen3.attention.head_count_kv", std::vector<int32_t>(36, -1));
  EXPECT_EQ(gguf_error(negative),
            "gguf metadata: 'qwen3.attention.head_count_kv' element 0 is i32 -1, not a "
            "non-negative integer");
  // Heads and head dims within 32 bits whose product overflows 64.
  GgufWriter overflow = arch("qwen3");
  overflow.add_u32("qwen3.block_count", 1)
      .add_u32("qwen3.embedding_length", 4096)
      .add_u32("qwen3.attention.head_count", 0xffffffffu)
      .add_u32("qwen3.attention.head_count_kv", 0xffffffffu)
      .add_u32("qwen3.attention.key_length", 0xffffffffu);
  EXPECT_EQ(gguf_error(overflow),
            "gguf metadata of 'qwen3', read as a 'qwen3' config: KV cache size overflows");
  EXPECT_EQ(gguf_error(qwen3_with("qwen3.nextn_predict_layers", 36)),
            "gguf metadata: 'qwen3.nextn_predict_layers' is 36, not fewer than "
            "'qwen3.block_count' 36");
  GgufWriter experts = qwen3_with("qwen3.expert_count", 8);
  experts.add_u32("qwen3.expert_used_count", 9);
  EXPECT_EQ(gguf_error(experts),
            "gguf metadata: 'qwen3.expert_used_count' is 9, more than 'qwen3.expert_count' 8");
  EXPECT_EQ(gguf_error(qwen3_with("qwen3.expert_count", 8)),
            "gguf metadata: 'qwen3.expert_used_count' is missing, but 'qwen3.expert_count' is 8");
}

TEST(GgufGeometryErrors, WhatAnArchitectureNeeds) {
  GgufWriter gemma = arch("gemma3");
  gemma.add_u32("gemma3.block_count", 2)
      .add_u32("gemma3.embedding_length", 1024)
      .add_u32("gemma3.attention.head_count", 4);
  EXPECT_EQ(gguf_error(gemma),
            "gguf metadata: 'gemma3.attention.sliding_window' is missing (llama.cpp requires it "
            "for gemma3)");
  GgufWriter mamba = arch("mamba2");
  mamba.add_u32("mamba2.block_count", 2)
      .add_u32("mamba2.embedding_length", 1024)
      .add_u32("mamba2.ssm.conv_kernel", 4)
      .add_u32("mamba2.ssm.inner_size", 2000)
      .add_u32("mamba2.ssm.state_size", 128)
      .add_u32("mamba2.ssm.time_step_rank", 64)
      .add_u32("mamba2.ssm.group_count", 1);
  EXPECT_EQ(gguf_error(mamba),
            "gguf metadata: 'mamba2.ssm.inner_size' is 2000, not a multiple of "
            "'mamba2.ssm.time_step_rank' 64 (the Mamba-2 heads)");
  GgufWriter no_heads = arch("llama");
  no_heads.add_u32("llama.block_count", 2)
      .add_u32("llama.embedding_length", 1024)
      .add_u32("llama.attention.head_count_kv", 8);
  EXPECT_EQ(gguf_error(no_heads),
            "gguf metadata: 'llama.attention.head_count' is missing or 0, but the model has "
            "attention layers");
  // Windowed layers with KV heads of their own.
  GgufWriter mixed = arch("gpt-oss");
  mixed.add_u32("gpt-oss.block_count", 2)
      .add_u32("gpt-oss.embedding_length", 1024)
      .add_u32("gpt-oss.attention.head_count", 8)
      .add_u32_array("gpt-oss.attention.head_count_kv", {8, 4})
      .add_u32("gpt-oss.attention.sliding_window", 128);
  EXPECT_EQ(gguf_error(mixed),
            "gguf metadata: 'gpt-oss.attention.head_count_kv' gives attention layers 4 and 8 KV "
            "heads: memfit sizes per-layer KV heads only where every attention layer is full "
            "attention with the same head count, a multiple of its KV heads");
}

}  // namespace
}  // namespace memfit
