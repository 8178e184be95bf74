// GGUF headers that several tests price, written with GgufWriter.
#ifndef MEMFIT_TESTS_SUPPORT_GGUF_FIXTURES_H_
#define MEMFIT_TESTS_SUPPORT_GGUF_FIXTURES_H_

#include "support/gguf_writer.h"

namespace memfit {

// Qwen3-8B's geometry keys as llama.cpp's converter names them: 36 blocks,
// hidden 4,096, FFN 12,288, 32 heads and 8 KV heads of 128, vocabulary
// 151,936 (qwen3.vocab_size), and, when `training_context`, a context
// length of 40,960. No tensors: each test adds its own.
GgufWriter qwen3_8b_gguf_keys(bool training_context = true);

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_GGUF_FIXTURES_H_
