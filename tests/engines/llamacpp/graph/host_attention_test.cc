// The host's buffer where it runs GPU layers' flash attention
// (src/engines/llamacpp/graph/host_attention.h), worked by hand at the
// host's 32-B alignment on the two logs it prices.
#include "engines/llamacpp/graph/host_attention.h"
#include "support/units.h"

#include <gtest/gtest.h>

namespace memfit::llamacpp::graph {
namespace {

using ::memfit::testing::kMiB;

// gpt-oss-20b on 8 Ascend 910B4 (llama.cpp b6115, flash attention on,
// 131,072 cells, SWA 768, U 512): ggml-cann refuses flash attention over
// sinks, so the host runs every layer's. Inputs in first-read order:
// tokens 2,048, positions 2,048, the SWA cache's k_idxs 4,096, v_idxs
// 4,096, F32 mask 768 x 512 x 4 = 1,572,864 (at 12,288), the full cache's
// indices (2 x 4,096) and F32 mask 131,072 x 512 x 4 = 268,435,456 (at
// 1,593,344), output ids 2,048: E = 270,030,848. The rows (5,898,240) go to
// E and are freed (the last block again); the SWA mask is freed, a hole
// H1 of 1.5 MiB. Layer 0 (SWA): Q 8 MiB takes E (H1 too small), K and V
// (768 x 512 x 2 = 786,432 each) fill H1, the F16 SWA mask's copy
// (786,432) goes to E + 8 MiB and lives on, the sinks (256) and the output
// (8 MiB) above it, then freed. Layer 1 (full): its F32 mask is freed, a
// hole H2 of 256 MiB below the output ids; Q takes its old 8 MiB slot at E
// (the best fit), K (128 MiB) and V (128 MiB) fill H2 exactly, the F16
// mask's copy (128 MiB) goes to the last block at E + 9,175,040, the sinks
// into H1, the output above the mask: E + 9,175,040 + 134,217,728 +
// 8,388,608 = 421,812,224 B (402.27 MiB, the log's CANN_Host print).
TEST(HostAttention, GptOssOnCannKeepsKAndVInTheF32MasksHole) {
  HostAttentionShape s;
  s.token_ids = s.positions = s.output_ids = 2048;
  s.rows = 512 * 2880 * 4;
  s.mask = {131072 * 512 * 4, 768 * 512 * 4};
  s.k_idxs = s.v_idxs = {4096, 4096};
  s.query = s.output = 8 * kMiB;
  s.sinks = 256;
  for (int layer = 0; layer < 24; ++layer) {
    const bool windowed = layer % 2 == 0;
    const uint64_t kv = (windowed ? 768 : 131072) * 512 * 2;
    s.layers.push_back({windowed ? 1 : 0, kv, kv});
  }
  Result<uint64_t> bytes = host_attention_bytes(s);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 421812224u);
}

// ggml-org/llama.cpp#11500 (b4524, Granite Code 3B on SYCL, 32,768 cells,
// U 512, before #14959: no KV indices): tokens and positions (2,048 each),
// the F32 mask (64 MiB at 4,096), output ids: E = 67,115,008. The rows are
// freed, then the mask: a 64 MiB hole below the output ids. Q (5 MiB)
// takes it; K (32,768 x 2,560 x 2 = 160 MiB) does not fit the 59 MiB left
// and goes to E, V above it; the F16 mask's copy (32 MiB) and the output
// (5 MiB) fit the hole: E + 320 MiB = 402,659,328 B (384.01 MiB, the print).
TEST(HostAttention, GraniteOnSyclPutsKAndVAboveASmallerHole) {
  HostAttentionShape s;
  s.token_ids = s.positions = s.output_ids = 2048;
  s.rows = 512 * 2560 * 4;
  s.mask = {32768 * 512 * 4, 0};
  s.query = s.output = 5 * kMiB;
  for (int layer = 0; layer < 32; ++layer) s.layers.push_back({0, 160 * kMiB, 160 * kMiB});
  Result<uint64_t> bytes = host_attention_bytes(s);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 402659328u);
}

// A build with an F16 mask input (#23764): the host's attention reads the
// input itself, which stays to the last layer; no hole. One layer, every
// tensor a 32-B multiple: tokens 32, positions 32, mask 1,024, output ids
// 32 (1,120 B of inputs), then Q 64, K 256, V 256 and the output 64 above
// them: 1,120 + 640 = 1,760 B.
TEST(HostAttention, F16MaskInputIsReadInPlace) {
  HostAttentionShape s;
  s.token_ids = s.positions = s.output_ids = 32;
  s.mask = {1024, 0};
  s.mask_cast = false;
  s.query = s.output = 64;
  s.layers.push_back({0, 256, 256});
  Result<uint64_t> bytes = host_attention_bytes(s);
  ASSERT_TRUE(bytes) << bytes.error().message();
  EXPECT_EQ(*bytes, 1760u);
}

}  // namespace
}  // namespace memfit::llamacpp::graph
