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

GgufWriter tiny_qwen3_gguf() {
  GgufWriter w;
  w.add_string("general.architecture", "qwen3")
      .add_u32("qwen3.block_count", 2)
      .add_u32("qwen3.context_length", 4096)
      .add_u32("qwen3.embedding_length", 64)
      .add_u32("qwen3.feed_forward_length", 256)
      .add_u32("qwen3.attention.head_count", 4)
      .add_u32("qwen3.attention.head_count_kv", 2)
      .add_u32("qwen3.vocab_size", 100);
  return w;
}

GgufWriter tiny_projector_gguf(std::string_view arch) {
  GgufWriter w;
  w.add_string("general.architecture", arch)
      .add_u32("clip.vision.image_size", 224)
      .add_u32("clip.vision.patch_size", 14)
      .add_u32("clip.vision.embedding_length", 64)
      .add_u32("clip.vision.feed_forward_length", 128)
      .add_u32("clip.vision.attention.head_count", 4)
      .add_tensor("v.patch_embd.weight", GgmlType::kF16, {14, 14, 3, 64})
      .add_tensor("mm.0.weight", GgmlType::kF32, {64, 128});
  return w;
}

}  // namespace memfit
