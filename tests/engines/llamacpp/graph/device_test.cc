// The replayed compute buffer of one GPU that runs every layer and the
// output (src/engines/llamacpp/graph/decoder.cc, replay_decoder_device;
// ggml_graph.h's device_split): the build's graph as the scheduler splits
// it, the GPU's split with its input copies first. The layouts at the peak
// are worked out by hand beside each figure.
#include <gtest/gtest.h>

#include <string>

#include "memfit/llamacpp.h"
#include "support/llamacpp_replay.h"

namespace memfit {
namespace {

// `llama-dense`: 4 blocks, hidden 512, 8 heads / 2 KV heads of 64, FFN
// 1536, vocabulary 32000.
ModelSpec validation_llama_device(std::string arch = "llama") {
  ModelSpec s;
  s.model_type = std::move(arch);
  s.geometry = {4, 512, 8, 2, 64, 1536, 32000};
  s.max_position_tokens = 8192;
  s.layers.assign(4, LayerCache{LayerKind::kFullAttention, 256, 0, 0, 0});
  return s;
}

// Every layer (-ngl 99) on one 24 GiB CUDA GPU.
LlamaCppSettings on_one_gpu(LlamaCppSettings s, uint64_t build) {
  s.build = build;
  s.placement.gpus = {LlamaCppGpu{"cuda:0", "", uint64_t{24} << 30}};
  s.placement.n_gpu_layers = 99;
  return s;
}

uint64_t gpu_compute(const ModelSpec& spec, const LlamaCppSettings& s) {
  const LlamaCppEstimate e = run_llamacpp(spec, s);
  EXPECT_EQ(e.placement.devices.size(), 2u);
  return e.placement.devices.empty() ? 0 : e.placement.devices[0].compute_bytes;
}

TEST(LlamaCppDeviceReplay, TheMaskCastLandsAboveTheCopiesAndBlockZerosQuery) {
  // b7780 (before #23764: an F32 mask input, cast to F16 in the graph; no
  // vector-input leaf, before #18898), flash attention, -c 32768 -ub 512.
  // The GPU's split copies, in the order it reads them: the rows 4 x 512 x
  // 512 = 1,048,576 at 0, positions 2,048, k_idxs and v_idxs 4,096 each,
  // the F32 mask 4 x 32768 x 512 = 67,108,864 and out_ids 2,048. Block 0's
  // norm (its weight's product in place) and Q's product take 1 MiB each
  // above them, the roped Q another; K's product and rope fit the holes the
  // norm and Q's product leave. The cast, 2 x 32768 x 512 = 33,554,432,
  // fits no hole and lands on top, the peak:
  // 1,048,576 + 10,240 + 67,108,864 + 2,048 + 3 x 1,048,576 + 33,554,432
  // = 104,869,888 (the F32 copy is freed after it; the logits, 65,536,000
  // at the end, fit above the rows' freed place).
  const LlamaCppSettings s = on_one_gpu(llamacpp_settings(32768, 1, 512, FlashAttn::kOn), 7780);
  EXPECT_EQ(gpu_compute(validation_llama_device(), s), 104869888u);
}

TEST(LlamaCppDeviceReplay, TheLogitsLandAboveTheLastLayersRows) {
  // Qwen2.5-Coder 7B (28 blocks, hidden 3584, 28 heads / 4 KV heads of
  // 128, FFN 18944, vocabulary 152064) at b7780, flash attention, 32768
  // cells, -ub 512: tests/data/logs/llamacpp/llamacpp-rusteze-qwen25-coder-
  // 7b-q8_0-rtx5080 prints CUDA0 382.01 MiB, where the logits and
  // result_norm alone are 304.00. The copies take the bottom: the rows
  // 4 x 512 x 3584 = 7,340,032, 10,240 B of positions and indices, the F32
  // mask 67,108,864, out_ids 2,048, so block 0's norm starts at 74,461,184,
  // and the slot stays a row's: the last block's ffn_inp sits there, its
  // FFN output (l_out, then result_norm, both in place) right above it at
  // 81,801,216. The logits, 4 x 512 x 152,064 = 311,427,072, fit no hole
  // below and go above result_norm: 81,801,216 + 7,340,032 + 311,427,072 =
  // 400,568,320 B = 382.01 MiB, the print.
  ModelSpec qwen2;
  qwen2.model_type = "qwen2";
  qwen2.geometry = {28, 3584, 28, 4, 128, 18944, 152064};
  qwen2.max_position_tokens = 32768;
  qwen2.layers.assign(28, LayerCache{LayerKind::kFullAttention, 1024, 0, 0, 0});
  const LlamaCppSettings s = on_one_gpu(llamacpp_settings(32768, 1, 512, FlashAttn::kOn), 7780);
  EXPECT_EQ(gpu_compute(qwen2, s), 400568320u);
  // Pipeline parallelism's four copies of each input are not this graph:
  // the phases price it.
  LlamaCppSettings pp = s;
  pp.placement.pipeline_parallel = true;
  EXPECT_NE(gpu_compute(qwen2, pp), 400568320u);
}

TEST(LlamaCppDeviceReplay, Glm4sLastFfnLeavesTheLogitsAboveItsProduct) {
  // GLM-Z1 32B (glm4: 61 blocks, hidden 6144, 48 heads / 2 KV heads of
  // 128, FFN 23040 from one merged up matrix, post-attention and post-FFN
  // norms, vocabulary 151552) at b5192 (before #14158: each half of the up
  // product copied out, SiLU and the product in place), flash attention,
  // 32768 cells, -ub 512: tests/data/logs/llamacpp/llamacpp-ik344-glm-z1-
  // 32b-iq4xs-3090ti-b5192 prints CUDA0 353.00 MiB. The last block's FFN
  // product, 4 x 512 x 23,040 = 47,185,920, takes the bottom (where the
  // copies were), its down product right above it, the post-FFN norm,
  // l_out and result_norm in place over that, 12,582,912; the logits,
  // 4 x 512 x 151,552 = 310,378,496, fit no hole and go above:
  // 47,185,920 + 12,582,912 + 310,378,496 = 370,147,328 B, the print.
  ModelSpec glm4;
  glm4.model_type = "glm4";
  glm4.geometry = {61, 6144, 48, 2, 128, 23040, 151552};
  glm4.max_position_tokens = 32768;
  glm4.layers.assign(61, LayerCache{LayerKind::kFullAttention, 512, 0, 0, 0});
  const LlamaCppSettings s = on_one_gpu(llamacpp_settings(32768, 1, 512, FlashAttn::kOn), 5192);
  EXPECT_EQ(gpu_compute(glm4, s), 47185920u + 12582912u + 310378496u);
}

}  // namespace
}  // namespace memfit
