// The Metal backend's graph optimisation, as the scheduler runs it on a
// split before the split is allocated (ggml-backend.cpp,
// ggml_backend_sched_split_graph: "Optimize this split of the graph ...
// before we make graph_copy"; the Metal backend's graph_optimize,
// ggml-metal-common.cpp ggml_graph_optimize, llama.cpp PR #15929 and
// #16216). It moves nodes earlier so more of them run concurrently, and
// the allocator then places them in the new order: on Metal the compute
// buffer is the replay of the reordered split. Private to the library.
//
// The rule this reproduces (our own code; see docs/llamacpp-rules.md,
// "Compute buffers (replayed)"):
//  - fusable runs are packed first and move as one: a node of op ADD or
//    RMS_NORM followed by ADD, MUL or RMS_NORM nodes (16 at most), the
//    longest prefix where every node but the last has one user and is not
//    an output, and each later node reads the one before it and has its
//    shape;
//  - walking the packed nodes in order, a node that is not concurrent
//    with the running set (it reads what the set writes, or writes what
//    the set reads or writes) closes the set, but first the next 63 nodes
//    are searched (stopping at the first op not on the safe list): one
//    concurrent with the set and with every node passed over (the closing
//    node included) joins the set, ahead of the closing node;
//  - a tensor's memory is its view root's: an unplaced tensor is a range
//    of its own; the KV cache's K and V tensors lie back to back in one
//    buffer (Tensor::cache_slot), and a range ending where another starts
//    overlaps it (ggml_mem_ranges_check's `p1 >= p0`); weights are only
//    read, never conflicting.
#ifndef MEMFIT_ENGINES_LLAMACPP_GRAPH_METAL_REORDER_H_
#define MEMFIT_ENGINES_LLAMACPP_GRAPH_METAL_REORDER_H_

#include "engines/llamacpp/graph/ggml_graph.h"

namespace memfit::ggml_graph {

// `split` (a device_split result) with its nodes in the order the Metal
// backend's graph_optimize leaves them; leaves and tensors unchanged.
Graph metal_reorder(const Graph& split);

}  // namespace memfit::ggml_graph

#endif  // MEMFIT_ENGINES_LLAMACPP_GRAPH_METAL_REORDER_H_
