// Small generated GGUF models that several tests size by hand.
#ifndef MEMFIT_TESTS_SUPPORT_SMALL_GGUFS_H_
#define MEMFIT_TESTS_SUPPORT_SMALL_GGUFS_H_

#include <string_view>

#include "support/gguf_writer.h"

namespace memfit {

// Qwen3-8B's geometry in GGUF (gguf_fixtures.h's keys), sparse on disk: 36 layers, 8 KV heads of
// 128 (K and V rows of 1,024 elements: 2,048 B in f16), vocab 151,936,
// training context 40,960; a Q4_K token embedding [4096, 151936],
// 16 blocks x 144 B x 151,936 rows = 350,060,544 B, and 36 Q4_K
// [4096, 4096] matrices, 2,304 B x 4,096 rows = 9,437,184 B each,
// 339,738,624 B in all: 689,799,168 B of weights.
GgufWriter qwen3_8b_gguf();

// A two-layer Qwen3-shaped GGUF header and no tensors: 4 heads of 16, 2 KV
// heads, width 64, feed-forward 256, vocab 100, training context 4,096.
GgufWriter tiny_qwen3_gguf();

// A small SigLIP-like multimodal projector (`arch`, "clip" by default):
// 224 px images in 14 px patches, width 64, FFN 128, 4 heads. Tensors: the
// patch embedding f16 14 x 14 x 3 x 64 (37,632 elements x 2 B = 75,264 B)
// and a projection f32 64 x 128 (8,192 x 4 B = 32,768 B): 108,032 B.
GgufWriter tiny_projector_gguf(std::string_view arch = "clip");

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_SMALL_GGUFS_H_
