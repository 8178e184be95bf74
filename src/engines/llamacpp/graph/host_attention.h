// The host's compute buffer where it runs the flash attention of layers a
// GPU backend cannot (ggml-sycl before #20190, ggml-cann over attention
// sinks: llamacpp::runs_flash_attn), replayed over the tensors that buffer
// holds. Private to the library.
//
// ggml_backend_sched_split_graph gives the attention op to the CPU, the
// one backend that supports it, so each such layer is a split of its own
// on the host whose inputs are the scheduler's copies of the GPU's tensors
// it reads (Q, the layer's K and V views: the whole cache of the layer,
// the F16 mask, the sinks), allocated at the split's start in that order
// (flash_attn_ext's sources) and freed after their last reader; its output
// is copied back to the GPU and freed. Below them lie the graph inputs,
// placed first in the order the graph first reads them (token ids; the
// first block's split: positions, each cache's k_idxs and v_idxs and its
// mask, the cache of the first attention layer first; output ids, read by
// the last block). An F32 mask that the first GPU casts to F16
// (llamacpp::f32_mask_cast) is read once, by that GPU's copy: ggml-alloc
// frees it after the copy's dependency (ggml-backend.cpp adds a view with
// no op, `input_dep`, that ggml-alloc counts as a user, not a view:
// ggml-alloc.c, "GGML_OP_NONE ... is used by ggml-backend to add
// dependencies"), at the first layer of its cache, leaving a hole the
// later copies fall into by best fit. The F16 mask's copy is made once and
// lives until the last layer reading it.
#ifndef MEMFIT_ENGINES_LLAMACPP_GRAPH_HOST_ATTENTION_H_
#define MEMFIT_ENGINES_LLAMACPP_GRAPH_HOST_ATTENTION_H_

#include <array>
#include <cstdint>
#include <vector>

#include "memfit/result.h"

namespace memfit::llamacpp::graph {

// A cache's attention layers: 0 the full cache's, 1 an ISWA model's
// windowed cache's (each with its own mask and KV store indices).
inline constexpr int kCacheKinds = 2;

// One layer whose attention the host runs, in layer order: its cache and
// the bytes of its K and V views' copies (the layer's cells x one row).
struct HostAttentionLayer {
  int cache = 0;
  uint64_t k_bytes = 0;
  uint64_t v_bytes = 0;
};

// Bytes of each tensor; a 0 is a tensor the build does not have.
struct HostAttentionShape {
  uint64_t token_ids = 0;   // i32 x n_tok
  uint64_t positions = 0;   // i32 x n_tok
  uint64_t output_ids = 0;  // i32 x n_out
  uint64_t input_leaf = 0;  // the vector-input leaf (#18898), never read
  uint64_t rows = 0;        // the token rows the host gathers, copied to the first GPU
  // Per cache: the mask input (F32 where `mask_cast`, else F16) and the
  // KV store's I64 indices (#14959).
  std::array<uint64_t, kCacheKinds> mask = {0, 0};
  std::array<uint64_t, kCacheKinds> k_idxs = {0, 0};
  std::array<uint64_t, kCacheKinds> v_idxs = {0, 0};
  // The first GPU casts the F32 mask to F16; the host reads the cast's
  // copy (half the input's bytes). Else the host reads its F16 input.
  bool mask_cast = true;
  uint64_t query = 0;   // f32 x n_tok x heads x query width
  uint64_t output = 0;  // f32 x n_tok x heads x head_dim
  uint64_t sinks = 0;   // f32 x heads (gpt-oss's attn_sinks); 0 without
  std::vector<HostAttentionLayer> layers;
};

// The host buffer's high-water mark over its inputs and the attention
// splits (ggml-alloc's best fit at the host's 32-B alignment). The host's
// other splits (an FFN it runs) are not in it. kOverflow on absurd sizes.
Result<uint64_t> host_attention_bytes(const HostAttentionShape& shape);

}  // namespace memfit::llamacpp::graph

#endif  // MEMFIT_ENGINES_LLAMACPP_GRAPH_HOST_ATTENTION_H_
