// A shape-only model of a ggml compute graph and a replay of ggml-alloc
// over it: what the pinned llama.cpp's graph allocator (ggml_gallocr with
// its dynamic best-fit allocator) would place, so a compute buffer's size
// comes out as the allocator's own high-water mark instead of a sum of
// phases. Nothing is computed; a tensor is its type, shape, strides, op and
// sources. Private to the library (llamacpp/graph/decoder.cc builds graphs).
//
// Invariants the replay keeps from the allocator it models:
//  - tensors are visited in the graph's order, sources before users, as
//    ggml_build_forward_expand lists them (depth first, sources in order);
//  - leaves that the graph owns (inputs) are placed first, in leaf order;
//  - a node takes over the bytes of its first source (in source order)
//    that it may: its op may run in place, the source is placed by this
//    graph (not a view, not external), not an output, of the same type,
//    shape and strides, and this node is its only user (a view of it
//    counts as a user until freed);
//  - a tensor is freed after its last user (a view's bytes after the last
//    user of the last view); outputs are never freed;
//  - free blocks are kept sorted by offset and merged with neighbours; a
//    request takes the smallest block that fits among all but the last,
//    else the last (which grows the buffer), sizes rounded up to the
//    buffer's alignment.
// External tensors (weights, the KV cache) are never placed.
#ifndef MEMFIT_ENGINES_LLAMACPP_GRAPH_GGML_GRAPH_H_
#define MEMFIT_ENGINES_LLAMACPP_GRAPH_GGML_GRAPH_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "memfit/result.h"

namespace memfit::ggml_graph {

// The element types activations take; kExternal for tensors that live in
// another buffer (their bytes are never counted).
enum class Type { kF32, kF16, kI32, kI64, kExternal };

// The ops whose in-place rule matters are named; the rest are kOther.
enum class Op {
  kNone,  // a leaf
  kView,  // view, reshape, permute, transpose: no bytes of their own
  kRmsNorm,
  kMul,
  kAdd,
  kDiv,
  kClamp,
  kRope,
  kSoftMax,
  kUnary,  // sigmoid, silu, ... (GGML_OP_UNARY)
  kScale,
  // Named for the Metal backend's reorder (metal_reorder.h), which moves
  // only these and the ones above among its "safe" ops; never in place.
  kMulMat,
  kGetRows,
  kSetRows,
  kCpy,
  kGlu,
  kOther,  // flash_attn_ext, cont, soft_max_ext's kin, argsort, ...
};

using Dims = std::array<uint64_t, 4>;

struct Tensor {
  Type type = Type::kF32;
  Op op = Op::kNone;
  Dims ne = {1, 1, 1, 1};
  Dims nb = {0, 0, 0, 0};  // strides in bytes
  std::vector<int> src;    // sources, in order
  int view_src = -1;       // the viewed tensor (never itself a view)
  uint64_t view_offset = 0;
  bool input = false;
  bool output = false;
  // Run by the host backend when a GPU runs the rest (an input, or an op
  // the scheduler keeps on the host: the token rows' get_rows on the
  // host's token_embd). Read by device_split.
  bool host = false;
  // The layer whose ops made it (Graph::set_layer), which decides its GPU
  // under a layer split; -1 for the graph's own (inputs, the mask's cast).
  int layer = -1;
  // Bytes the buffer type allocates past the tensor's own
  // (ggml_backend_buft_get_alloc_size - ggml_nbytes): ggml-metal's flash
  // attention scratch (builders.h, metal_flash_attn_scratch). The replay
  // places and frees alloc_bytes(), this included.
  uint64_t alloc_extra = 0;
  // A KV cache tensor (external): its place in the cache's buffer, which
  // holds layer 0's K, its V, layer 1's K, ... back to back (llama.cpp's
  // llama_kv_cache makes them in that order); -1 for any other tensor.
  // Read by metal_reorder, whose range check sees neighbours touch.
  int cache_slot = -1;
  // A weight (Graph::weight): an external that ggml's scheduler treats as
  // the WEIGHTS buffer's (ops reading it run where it lives, or are
  // offloaded: offload_split).
  bool weight = false;
  // Where an external weight or KV cache tensor lives for offload_split
  // (kHome* below or a GPU's index) and the bytes a copy of it (or of a
  // view of a cache) takes; set by the builder's caller (Graph::set_home).
  int home = -3;
  uint64_t home_bytes = 0;
  // A host weight whose product the offload GPU's supports_op takes; false:
  // its op stays on the host whatever the batch (offload_split, pass 1).
  bool offloadable = true;
  std::string name;        // for traces and tests
};

// Tensor::home: the host backend (the CPU, the scheduler's last backend).
constexpr int kHomeHost = -1;
// Tensor::home: not set (offload_split declines such a graph).
constexpr int kHomeUnset = -3;

struct OffloadPlan;

// A graph under construction: ops append tensors and return their ids.
// Shapes are caller-checked: every element count fits 64 bits (the
// builder's inputs are bounded before it runs).
class Graph {
 public:
  int external(std::string name = "weight");
  // The next KV cache tensor (Tensor::cache_slot), external: a builder asks
  // for each layer's K, then its V, layer by layer.
  int cache_external(std::string name);
  int input(Type type, Dims ne, std::string name);
  // The weight `name` (its GGUF name, as blk.<layer>.attn_q.weight) where
  // the graph names its weights (set_named_weights), else `shared`, the
  // builder's one external for every weight.
  int weight(int shared, std::string name);
  void set_named_weights(bool on) { named_weights_ = on; }
  // The layer set_layer named last (-1 before any).
  int layer() const { return layer_; }
  void set_home(int t, int home, uint64_t bytes, bool offloadable = true) {
    tensors_[static_cast<size_t>(t)].home = home;
    tensors_[static_cast<size_t>(t)].home_bytes = bytes;
    tensors_[static_cast<size_t>(t)].offloadable = offloadable;
  }
  // A new contiguous tensor, result of `op` over `src`.
  int op(Op op, Type type, Dims ne, std::vector<int> src, std::string name = "");
  // Views (reshape is a contiguous view of a contiguous tensor).
  int reshape(int a, Dims ne);
  int view(int a, Dims ne, Dims nb, uint64_t offset);
  int permute(int a, int ax0, int ax1, int ax2, int ax3);
  int transpose(int a);

  // Room for `tensors` tensors (a builder's bound; growing is correct too).
  void reserve(size_t tensors);

  // ggml_build_forward_expand: appends `t` and its unvisited sources.
  void expand(int t);
  void set_output(int t) { tensors_[static_cast<size_t>(t)].output = true; }
  // The scheduler runs `t` on the host backend (Tensor::host); inputs are
  // the host's without it.
  void set_host(int t) { tensors_[static_cast<size_t>(t)].host = true; }
  // The ops made from now on belong to `layer` (Tensor::layer); -1 for
  // none. A builder names its blocks 0..L-1 and the output layer L.
  void set_layer(int layer) { layer_ = layer; }
  void set_alloc_extra(int t, uint64_t bytes) { tensors_[static_cast<size_t>(t)].alloc_extra = bytes; }

  const Tensor& at(int t) const { return tensors_[static_cast<size_t>(t)]; }
  bool is_external(int t) const;
  uint64_t bytes(int t) const;        // ggml_nbytes
  uint64_t alloc_bytes(int t) const;  // the bytes a placed tensor takes: bytes() + alloc_extra
  const std::vector<int>& nodes() const { return nodes_; }
  const std::vector<int>& leaves() const { return leaves_; }
  size_t size() const { return tensors_.size(); }

 private:
  friend Graph device_split(const Graph& full, const std::vector<int>& device_of_layer, int device);
  friend Graph metal_reorder(const Graph& split);
  friend Result<Graph> offload_split(const Graph& full, const OffloadPlan& plan, int device);
  void visit(int t);
  int layer_ = -1;
  bool named_weights_ = false;
  int cache_slots_ = 0;
  std::vector<Tensor> tensors_;
  std::vector<bool> visited_;
  std::vector<int> nodes_;
  std::vector<int> leaves_;
};

// The graph one GPU's compute buffer is reserved with when the GPUs run
// every node of `full` but the host's (inputs, Tensor::host, and views of
// them), each layer's ops on `device_of_layer[layer]` (its blocks 0..L-1,
// the output layer L) and an op of no layer on the GPU of the node before
// it (ggml-backend.cpp's "expand gpu down"; llama.cpp pins each layer's
// norm to its layer's device under a full offload). For GPU `device`:
// ggml_backend_sched_split_graph makes its nodes a split, whose inputs
// (each tensor of another backend its nodes read) are copied into its
// buffer (ggml_dup_tensor_layout) and added to the graph copy at the
// split's start, "so that they are allocated by ggml-alloc at the start of
// the split", in the order the split first reads them; each copy is freed
// after its last reader. In the result the other backends' tensors are
// external (other buffers), the copies come first (as leaves, placed in
// that order), and the device's nodes follow in `full`'s order. One copy
// each: pipeline parallelism's n_copies (inputs and outputs both, never
// freed) is not this graph. The device's nodes must be one run of `full`'s
// order (one split), as under a layer split.
Graph device_split(const Graph& full, const std::vector<int>& device_of_layer, int device);
// Every layer on one GPU (device 0).
Graph device_split(const Graph& full);

// Op offload (ggml-backend.cpp, ggml_backend_sched_split_graph and
// ggml_backend_sched_backend_id_from_cur; the GPU backends' offload_op):
// the scheduler's backends for a graph whose weights and caches live where
// their Tensor::home says.
struct OffloadPlan {
  // The highest-priority GPU backend (the scheduler's first), which takes
  // an op whose weight is the host's when its batch reaches min_batch.
  int offload_gpu = 0;
  // ggml-cuda's offload_op: get_op_batch_size(op) >= 32 (Vulkan and SYCL
  // the same); 0 turns op offload off (--no-op-offload).
  uint64_t min_batch = 32;
  // ggml-sycl from #10133 to #10432 (llamacpp::offloads_get_rows): its
  // get_op_batch_size counts a GET_ROWS's rows (ne1), so a get_rows on the
  // host's table goes to offload_gpu too; every other backend's is 0.
  bool get_rows = false;
};

// The graph GPU `device`'s compute buffer is reserved with when op offload
// may move the host's products: every tensor of `full` assigned as
// ggml_backend_sched_split_graph does (pass 1: a view of a cache or a store
// into it where the cache lives, an input on the host, an op that reads a
// weight (not ROPE) where the weight lives unless the weight is the host's
// and the op's batch reaches plan.min_batch (not GET_ROWS): then on
// plan.offload_gpu; pass 2: the GPUs expanded down, then up, then every
// backend down and up, over non-view nodes; views where their source is),
// cut into splits (a new one where the backend changes, or where a node
// reads a weight of another backend and the split already has inputs: "by
// starting a new split, the memory of the previously offloaded weights can
// be reused"), each split's inputs copied once per backend
// (ggml_dup_tensor_layout; a weight's or a cache view's copy takes its
// home_bytes) and placed at the split's start, and a tensor another
// backend's split copies kept until that split starts (the scheduler's
// input_dep). Error where an external weight or cache has no home.
Result<Graph> offload_split(const Graph& full, const OffloadPlan& plan, int device);

// One event of the replay, for tests and traces: a tensor placed (or
// reusing `parent`'s bytes in place) or freed, at [offset, offset + size).
struct AllocEvent {
  enum class Kind { kAlloc, kInplace, kFree } kind = Kind::kAlloc;
  int tensor = -1;
  int parent = -1;
  uint64_t offset = 0;
  uint64_t size = 0;
};

// The buffer the allocator would reserve for `graph` (its high-water mark,
// bytes), every placement rounded to `alignment` (a power of two). Appends
// the events to `trace` when it is not null. kOverflow past 64 bits.
Result<uint64_t> replay_allocation(const Graph& graph, uint64_t alignment,
                                   std::vector<AllocEvent>* trace = nullptr);

}  // namespace memfit::ggml_graph

#endif  // MEMFIT_ENGINES_LLAMACPP_GRAPH_GGML_GRAPH_H_
