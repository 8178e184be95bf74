// open_model on GGUF models: a file, a split set from any of its files, a
// folder holding one GGUF model; the weights are the tensors' exact bytes,
// the spec comes from the metadata, and only headers are read.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "memfit/gguf.h"
#include "memfit/model.h"
#include "support/gguf_writer.h"
#include "support/small_ggufs.h"
#include "support/memory_file_system.h"
#include "support/recording_file_system.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

// A two-layer Qwen3-shaped model: 4 heads of 16, 2 KV heads, width 64.
// Tensors: F16 [64, 100] = 12,800 B; Q4_K [256, 64] = 1 block of 144 B x 64
// rows = 9,216 B; F32 [64] = 256 B. In all 22,272 B.
GgufWriter small_qwen3_with_tensors() {
  GgufWriter w = tiny_qwen3_gguf();
  w.add_tensor("token_embd.weight", GgmlType::kF16, {64, 100})
      .add_tensor("blk.0.ffn_up.weight", GgmlType::kQ4_K, {256, 64})
      .add_tensor("output_norm.weight", GgmlType::kF32, {64});
  return w;
}

TEST(OpenGgufModel, WeightsAreTheTensorsExactBytesAndTheSpecIsTheMetadatas) {
  MemoryFileSystem fs;
  fs.add_file("m/qwen3-small.gguf", small_qwen3_with_tensors().bytes());
  Result<Model> m = open_model(fs, "m/qwen3-small.gguf", OpenModelOptions{.keep_tensors = true});
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_TRUE(m->has_config);
  EXPECT_EQ(m->spec.model_type, "qwen3");
  EXPECT_EQ(m->spec.family, "qwen3");
  // head_dim 64 / 4 = 16: 2 x 2 x 16 = 64 elements per layer per token.
  ASSERT_EQ(m->spec.layers.size(), 2u);
  EXPECT_EQ(m->spec.layers[0].elems_per_token, 64u);
  EXPECT_EQ(m->weights.bytes, 22272u);
  EXPECT_EQ(m->weights.source, WeightsSource::kGgufHeader);
  EXPECT_TRUE(m->weights.verified);
  EXPECT_EQ(m->weights.file_count, 1u);
  EXPECT_EQ(m->weights.tensor_count, 3u);
  EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
  // The tensor list as safetensors spells it: ggml's type name, the
  // outermost dimension first.
  ASSERT_EQ(m->tensors.size(), 3u);
  EXPECT_EQ(m->tensors[1].name, "blk.0.ffn_up.weight");
  EXPECT_EQ(m->tensors[1].dtype, "q4_K");
  EXPECT_EQ(m->tensors[1].shape, (std::vector<uint64_t>{64, 256}));
  EXPECT_EQ(m->tensors[1].data_bytes, 9216u);
  // The file's own header, for what an engine reads beyond the spec.
  ASSERT_NE(m->gguf, nullptr);
  EXPECT_EQ(m->gguf->tensors.size(), 3u);
  EXPECT_NE(m->gguf->find("qwen3.block_count"), nullptr);
  // Without keep_tensors, totals only (and the header still).
  Result<Model> lean = open_model(fs, "m/qwen3-small.gguf");
  ASSERT_TRUE(lean.ok());
  EXPECT_TRUE(lean->tensors.empty());
  EXPECT_EQ(lean->weights.bytes, 22272u);
  ASSERT_NE(lean->gguf, nullptr);
  EXPECT_EQ(lean->gguf->tensors.size(), 3u);
}

TEST(OpenGgufModel, ASplitSetFromAnyOfItsFiles) {
  // Split 1: the metadata and F16 [64, 100] = 12,800 B; split 2: Q8_0
  // [64, 100] = 2 blocks of 34 B x 100 rows = 6,800 B. In all 19,600 B.
  GgufWriter first = tiny_qwen3_gguf();
  first.add_u16("split.no", 0).add_u16("split.count", 2).add_i32("split.tensors.count", 2);
  first.add_tensor("token_embd.weight", GgmlType::kF16, {64, 100});
  GgufWriter second;
  second.add_u16("split.no", 1).add_u16("split.count", 2).add_i32("split.tensors.count", 2);
  second.add_tensor("output.weight", GgmlType::kQ8_0, {64, 100});
  MemoryFileSystem fs;
  fs.add_file("m/q-00001-of-00002.gguf", first.bytes());
  fs.add_file("m/q-00002-of-00002.gguf", second.bytes());
  Result<Model> m =
      open_model(fs, "m/q-00002-of-00002.gguf", OpenModelOptions{.keep_tensors = true});
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 19600u);
  EXPECT_EQ(m->weights.file_count, 2u);
  EXPECT_EQ(m->weights.tensor_count, 2u);
  ASSERT_EQ(m->tensors.size(), 2u);
  EXPECT_EQ(m->tensors[1].name, "output.weight");
  EXPECT_EQ(m->tensors[1].dtype, "q8_0");
  EXPECT_EQ(m->spec.geometry.layers, 2u);
}

TEST(OpenGgufModel, AFolderWithOneGgufModelIsThatModel) {
  MemoryFileSystem fs;
  fs.add_file("m/qwen3-small.gguf", small_qwen3_with_tensors().bytes());
  // A projector beside it (llama.cpp's --mmproj file) is not a model.
  GgufWriter projector;
  projector.add_string("general.architecture", "clip");
  fs.add_file("m/mmproj-qwen3-small-f16.gguf", projector.bytes());
  Result<Model> m = open_model(fs, "m");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->path, "m/qwen3-small.gguf");
  EXPECT_EQ(m->weights.bytes, 22272u);
}

TEST(OpenGgufModel, AFolderWithSeveralGgufModelsAsksForOne) {
  MemoryFileSystem fs;
  fs.add_file("m/a-Q4_K_M.gguf", tiny_qwen3_gguf().bytes());
  fs.add_file("m/b-00001-of-00002.gguf", tiny_qwen3_gguf().bytes());
  fs.add_file("m/b-00002-of-00002.gguf", tiny_qwen3_gguf().bytes());
  Result<Model> m = open_model(fs, "m");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kUsage);
  EXPECT_EQ(m.error().message(),
            "'m' holds 2 GGUF models ('a-Q4_K_M.gguf', 'b-00001-of-00002.gguf'): name the file "
            "of the one to size");
}

TEST(OpenGgufModel, AConfigFolderSaysItAlsoHoldsGgufModels) {
  MemoryFileSystem fs;
  fs.add_file("m/config.json", R"({"model_type":"qwen3","num_hidden_layers":2,"hidden_size":64,
      "num_attention_heads":4,"num_key_value_heads":2,"vocab_size":100})");
  fs.add_file("m/qwen3-small.gguf", tiny_qwen3_gguf().bytes());
  Result<Model> m = open_model(fs, "m");
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.source, WeightsSource::kAnalyticalConfig);
  ASSERT_EQ(m->warnings.size(), 2u);
  EXPECT_EQ(m->warnings[1],
            "'m' also holds GGUF models ('qwen3-small.gguf'): name one to size it from its own "
            "header");
}

TEST(OpenGgufModel, AnUnknownArchitectureIsSaidOnce) {
  GgufWriter w;
  w.add_string("general.architecture", "brand-new")
      .add_u32("brand-new.block_count", 2)
      .add_u32("brand-new.embedding_length", 64)
      .add_u32("brand-new.attention.head_count", 4);
  MemoryFileSystem fs;
  fs.add_file("x.gguf", w.bytes());
  Result<Model> m = open_model(fs, "x.gguf");
  ASSERT_TRUE(m.ok()) << m.error().message();
  ASSERT_EQ(m->warnings.size(), 1u);
  EXPECT_EQ(m->warnings[0],
            "GGUF architecture 'brand-new' is not one memfit knows: every layer with KV heads is "
            "sized as full attention; treat the KV figure as an estimate");
}

TEST(OpenGgufModel, MetadataErrorsNameTheFile) {
  GgufWriter w;
  w.add_string("general.architecture", "qwen3").add_u32("qwen3.embedding_length", 64);
  MemoryFileSystem fs;
  fs.add_file("m/x.gguf", w.bytes());
  Result<Model> m = open_model(fs, "m/x.gguf");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind(), ErrorKind::kInput);
  EXPECT_EQ(m.error().message(), "'m/x.gguf': gguf metadata: 'qwen3.block_count' is missing");
}

TEST(OpenGgufModel, ANominallyHugeModelCostsOneHeaderRead) {
  // 36 layers' worth of Q4_K matrices, 4096 x 12288 each: 48 blocks x 144
  // B x 4096 rows = 28,311,552 B; x 3 x 36 = 3,057,647,616 B, sparse on
  // disk. The header (under 1 MiB) is read once, no tensor data.
  TempDir dir;
  GgufWriter w = tiny_qwen3_gguf();
  for (int layer = 0; layer < 36; ++layer) {
    for (const char* m : {"ffn_up", "ffn_gate", "ffn_down"}) {
      w.add_tensor("blk." + std::to_string(layer) + "." + m + ".weight", GgmlType::kQ4_K,
                   {12288, 4096});
    }
  }
  const std::string path = dir.file_path("big.gguf");
  w.write(path);
  std::unique_ptr<FileSystem> real = make_real_file_system();
  RecordingFileSystem fs(*real);
  Result<Model> m = open_model(fs, path);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->weights.bytes, 3057647616u);
  EXPECT_GT(fs.bytes_read(), 0u);
  EXPECT_LE(fs.bytes_read(), 1u << 20);
}

}  // namespace
}  // namespace memfit
