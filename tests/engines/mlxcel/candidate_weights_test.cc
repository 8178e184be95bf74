// candidate_weights_bytes and shrinks_checkpoint: how recommend-quant and
// plot price each weight mode, from headers or, without them, the config.
#include <gtest/gtest.h>

#include <memory>

#include "memfit/file_system.h"
#include "memfit/model.h"
#include "memfit/quant_schemes.h"
#include "support/paths.h"

namespace memfit {
namespace {

Model example_model() {
  std::unique_ptr<FileSystem> fs = make_real_file_system();
  Result<Model> m = open_model(*fs, std::string(MEMFIT_SOURCE_DIR) + "/examples/Qwen3-14B-MLX-4bit");
  EXPECT_TRUE(m.ok()) << m.error().message();
  return m.ok() ? *m : Model{};
}

TEST(CandidateWeights, IndexOnlyDownloadIsPricedFromTheParameterCount) {
  Model model = example_model();
  // The example has its config and index but no *.safetensors: 14,768,296,960
  // parameters counted from the config.
  ASSERT_EQ(model.spec.analytical_params, 14'768'296'960u);
  std::vector<QuantScheme> schemes = mlx_quant_schemes();
  ASSERT_EQ(schemes.size(), 3u);
  // as-is: the index's total_size.
  EXPECT_EQ(*candidate_weights_bytes(schemes[0], model, {}), 8'307'783'680u);
  // int8: 14,768,296,960 x 8 / 8 + 14,768,296,960 / 64 x 4 (230,754,640 groups)
  // = 14,768,296,960 + 923,018,560 = 15,691,315,520.
  EXPECT_EQ(*candidate_weights_bytes(schemes[1], model, {}), 15'691'315'520u);
  // int4: 7,384,148,480 + 923,018,560 = 8,307,167,040.
  EXPECT_EQ(*candidate_weights_bytes(schemes[2], model, {}), 8'307'167'040u);
}

TEST(CandidateWeights, HeadersWinOverTheParameterCount) {
  Model model = example_model();
  // One 4096 x 4096 BF16 matrix: int4 = 8,388,608 + 262,144 x 4 = 9,437,184.
  std::vector<SafetensorsTensor> tensors(1);
  tensors[0].name = "model.layers.0.mlp.up_proj.weight";
  tensors[0].dtype = "BF16";
  tensors[0].shape = {4096, 4096};
  tensors[0].data_bytes = 4096ull * 4096 * 2;
  EXPECT_EQ(*candidate_weights_bytes(mlx_quant_schemes()[2], model, tensors), 9'437'184u);
}

TEST(CandidateWeights, NothingToSizeIsAnError) {
  Model model;
  Result<uint64_t> r = candidate_weights_bytes(mlx_quant_schemes()[1], model, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "no weight headers and no config geometry to size int8");
}

TEST(CandidateWeights, OnlyNarrowerSchemesShrinkTheCheckpoint) {
  ModelSpec four_bit;
  four_bit.quantization.bits = 4;
  ModelSpec bf16;
  std::vector<QuantScheme> s = mlx_quant_schemes();
  EXPECT_TRUE(shrinks_checkpoint(s[0], four_bit));   // as-is always
  EXPECT_FALSE(shrinks_checkpoint(s[1], four_bit));  // 8 > 4
  EXPECT_FALSE(shrinks_checkpoint(s[2], four_bit));  // 4 == 4
  EXPECT_TRUE(shrinks_checkpoint(s[1], bf16));       // 8 < 16
}

}  // namespace
}  // namespace memfit
