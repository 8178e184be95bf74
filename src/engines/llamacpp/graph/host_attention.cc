// The host's buffer where it runs GPU layers' flash attention
// (host_attention.h): a shape-only graph of the tensors that buffer holds,
// replayed by ggml_graph::replay_allocation. Each tensor is an f32 row of
// its bytes / 4 (rounded up: the 32-B alignment rounds further anyway); a
// tensor another backend holds is external, so a copy to it frees its
// source after the read and takes no bytes here.
#include "engines/llamacpp/graph/host_attention.h"

#include "engines/llamacpp/graph/ggml_graph.h"

namespace memfit::llamacpp::graph {
namespace {

using ggml_graph::Dims;
using ggml_graph::Graph;
using ggml_graph::Op;
using ggml_graph::Type;

// The host's buffer alignment (the CPU buffer type's TENSOR_ALIGNMENT).
constexpr uint64_t kHostAlignment = 32;

Dims f32_of(uint64_t bytes) { return {(bytes + 3) / 4, 1, 1, 1}; }

// A copy into the host buffer of a tensor another backend holds.
int copy_in(Graph& g, uint64_t bytes, const char* name) {
  return g.op(Op::kCpy, Type::kF32, f32_of(bytes), {g.external()}, name);
}

// A copy of `t` to another backend: its last read here.
void copy_out(Graph& g, int t) { g.expand(g.op(Op::kCpy, Type::kExternal, {1, 1, 1, 1}, {t}, "copy out")); }

}  // namespace

Result<uint64_t> host_attention_bytes(const HostAttentionShape& s) {
  Graph g;
  g.reserve(16 + 8 * s.layers.size());
  const auto input = [&](uint64_t bytes, const char* name) {
    if (bytes == 0) return -1;
    const int t = g.input(Type::kF32, f32_of(bytes), name);
    g.expand(t);  // a leaf, placed in this order
    return t;
  };
  // The graph inputs in the order the graph first reads them: the token
  // ids, then the first block's split (positions, each cache's indices and
  // mask, the first attention layer's cache first), the output ids.
  std::vector<int> kept;
  const int tokens = input(s.token_ids, "inp_tokens");
  kept.push_back(input(s.positions, "inp_pos"));
  std::array<int, kCacheKinds> mask = {-1, -1};
  std::vector<int> order;
  for (const HostAttentionLayer& l : s.layers) {
    if (l.cache < 0 || l.cache >= kCacheKinds) continue;
    bool seen = false;
    for (int c : order) seen = seen || c == l.cache;
    if (!seen) order.push_back(l.cache);
  }
  for (int c : order) {
    const size_t k = static_cast<size_t>(c);
    kept.push_back(input(s.k_idxs[k], "k_idxs"));
    kept.push_back(input(s.v_idxs[k], "v_idxs"));
    mask[k] = input(s.mask[k], "kq_mask");
  }
  kept.push_back(input(s.output_ids, "inp_out_ids"));
  input(s.input_leaf, "inp_embd");
  // The token rows, gathered here and copied to the first GPU.
  if (tokens >= 0 && s.rows > 0) {
    copy_out(g, g.op(Op::kGetRows, Type::kF32, f32_of(s.rows), {g.external(), tokens}, "inp_embd rows"));
  }
  std::array<int, kCacheKinds> f16_mask = {-1, -1};
  for (const HostAttentionLayer& l : s.layers) {
    if (l.cache < 0 || l.cache >= kCacheKinds) continue;
    const size_t k = static_cast<size_t>(l.cache);
    if (f16_mask[k] < 0) {
      if (s.mask_cast) {
        // The first GPU's split copies the F32 mask for its cast: its last read.
        if (mask[k] >= 0) copy_out(g, mask[k]);
        f16_mask[k] = s.mask[k] > 0 ? copy_in(g, s.mask[k] / 2, "kq_mask f16 copy") : -1;
      } else {
        f16_mask[k] = mask[k];
      }
    }
    std::vector<int> src = {copy_in(g, s.query, "q copy"), copy_in(g, l.k_bytes, "k copy"),
                            copy_in(g, l.v_bytes, "v copy")};
    if (f16_mask[k] >= 0) src.push_back(f16_mask[k]);
    if (s.sinks > 0) src.push_back(copy_in(g, s.sinks, "sinks copy"));
    copy_out(g, g.op(Op::kOther, Type::kF32, f32_of(s.output), src, "flash_attn_ext"));
  }
  // The positions, indices and output ids are read by every GPU's split
  // up to the last block's: alive to the end.
  std::vector<int> live;
  for (int t : kept) {
    if (t >= 0) live.push_back(t);
  }
  if (!live.empty()) g.expand(g.op(Op::kOther, Type::kExternal, {1, 1, 1, 1}, live, "last block"));
  return ggml_graph::replay_allocation(g, kHostAlignment);
}

}  // namespace memfit::llamacpp::graph
