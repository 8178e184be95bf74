// The graph model and the allocator replay (llamacpp/graph/ggml_graph.h).
#include "engines/llamacpp/graph/ggml_graph.h"

#include <algorithm>
#include <utility>

#include "memfit/checked_math.h"

namespace memfit::ggml_graph {

namespace {

uint64_t type_size(Type type) {
  switch (type) {
    case Type::kF32: return 4;
    case Type::kF16: return 2;
    case Type::kI32: return 4;
    case Type::kI64: return 8;
    case Type::kExternal: return 0;
  }
  return 0;
}

// Strides of a contiguous tensor; saturate on absurd shapes (bytes() then
// saturates too and the replay reports the overflow).
Dims contiguous(Type type, const Dims& ne) {
  Dims nb{};
  CheckedBytes stride = type_size(type);
  for (size_t i = 0; i < 4; ++i) {
    nb[i] = stride.saturated();
    stride *= ne[i];
  }
  return nb;
}

bool can_inplace(Op op) {
  switch (op) {
    case Op::kRmsNorm:
    case Op::kMul:
    case Op::kAdd:
    case Op::kDiv:
    case Op::kClamp:
    case Op::kRope:
    case Op::kSoftMax:
    case Op::kUnary:
    case Op::kScale:
      return true;
    default:
      return false;
  }
}

}  // namespace

int Graph::external(std::string name) {
  Tensor t;
  t.type = Type::kExternal;
  t.name = std::move(name);
  tensors_.push_back(std::move(t));
  visited_.push_back(false);
  return static_cast<int>(tensors_.size() - 1);
}

int Graph::weight(int shared, std::string name) {
  if (!named_weights_) return shared;
  const int t = external(std::move(name));
  tensors_[static_cast<size_t>(t)].weight = true;
  tensors_[static_cast<size_t>(t)].layer = layer_;
  return t;
}

int Graph::cache_external(std::string name) {
  const int t = external(std::move(name));
  tensors_[static_cast<size_t>(t)].cache_slot = cache_slots_++;
  return t;
}

int Graph::input(Type type, Dims ne, std::string name) {
  Tensor t;
  t.type = type;
  t.ne = ne;
  t.nb = contiguous(type, ne);
  t.input = true;
  t.name = std::move(name);
  tensors_.push_back(std::move(t));
  visited_.push_back(false);
  return static_cast<int>(tensors_.size() - 1);
}

int Graph::op(Op op, Type type, Dims ne, std::vector<int> src, std::string name) {
  Tensor t;
  t.type = type;
  t.op = op;
  t.ne = ne;
  t.nb = contiguous(type, ne);
  t.src = std::move(src);
  t.layer = layer_;
  t.name = std::move(name);
  tensors_.push_back(std::move(t));
  visited_.push_back(false);
  return static_cast<int>(tensors_.size() - 1);
}

int Graph::view(int a, Dims ne, Dims nb, uint64_t offset) {
  const Tensor& base = at(a);
  Tensor t;
  t.type = base.type;
  t.op = Op::kView;
  t.ne = ne;
  t.nb = nb;
  t.src = {a};
  t.view_src = base.view_src >= 0 ? base.view_src : a;
  t.view_offset = base.view_offset + offset;
  t.layer = layer_;
  t.name = base.name + " (view)";
  tensors_.push_back(std::move(t));
  visited_.push_back(false);
  return static_cast<int>(tensors_.size() - 1);
}

int Graph::reshape(int a, Dims ne) {
  const Type type = at(a).type;
  return view(a, ne, contiguous(type, ne), 0);
}

int Graph::permute(int a, int ax0, int ax1, int ax2, int ax3) {
  const Tensor& base = at(a);
  const std::array<int, 4> axes = {ax0, ax1, ax2, ax3};
  Dims ne{}, nb{};
  for (size_t i = 0; i < 4; ++i) {
    ne[static_cast<size_t>(axes[i])] = base.ne[i];
    nb[static_cast<size_t>(axes[i])] = base.nb[i];
  }
  return view(a, ne, nb, 0);
}

int Graph::transpose(int a) { return permute(a, 1, 0, 2, 3); }

bool Graph::is_external(int t) const {
  const Tensor& x = at(t);
  return x.type == Type::kExternal || (x.view_src >= 0 && at(x.view_src).type == Type::kExternal);
}

uint64_t Graph::bytes(int t) const {
  const Tensor& x = at(t);
  // ggml_nbytes of an unquantized tensor: the last element's offset + 1.
  CheckedBytes last = type_size(x.type);
  for (size_t i = 0; i < 4; ++i) {
    if (x.ne[i] == 0) return 0;
    last += (CheckedBytes(x.ne[i]) - 1) * x.nb[i];
  }
  return last.saturated();
}

uint64_t Graph::alloc_bytes(int t) const {
  return (CheckedBytes(bytes(t)) + at(t).alloc_extra).saturated();
}

void Graph::reserve(size_t tensors) {
  tensors_.reserve(tensors);
  visited_.reserve(tensors);
  nodes_.reserve(tensors);
}

void Graph::expand(int t) { visit(t); }

void Graph::visit(int t) {
  if (visited_[static_cast<size_t>(t)]) return;
  visited_[static_cast<size_t>(t)] = true;
  // Copied: visiting appends nothing to tensors_, but keep the loop
  // independent of the reference's lifetime.
  const std::vector<int> src = at(t).src;
  for (int s : src) visit(s);
  if (at(t).op == Op::kNone) {
    leaves_.push_back(t);
  } else {
    nodes_.push_back(t);
  }
}

namespace {

constexpr int kHost = -1;

// The backend of every tensor of `full`: kHost, a GPU, or kExternal's
// weights (kNoBackend), as device_split describes.
constexpr int kNoBackend = -2;

std::vector<int> backends(const Graph& full, const std::vector<int>& device_of_layer) {
  const auto of_layer = [&](int layer) {
    const size_t l = static_cast<size_t>(layer);
    return l < device_of_layer.size() ? device_of_layer[l] : (device_of_layer.empty() ? 0 : device_of_layer.back());
  };
  std::vector<int> where(full.size(), kNoBackend);
  for (size_t t = 0; t < full.size(); ++t) {
    const Tensor& x = full.at(static_cast<int>(t));
    if (x.type == Type::kExternal && x.op == Op::kNone) continue;
    if (x.input || x.host || (x.view_src >= 0 && where[static_cast<size_t>(x.view_src)] == kHost)) {
      where[t] = kHost;
    }
  }
  int last = of_layer(0);
  for (int t : full.nodes()) {
    const size_t ti = static_cast<size_t>(t);
    if (where[ti] == kHost) continue;
    const int layer = full.at(t).layer;
    where[ti] = layer >= 0 ? of_layer(layer) : last;
    last = where[ti];
  }
  return where;
}

}  // namespace

Graph device_split(const Graph& full) { return device_split(full, {0}, 0); }

Graph device_split(const Graph& full, const std::vector<int>& device_of_layer, int device) {
  const size_t n = full.size();
  const std::vector<int> where = backends(full, device_of_layer);
  const auto here = [&](int t) { return where[static_cast<size_t>(t)] == device; };
  // The split's inputs, in the order its nodes first read them.
  std::vector<int> inputs;
  std::vector<bool> is_input(n, false);
  for (int t : full.nodes()) {
    if (!here(t)) continue;
    for (int s : full.at(t).src) {
      const size_t si = static_cast<size_t>(s);
      if (here(s) || where[si] == kNoBackend || is_input[si]) continue;
      is_input[si] = true;
      inputs.push_back(s);
    }
  }
  Graph g;
  g.reserve(n + inputs.size());
  std::vector<int> map(n, -1);
  for (int s : inputs) {
    Tensor copy;  // ggml_dup_tensor_layout: the type, shape and strides
    copy.type = full.at(s).type;
    copy.ne = full.at(s).ne;
    copy.nb = full.at(s).nb;
    copy.name = full.at(s).name + " (copy)";
    g.tensors_.push_back(std::move(copy));
    g.visited_.push_back(false);
    map[static_cast<size_t>(s)] = static_cast<int>(g.tensors_.size() - 1);
    g.expand(map[static_cast<size_t>(s)]);
  }
  for (size_t t = 0; t < n; ++t) {
    if (map[t] >= 0) continue;
    const Tensor& x = full.tensors_[t];
    // Weights and the other backends' tensors live in other buffers; a
    // store into the cache (an external node) stays a node, its sources'
    // last user.
    if (!here(static_cast<int>(t))) {
      map[t] = g.external(x.name);
      g.tensors_.back().cache_slot = x.cache_slot;
      continue;
    }
    Tensor y = x;
    for (int& s : y.src) s = map[static_cast<size_t>(s)];
    if (y.view_src >= 0) {
      // A view of another backend's tensor views the copy of its source.
      const int base = x.src.empty() ? -1 : x.src[0];
      if (base >= 0 && is_input[static_cast<size_t>(base)]) {
        y.view_src = map[static_cast<size_t>(base)];
        y.view_offset = 0;
      } else {
        y.view_src = map[static_cast<size_t>(y.view_src)];
      }
    }
    g.tensors_.push_back(std::move(y));
    g.visited_.push_back(false);
    map[t] = static_cast<int>(g.tensors_.size() - 1);
  }
  for (int t : full.nodes()) {
    if (here(t)) g.expand(map[static_cast<size_t>(t)]);
  }
  return g;
}

namespace {

// ggml_dyn_tallocr: free blocks sorted by offset; the last one is the
// buffer's open end (its size is "unbounded", kept as a huge value).
class DynamicAllocator {
 public:
  explicit DynamicAllocator(uint64_t alignment) : alignment_(alignment) {
    blocks_.push_back({0, kOpenEnd});
  }

  uint64_t allocate(uint64_t size) {
    size = align(size);
    int best = -1;
    uint64_t best_size = UINT64_MAX;
    for (size_t i = 0; i + 1 < blocks_.size(); ++i) {
      if (blocks_[i].size >= size && blocks_[i].size <= best_size) {
        best = static_cast<int>(i);
        best_size = blocks_[i].size;
      }
    }
    if (best < 0) best = static_cast<int>(blocks_.size() - 1);
    Block& b = blocks_[static_cast<size_t>(best)];
    const uint64_t offset = b.offset;
    b.offset += size;
    b.size -= size;
    if (b.size == 0) blocks_.erase(blocks_.begin() + best);
    max_size_ = std::max(max_size_, offset + size);
    return offset;
  }

  void free(uint64_t offset, uint64_t size) {
    size = align(size);
    for (size_t i = 0; i < blocks_.size(); ++i) {
      Block& b = blocks_[i];
      if (b.offset + b.size == offset) {
        b.size += size;
        if (i + 1 < blocks_.size() && b.offset + b.size == blocks_[i + 1].offset) {
          b.size += blocks_[i + 1].size;
          blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        }
        return;
      }
      if (offset + size == b.offset) {
        b.offset = offset;
        b.size += size;
        if (i > 0 && blocks_[i - 1].offset + blocks_[i - 1].size == b.offset) {
          blocks_[i - 1].size += b.size;
          blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(i));
        }
        return;
      }
    }
    auto at = std::find_if(blocks_.begin(), blocks_.end(),
                           [&](const Block& b) { return b.offset > offset; });
    blocks_.insert(at, {offset, size});
  }

  uint64_t align(uint64_t size) const { return (size + alignment_ - 1) & ~(alignment_ - 1); }
  uint64_t max_size() const { return max_size_; }

 private:
  // The open end's size: far beyond any buffer the replay accepts, so an
  // open end never runs out (sizes are checked below 2^62 first).
  static constexpr uint64_t kOpenEnd = uint64_t{1} << 63;
  struct Block {
    uint64_t offset;
    uint64_t size;
  };
  uint64_t alignment_;
  std::vector<Block> blocks_;
  uint64_t max_size_ = 0;
};

struct State {
  int children = 0;
  int views = 0;
  bool allocated = false;
  uint64_t offset = 0;
};

bool same_layout(const Tensor& a, const Tensor& b) {
  return a.type == b.type && a.ne == b.ne && a.nb == b.nb;
}

// Every placed tensor's bytes, checked before anything is placed.
Status check_replay_size(const Graph& graph, uint64_t alignment) {
  constexpr uint64_t kLargest = uint64_t{1} << 62;
  CheckedBytes sum = 0;
  for (const std::vector<int>* list : {&graph.leaves(), &graph.nodes()}) {
    for (int t : *list) {
      if (graph.is_external(t) || graph.at(t).view_src >= 0) continue;
      sum += graph.alloc_bytes(t);
      sum += alignment;
    }
  }
  if (!sum.value() || *sum.value() >= kLargest) {
    return Error::overflow("llama.cpp compute graph is too large to replay: the request or the config is absurd");
  }
  return Status::Ok();
}

// ggml_gallocr's passes over one graph: count each tensor's users, then
// place the nodes in order and free each source after its last user.
class Replay {
 public:
  Replay(const Graph& graph, uint64_t alignment, std::vector<AllocEvent>* trace)
      : graph_(graph), alloc_(alignment), trace_(trace) {}

  // The leaves first, then the inputs, as their users are counted.
  void count_users() {
    for (int leaf : graph_.leaves()) allocate_node(leaf);
    for (int t : graph_.nodes()) {
      const Tensor& node = graph_.at(t);
      if (is_view(t)) state(node.view_src).views += 1;
      if (node.input) allocate_node(t);
      for (int s : node.src) {
        state(s).children += 1;
        if (graph_.at(s).input) allocate_node(s);
      }
    }
  }

  // Each node after its sources; a source is freed after its last user (a
  // view's bytes after the last user of the last view).
  void place_nodes() {
    for (int t : graph_.nodes()) {
      const Tensor& node = graph_.at(t);
      for (int s : node.src) allocate_node(s);
      allocate_node(t);
      for (int p : node.src) release_source(p);
    }
  }

  uint64_t high_water_mark() const { return alloc_.max_size(); }

 private:
  State& state(int t) {
    if (static_cast<size_t>(t) >= st_.size()) st_.resize(static_cast<size_t>(t) + 1);
    return st_[static_cast<size_t>(t)];
  }

  bool is_view(int t) const { return graph_.at(t).view_src >= 0; }

  void record(AllocEvent::Kind kind, int t, int parent, uint64_t offset, uint64_t size) {
    if (trace_) trace_->push_back({kind, t, parent, offset, alloc_.align(size)});
  }

  // Takes over the bytes of the first source the node may run in place
  // on; false when there is none.
  bool reuse_parent(int t) {
    const Tensor& node = graph_.at(t);
    State& hn = state(t);
    for (int p : node.src) {
      if (graph_.is_external(p) || is_view(p) || !state(p).allocated) continue;
      const Tensor& parent = graph_.at(p);
      if (parent.output || !same_layout(node, parent)) continue;
      State& ph = state(p);
      if (ph.children == 1 && ph.views == 0) {
        hn.offset = ph.offset;
        ph.allocated = false;
        record(AllocEvent::Kind::kInplace, t, p, hn.offset, graph_.alloc_bytes(t));
        const uint64_t parent_size = alloc_.align(graph_.alloc_bytes(p));
        const uint64_t node_size = alloc_.align(graph_.alloc_bytes(t));
        if (parent_size > node_size) alloc_.free(ph.offset + node_size, parent_size - node_size);
        return true;
      }
    }
    return false;
  }

  void allocate_node(int t) {
    if (graph_.is_external(t) || is_view(t) || state(t).allocated) return;
    state(t).allocated = true;
    if (can_inplace(graph_.at(t).op) && reuse_parent(t)) return;
    State& hn = state(t);
    hn.offset = alloc_.allocate(graph_.alloc_bytes(t));
    record(AllocEvent::Kind::kAlloc, t, -1, hn.offset, graph_.alloc_bytes(t));
  }

  void free_node(int t) {
    if (graph_.at(t).output) return;
    State& hn = state(t);
    record(AllocEvent::Kind::kFree, t, -1, hn.offset, graph_.alloc_bytes(t));
    alloc_.free(hn.offset, graph_.alloc_bytes(t));
    hn.allocated = false;
  }

  // One use of source p is done: free it (or its view's root) when it
  // was the last.
  void release_source(int p) {
    State& ph = state(p);
    ph.children -= 1;
    if (ph.children != 0 || ph.views != 0) return;
    if (is_view(p)) {
      const int root = graph_.at(p).view_src;
      State& rh = state(root);
      rh.views -= 1;
      if (rh.views == 0 && rh.children == 0 && rh.allocated) free_node(root);
    } else if (ph.allocated) {
      free_node(p);
    }
  }

  const Graph& graph_;
  DynamicAllocator alloc_;
  std::vector<AllocEvent>* trace_;
  std::vector<State> st_;
};

}  // namespace

Result<uint64_t> replay_allocation(const Graph& graph, uint64_t alignment,
                                   std::vector<AllocEvent>* trace) {
  if (Status too_large = check_replay_size(graph, alignment); !too_large) return too_large.error();
  Replay replay(graph, alignment, trace);
  replay.count_users();
  replay.place_nodes();
  return replay.high_water_mark();
}

}  // namespace memfit::ggml_graph
