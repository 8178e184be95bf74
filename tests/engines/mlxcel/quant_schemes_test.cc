// Quantized weight sizes from tensor shapes (MLX affine: bits per weight
// plus a 16-bit scale and bias per group of 64 along the last dimension).
#include <gtest/gtest.h>

#include "memfit/quant_schemes.h"
#include "memfit/model.h"
#include "support/safetensors_writer.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

// embed 1000 x 128 BF16 = 256,000 B; up_proj 256 x 128 = 65,536 B;
// norm [128] = 256 B; bias [256] = 512 B; lm_head 1000 x 127 = 254,000 B
// (127 is not a multiple of 64: kept as is). As is: 576,304 B.
std::vector<SafetensorsTensor> small_model() {
  return {{"model.embed_tokens.weight", "BF16", {1000, 128}, 256000},
          {"model.layers.0.mlp.up_proj.weight", "BF16", {256, 128}, 65536},
          {"model.norm.weight", "BF16", {128}, 256},
          {"model.layers.0.mlp.up_proj.bias", "BF16", {256}, 512},
          {"lm_head.weight", "BF16", {1000, 127}, 254000}};
}

uint64_t bytes(const std::vector<SafetensorsTensor>& t, const QuantScheme& s,
               const QuantizationInfo& source = {}) {
  Result<uint64_t> r = quantized_weights_bytes(t, s, source);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : 0;
}

TEST(QuantSchemes, AsIsIsTheHeaderBytes) {
  EXPECT_EQ(bytes(small_model(), mlx_quant_schemes()[0]), 576304u);
}

TEST(QuantSchemes, Int8AndInt4FromShapes) {
  // int8: embed 128,000 x 1 + 128,000 / 64 x 4 = 136,000; up 32,768 + 512 x 4 = 34,816;
  //   + norm 256 + bias 512 + lm_head 254,000 = 425,584.
  EXPECT_EQ(bytes(small_model(), mlx_quant_schemes()[1]), 425584u);
  // int4: embed 64,000 + 8,000 = 72,000; up 16,384 + 2,048 = 18,432;
  //   + 256 + 512 + 254,000 = 345,200.
  EXPECT_EQ(bytes(small_model(), mlx_quant_schemes()[2]), 345200u);
}

TEST(QuantSchemes, GroupSizeIsAParameter) {
  // group 32, int4: embed 64,000 + 4,000 x 4 = 80,000; up 16,384 + 1,024 x 4 = 20,480;
  // lm_head 127 % 32 != 0 kept; total 80,000 + 20,480 + 256 + 512 + 254,000 = 355,248.
  EXPECT_EQ(bytes(small_model(), mlx_quant_schemes(32)[2]), 355248u);
}

TEST(QuantSchemes, MlxPackedSourceIsUnpacked) {
  // An MLX 4-bit checkpoint of the up_proj above: U32 [256, 128 x 4 / 32 = 16]
  // = 16,384 B, scales and biases BF16 [256, 2] = 1,024 B each.
  std::vector<SafetensorsTensor> packed = {
      {"model.layers.0.mlp.up_proj.weight", "U32", {256, 16}, 16384},
      {"model.layers.0.mlp.up_proj.scales", "BF16", {256, 2}, 1024},
      {"model.layers.0.mlp.up_proj.biases", "BF16", {256, 2}, 1024}};
  QuantizationInfo source;
  source.method = "mlx_affine";
  source.bits = 4;
  source.group_size = 64;
  // As is: 18,432. int8 from logical 256 x 128: 32,768 + 512 x 4 = 34,816.
  EXPECT_EQ(bytes(packed, mlx_quant_schemes()[0], source), 18432u);
  EXPECT_EQ(bytes(packed, mlx_quant_schemes()[1], source), 34816u);
  // int4 reproduces the checkpoint: 16,384 + 2,048 = 18,432.
  EXPECT_EQ(bytes(packed, mlx_quant_schemes()[2], source), 18432u);
}

// recommend-quant and plot --quants price the tensor list open_model keeps.
TEST(TensorList, OpenModelKeepsEveryShardsTensors) {
  TempDir dir;
  write_safetensors_file(dir.file_path("a.safetensors"),
                         {{"model.embed_tokens.weight", "BF16", {1000, 128}, std::nullopt}});
  write_safetensors_file(dir.file_path("b.safetensors"),
                         {{"lm_head.weight", "BF16", {1000, 127}, std::nullopt},
                          {"model.norm.weight", "BF16", {128}, std::nullopt}});
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  const OpenModelOptions keep{.keep_tensors = true};
  Result<Model> model = open_model(*fs, dir.path(), keep);
  ASSERT_TRUE(model.ok()) << model.error().message();
  const std::vector<SafetensorsTensor>& tensors = model->tensors;
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(tensors[1].shape, (std::vector<uint64_t>{1000, 127}));
  // A hostile shard is an error naming it.
  dir.write_file("c.safetensors", std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8));
  Result<Model> bad = open_model(*fs, dir.path(), keep);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("c.safetensors"), std::string::npos);
}

}  // namespace
}  // namespace memfit
