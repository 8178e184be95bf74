// Embedding and reranking models read from their configs, their
// sentence-transformers folders and their GGUF files
// (docs/embedding-models.md): encoders keep no cache, their parameters are
// counted by hand below, and the pooling each source states is kept.
#include <gtest/gtest.h>

#include <string>

#include "memfit/gguf.h"
#include "memfit/model.h"
#include "memfit/model_spec.h"
#include "model/sentence_transformers.h"
#include "support/gguf_writer.h"
#include "support/memory_file_system.h"

namespace memfit {
namespace {

// all-MiniLM-L6-v2's config.json (sentence-transformers), trimmed to the
// fields memfit reads.
constexpr const char* kMiniLm = R"({
  "architectures": ["BertModel"], "model_type": "bert", "hidden_size": 384,
  "num_hidden_layers": 6, "num_attention_heads": 12, "intermediate_size": 1536,
  "vocab_size": 30522, "max_position_embeddings": 512, "type_vocab_size": 2,
  "torch_dtype": "float32"})";

// bge-reranker-v2-m3's config.json: an XLM-R cross-encoder with one label.
constexpr const char* kBgeReranker = R"({
  "architectures": ["XLMRobertaForSequenceClassification"], "model_type": "xlm-roberta",
  "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
  "intermediate_size": 4096, "vocab_size": 250002, "max_position_embeddings": 8194,
  "type_vocab_size": 1, "id2label": {"0": "LABEL_0"}, "torch_dtype": "float32"})";

ModelSpec spec_of(const char* config) {
  Result<ModelSpec> spec = parse_model_config(config);
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

TEST(EmbeddingConfig, BertIsAnEncoderWithNoCache) {
  const ModelSpec spec = spec_of(kMiniLm);
  EXPECT_EQ(spec.layout, "encoder");
  EXPECT_EQ(spec.cache_detail, "bidirectional encoder: no KV cache");
  ASSERT_EQ(spec.layers.size(), 6u);
  for (const LayerCache& layer : spec.layers) EXPECT_EQ(layer.kind, LayerKind::kNone);
  EXPECT_TRUE(spec.embedding.bidirectional);
  EXPECT_TRUE(spec.embedding.by_architecture);
  EXPECT_FALSE(spec.embedding.by_folder);
  EXPECT_FALSE(spec.embedding.reranker);
}

TEST(EmbeddingConfig, MiniLmParametersCountedByHand) {
  // h 384, f 1536, V 30522, P 512, T 2:
  //   embeddings 30522 x 384 + 512 x 384 + 2 x 384 + 2 x 384 = 11,918,592
  //   a layer    4 x (384 x 384 + 384) + 2 x 384 + (1536 x 384 + 1536)
  //              + (384 x 1536 + 384) + 2 x 384 = 1,774,464; x 6 = 10,646,784
  //   pooler     384 x 384 + 384 = 147,840
  // 11,918,592 + 10,646,784 + 147,840 = 22,713,216, the figure
  // sentence-transformers publishes for all-MiniLM-L6-v2 (22.7M).
  const ModelSpec spec = spec_of(kMiniLm);
  EXPECT_EQ(spec.analytical_params, 22713216u);
  // An unquantized config is priced at 2 bytes a parameter whatever its
  // torch_dtype (analytical_weights.h; vLLM's dtype auto loads a float32
  // checkpoint at 16 bits too): 45,426,432 B.
  EXPECT_EQ(spec.analytical_weights.bytes, 22713216u * 2);
}

TEST(EmbeddingConfig, BertBaseParametersCountedByHand) {
  // bert-base-uncased as BertModel: h 768, f 3072, 12 layers, V 30522:
  //   embeddings 30522 x 768 + 512 x 768 + 2 x 768 + 2 x 768 = 23,837,184
  //   a layer    4 x 590,592 + 1,536 + 2,362,368 + 2,360,064 + 1,536
  //              = 7,087,872; x 12 = 85,054,464
  //   pooler     768 x 768 + 768 = 590,592
  // = 109,482,240, BertModel's count for bert-base-uncased.
  const ModelSpec spec = spec_of(R"({"architectures": ["BertModel"], "model_type": "bert",
      "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
      "intermediate_size": 3072, "vocab_size": 30522})");
  EXPECT_EQ(spec.analytical_params, 109482240u);
}

TEST(EmbeddingConfig, XlmRobertaRerankerCountsItsClassifierAndNoPooler) {
  // h 1024, f 4096, 24 layers, V 250002, P 8194, T 1, one label:
  //   embeddings 250002 x 1024 + 8194 x 1024 + 1 x 1024 + 2 x 1024 = 264,395,776
  //   a layer    4 x (1024 x 1024 + 1024) + 2 x 1024 + (4096 x 1024 + 4096)
  //              + (1024 x 4096 + 1024) + 2 x 1024 = 12,596,224; x 24 = 302,309,376
  //   classifier dense 1024 x 1024 + 1024 = 1,049,600; out_proj 1 x 1024 + 1 = 1,025
  // = 567,755,777 (no pooler: XLMRobertaForSequenceClassification builds none).
  const ModelSpec spec = spec_of(kBgeReranker);
  EXPECT_EQ(spec.analytical_params, 567755777u);
  EXPECT_TRUE(spec.embedding.reranker);
  EXPECT_EQ(spec.embedding.pooling, "rank");
  EXPECT_EQ(spec.layout, "encoder");
}

TEST(EmbeddingConfig, ADecoderIsAnEmbeddingModelOnlyByABareModelClass) {
  const char* causal = R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
      "hidden_size": 1024, "num_hidden_layers": 28, "num_attention_heads": 16,
      "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 3072,
      "vocab_size": 151669})";
  const ModelSpec generator = spec_of(causal);
  EXPECT_FALSE(generator.embedding.any());
  EXPECT_EQ(generator.layout, "standard");

  std::string bare = causal;
  bare.replace(bare.find("Qwen3ForCausalLM"), 16, "Qwen3Model");
  const ModelSpec embedder = spec_of(bare.c_str());
  EXPECT_TRUE(embedder.embedding.by_architecture);
  EXPECT_FALSE(embedder.embedding.bidirectional);  // causal: its KV cache stays
  EXPECT_EQ(embedder.layers.front().kind, LayerKind::kFullAttention);

  std::string glm = causal;
  glm.replace(glm.find("Qwen3ForCausalLM"), 16, "ChatGLMModel");
  EXPECT_FALSE(spec_of(glm.c_str()).embedding.any());
}

TEST(SentenceTransformers, PoolingModulePathAndMode) {
  Result<std::optional<std::string>> path = pooling_module_path(
      R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
          {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
          {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])");
  ASSERT_TRUE(path.ok()) << path.error().message();
  EXPECT_EQ(path->value_or("?"), "1_Pooling");
  EXPECT_EQ(*pooling_mode(R"({"pooling_mode_cls_token": false, "pooling_mode_lasttoken": true})"), "last");
  EXPECT_EQ(*pooling_mode(R"({"pooling_mode_mean_tokens": true})"), "mean");
  EXPECT_EQ(*pooling_mode(R"({"pooling_mode_cls_token": true})"), "cls");
  EXPECT_EQ(*pooling_mode(R"({"word_embedding_dimension": 384})"), "");
  Result<std::optional<std::string>> none = pooling_module_path(R"([{"type": "x", "path": "a"}])");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(SentenceTransformers, RefusesAPathOutOfTheFolderAndBrokenJson) {
  Result<std::optional<std::string>> up = pooling_module_path(
      R"([{"path": "../x", "type": "sentence_transformers.models.Pooling"}])");
  ASSERT_FALSE(up.ok());
  EXPECT_EQ(up.error().message(), "modules.json: module 0: path '../x' leaves the model folder");
  Result<std::optional<std::string>> root = pooling_module_path(
      R"([{"path": "/etc", "type": "sentence_transformers.models.Pooling"}])");
  EXPECT_FALSE(root.ok());
  EXPECT_FALSE(pooling_module_path("{}").ok());
  EXPECT_FALSE(pooling_mode("[").ok());
  EXPECT_FALSE(pooling_mode("[]").ok());
}

TEST(SentenceTransformers, AFolderMakesItsDecoderAnEmbeddingModel) {
  // Qwen3-Embedding's layout: a Qwen3ForCausalLM config, modules.json and
  // 1_Pooling/config.json with last-token pooling.
  MemoryFileSystem fs;
  fs.add_file("emb/config.json", R"({"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
      "hidden_size": 1024, "num_hidden_layers": 28, "num_attention_heads": 16,
      "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 3072,
      "vocab_size": 151669, "tie_word_embeddings": true})");
  fs.add_file("emb/modules.json",
              R"([{"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])");
  fs.add_file("emb/1_Pooling/config.json", R"({"pooling_mode_lasttoken": true})");
  Result<Model> model = open_model(fs, "emb");
  ASSERT_TRUE(model.ok()) << model.error().message();
  EXPECT_TRUE(model->spec.embedding.by_folder);
  EXPECT_FALSE(model->spec.embedding.by_architecture);
  EXPECT_EQ(model->spec.embedding.pooling, "last");
  EXPECT_EQ(model->spec.layout, "standard");  // causal: a KV cache as any Qwen3
}

TEST(SentenceTransformers, ABrokenModulesJsonNamesItsFile) {
  MemoryFileSystem fs;
  fs.add_file("emb/config.json", kMiniLm);
  fs.add_file("emb/modules.json", R"([{"type": "sentence_transformers.models.Pooling"}])");
  Result<Model> model = open_model(fs, "emb");
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.error().message(),
            "'emb/modules.json': modules.json: module 0: a Pooling module without a path");
}

// A nomic-embed-text GGUF's metadata as convert_hf_to_gguf writes it
// (trimmed): a bidirectional encoder with mean pooling.
GgufWriter nomic_gguf() {
  GgufWriter w;
  w.add_string("general.architecture", "nomic-bert")
      .add_u32("nomic-bert.block_count", 12)
      .add_u32("nomic-bert.context_length", 2048)
      .add_u32("nomic-bert.embedding_length", 768)
      .add_u32("nomic-bert.feed_forward_length", 3072)
      .add_u32("nomic-bert.attention.head_count", 12)
      .add_bool("nomic-bert.attention.causal", false)
      .add_u32("nomic-bert.pooling_type", 1)
      .add_string_array("tokenizer.ggml.tokens", std::vector<std::string>(30522, "t"));
  return w;
}

ModelSpec gguf_spec(const GgufWriter& writer) {
  const std::string bytes = writer.bytes();
  Result<GgufHeader> header = parse_gguf_header(bytes, bytes.size());
  EXPECT_TRUE(header.ok()) << header.error().message();
  if (!header.ok()) return {};
  Result<ModelSpec> spec = model_spec_from_gguf(*header);
  EXPECT_TRUE(spec.ok()) << spec.error().message();
  return spec.ok() ? *spec : ModelSpec{};
}

TEST(EmbeddingGguf, NomicBertIsAnEncoderWithMeanPooling) {
  const ModelSpec spec = gguf_spec(nomic_gguf());
  EXPECT_EQ(spec.model_type, "nomic-bert");
  EXPECT_EQ(spec.layout, "encoder");
  ASSERT_EQ(spec.layers.size(), 12u);
  for (const LayerCache& layer : spec.layers) EXPECT_EQ(layer.kind, LayerKind::kNone);
  EXPECT_TRUE(spec.embedding.bidirectional);
  EXPECT_TRUE(spec.embedding.by_architecture);
  EXPECT_EQ(spec.embedding.pooling, "mean");
}

TEST(EmbeddingGguf, AQwen3WithAPoolingTypeKeepsItsCache) {
  GgufWriter w;
  w.add_string("general.architecture", "qwen3")
      .add_u32("qwen3.block_count", 28)
      .add_u32("qwen3.context_length", 32768)
      .add_u32("qwen3.embedding_length", 1024)
      .add_u32("qwen3.feed_forward_length", 3072)
      .add_u32("qwen3.attention.head_count", 16)
      .add_u32("qwen3.attention.head_count_kv", 8)
      .add_u32("qwen3.attention.key_length", 128)
      .add_u32("qwen3.attention.value_length", 128)
      .add_u32("qwen3.pooling_type", 3)
      .add_string_array("tokenizer.ggml.tokens", std::vector<std::string>(1000, "t"));
  const ModelSpec spec = gguf_spec(w);
  EXPECT_EQ(spec.embedding.pooling, "last");
  EXPECT_TRUE(spec.embedding.by_architecture);
  EXPECT_FALSE(spec.embedding.bidirectional);
  EXPECT_EQ(spec.layers.front().kind, LayerKind::kFullAttention);
  // 2 x 8 KV heads x 128: 2,048 elements a token, as any Qwen3 of this shape.
  EXPECT_EQ(spec.layers.front().elems_per_token, 2048u);
}

}  // namespace
}  // namespace memfit
