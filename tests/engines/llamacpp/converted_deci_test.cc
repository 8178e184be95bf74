// Nemotron-NAS (deci) converted tensors (engines/llamacpp/
// converted_deci.cc), checked against the Llama-3.3-Nemotron-Super-49B
// dump of ggml-org/llama.cpp issue #14752 (tests/data/logs/llamacpp/
// llamacpp-14752-nemotron-super-49b-q6kxl-5090-2gpu.log: 569 tensors,
// f32 131, the rest 438 quantized); counts and bytes worked by hand below.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "engines/llamacpp/converted_deci.h"
#include "engines/llamacpp/converted_models.h"
#include "engines/llamacpp/quantize_plan.h"

namespace memfit::llamacpp {
namespace {

using converted_test::f32_count;
using converted_test::type_counts;

// The 49B's per-layer arrays as its print_info lists them: 64 heads and 8
// KV heads of 128 on 49 layers, none on the other 31 (the NAS's no-op
// attention); every layer an FFN of its own width.
DeciWidths super_49b() {
  DeciWidths w;
  const std::vector<int> attends = {1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                    1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
                                    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  for (int a : attends) {
    w.heads.push_back(a ? 64 : 0);
    w.kv_heads.push_back(a ? 8 : 0);
  }
  w.ff = {14336, 28672, 28672, 28672, 28672, 28672, 14336, 14336, 28672, 28672, 28672, 17920, 28672, 28672,
          28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672,
          28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672,
          7168,  14336, 14336, 7168,  28672, 7168,  14336, 7168,  7168,  7168,  28672, 7168,  5632,  5632,
          7168,  5632,  5632,  5632,  7168,  7168,  2816,  2816,  5632,  5632,  2816,  2816,  5632,  2816,
          2816,  28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672, 28672};
  w.head_dim = 128;
  return w;
}

// F16 elements: an attending block's Q and O 2 x 8,192 x 8,192 and K and
// V 2 x 8,192 x 1,024 = 150,994,944, x 49 = 7,398,752,256; the FFNs 3 x
// 8,192 x 1,642,496 (the widths' sum) = 40,365,981,696; token_embd and
// output 2 x 8,192 x 128,256 = 2,101,346,304: 49,866,080,256 x 2 B =
// 99,732,160,512 B. F32: 49 attn_norm and 80 ffn_norm of 8,192, output_norm
// 8,192 and rope_freqs 64 (llama3 RoPE): 1,065,024 x 4 B = 4,260,096 B.
// Together 99,736,420,608 B; 569 tensors (131 F32, 438 matrices: 49 x 4 +
// 80 x 3 + 2), the dump's.
TEST(ConvertedDeci, Super49bOfIssue14752) {
  Model m;
  m.spec.model_type = "deci";
  m.spec.geometry = ModelGeometry{80, 8192, 64, 8, 128, 28672, 128256};
  m.spec.layers.assign(80, LayerCache{});
  m.spec.tied_embeddings = false;
  m.spec.rope_scaling.type = "llama3";
  const DeciWidths w = super_49b();
  ConverterHints h;
  h.deci = &w;
  Result<std::vector<ConvertedTensor>> t = converted_tensors(m.spec, nullptr, &h);
  ASSERT_TRUE(t.ok()) << t.error().message();
  EXPECT_EQ(t->size(), 569u);
  EXPECT_EQ(f32_count(*t), 131);
  Result<Model> f16 = quantized_gguf_model(m, *find_gguf_file_type("F16"), nullptr, {}, &h);
  ASSERT_TRUE(f16.ok()) << f16.error().message();
  EXPECT_EQ(f16->weights.bytes, 99736420608u);
  // Without the widths the spec alone builds no list.
  EXPECT_FALSE(converted_tensors(m.spec).ok());
}

}  // namespace
}  // namespace memfit::llamacpp
