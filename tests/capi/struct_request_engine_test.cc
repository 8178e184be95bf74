// The C API's struct request is the mlxcel profile's, whatever the model:
// its result struct has mlxcel's fields. A GGUF model, which defaults to
// llama.cpp's profile elsewhere, is priced by mlxcel here.
#include <gtest/gtest.h>

#include "memfit/memfit.h"
#include "support/gguf_fixtures.h"
#include "support/temp_dir.h"

namespace memfit {
namespace {

TEST(CapiStructRequest, AGgufModelIsPricedByMlxcel) {
  TempDir dir;
  GgufWriter w = qwen3_8b_gguf_keys();
  w.add_tensor("token_embd.weight", GgmlType::kQ4_K, {4096, 151936});
  const std::string path = dir.file_path("qwen3.gguf");
  w.write(path);

  memfit_model* model = nullptr;
  char* error = nullptr;
  ASSERT_EQ(memfit_model_open(path.c_str(), &model, &error), MEMFIT_OK) << (error ? error : "");
  memfit_estimate_request request{4096, 1, 0, 64ull << 30};
  memfit_estimate_result result{};
  ASSERT_EQ(memfit_estimate(model, &request, &result, &error), MEMFIT_OK) << (error ? error : "");
  // 16 blocks x 144 B x 151,936 rows of Q4_K.
  EXPECT_EQ(result.weights_bytes, 350060544u);
  // mlxcel: 36 layers x 2 x 8 x 128 x 2 B = 147,456 B per token, x 4,096.
  EXPECT_EQ(result.kv_bytes_per_token, 147456u);
  EXPECT_EQ(result.kv_bytes, 603979776u);
  memfit_model_free(model);
}

}  // namespace
}  // namespace memfit
