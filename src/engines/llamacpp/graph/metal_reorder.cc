// The Metal reorder (llamacpp/graph/metal_reorder.h).
#include "engines/llamacpp/graph/metal_reorder.h"

#include <utility>
#include <vector>

namespace memfit::ggml_graph {

namespace {

// A range's buffer: a tensor id (an unplaced tensor is its own buffer,
// as ggml_mem_range_from_tensor keys it by the tensor), or the KV cache's.
constexpr int kCacheBuffer = -2;
constexpr int kNoRange = -1;  // a weight: read only, never conflicting

// How many nodes past a closing node the search looks (N_FORWARD - 1;
// N_FORWARD is 64 in the early-2026 source, whose safe list already names
// late-2025 ops such as GGML_OP_TRI; #15929 began with 8).
constexpr size_t kLookAhead = 63;
// The longest fused run (MAX_FUSE).
constexpr size_t kMaxFuse = 16;

bool empty_op(Op op) { return op == Op::kView; }

// The ops the search may move past or move (h_safe), as far as the graph
// model names them (CONT, SUB, SET, REPEAT and the SSM ops are kOther
// here, so the search stops at them: a shorter search, never a wrong one).
bool safe_op(Op op) {
  switch (op) {
    case Op::kMulMat:
    case Op::kRope:
    case Op::kRmsNorm:
    case Op::kMul:
    case Op::kAdd:
    case Op::kDiv:
    case Op::kGlu:
    case Op::kScale:
    case Op::kGetRows:
    case Op::kCpy:
    case Op::kSetRows:
    case Op::kView:
      return true;
    default:
      return false;
  }
}

// A packed node: a fused run of the split's nodes, first to last.
struct Packed {
  std::vector<int> nodes;
};

// [lo, hi) in a buffer: an unplaced tensor is [0, 1) of its own; cache
// slot i is [i, i + 1) of the cache's, so a layer's K touches its V.
struct Range {
  int buffer;
  uint64_t lo;
  uint64_t hi;
  bool dst;
};

class Ranges {
 public:
  explicit Ranges(const Graph& g) : g_(g) {}

  void clear() { ranges_.clear(); }

  bool fits(const Packed& p) const {
    for (int t : p.nodes) {
      for (int s : g_.at(t).src) {
        if (!fits(range(s, false))) return false;
      }
    }
    return fits(dst_range(p.nodes.back()));
  }

  void add(const Packed& p) {
    for (int t : p.nodes) {
      for (int s : g_.at(t).src) add(range(s, false));
    }
    add(dst_range(p.nodes.back()));
  }

 private:
  // The range tensor t's bytes are: its view root's.
  Range range(int t, bool dst) const {
    const Tensor& x = g_.at(t);
    const int root = x.view_src >= 0 ? x.view_src : t;
    const Tensor& r = g_.at(root);
    if (r.cache_slot >= 0) {
      const uint64_t slot = static_cast<uint64_t>(r.cache_slot);
      return {kCacheBuffer, slot, slot + 1, dst};
    }
    if (r.type == Type::kExternal) return {kNoRange, 0, 0, dst};
    return {root, 0, 1, dst};
  }
  // A store (an external node) writes its cache, its last source.
  Range dst_range(int t) const {
    const Tensor& x = g_.at(t);
    if (x.type == Type::kExternal && !x.src.empty()) return range(x.src.back(), true);
    return range(t, true);
  }

  void add(Range r) {
    if (r.buffer != kNoRange) ranges_.push_back(r);
  }

  // ggml_mem_ranges_check: sources may overlap sources; otherwise ranges
  // of one buffer conflict where r starts before c ends and ends at or
  // after c starts (so r touching c from below conflicts).
  bool fits(Range r) const {
    if (r.buffer == kNoRange) return true;
    for (const Range& c : ranges_) {
      if (c.buffer != r.buffer || (!r.dst && !c.dst)) continue;
      if (r.lo < c.hi && r.hi >= c.lo) return false;
    }
    return true;
  }

  const Graph& g_;
  std::vector<Range> ranges_;
};

std::vector<int> use_counts(const Graph& g) {
  std::vector<int> uses(g.size(), 0);
  for (int t : g.nodes()) {
    for (int s : g.at(t).src) uses[static_cast<size_t>(s)] += 1;
  }
  return uses;
}

bool fuse_start(Op op) { return op == Op::kAdd || op == Op::kRmsNorm; }
bool fuse_next(Op op) { return op == Op::kAdd || op == Op::kMul || op == Op::kRmsNorm; }

// ggml_can_fuse over nodes [i, i + n) of the split.
bool can_fuse(const Graph& g, const std::vector<int>& uses, size_t i, size_t n) {
  const std::vector<int>& nodes = g.nodes();
  for (size_t k = 0; k < n; ++k) {
    const int t = nodes[i + k];
    if (k + 1 < n && (uses[static_cast<size_t>(t)] != 1 || g.at(t).output)) return false;
    if (k > 0) {
      const int prev = nodes[i + k - 1];
      const std::vector<int>& src = g.at(t).src;
      const bool reads = (!src.empty() && src[0] == prev) || (src.size() > 1 && src[1] == prev);
      if (!reads || g.at(t).ne != g.at(prev).ne) return false;
    }
  }
  return true;
}

std::vector<Packed> pack(const Graph& g) {
  const std::vector<int>& nodes = g.nodes();
  const std::vector<int> uses = use_counts(g);
  std::vector<Packed> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    Packed p{{nodes[i]}};
    if (fuse_start(g.at(nodes[i]).op)) {
      size_t f = 1;
      while (i + f < nodes.size() && f < kMaxFuse && fuse_next(g.at(nodes[i + f]).op)) ++f;
      for (; f > 1; --f) {
        if (can_fuse(g, uses, i, f)) break;
      }
      for (size_t k = 1; k < f; ++k) p.nodes.push_back(nodes[i + k]);
      i += f - 1;
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

Graph metal_reorder(const Graph& split) {
  const std::vector<Packed> packed = pack(split);
  const size_t n = packed.size();
  std::vector<size_t> order;
  order.reserve(n);
  std::vector<bool> used(n, false);
  Ranges running(split);  // the concurrent set
  Ranges passed(split);   // the nodes passed over by the search
  for (size_t i0 = 0; i0 < n; ++i0) {
    if (used[i0]) continue;
    const Packed& node0 = packed[i0];
    const bool empty0 = empty_op(split.at(node0.nodes.front()).op);
    if (!empty0 && !running.fits(node0)) {
      passed.clear();
      passed.add(node0);
      for (size_t i1 = i0 + 1; i1 <= i0 + kLookAhead && i1 < n; ++i1) {
        if (used[i1]) continue;
        const Packed& node1 = packed[i1];
        const Op op1 = split.at(node1.nodes.front()).op;
        if (!safe_op(op1)) break;
        if ((empty_op(op1) || running.fits(node1)) && passed.fits(node1)) {
          running.add(node1);
          order.push_back(i1);
          used[i1] = true;
        } else {
          passed.add(node1);
        }
      }
      running.clear();
    }
    running.add(node0);
    order.push_back(i0);
  }
  Graph out = split;
  out.nodes_.clear();
  for (size_t i : order) {
    for (int t : packed[i].nodes) out.nodes_.push_back(t);
  }
  return out;
}

}  // namespace memfit::ggml_graph
