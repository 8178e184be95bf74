#include "support/gguf_fixtures.h"

namespace memfit {

GgufWriter qwen3_8b_gguf_keys(bool training_context) {
  GgufWriter w;
  w.add_string("general.architecture", "qwen3").add_u32("qwen3.block_count", 36);
  if (training_context) w.add_u32("qwen3.context_length", 40960);
  w.add_u32("qwen3.embedding_length", 4096)
      .add_u32("qwen3.feed_forward_length", 12288)
      .add_u32("qwen3.attention.head_count", 32)
      .add_u32("qwen3.attention.head_count_kv", 8)
      .add_u32("qwen3.attention.key_length", 128)
      .add_u32("qwen3.attention.value_length", 128)
      .add_u32("qwen3.vocab_size", 151936);
  return w;
}

}  // namespace memfit
