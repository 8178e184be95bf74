// Small generated checkpoints that several tests size by hand.
#ifndef MEMFIT_TESTS_SUPPORT_SMALL_CHECKPOINTS_H_
#define MEMFIT_TESTS_SUPPORT_SMALL_CHECKPOINTS_H_

#include "support/temp_dir.h"

namespace memfit {

// A BF16 llama in dir: config.json (8 layers, hidden 4096, 32 heads, 8 KV
// heads, intermediate 4096, vocab 32000) and model.safetensors (sparse)
// holding model.embed_tokens.weight [32000, 4096] and one
// mlp.up_proj.weight [4096, 4096] per layer:
//   8 x 4096 x 4096 x 2 + 32000 x 4096 x 2 = 268,435,456 + 262,144,000
//   = 530,579,456 bytes as is.
void write_bf16_llama_checkpoint(const TempDir& dir);

}  // namespace memfit

#endif  // MEMFIT_TESTS_SUPPORT_SMALL_CHECKPOINTS_H_
