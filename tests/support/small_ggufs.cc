#include "support/small_ggufs.h"

#include <string>

#include "support/gguf_fixtures.h"

namespace memfit {

GgufWriter qwen3_8b_gguf() {
  GgufWriter w = qwen3_8b_gguf_keys();
  w.add_tensor("token_embd.weight", GgmlType::kQ4_K, {4096, 151936});
  for (int layer = 0; layer < 36; ++layer) {
    w.add_tensor("blk." + std::to_string(layer) + ".attn_q.weight", GgmlType::kQ4_K, {4096, 4096});
  }
  return w;
}

}  // namespace memfit
