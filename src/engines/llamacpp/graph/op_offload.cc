// Op offload: the scheduler's split of a graph some of whose weights and
// caches the host holds, as one GPU's buffer sees it (ggml_graph.h,
// offload_split). Read from ggml/src/ggml-backend.cpp
// (ggml_backend_sched_backend_id_from_cur; ggml_backend_sched_split_graph's
// passes 1, 2, 4 and 5 and its graph copy: input_dep and input_cpy),
// ggml/src/ggml-cuda/ggml-cuda.cu (ggml_backend_cuda_device_offload_op,
// get_op_batch_size) and ggml/src/ggml-alloc.c (ggml_gallocr_alloc_graph_impl:
// a GGML_OP_NONE node keeps its source alive, the copies are nodes placed
// where the split starts). The rules: docs/llamacpp-rules.md, "Op offload".
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "engines/llamacpp/graph/ggml_graph.h"

namespace memfit::ggml_graph {

namespace {

constexpr int kUnassigned = -2;

bool is_leaf_external(const Tensor& x) { return x.type == Type::kExternal && x.op == Op::kNone; }

// get_op_batch_size: GET_ROWS 0 (ggml-sycl from #10133 to #10432: its ne1,
// OffloadPlan::get_rows), MUL_MAT its ne1, MUL_MAT_ID its ne2 (the
// builders' kOther ops that read a weight are the experts' mul_mat_id),
// any other op its rows (ggml_nrows).
uint64_t batch(const Tensor& x, bool get_rows) {
  switch (x.op) {
    case Op::kGetRows:
      return get_rows ? x.ne[1] : 0;
    case Op::kMulMat:
      return x.ne[1];
    case Op::kOther:
      return x.ne[2];
    default:
      return x.ne[1] * x.ne[2] * x.ne[3];
  }
}

// Pass 1 (ggml_backend_sched_backend_id_from_cur): a tensor in a buffer
// already (a weight, a cache, a view of a cache, a store into a cache)
// where that buffer is; an input on the host (the last backend); an op
// reading a weight (ROPE excepted: "the rope freqs tensor is too small to
// choose a backend based on it") where the weight is, unless the weight
// is the host's and the offload GPU's supports_op (Tensor::offloadable)
// and offload_op take the op ("1.off").
// false where a read external has no home.
bool assign_first(const Graph& g, const OffloadPlan& plan, std::vector<int>& where) {
  for (size_t t = 0; t < g.size(); ++t) {
    const Tensor& x = g.at(static_cast<int>(t));
    if (is_leaf_external(x)) where[t] = x.home;
    if (x.input) where[t] = kHomeHost;
  }
  for (int t : g.nodes()) {
    const Tensor& x = g.at(t);
    int& w = where[static_cast<size_t>(t)];
    if (x.view_src >= 0 && is_leaf_external(g.at(x.view_src))) {
      w = g.at(x.view_src).home;
    } else if (x.type == Type::kExternal) {
      // A store: set_rows's result is a view of the cache.
      for (int s : x.src) {
        const int r = g.at(s).view_src >= 0 ? g.at(s).view_src : s;
        if (g.at(r).cache_slot >= 0) w = g.at(r).home;
      }
    } else if (x.host && !(plan.get_rows && x.op == Op::kGetRows)) {
      // (The token rows' get_rows is the host's by its table's home, which
      // the weight branch below keeps unless the backend takes GET_ROWS.)
      w = kHomeHost;
    } else if (x.op != Op::kRope) {
      for (int s : x.src) {
        if (!g.at(s).weight) continue;
        const int home = g.at(s).home;
        const bool offload = home == kHomeHost && g.at(s).offloadable && plan.min_batch > 0 &&
                             batch(x, plan.get_rows) >= plan.min_batch;
        w = offload ? plan.offload_gpu : home;
        break;
      }
    }
    if (w == kHomeUnset) return false;
    for (int s : x.src) {
      if (is_leaf_external(g.at(s)) && g.at(s).home == kHomeUnset) return false;
    }
  }
  return true;
}

// Pass 2: each unassigned non-view node takes the backend of the nearest
// assigned node before it (`down`) or after it; `gpus_only` skips the host
// ("expand gpu down/up": the CPU is used only where weights are).
void expand(const Graph& g, std::vector<int>& where, bool down, bool gpus_only) {
  const std::vector<int>& nodes = g.nodes();
  int cur = kUnassigned;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const int t = nodes[down ? k : nodes.size() - 1 - k];
    if (g.at(t).op == Op::kView) continue;
    int& w = where[static_cast<size_t>(t)];
    if (w != kUnassigned) {
      cur = gpus_only && w == kHomeHost ? kUnassigned : w;
    } else if (cur != kUnassigned) {
      w = cur;
    }
  }
}

struct Split {
  int backend = kUnassigned;
  size_t begin = 0;  // index into nodes(): the split's first node
  std::vector<int> inputs;
};

// Pass 5: the splits over the non-view nodes, each split's inputs (a
// tensor of another backend, copied once per backend for the graph).
std::vector<Split> make_splits(const Graph& g, const std::vector<int>& where) {
  std::vector<Split> splits;
  std::vector<std::vector<int>> copied_to(g.size());
  const std::vector<int>& nodes = g.nodes();
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Tensor& x = g.at(nodes[k]);
    if (x.op == Op::kView) continue;
    const int b = where[static_cast<size_t>(nodes[k])];
    bool new_split = splits.empty() || splits.back().backend != b;
    if (!new_split && !splits.back().inputs.empty()) {
      for (int s : x.src) {
        if (g.at(s).weight && where[static_cast<size_t>(s)] != b) new_split = true;
      }
    }
    if (new_split) splits.push_back({b, splits.empty() ? 0 : k, {}});
    for (int s : x.src) {
      const int sb = where[static_cast<size_t>(s)];
      std::vector<int>& to = copied_to[static_cast<size_t>(s)];
      if (sb == b || std::find(to.begin(), to.end(), b) != to.end()) continue;
      to.push_back(b);
      splits.back().inputs.push_back(s);
    }
  }
  return splits;
}

}  // namespace

Result<Graph> offload_split(const Graph& full, const OffloadPlan& plan, int device) {
  const size_t n = full.size();
  std::vector<int> where(n, kUnassigned);
  if (!assign_first(full, plan, where)) return Error("op offload: a weight or cache without a home");
  expand(full, where, true, true);
  expand(full, where, false, true);
  expand(full, where, true, false);
  expand(full, where, false, false);
  for (int t : full.nodes()) {
    int& w = where[static_cast<size_t>(t)];
    if (full.at(t).view_src >= 0 && w == kUnassigned) w = where[static_cast<size_t>(full.at(t).view_src)];
    if (w == kUnassigned) w = kHomeHost;  // no GPU op around it: the CPU's
  }
  const std::vector<Split> splits = make_splits(full, where);

  Graph g;
  g.reserve(2 * n);
  std::vector<int> mine(n, -1);     // this device's tensors
  std::vector<int> copy_of(n, -1);  // this device's copies
  std::vector<int> outside(n, -1);  // weights, caches: externals here
  const auto external = [&](int t) {
    int& e = outside[static_cast<size_t>(t)];
    if (e < 0) {
      e = g.external(full.at(t).name);
      g.tensors_.back().cache_slot = full.at(t).cache_slot;
    }
    return e;
  };
  const auto push = [&](Tensor&& y) {
    g.tensors_.push_back(std::move(y));
    g.visited_.push_back(false);
    const int id = static_cast<int>(g.tensors_.size() - 1);
    g.expand(id);
    return id;
  };
  // One of this device's nodes, its sources this device's tensors, its
  // copies or externals. A view another split reads before its place in
  // the order (a view between a split's first node and its reader) is
  // emitted where the reader's split starts: a view takes no bytes.
  std::function<int(int)> emit;
  // A source as this device's graph has it: its copy, this device's own
  // tensor (a view not yet emitted is emitted first), or an external.
  const auto source = [&](int s) {
    const size_t si = static_cast<size_t>(s);
    if (where[si] != device) return copy_of[si] >= 0 ? copy_of[si] : external(s);
    if (mine[si] >= 0) return mine[si];
    return is_leaf_external(full.at(s)) ? external(s) : emit(s);
  };
  emit = [&](int t) {
    Tensor y = full.at(t);
    for (int& s : y.src) s = source(s);
    if (y.view_src >= 0) y.view_src = source(y.view_src);
    mine[static_cast<size_t>(t)] = push(std::move(y));
    return mine[static_cast<size_t>(t)];
  };
  const std::vector<int>& nodes = full.nodes();
  for (size_t i = 0; i < splits.size(); ++i) {
    const Split& sp = splits[i];
    for (int s : sp.inputs) {
      const size_t si = static_cast<size_t>(s);
      if (sp.backend != device && where[si] == device) {
        // input_dep: a GGML_OP_NONE node reading the input keeps it until
        // the other backend's copy is made.
        Tensor dep;
        dep.type = Type::kExternal;
        dep.op = Op::kCpy;
        dep.src = {source(s)};
        dep.name = full.at(s).name + " (dep)";
        push(std::move(dep));
      } else if (sp.backend == device) {
        // input_cpy (ggml_dup_tensor_layout); a weight's or a cache view's
        // copy takes its home's bytes.
        const Tensor& x = full.at(s);
        const int r = x.view_src >= 0 ? x.view_src : s;
        Tensor copy;
        copy.op = Op::kCpy;
        if (is_leaf_external(full.at(r))) {
          copy.ne = {(full.at(r).home_bytes + 3) / 4, 1, 1, 1};
          copy.nb = {4, copy.ne[0] * 4, copy.ne[0] * 4, copy.ne[0] * 4};
        } else {
          copy.type = x.type;
          copy.ne = x.ne;
          copy.nb = x.nb;
        }
        copy.name = x.name + " (copy)";
        copy_of[si] = push(std::move(copy));
      }
    }
    const size_t end = i + 1 < splits.size() ? splits[i + 1].begin : nodes.size();
    for (size_t k = sp.begin; k < end; ++k) {
      const int t = nodes[k];
      if (where[static_cast<size_t>(t)] == device && mine[static_cast<size_t>(t)] < 0) emit(t);
    }
  }
  return g;
}

}  // namespace memfit::ggml_graph
