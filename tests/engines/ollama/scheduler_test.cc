// Ollama's scheduler (src/engines/ollama/scheduler.cc): the layers it puts
// on each GPU, worked by hand through buildLayout's passes.
#include <gtest/gtest.h>

#include "engines/ollama/settings.h"

namespace memfit::ollama {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

// `blocks` blocks of `block_mib` (weights only) and an output layer.
LayerSizes layers_of(size_t blocks, uint64_t block_mib, uint64_t output_mib, uint64_t graph_mib) {
  LayerSizes s;
  s.layer_bytes.assign(blocks, block_mib * kMiB);
  s.layer_bytes.push_back(output_mib * kMiB);
  s.weights_bytes = s.layer_bytes;
  s.first_layer_buffer_bytes = block_mib * kMiB;
  s.graph_partial_bytes = s.graph_full_bytes = graph_mib * kMiB;
  return s;
}

TEST(OllamaScheduler, EightGigabyteGpuTakesWhatFitsWithoutTheOutputLayer) {
  // 32 blocks of 250 MiB and an output layer of 400 MiB (8400 MiB) on
  // 8192 MiB free. Less the one-layer buffer (250) and the minimum (457):
  // 7485 MiB. Pass 1 (no graph): output + floor(7085 / 250) = 28 blocks
  // is 29 of 33; without the output, floor(7485 / 250) = 29 blocks. The
  // GPU is used: its graph (300 MiB) is reserved and the layout made
  // again: 7185 MiB, output + floor(6785 / 250) = 27 blocks is 28 of 33;
  // without the output floor(7185 / 250) = 28 blocks: 28 layers, the
  // output on the CPU.
  OllamaDecisions d;
  place_layers(layers_of(32, 250, 400, 300), {{"cuda:0", 8192 * kMiB, 8192 * kMiB, false}}, d);
  EXPECT_EQ(d.gpu_layers, 28u);
  ASSERT_EQ(d.layers_per_gpu.size(), 1u);
  EXPECT_EQ(d.layers_per_gpu[0], 28u);
  // Ollama's estimate: 28 x 250 MiB of weights, the partial graph.
  EXPECT_EQ(d.estimate_weights_bytes[0], 7000 * kMiB);
  EXPECT_EQ(d.estimate_graph_bytes[0], 300 * kMiB);
}

TEST(OllamaScheduler, EightGigabyteGpuHoldsASmallModelWhole) {
  // 32 x 200 + 400 = 6800 MiB <= 8192 - 200 - 457 - 300 = 7235 MiB.
  OllamaDecisions d;
  place_layers(layers_of(32, 200, 400, 300), {{"cuda:0", 8192 * kMiB, 8192 * kMiB, false}}, d);
  EXPECT_EQ(d.gpu_layers, 33u);
}

TEST(OllamaScheduler, NumGpuIsHonouredUpToTheLayers) {
  OllamaDecisions d;
  d.given.num_gpu = 10;
  place_layers(layers_of(32, 200, 400, 300), {{"cuda:0", 8192 * kMiB, 8192 * kMiB, false}}, d);
  EXPECT_EQ(d.gpu_layers, 10u);
}

TEST(OllamaScheduler, TwoGpusSplitBySmallestCapacity) {
  // 40 blocks of 400 MiB and an 800 MiB output (16800 MiB) on 12288 and
  // 8192 MiB free. Less the buffer (400) and the minimum (457): 11431 and
  // 7335 MiB. Pass 1: cuda:0 alone takes 800 + 26 x 400; both GPUs take
  // all 41, so each gets the 500 MiB graph: 10931 and 6835 MiB. Pass 2
  // (both GPUs): the smallest capacity c placing 41 layers fills cuda:1
  // (the smaller, filled first from the last layer) with the output and
  // k blocks, k = floor((6835c - 800) / 400), and cuda:0 with 40 - k.
  // k = 14 needs 26 x 400 = 10400 <= 10931c, c >= 0.9514, where cuda:1
  // gives floor((6503 - 800) / 400) = 14; k = 15 needs 6835c >= 6800,
  // c >= 0.9949; k = 13 needs 10800 <= 10931c, c >= 0.9880. So c is
  // 0.9514: cuda:0 26 blocks, cuda:1 14 blocks and the output.
  OllamaDecisions d;
  place_layers(layers_of(40, 400, 800, 500),
               {{"cuda:0", 12288 * kMiB, 12288 * kMiB, false}, {"cuda:1", 8192 * kMiB, 8192 * kMiB, false}}, d);
  EXPECT_EQ(d.gpu_layers, 41u);
  ASSERT_EQ(d.layers_per_gpu.size(), 2u);
  EXPECT_EQ(d.layers_per_gpu[0], 26u);
  EXPECT_EQ(d.layers_per_gpu[1], 15u);
  // Every layer on the GPUs: the full graph on each.
  EXPECT_EQ(d.estimate_graph_bytes[0], 500 * kMiB);
  EXPECT_EQ(d.estimate_graph_bytes[1], 500 * kMiB);
}

TEST(OllamaScheduler, OneGpuHoldingEverythingLeavesTheOtherEmpty) {
  // 6800 MiB fits cuda:0's 12288 - 200 - 457 - 300: the fewest GPUs.
  OllamaDecisions d;
  place_layers(layers_of(32, 200, 400, 300),
               {{"cuda:0", 12288 * kMiB, 12288 * kMiB, false}, {"cuda:1", 8192 * kMiB, 8192 * kMiB, false}}, d);
  EXPECT_EQ(d.layers_per_gpu[0], 33u);
  EXPECT_EQ(d.layers_per_gpu[1], 0u);
  // OLLAMA_SCHED_SPREAD: both GPUs take layers.
  OllamaDecisions spread;
  spread.given.sched_spread = true;
  place_layers(layers_of(32, 200, 400, 300),
               {{"cuda:0", 12288 * kMiB, 12288 * kMiB, false}, {"cuda:1", 8192 * kMiB, 8192 * kMiB, false}},
               spread);
  EXPECT_EQ(spread.gpu_layers, 33u);
  EXPECT_GT(spread.layers_per_gpu[1], 0u);
}

}  // namespace
}  // namespace memfit::ollama
