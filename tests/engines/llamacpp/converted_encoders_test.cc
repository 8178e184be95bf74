// The converter's tensors for BERT, Jina's BERT v2 and ChatGLM built from
// a config.json (engines/llamacpp/converted_encoders.h, quantize_plan.h),
// checked against the files llama.cpp's CI and Ollama load: their tensor
// counts by type and their printed sizes, worked by hand below.
// Block sizes (ggml): Q8_0 32 elements in 34 B, Q4_0 32 in 18 B, Q6_K 256
// in 210 B.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "engines/llamacpp/converted_models.h"
#include "engines/llamacpp/quantize_plan.h"
#include "memfit/llamacpp.h"
#include "memfit/model_spec.h"

namespace memfit::llamacpp {
namespace {

using converted_test::find;
using converted_test::from_config;
using converted_test::quantized;
using converted_test::type_counts;

// BAAI/bge-small-en-v1.5's config (the model ggml-org/ci converts as
// bge-small).
constexpr std::string_view kBgeSmall = R"({"architectures": ["BertModel"], "model_type": "bert",
  "hidden_size": 384, "intermediate_size": 1536, "num_attention_heads": 12,
  "num_hidden_layers": 12, "max_position_embeddings": 512, "type_vocab_size": 2,
  "vocab_size": 30522})";

// jinaai/jina-reranker-v1-tiny-en's config (ggml-org/ci's rerank-tiny).
constexpr std::string_view kJinaRerankerTiny = R"({
  "architectures": ["JinaBertForSequenceClassification"], "model_type": "bert",
  "hidden_size": 384, "intermediate_size": 1536, "num_attention_heads": 12,
  "num_hidden_layers": 4, "max_position_embeddings": 8192, "type_vocab_size": 2,
  "vocab_size": 61056, "id2label": {"0": "LABEL_0"}})";

// THUDM/codegeex4-all-9b's config (GLM-4-9B's geometry).
constexpr std::string_view kCodeGeeX4 = R"({"architectures": ["ChatGLMModel"],
  "model_type": "chatglm", "hidden_size": 4096, "ffn_hidden_size": 13696, "num_layers": 40,
  "num_attention_heads": 32, "multi_query_attention": true, "multi_query_group_num": 2,
  "kv_channels": 128, "padded_vocab_size": 151552, "seq_length": 131072,
  "add_qkv_bias": true, "tie_word_embeddings": false})";

// bge-small, h 384, f 1536, 12 blocks, V 30,522, 512 positions, 2 types.
// A block: Q, K, V, output 4 x 384 x 384 = 589,824 elements, up and down
// 2 x 384 x 1,536 = 1,179,648: 1,769,472 at F16 = 3,538,944 B; F32: biases
// 4 x 384 + 1,536 + 384 = 3,456 floats, 4 LayerNorm vectors 1,536 floats:
// 4,992 floats = 19,968 B. A block 3,558,912 B, x 12 = 42,706,944.
// Outside: token_embd 384 x 30,522 x 2 = 23,440,896; position_embd F32
// 384 x 512 x 4 = 786,432; token_types F32 384 x 2 x 4 = 3,072;
// token_embd_norm 2 x 1,536 = 3,072. 66,940,416 B = 63.84 MiB, the size
// ggml-org/ci's b4343 log prints for ggml-model-f16.gguf.
TEST(ConvertedEncoders, BgeSmallF16IsTheCiFile) {
  const Model m = quantized(from_config(kBgeSmall), "F16");
  EXPECT_EQ(m.weights.bytes, 66'940'416u);
  // The log: "type f32: 124 tensors, type f16: 73 tensors" (197).
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 73}, {"f32", 124}}));
  ASSERT_NE(find(m, "position_embd.weight"), nullptr);
  EXPECT_EQ(find(m, "position_embd.weight")->dtype, "f32");
  EXPECT_EQ(find(m, "position_embd.weight")->shape, (std::vector<uint64_t>{512, 384}));
  EXPECT_EQ(find(m, "token_types.weight")->shape, (std::vector<uint64_t>{2, 384}));
  EXPECT_EQ(find(m, "blk.11.ffn_up.bias")->shape, (std::vector<uint64_t>{1536}));
  EXPECT_EQ(find(m, "cls.output.weight"), nullptr);  // the pooler is not written
}

// A file whose tokenizer.ggml.token_type_count is 1 (the config's
// type_vocab_size; XLM-RoBERTa's, as llamacpp-12836's snowflake-arctic-
// embed-l-v2.0 says): token_types is one row, 384 floats = 1,536 B less
// than bge-small's two: 66,940,416 - 1,536 = 66,938,880 B.
TEST(ConvertedEncoders, TokenTypesFollowTheFilesCount) {
  ConverterHints hints;
  hints.token_types = 1;
  Result<Model> m = quantized_gguf_model(from_config(kBgeSmall), *find_gguf_file_type("F16"), nullptr, {},
                                         &hints);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 66'938'880u);
  ASSERT_NE(find(*m, "token_types.weight"), nullptr);
  EXPECT_EQ(find(*m, "token_types.weight")->shape, (std::vector<uint64_t>{1, 384}));
}

// llama-quantize Q8_0: the 73 matrices at Q8_0 (token_embd takes the
// output's rule, there being no output.weight: Q8_0 as well);
// position_embd and token_types stay F32. token_embd 11,720,448 / 32 =
// 366,264 blocks x 34 = 12,452,976; a block's 1,769,472 elements / 32 x 34
// = 1,880,064 + 19,968 = 1,900,032, x 12 = 22,800,384; + 786,432 + 3,072 +
// 3,072 = 36,045,936 B = 34.38 MiB, as the b4507 and b4730 logs print.
TEST(ConvertedEncoders, BgeSmallQ8_0KeepsPositionAndTypeRowsF32) {
  const Model m = quantized(from_config(kBgeSmall), "Q8_0");
  EXPECT_EQ(m.weights.bytes, 36'045'936u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 124}, {"q8_0", 73}}));
  EXPECT_EQ(find(m, "token_types.weight")->dtype, "f32");
  EXPECT_EQ(find(m, "token_embd.weight")->dtype, "q8_0");
}

// jina-reranker-v1-tiny: 4 blocks, h 384, f 1536, V 61,056, ALiBi (no
// position rows). A block: Q, K, V, output 589,824 elements, gate, up and
// down 3 x 589,824: 2,359,296 at F16 = 4,718,592 B; F32: biases 4 x 384 +
// 384 (down) and 4 LayerNorm vectors: 9 x 384 floats = 13,824 B.
// 4,732,416 B a block, x 4 = 18,929,664. Outside: token_embd 384 x 61,056
// x 2 = 46,891,008, token_types 3,072, token_embd_norm 3,072, cls 384 x 1
// x 2 = 768 and its bias 4: 65,827,588 B = 62.78 MiB, as the b4438 log
// prints; 40 F32 and 30 F16 tensors.
TEST(ConvertedEncoders, JinaRerankerTinyIsTheCiFile) {
  const Model config = from_config(kJinaRerankerTiny);
  EXPECT_EQ(config.spec.family, "jina_bert_v2");
  const Model m = quantized(config, "F16");
  EXPECT_EQ(m.weights.bytes, 65'827'588u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f16", 30}, {"f32", 40}}));
  EXPECT_EQ(find(m, "position_embd.weight"), nullptr);
  ASSERT_NE(find(m, "blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(find(m, "blk.0.ffn_up.bias"), nullptr);
  EXPECT_EQ(find(m, "cls.weight")->shape, (std::vector<uint64_t>{1, 384}));
}

// CodeGeeX4-9B (GLM-4-9B): 40 blocks, h 4096, 32 heads and 2 KV heads of
// 128, f 13,696, V 151,552. Q4_0 (llama-quantize): a block's qkv 4,096 x
// 4,608 / 32 x 18 = 10,616,832, output 4,096 x 4,096 -> 9,437,184, up 4,096
// x 27,392 -> 63,111,168, down 13,696 x 4,096 -> 31,555,584; F32 norms 2 x
// 16,384 and qkv bias 4,608 x 4 = 18,432: 114,771,968 B, x 40 =
// 4,590,878,720. output Q6_K 4,096 x 151,552 / 256 x 210 = 509,214,720,
// output_norm 16,384, token_embd Q4_0 349,175,808: 5,449,285,632 B = 5.08
// GiB; 121 F32, 161 Q4_0 and 1 Q6_K tensors, as Ollama's log prints.
TEST(ConvertedEncoders, ChatGlmQ4_0IsOllamasCodeGeeX4) {
  const Model m = quantized(from_config(kCodeGeeX4), "Q4_0");
  EXPECT_EQ(m.weights.bytes, 5'449'285'632u);
  EXPECT_EQ(type_counts(m), (std::map<std::string, int>{{"f32", 121}, {"q4_0", 161}, {"q6_K", 1}}));
  EXPECT_EQ(find(m, "blk.39.ffn_up.weight")->shape, (std::vector<uint64_t>{27392, 4096}));
  EXPECT_EQ(find(m, "blk.0.attn_qkv.bias")->shape, (std::vector<uint64_t>{4608}));
}

// The bge-small F16 file on one Vulkan GPU, -ngl 99. The blocks (42,706,944
// B) go to the GPU; the input layer, token_embd 23,440,896 + position_embd
// 786,432 + token_types 3,072 = 24,230,400 B, stays on the host. The
// embedding LayerNorm (3,072 B) is on the host with it before #20943
// (b4343: host 24,233,472 B = 23.11 MiB, GPU 40.73 MiB, as the CI log
// prints) and on block 0's device from it (GPU 42,710,016 B).
TEST(ConvertedEncoders, TheEmbeddingNormMovesToBlockZerosDeviceFrom20943) {
  const Model m = quantized(from_config(kBgeSmall), "F16");
  LlamaCppSettings s;
  s.embedding = true;
  s.placement.gpus = {LlamaCppGpu{"vulkan:0", "", 16ull << 30}};
  s.placement.n_gpu_layers = 99;
  const MemoryBudget budget{64ull << 30, 64ull << 30, BudgetSource::kExplicit};
  s.build = 4343;
  Result<LlamaCppEstimate> old_build = estimate_llamacpp(m, s, budget);
  ASSERT_TRUE(old_build.ok()) << old_build.error().message();
  ASSERT_EQ(old_build->placement.devices.size(), 2u);
  EXPECT_EQ(old_build->placement.devices[0].model_bytes, 42'706'944u);
  EXPECT_EQ(old_build->placement.devices[1].model_bytes, 24'233'472u);
  s.build = std::nullopt;  // the pinned release
  Result<LlamaCppEstimate> pinned = estimate_llamacpp(m, s, budget);
  ASSERT_TRUE(pinned.ok()) << pinned.error().message();
  EXPECT_EQ(pinned->placement.devices[0].model_bytes, 42'710'016u);
  EXPECT_EQ(pinned->placement.devices[1].model_bytes, 24'230'400u);
}

}  // namespace
}  // namespace memfit::llamacpp
